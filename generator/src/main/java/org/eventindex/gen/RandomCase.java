package org.eventindex.gen;

import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.SpbFormatException;

import java.util.List;
import java.util.Objects;

/**
 * One object of {@link RandomObjects}: its gzipped SPB bytes and the model they were written from, so that a check can
 * compute what a consumer and the Kudu loader must make of it without reading the bytes back.
 *
 * @param seed             the generator's seed
 * @param number           the case number within the seed ({@code (seed, number)} gives the same case again)
 * @param kind             what the case exercises, e.g. {@code tokens}
 * @param variant          how, e.g. {@code 32} (within the limit) or {@code 33} (past it)
 * @param past             true when the case was made past a documented limit or against a content rule, so a reader
 *                         of the rules expects the object to be refused
 * @param expectedProblem  for a case made past a limit or rule, the problem the rules name for it
 *                         ({@link SpbFormatException.Problem#OVERSIZE} past a size limit, {@code BAD_CONTENT} against a
 *                         content rule); null for a case made within them
 * @param detail           where the case's point is: file, event and field, in words
 * @param dataset          the dataset name written in the Header ({@code inputDsName}), unique per case
 * @param simulation       whether the dataset is a simulation one (a project other than {@code data*}); its events
 *                         say so too, except in {@code simulation-flag} cases, which flip some or all of them
 * @param header           the Header written
 * @param files            the input files in file order (empty only for a case without any BeginGUID)
 * @param jobInputs        the GUIDs the job was asked to index, as its sender would report them: the files' GUIDs, or,
 *                         when the object holds no input file at all, the one GUID the job wrote nothing for
 * @param spb              the object: the gzipped SPB stream
 * @param uncompressedBytes bytes of the SPB stream before gzip (the producer's {@code usize})
 */
public record RandomCase(long seed, int number, String kind, String variant, boolean past,
                         SpbFormatException.Problem expectedProblem, String detail, String dataset, boolean simulation,
                         Header_p1 header, List<InputFile> files, List<String> jobInputs, byte[] spb,
                         long uncompressedBytes) {

    public RandomCase {
        Objects.requireNonNull(kind, "kind is null");
        Objects.requireNonNull(variant, "variant is null");
        Objects.requireNonNull(detail, "detail is null");
        Objects.requireNonNull(dataset, "dataset is null");
        Objects.requireNonNull(header, "header is null");
        files = List.copyOf(files);
        jobInputs = List.copyOf(jobInputs);
        Objects.requireNonNull(spb, "spb is null");
        if (past != (expectedProblem != null)) {
            throw new IllegalArgumentException("a case past a limit names its problem, one within names none: " + past
                    + ", " + expectedProblem);
        }
    }

    /** {@code kind/variant}: what the case exercises, for counting cases by what they cover. */
    public String label() {
        return kind + "/" + variant;
    }

    /** {@code seed S case N}: enough to make the case again ({@link RandomObjects#generate(int)}). */
    public String id() {
        return "seed " + seed + " case " + number;
    }

    /** Events of all files. */
    public long events() {
        return files.stream().mapToLong(f -> f.events().size()).sum();
    }

    /**
     * One input file: its BeginGUID, its trigger menus where they are in the stream, its events in file order and the
     * EndGUID's {@code endProcTime} (the writer computes the EndGUID's count).
     */
    public record InputFile(BeginGUID_p1 begin, List<Menu> menus, List<EIEvent_p1> events, long endProcTime) {
        public InputFile {
            Objects.requireNonNull(begin, "begin is null");
            menus = List.copyOf(menus);
            events = List.copyOf(events);
        }

        /** The file's GUID (BeginGUID {@code guid}). */
        public String guid() {
            return begin.getGuid();
        }

        /** The file's first TriggerMenu in stream order, or null when it has none. */
        public TriggerMenu_p1 firstMenu() {
            return menus.isEmpty() ? null : menus.get(0).menu();
        }
    }

    /**
     * A TriggerMenu and where it is written: before the file's event {@code beforeEvent} (the number of events equals
     * "after the last event").
     */
    public record Menu(int beforeEvent, TriggerMenu_p1 menu) {
        public Menu {
            Objects.requireNonNull(menu, "menu is null");
            if (beforeEvent < 0) {
                throw new IllegalArgumentException("beforeEvent is negative: " + beforeEvent);
            }
        }
    }
}
