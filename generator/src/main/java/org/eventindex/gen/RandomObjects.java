package org.eventindex.gen;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import org.eventindex.names.DatasetName;
import org.eventindex.names.Printable;
import org.eventindex.names.TriggerMask;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.SpbContentLimits;
import org.eventindex.spb.SpbFormatException.Problem;
import org.eventindex.spb.SpbWriter;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPInputStream;

import static java.util.Objects.requireNonNull;

/**
 * Random SPB objects for differential checks of the producer against the consumer and the loader (issue 30: what the
 * producer accepts, the consumer and the loader must load). Each case is one producer object of a dataset of its own:
 * a Header with a valid taskID and jobID (not what is under test), 1-4 input files, each with 0 to a few hundred
 * events and optional TriggerMenus, written with {@link SpbWriter}, plus the model it was written from
 * ({@link RandomCase}).
 * <p>
 * Every case is valid content (random tokens in both OID forms, trigger masks, keys present or left to the menu,
 * uint32 and uint64 extremes, duplicates across files) except for its {@link Kind}: one place where the case goes
 * right up to a documented limit or rule of {@link org.eventindex.spb.ContentRules} and
 * {@link SpbContentLimits} (e.g. 32 tokens, a 1024-byte token, a mask padded to 2048 bytes), or, in about
 * {@value #PAST_PERCENT}% of the kinds that have one, just past it (33 tokens, 1025 bytes, 2049 bytes, a {@code #} in
 * a mask, invalid UTF-8, a second run...). About two thirds of all cases are within the rules.
 * <p>
 * Deterministic: case {@code n} of seed {@code s} is a pure function of {@code (s, n)}, whatever was generated before
 * it, so a single case can be made again from its id. Every decision comes from a {@link Choices}, so a fuzzer can
 * drive the same generator ({@link #generate(Choices, long, int)}).
 */
public final class RandomObjects {

    /** What a case exercises; each has variants within the rules, past them, or both. */
    public enum Kind {
        TOKEN_COUNT("tokens", true, true),
        TOKEN_FORM("token-form", true, true),
        L1_MASK("l1-mask", true, true),
        HLT_MASK("hlt-mask", true, true),
        L2_MASK("l2-mask", true, true),
        RUN("run", true, true),
        SIMULATION_FLAG("simulation-flag", true, true),
        EVENT_NUMBERS("event-numbers", true, false),
        NAMES("names", true, true),
        MENUS("menus", true, true),
        EMPTY_FILE("empty-file", true, false),
        BIG_EVENT("big-event", true, false),
        UNKNOWN_FIELDS("unknown-fields", true, false),
        NO_INPUT_FILES("no-input-files", false, true),
        PLAIN("plain", true, false);

        private final String label;
        private final boolean within;
        private final boolean past;

        Kind(String label, boolean within, boolean past) {
            this.label = label;
            this.within = within;
            this.past = past;
        }

        /** The name cases of this kind are counted under. */
        public String label() {
            return label;
        }
    }

    /** Chance in percent that a kind with both variants is made past its limit or rule. */
    public static final int PAST_PERCENT = 38;

    private final long seed;

    public RandomObjects(long seed) {
        this.seed = seed;
    }

    public long seed() {
        return seed;
    }

    /** Case {@code number} of this generator's seed. */
    public RandomCase generate(int number) {
        return generate(Choices.of(new Random(caseSeed(seed, number))), seed, number);
    }

    /**
     * One case from {@code choices}; {@code seed} and {@code number} only name it (and make its dataset name unique:
     * two cases of one seed never share a dataset).
     */
    public static RandomCase generate(Choices choices, long seed, int number) {
        requireNonNull(choices, "choices is null");
        if (number < 0) {
            throw new IllegalArgumentException("case number is negative: " + number);
        }
        return new OneCase(choices, seed, number).build();
    }

    /** The seed of case {@code number}'s own {@link Random}: cases do not depend on one another. */
    static long caseSeed(long seed, int number) {
        long z = seed + 0x9E3779B97F4A7C15L * (number + 1L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    // ---------------------------------------------------------------------------------------------------------------

    /** Text pieces of various UTF-8 widths: 2, 3 and 4 bytes, a no-break space, a replacement char, Greek, CJK. */
    private static final List<String> NON_ASCII = List.of("é", "ü", "ß", "€", "Ω", "Ж", "中", "文", "\u00A0", "\uFFFD",
            "\u200B", "😀", "𝄞", "🧪", "ñ", "ø");
    /** Invalid UTF-8: overlong, surrogate, above U+10FFFF, stray continuation, cut-off sequence, 0xFF. */
    private static final List<byte[]> BAD_UTF8 = List.of(new byte[] {(byte) 0xC0, (byte) 0x80},
            new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80,
                    (byte) 0x80}, new byte[] {(byte) 0x80}, new byte[] {(byte) 0xE2, (byte) 0x82},
            new byte[] {(byte) 0xFF}, new byte[] {(byte) 0xC3});
    private static final List<String> CONTAINERS = List.of("POOLContainer(DataHeader)", "CollectionTree(EventInfo)",
            "POOLContainerForm(DataHeaderForm)", "CollectionTreeInDet::Tracks_v1", "TTree=POOLContainer(DataHeader)");
    private static final int[] U32_EXTREMES = {0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF};
    private static final long[] U64_EXTREMES = {0L, 1L, Long.MAX_VALUE, Long.MIN_VALUE, -2L, -1L};

    /** The state of one case being made. */
    private static final class OneCase {
        private final Choices c;
        private final long seed;
        private final int number;
        private boolean simulation;
        private DatasetName dataset;
        /** The run every event carries (unsigned 32 bits). */
        private int run;
        private final List<Draft> files = new ArrayList<>();
        private String detail = "";
        private Problem expected;

        OneCase(Choices c, long seed, int number) {
            this.c = c;
            this.seed = seed;
            this.number = number;
        }

        /** A file while the case is made. */
        private final class Draft {
            final BeginGUID_p1.Builder begin;
            final List<RandomCase.Menu> menus = new ArrayList<>();
            final List<EIEvent_p1> events = new ArrayList<>();
            final long endProcTime;
            final boolean oldOids;
            final List<String> parents = new ArrayList<>();
            final int[] keys = new int[3];

            Draft(BeginGUID_p1.Builder begin, long endProcTime) {
                this.begin = begin;
                this.endProcTime = endProcTime;
                this.oldOids = c.chance(25);
                int n = c.between(1, 3);
                for (int i = 0; i < n; i++) {
                    parents.add(guid());
                }
                keys[0] = u32(1, 3000);
                keys[1] = u32(1, 30000);
                keys[2] = u32(1, 30000);
            }

            String fileGuid() {
                return begin.getGuid();
            }
        }

        RandomCase build() {
            Kind kind = c.oneOf(Kind.values());
            boolean past = kind.past && (!kind.within || c.chance(PAST_PERCENT));
            simulation = kind == Kind.SIMULATION_FLAG || kind == Kind.RUN ? c.chance(50) : c.chance(35);
            dataset = datasetName();
            run = simulation ? conditionsRun() : dataset.runNumber();
            Header_p1 header = Header_p1.newBuilder()
                    .setStartProcTime(c.chance(90) ? c.betweenLong(1_400_000_000_000L, 1_900_000_000_000L) : c.bits64())
                    .setTaskID(c.between(10_000_000, 49_999_999) + "." + c.oneOf("G", "T", "X"))
                    .setJobID(c.betweenLong(1_000_000_000L, 6_999_999_999L) + "." + c.between(1, 5))
                    .setInputDsName(dataset.toString())
                    .setProvenanceRef(c.chance(70))
                    .setTriggerInfo(c.chance(80))
                    .build();
            int nfiles = kind == Kind.NO_INPUT_FILES ? 0 : c.between(1, 4);
            for (int i = 0; i < nfiles; i++) {
                files.add(file());
            }
            if (nfiles > 1 && c.chance(15)) {
                duplicateAcrossFiles();
            }
            String variant = apply(kind, past);
            List<String> inputs = new ArrayList<>();
            files.forEach(f -> inputs.add(f.fileGuid()));
            if (inputs.isEmpty()) {
                inputs.add(guid());
            }
            List<RandomCase.InputFile> model = new ArrayList<>();
            for (Draft f : files) {
                f.menus.sort(Comparator.comparingInt(RandomCase.Menu::beforeEvent));
                model.add(new RandomCase.InputFile(f.begin.build(), f.menus, f.events, f.endProcTime));
            }
            byte[] spb = write(header, model, c.bits64());
            return new RandomCase(seed, number, kind.label(), variant, past, expected, detail, dataset.toString(),
                    simulation, header, model, inputs, spb, inflatedSize(spb));
        }

        // --- the case's point ------------------------------------------------------------------------------------

        private String apply(Kind kind, boolean past) {
            return switch (kind) {
                case TOKEN_COUNT -> tokenCount(past);
                case TOKEN_FORM -> tokenForm(past);
                case L1_MASK -> l1Mask(past);
                case HLT_MASK -> hltMask(past);
                case L2_MASK -> l2Mask(past);
                case RUN -> runRule(past);
                case SIMULATION_FLAG -> simulationFlag(past);
                case EVENT_NUMBERS -> eventNumbers();
                case NAMES -> names(past);
                case MENUS -> menus(past);
                case EMPTY_FILE -> emptyFile();
                case BIG_EVENT -> bigEvent();
                case UNKNOWN_FIELDS -> unknownFields();
                case NO_INPUT_FILES -> {
                    expected = Problem.BAD_CONTENT;
                    detail = "the object holds no BEGIN_GUID: no input file";
                    yield "none";
                }
                case PLAIN -> {
                    detail = files.size() + " files, " + files.stream().mapToInt(f -> f.events.size()).sum()
                            + " events";
                    yield "plain";
                }
            };
        }

        private String tokenCount(boolean past) {
            int[] at = target();
            Draft f = files.get(at[0]);
            if (!past && c.chance(50)) {
                // the whole file at random counts, as the consumer's run files and merge see them mixed
                for (int i = 0; i < f.events.size(); i++) {
                    int n = c.between(0, SpbContentLimits.TOKENS_PER_EVENT);
                    f.events.set(i, f.events.get(i).toBuilder().clearEitoken().addAllEitoken(tokens(f, n)).build());
                }
            }
            int n = past ? SpbContentLimits.TOKENS_PER_EVENT + 1
                    : c.oneOf(0, 1, 8, 9, 16, 31, SpbContentLimits.TOKENS_PER_EVENT, SpbContentLimits.TOKENS_PER_EVENT,
                    c.between(0, SpbContentLimits.TOKENS_PER_EVENT));
            f.events.set(at[1], f.events.get(at[1]).toBuilder().clearEitoken().addAllEitoken(tokens(f, n)).build());
            detail = "file " + at[0] + " event " + at[1] + " has " + n + " eitoken entries";
            if (past) {
                expected = Problem.OVERSIZE;
                return Integer.toString(n);
            }
            return n == SpbContentLimits.TOKENS_PER_EVENT ? Integer.toString(n) : "0-31";
        }

        private String tokenForm(boolean past) {
            int[] at = target();
            Draft f = files.get(at[0]);
            EIEvent_p1 e = f.events.get(at[1]);
            if (e.getEitokenCount() == 0) {
                e = e.toBuilder().addAllEitoken(tokens(f, c.between(1, 3))).build();
            }
            int which = c.chance(60) ? 0 : c.below(e.getEitokenCount());
            String name = e.getEitoken(which).getName();
            String db = which == 0 && c.chance(60) ? f.fileGuid() : guid();
            String variant;
            ByteString token;
            if (!past) {
                variant = c.oneOf("oid16", "oid8", "empty-container", "non-ascii-container", "1024-bytes");
                token = switch (variant) {
                    case "oid16" -> utf8(token(db, c.oneOf(CONTAINERS), false));
                    case "oid8" -> utf8(token(db, c.oneOf(CONTAINERS), true));
                    case "empty-container" -> utf8(token(db, "", c.chance(50)));
                    case "non-ascii-container" -> utf8(token(db, nonAsciiContainer(), c.chance(50)));
                    default -> utf8(tokenOfBytes(db, SpbContentLimits.TOKEN_BYTES));
                };
            } else {
                variant = c.oneOf("no-db", "lower-case-guid", "bad-utf8", "c1-control", "1025-bytes");
                boolean old = c.chance(40);
                token = switch (variant) {
                    case "no-db" -> utf8(token(db, c.oneOf(CONTAINERS), old).substring(4 + 36 + 1));
                    case "lower-case-guid" -> {
                        String t = token(db, c.oneOf(CONTAINERS), old);
                        // the DB GUID or the CLID in lower case
                        int clid = t.indexOf("[CLID=") + 6;
                        yield utf8(c.chance(50) ? "[DB=" + lowerCase(db) + t.substring(4 + 36)
                                : t.substring(0, clid) + lowerCase(t.substring(clid, clid + 36)) + t.substring(clid
                                + 36));
                    }
                    case "bad-utf8" -> {
                        String t = token(db, "Cont", old);
                        int cnt = t.indexOf("[CNT=") + 5;
                        yield ByteString.copyFrom(concat(t.substring(0, cnt).getBytes(StandardCharsets.UTF_8),
                                c.oneOf(BAD_UTF8), t.substring(cnt).getBytes(StandardCharsets.UTF_8)));
                    }
                    case "c1-control" -> utf8(token(db, "Cont" + (char) c.between(0x80, 0x9F) + "ainer", old));
                    default -> utf8(tokenOfBytes(db, SpbContentLimits.TOKEN_BYTES + 1));
                };
                expected = variant.equals("1025-bytes") ? Problem.OVERSIZE : Problem.BAD_CONTENT;
            }
            EItoken_p1 t = EItoken_p1.newBuilder().setName(name).setTokenBytes(token).build();
            f.events.set(at[1], e.toBuilder().setEitoken(which, t).build());
            detail = "file " + at[0] + " event " + at[1] + " eitoken " + which + " (" + name + ") is " + variant
                    + ": " + printable(token);
            return variant;
        }

        private String l1Mask(boolean past) {
            int[] at = target();
            Draft f = files.get(at[0]);
            String variant;
            String mask;
            if (!past) {
                variant = c.oneOf("random", "empty", "dense", "2048-bytes", "zero-digits");
                mask = switch (variant) {
                    case "empty" -> TriggerMask.encodeL1(new BitSet(), new BitSet(), new BitSet());
                    case "zero-digits" -> zeroDigits(l1());
                    case "dense" -> TriggerMask.encodeL1(dense(TriggerMask.L1_BITS), dense(TriggerMask.L1_BITS),
                            sparse(TriggerMask.L1_BITS, 40));
                    case "2048-bytes" -> padded(l1(), SpbContentLimits.L1_MASK_BYTES);
                    default -> l1();
                };
            } else {
                variant = c.oneOf("bad-char", "width-1535", "width-1537", "2049-bytes");
                mask = switch (variant) {
                    case "bad-char" -> badChar(l1());
                    case "width-1535" -> TriggerMask.encode(sparse(1535, 12), 1535);
                    case "width-1537" -> TriggerMask.encode(sparse(1537, 12), 1537);
                    default -> padded(l1(), SpbContentLimits.L1_MASK_BYTES + 1);
                };
                expected = variant.equals("2049-bytes") ? Problem.OVERSIZE : Problem.BAD_CONTENT;
            }
            f.events.set(at[1], f.events.get(at[1]).toBuilder().setL1PassedTrigMask(mask).build());
            detail = "file " + at[0] + " event " + at[1] + " L1PassedTrigMask is " + variant + " (" + mask.length()
                    + " bytes)";
            return variant;
        }

        private String hltMask(boolean past) {
            int[] at = target();
            Draft f = files.get(at[0]);
            String variant;
            String mask;
            if (!past) {
                variant = c.oneOf("random", "dense-passed-through", "16384-bytes", "zero-digits");
                mask = switch (variant) {
                    case "zero-digits" -> zeroDigits(hlt());
                    case "dense-passed-through" -> TriggerMask.encodeHlt(sparse(TriggerMask.HLT_BITS, 30),
                            dense(TriggerMask.HLT_BITS), dense(TriggerMask.HLT_BITS));
                    case "16384-bytes" -> paddedHlt(SpbContentLimits.HLT_MASK_BYTES);
                    default -> hlt();
                };
            } else {
                variant = c.oneOf("bad-char", "width-4095", "width-4097", "two-masks", "four-masks", "16385-bytes");
                mask = switch (variant) {
                    case "bad-char" -> badChar(hlt());
                    case "width-4095", "width-4097" -> {
                        int width = variant.equals("width-4095") ? 4095 : 4097;
                        String[] parts = new String[3];
                        int odd = c.below(3);
                        for (int m = 0; m < 3; m++) {
                            int w = m == odd ? width : TriggerMask.HLT_BITS;
                            parts[m] = TriggerMask.encode(sparse(w, 10), w);
                        }
                        yield String.join(";", parts);
                    }
                    case "two-masks" -> {
                        String h = hlt();
                        yield h.substring(0, h.lastIndexOf(';'));
                    }
                    case "four-masks" -> hlt() + ";" + TriggerMask.encode(sparse(TriggerMask.HLT_BITS, 4),
                            TriggerMask.HLT_BITS);
                    default -> paddedHlt(SpbContentLimits.HLT_MASK_BYTES + 1);
                };
                expected = variant.equals("16385-bytes") ? Problem.OVERSIZE : Problem.BAD_CONTENT;
            }
            f.events.set(at[1], f.events.get(at[1]).toBuilder().setEFPassedTrigMask(mask).build());
            detail = "file " + at[0] + " event " + at[1] + " EFPassedTrigMask is " + variant + " (" + mask.length()
                    + " bytes)";
            return variant;
        }

        private String l2Mask(boolean past) {
            int[] at = target();
            Draft f = files.get(at[0]);
            String variant;
            ByteString mask;
            if (!past) {
                variant = c.oneOf("utf8", "16384-bytes");
                mask = utf8(variant.equals("utf8") ? text(c.between(0, 300), true)
                        : textOfBytes(SpbContentLimits.HLT_MASK_BYTES, true));
            } else {
                variant = c.oneOf("bad-utf8", "16385-bytes");
                mask = variant.equals("bad-utf8") ? badUtf8(text(c.between(0, 100), c.chance(50)))
                        : utf8(textOfBytes(SpbContentLimits.HLT_MASK_BYTES + 1, c.chance(50)));
                expected = variant.equals("bad-utf8") ? Problem.BAD_CONTENT : Problem.OVERSIZE;
            }
            f.events.set(at[1], f.events.get(at[1]).toBuilder().setL2PassedTrigMaskBytes(mask).build());
            detail = "file " + at[0] + " event " + at[1] + " L2PassedTrigMask is " + variant + " (" + mask.size()
                    + " bytes)";
            return variant;
        }

        private String runRule(boolean past) {
            if (!past) {
                detail = "every event carries run " + Integer.toUnsignedString(run)
                        + (simulation ? " (the conditions run)" : " (the dataset's)");
                return simulation ? "sim-one-run" : "data-name-run";
            }
            int[] at = target();
            if (simulation && totalEvents() < 2) {
                // a second event, so that the other run is a second run
                int[] other = target();
                Draft f = files.get(other[0]);
                f.events.add(event(f, nextNumber(f)));
            }
            Draft f = files.get(at[0]);
            int other = simulation ? run + c.between(1, 1000) : run + 1;
            f.events.set(at[1], f.events.get(at[1]).toBuilder().setRunNumber(other).build());
            expected = Problem.BAD_CONTENT;
            detail = "file " + at[0] + " event " + at[1] + " carries run " + Integer.toUnsignedString(other)
                    + ", the others run " + Integer.toUnsignedString(run);
            return simulation ? "sim-two-runs" : "data-run+1";
        }

        private String simulationFlag(boolean past) {
            if (!past) {
                if (c.chance(50)) {
                    detail = "every event has isSimulation " + simulation;
                    return simulation ? "all-simulated" : "none-simulated";
                }
                // one flag for the dataset, though not the one its project suggests: MCEVENTS for a data project
                for (Draft f : files) {
                    for (int i = 0; i < f.events.size(); i++) {
                        f.events.set(i, f.events.get(i).toBuilder().setIsSimulation(!simulation).build());
                    }
                }
                detail = "every event has isSimulation " + !simulation + " in a " + (simulation ? "simulation"
                        : "data") + " dataset";
                return "unlike-project";
            }
            int[] at = target();
            if (totalEvents() < 2) {
                int[] other = target();
                Draft f = files.get(other[0]);
                f.events.add(event(f, nextNumber(f)));
            }
            Draft f = files.get(at[0]);
            f.events.set(at[1], f.events.get(at[1]).toBuilder().setIsSimulation(!simulation).build());
            expected = Problem.BAD_CONTENT;
            detail = "file " + at[0] + " event " + at[1] + " has isSimulation " + !simulation + ", the others "
                    + simulation;
            return "mixed";
        }

        private String eventNumbers() {
            String variant = c.oneOf("extremes", "duplicates-in-file", "duplicates-across-files", "all-equal");
            switch (variant) {
                case "extremes" -> {
                    int n = 0;
                    for (long value : U64_EXTREMES) {
                        if (c.chance(80)) {
                            int[] at = target();
                            Draft f = files.get(at[0]);
                            f.events.set(at[1], f.events.get(at[1]).toBuilder().setEventNumber(value).build());
                            n++;
                        }
                    }
                    detail = n + " events carry uint64 extremes (0, 1, 2^63-1, 2^63, 2^64-2, 2^64-1)";
                }
                case "duplicates-in-file" -> {
                    int[] at = target();
                    Draft f = files.get(at[0]);
                    long number = f.events.get(at[1]).getEventNumber();
                    int copies = c.between(1, 4);
                    for (int i = 0; i < copies; i++) {
                        f.events.add(c.between(0, f.events.size()), event(f, number));
                    }
                    detail = "file " + at[0] + " holds event " + Long.toUnsignedString(number) + " " + (copies + 1)
                            + " times or more";
                }
                case "duplicates-across-files" -> {
                    if (files.size() < 2) {
                        files.add(file());
                    }
                    duplicateAcrossFiles();
                    detail = "files share event numbers";
                }
                default -> {
                    target();
                    long value = c.chance(50) ? c.oneOf(U64_EXTREMES[0], U64_EXTREMES[3], U64_EXTREMES[5])
                            : c.bits64();
                    for (Draft f : files) {
                        for (int i = 0; i < f.events.size(); i++) {
                            f.events.set(i, f.events.get(i).toBuilder().setEventNumber(value).build());
                        }
                    }
                    detail = "every event is event " + Long.toUnsignedString(value);
                }
            }
            return variant;
        }

        private String names(boolean past) {
            String field = c.oneOf("AMITag", "trigStream", "projName", "eitoken name", "guid");
            String variant;
            ByteString value;
            if (!past) {
                variant = c.oneOf("ascii", "non-ascii", "512-bytes", "blank");
                value = utf8(switch (variant) {
                    case "ascii" -> text(c.between(0, 80), false);
                    case "non-ascii" -> text(c.between(1, 80), true);
                    // whitespace only: not empty, so a GUID too by the rules
                    case "blank" -> c.oneOf(" ", "  ", "\t", "\n", "\u2003", " \u3000 ");
                    default -> textOfBytes(SpbContentLimits.NAME_BYTES, c.chance(50));
                });
            } else {
                variant = c.oneOf("bad-utf8", "513-bytes");
                value = variant.equals("bad-utf8") ? badUtf8(text(c.between(0, 40), c.chance(50)))
                        : utf8(textOfBytes(SpbContentLimits.NAME_BYTES + 1, c.chance(50)));
                expected = variant.equals("bad-utf8") ? Problem.BAD_CONTENT : Problem.OVERSIZE;
            }
            if (field.equals("eitoken name")) {
                int[] at = target();
                Draft f = files.get(at[0]);
                EIEvent_p1 e = f.events.get(at[1]);
                if (e.getEitokenCount() == 0) {
                    e = e.toBuilder().addAllEitoken(tokens(f, 1)).build();
                }
                int which = c.below(e.getEitokenCount());
                e = e.toBuilder().setEitoken(which, e.getEitoken(which).toBuilder().setNameBytes(value)).build();
                f.events.set(at[1], e);
                detail = "file " + at[0] + " event " + at[1] + " eitoken " + which + " name is " + variant + " ("
                        + value.size() + " bytes)";
            } else {
                int i = c.below(files.size());
                BeginGUID_p1.Builder b = files.get(i).begin;
                switch (field) {
                    case "AMITag" -> b.setAMITagBytes(value);
                    case "trigStream" -> b.setTrigStreamBytes(value);
                    case "projName" -> b.setProjNameBytes(value);
                    default -> {
                        // any text is a GUID to the rules but the empty one; a suffix keeps it distinct
                        String distinct = "#" + i;
                        b.setGuidBytes(value.isEmpty() ? utf8(distinct) : variant.equals("blank") || value.size()
                                + distinct.length() > SpbContentLimits.NAME_BYTES && !past ? value
                                : value.concat(utf8(distinct)));
                    }
                }
                detail = "file " + i + " BeginGUID " + field + " is " + variant + " (" + value.size() + " bytes)";
            }
            return variant;
        }

        private String menus(boolean past) {
            int i = c.below(files.size());
            Draft f = files.get(i);
            f.menus.clear();
            String variant;
            if (!past) {
                variant = c.oneOf("several", "keys-from-menu", "64-menus", "1MiB-string");
                int n = switch (variant) {
                    case "several" -> c.between(2, 5);
                    case "64-menus" -> SpbContentLimits.MENUS_PER_FILE;
                    default -> c.between(1, 2);
                };
                List<TriggerMenu_p1> made = new ArrayList<>();
                for (int m = 0; m < n; m++) {
                    // some repeated: the footer keeps each distinct menu once
                    TriggerMenu_p1 menu = !made.isEmpty() && c.chance(30) ? c.oneOf(made) : menu(c.chance(50));
                    made.add(menu);
                    f.menus.add(new RandomCase.Menu(c.between(0, f.events.size()), menu));
                }
                if (variant.equals("1MiB-string")) {
                    int at = c.below(f.menus.size());
                    f.menus.set(at, new RandomCase.Menu(f.menus.get(at).beforeEvent(),
                            bigMenu(f.menus.get(at).menu(), SpbContentLimits.MENU_BYTES)));
                }
                if (variant.equals("keys-from-menu")) {
                    // no event says its keys: every one comes from the file's first menu
                    if (f.events.isEmpty()) {
                        f.events.add(event(f, nextNumber(f)));
                    }
                    for (int e = 0; e < f.events.size(); e++) {
                        f.events.set(e, f.events.get(e).toBuilder().clearSMK().clearHLTPSK().clearL1PSK().build());
                    }
                }
                detail = "file " + i + " has " + n + " TriggerMenus" + (variant.equals("keys-from-menu")
                        ? " and no event carries its keys" : "");
            } else {
                variant = c.oneOf("bad-utf8", "65-menus", "1MiB+1-string");
                if (variant.equals("bad-utf8")) {
                    TriggerMenu_p1 bad = menu(false);
                    TriggerMenu_p1.Builder b = bad.toBuilder();
                    ByteString text = badUtf8(text(c.between(1, 30), c.chance(50)));
                    switch (c.below(4)) {
                        case 0 -> b.setL1MenuBytes(text);
                        case 1 -> b.setL2MenuBytes(text);
                        case 2 -> b.setEFMenuBytes(text);
                        default -> b.setHLTMenuBytes(text);
                    }
                    f.menus.add(new RandomCase.Menu(c.between(0, f.events.size()), b.build()));
                    expected = Problem.BAD_CONTENT;
                    detail = "file " + i + " has a TriggerMenu with invalid UTF-8";
                } else if (variant.equals("1MiB+1-string")) {
                    f.menus.add(new RandomCase.Menu(c.between(0, f.events.size()), bigMenu(menu(false),
                            SpbContentLimits.MENU_BYTES + 1)));
                    expected = Problem.OVERSIZE;
                    detail = "file " + i + " has a TriggerMenu string of " + (SpbContentLimits.MENU_BYTES + 1)
                            + " bytes";
                } else {
                    TriggerMenu_p1 one = menu(false);
                    for (int m = 0; m <= SpbContentLimits.MENUS_PER_FILE; m++) {
                        f.menus.add(new RandomCase.Menu(c.between(0, f.events.size()), one));
                    }
                    expected = Problem.OVERSIZE;
                    detail = "file " + i + " has " + (SpbContentLimits.MENUS_PER_FILE + 1) + " TriggerMenus";
                }
            }
            return variant;
        }

        private String emptyFile() {
            if (c.chance(20)) {
                files.forEach(f -> f.events.clear());
                detail = "every file (" + files.size() + ") has zero events";
                return "all-empty";
            }
            if (files.size() < 2 && c.chance(50)) {
                files.add(file());
            }
            int i = c.below(files.size());
            files.get(i).events.clear();
            detail = "file " + i + " of " + files.size() + " has zero events";
            return "one-empty";
        }

        /**
         * Events of 65,533 to 65,536 serialized bytes (the consumer keeps an event's scanned fields with it up to
         * 65,534 bytes, larger ones go through its runs without them), or one with every field at its limit (32 tokens
         * of 1024 bytes named with 512, masks of 2048 and 16384 bytes: ~84 KB), among ordinary events whose tokens
         * share their prefixes.
         */
        private String bigEvent() {
            String variant = c.oneOf("65533-65536-bytes", "all-at-limits");
            int[] at = target();
            Draft f = files.get(at[0]);
            int n = variant.equals("all-at-limits") ? 1 : c.between(1, 4);
            List<String> sizes = new ArrayList<>();
            for (int k = 0; k < n; k++) {
                int i = k == 0 ? at[1] : c.below(f.events.size() + 1);
                if (i == f.events.size()) {
                    f.events.add(event(f, nextNumber(f)));
                }
                EIEvent_p1 big = big(f, f.events.get(i), variant.equals("all-at-limits") ? -1
                        : c.between(65_533, 65_536));
                f.events.set(i, big);
                sizes.add(Integer.toString(big.getSerializedSize()));
            }
            detail = "file " + at[0] + " has events of " + String.join(", ", sizes) + " bytes";
            return variant;
        }

        /** {@code e} grown to {@code bytes} serialized bytes (-1: every field at its limit). */
        private EIEvent_p1 big(Draft f, EIEvent_p1 e, int bytes) {
            boolean all = bytes < 0;
            EIEvent_p1.Builder b = e.toBuilder().clearEitoken().clearL2PassedTrigMask();
            for (int i = 0; i < SpbContentLimits.TOKENS_PER_EVENT; i++) {
                String name = all ? textOfBytes(SpbContentLimits.NAME_BYTES, c.chance(50))
                        : i == 0 ? "Stream" + dataset.dataType() : c.oneOf("StreamESD", "StreamRAW", "StreamAOD");
                String db = i == 0 ? f.fileGuid() : c.oneOf(f.parents);
                b.addEitoken(EItoken_p1.newBuilder().setName(name)
                        .setToken(tokenOfBytes(db, SpbContentLimits.TOKEN_BYTES, false)));
            }
            b.setL1PassedTrigMask(padded(l1(), SpbContentLimits.L1_MASK_BYTES));
            b.setEFPassedTrigMask(paddedHlt(SpbContentLimits.HLT_MASK_BYTES));
            if (all) {
                return b.setL2PassedTrigMask(textOfBytes(SpbContentLimits.HLT_MASK_BYTES, c.chance(50))).build();
            }
            // the L2 field takes the rest: its tag (1 byte), its length (2 bytes for 128..16383) and the text
            int rest = bytes - b.build().getSerializedSize() - 3;
            if (rest < 128 || rest >= 16_384) {
                throw new IllegalStateException("an event of " + bytes + " bytes needs an L2 mask of " + rest);
            }
            EIEvent_p1 out = b.setL2PassedTrigMask(textOfBytes(rest, false)).build();
            if (out.getSerializedSize() != bytes) {
                throw new IllegalStateException("made an event of " + out.getSerializedSize() + " bytes, not " + bytes);
            }
            return out;
        }

        /**
         * Fields the schema does not know, which every reader drops (a newer writer's): new field numbers of every wire
         * type, a known field written a second time (protobuf keeps the last), a known field number with another wire
         * type (protobuf keeps it as unknown), and unknown fields in the Header, BeginGUID, TriggerMenu and tokens.
         */
        private String unknownFields() {
            String variant = c.oneOf("new-fields", "known-field-twice", "wrong-wire-type", "other-messages");
            int[] at = target();
            Draft f = files.get(at[0]);
            EIEvent_p1 e = f.events.get(at[1]);
            UnknownFieldSet.Builder u = UnknownFieldSet.newBuilder();
            switch (variant) {
                case "new-fields" -> {
                    int n = c.between(1, 4);
                    for (int k = 0; k < n; k++) {
                        u.mergeField(c.oneOf(19, 21, 30, 99, 1000, 536_870_911), unknownValue());
                    }
                    detail = "file " + at[0] + " event " + at[1] + " has new fields " + u.build().asMap().keySet();
                }
                case "known-field-twice" -> {
                    int field = c.oneOf(2, 3, 4, 5, 6, 7, 11, 13, 14, 15, 16, 18, 20);
                    UnknownFieldSet.Field.Builder v = UnknownFieldSet.Field.newBuilder();
                    switch (field) {
                        case 2 -> v.addVarint(c.bits64());
                        case 11 -> v.addLengthDelimited(utf8(l1()));
                        case 13 -> v.addLengthDelimited(utf8(hlt()));
                        case 20 -> v.addLengthDelimited(tokens(f, 1).get(0).toByteString());
                        default -> v.addVarint(c.bits32() & 0xFFFFFFFFL);
                    }
                    u.mergeField(field, v.build());
                    detail = "file " + at[0] + " event " + at[1] + " has field " + field + " a second time";
                }
                case "wrong-wire-type" -> {
                    int field = c.oneOf(2, 3, 7, 11, 12, 13, 14, 17, 18, 20);
                    UnknownFieldSet.Field.Builder v = UnknownFieldSet.Field.newBuilder();
                    boolean bytesField = field == 11 || field == 12 || field == 13 || field == 20;
                    if (bytesField) {
                        v.addVarint(c.bits64());
                    } else if (field == 17) {
                        v.addFixed64(c.bits64());
                    } else if (c.chance(50)) {
                        v.addFixed32(c.bits32());
                    } else {
                        v.addLengthDelimited(utf8(text(c.between(0, 20), false)));
                    }
                    u.mergeField(field, v.build());
                    detail = "file " + at[0] + " event " + at[1] + " has field " + field + " with another wire type";
                }
                default -> {
                    u.mergeField(c.oneOf(19, 99), unknownValue());
                    BeginGUID_p1.Builder begin = f.begin;
                    begin.setUnknownFields(UnknownFieldSet.newBuilder().mergeField(c.oneOf(6, 50), unknownValue())
                            .build());
                    if (!f.menus.isEmpty()) {
                        RandomCase.Menu m = f.menus.get(0);
                        f.menus.set(0, new RandomCase.Menu(m.beforeEvent(), m.menu().toBuilder().setUnknownFields(
                                UnknownFieldSet.newBuilder().mergeField(8, unknownValue()).build()).build()));
                    }
                    if (e.getEitokenCount() > 0) {
                        e = e.toBuilder().setEitoken(0, e.getEitoken(0).toBuilder().setUnknownFields(
                                UnknownFieldSet.newBuilder().mergeField(3, unknownValue()).build())).build();
                    }
                    detail = "file " + at[0] + " BeginGUID, first TriggerMenu, event " + at[1] + " and its first token"
                            + " have unknown fields";
                }
            }
            f.events.set(at[1], e.toBuilder().setUnknownFields(u.build()).build());
            return variant;
        }

        private UnknownFieldSet.Field unknownValue() {
            UnknownFieldSet.Field.Builder v = UnknownFieldSet.Field.newBuilder();
            switch (c.below(5)) {
                case 0 -> v.addVarint(c.bits64());
                case 1 -> v.addFixed32(c.bits32());
                case 2 -> v.addFixed64(c.bits64());
                case 3 -> {
                    byte[] b = new byte[c.between(0, 3000)];
                    for (int i = 0; i < b.length; i++) {
                        b[i] = (byte) c.below(256);
                    }
                    v.addLengthDelimited(ByteString.copyFrom(b));
                }
                default -> v.addGroup(UnknownFieldSet.newBuilder().mergeField(1, UnknownFieldSet.Field.newBuilder()
                        .addVarint(c.bits64()).build()).build());
            }
            return v.build();
        }

        // --- the valid content around it ----------------------------------------------------------------------------

        private DatasetName datasetName() {
            String seedTag = Long.toUnsignedString(seed, 36);
            String version = c.oneOf("f", "r", "e", "s") + number + "_x" + seedTag;
            String suffix = c.chance(30) ? String.format("_tid%08d_%02d", c.between(0, 99_999_999), c.between(0, 99))
                    : "";
            if (simulation) {
                int channel = c.chance(90) ? c.between(100_000, 999_999) : c.oneOf(0, 1, 1_234_567, Integer.MAX_VALUE);
                return new DatasetName(c.oneOf("mc16_13TeV", "mc20_13TeV", "mc21_13p6TeV", "valid1"), channel,
                        c.oneOf("Pythia8EvtGen_A14NNPDF23LO_jetjet_JZ2", "PhPy8EG_A14_ttbar_hdamp258p75_nonallhad",
                                "ParticleGun_single_mu_Pt100"), c.oneOf("recon", "deriv", "simul", "merge"),
                        c.oneOf("AOD", "DAOD_PHYS", "HITS", "EVNT"), version, suffix);
            }
            int runNumber = c.chance(90) ? c.between(200_000, 460_000) : c.oneOf(0, 1, 99_999_999, Integer.MAX_VALUE);
            return new DatasetName(c.oneOf("data15_13TeV", "data16_13TeV", "data17_13TeV", "data18_13TeV",
                    "data22_13p6TeV"), runNumber, c.oneOf("physics_Main", "physics_MinBias", "express_express",
                    "calibration_LArCells"), c.oneOf("merge", "recon"), c.oneOf("AOD", "ESD", "DAOD_PHYS", "RAW"),
                    version, suffix);
        }

        private int conditionsRun() {
            return c.chance(80) ? c.oneOf(284500, 300000, 310000, 410000, 330000) : u32Extreme();
        }

        private Draft file() {
            String guid = guid();
            BeginGUID_p1.Builder begin = BeginGUID_p1.newBuilder()
                    .setStartProcTime(c.chance(90) ? c.betweenLong(1_400_000_000_000L, 1_900_000_000_000L)
                            : c.bits64())
                    .setAMITag(dataset.version())
                    .setTrigStream(simulation ? "" : dataset.stream())
                    .setProjName(dataset.project())
                    .setGuid(guid);
            Draft f = new Draft(begin, c.chance(90) ? c.betweenLong(1_400_000_000_000L, 1_900_000_000_000L)
                    : c.bits64());
            int size = c.below(100);
            int events = size < 20 ? c.between(0, 3) : size < 75 ? c.between(4, 40) : c.between(41, 200);
            long number = c.chance(85) ? c.betweenLong(1, 10_000_000_000L) : c.bits64();
            boolean shuffled = c.chance(15);
            for (int i = 0; i < events; i++) {
                f.events.add(event(f, shuffled ? c.bits64() : number));
                number += c.chance(70) ? 1 : c.between(2, 5000);
            }
            int menus = c.below(100) < 35 ? 0 : c.chance(70) ? 1 : c.between(2, 3);
            for (int m = 0; m < menus; m++) {
                int at = m == 0 && c.chance(80) ? 0 : c.between(0, f.events.size());
                f.menus.add(new RandomCase.Menu(at, menu(c.chance(10))));
            }
            return f;
        }

        private EIEvent_p1 event(Draft f, long eventNumber) {
            EIEvent_p1.Builder e = EIEvent_p1.newBuilder()
                    .setRunNumber(run)
                    .setEventNumber(eventNumber)
                    .setLumiBlock(u32(1, 3000))
                    .setTimeStamp(u32(1_430_000_000, 1_800_000_000))
                    .setTimeStampNSOffset(u32(0, 999_999_999))
                    .setBcid(u32(0, 3563))
                    .setIsSimulation(simulation)
                    .setIsCalibration(c.chance(5))
                    .setIsTestBeam(c.chance(3));
            if (c.chance(70)) {
                e.setExtendedLevel1ID(c.chance(90) ? c.between(0, 1 << 24) : u32Extreme());
            }
            if (c.chance(80)) {
                e.setL1PassedTrigMask(l1());
            }
            if (c.chance(10)) {
                e.setL2PassedTrigMask(text(c.between(0, 40), c.chance(30)));
            }
            if (c.chance(80)) {
                e.setEFPassedTrigMask(hlt());
            }
            if (c.chance(70)) {
                e.setSMK(c.chance(90) ? f.keys[0] : u32(1, 3000));
            }
            if (c.chance(70)) {
                e.setHLTPSK(c.chance(90) ? f.keys[1] : u32(1, 30000));
            }
            if (c.chance(70)) {
                e.setL1PSK(c.chance(90) ? f.keys[2] : u32(1, 30000));
            }
            if (c.chance(simulation ? 90 : 5)) {
                e.setMcEventWeight(weight());
            }
            if (c.chance(simulation ? 90 : 5)) {
                e.setMcChannelNumber(simulation ? dataset.runNumber() : u32(100_000, 999_999));
            }
            int n = c.chance(10) ? 0 : c.chance(90) ? c.between(1, 4) : c.between(5, 10);
            e.addAllEitoken(tokens(f, n));
            return e.build();
        }

        /** {@code n} valid tokens of one event of {@code f}: its own stream first, then its parents'. */
        private List<EItoken_p1> tokens(Draft f, int n) {
            List<String> stages = List.of("StreamESD", "StreamRAW", "StreamAOD", "StreamDAOD_PHYS", "StreamHITS",
                    "StreamEVNT", "Stream" + dataset.dataType());
            List<EItoken_p1> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                String name = i == 0 ? "Stream" + dataset.dataType() : c.chance(85) ? c.oneOf(stages)
                        : "Stream" + text(c.between(1, 12), c.chance(20));
                String db = i == 0 ? (c.chance(70) ? f.fileGuid() : guid())
                        : c.chance(80) ? c.oneOf(f.parents) : guid();
                boolean old = c.chance(5) ? !f.oldOids : f.oldOids;
                // non-ASCII containers are the point of token-form cases only, so that they are counted there
                String container = c.chance(92) ? c.oneOf(CONTAINERS) : "";
                out.add(EItoken_p1.newBuilder().setName(name).setToken(token(db, container, old)).build());
            }
            return out;
        }

        private String token(String db, String container, boolean oldOid) {
            StringBuilder t = new StringBuilder(200).append("[DB=").append(db).append("][CNT=").append(container)
                    .append("][CLID=").append(guid()).append("][TECH=").append(hex(c.chance(80) ? 0x00000202
                            : c.bits32(), 8)).append("][OID=");
            if (oldOid) {
                long[] values = {c.chance(70) ? c.between(0, 255) : c.bits32() & 0xFFFFFFFFL,
                        c.chance(70) ? c.between(0, 100_000) : c.bits32() & 0xFFFFFFFFL};
                t.append(hex(values[0], 8)).append('-').append(hex(values[1], 8));
            } else {
                t.append(hex(c.chance(70) ? c.between(0, 255) : c.bits64(), 16)).append('-')
                        .append(hex(c.chance(70) ? c.between(0, 100_000) : c.bits64(), 16));
            }
            return t.append(']').toString();
        }

        /** A valid token of exactly {@code bytes} UTF-8 bytes: the container fills what the other parts leave. */
        private String tokenOfBytes(String db, int bytes) {
            return tokenOfBytes(db, bytes, c.chance(50));
        }

        private String tokenOfBytes(String db, int bytes, boolean nonAscii) {
            boolean old = c.chance(40);
            int others = token(db, "", old).getBytes(StandardCharsets.UTF_8).length;
            return token(db, textOfBytes(bytes - others, nonAscii, "[]"), old);
        }

        private String nonAsciiContainer() {
            StringBuilder s = new StringBuilder(c.oneOf("Conteneur", "容器", "Behälter", "Tree"));
            int n = c.between(1, 4);
            for (int i = 0; i < n; i++) {
                s.append(c.oneOf(NON_ASCII));
            }
            return s.append("(DataHeader)").toString();
        }

        /**
         * {@code menu} with one of its strings {@code bytes} long: chain names with numbers, which compress about as
         * real menus do (a string that compressed far better would trip the inflation limit instead).
         */
        private TriggerMenu_p1 bigMenu(TriggerMenu_p1 menu, int bytes) {
            StringBuilder s = new StringBuilder(bytes + 64);
            List<String> words = List.of("HLT_mu", "HLT_e", "HLT_j", "HLT_xe", "L1_EM", "L1_MU", "_ivarmedium",
                    "_lhtight", "_nod0", "_L1J", "_pufit", "_a4tcemsubjesFS", ";");
            while (s.length() < bytes) {
                s.append(c.oneOf(words)).append(c.between(0, 99_999));
            }
            s.setLength(bytes);
            String text = s.toString();
            TriggerMenu_p1.Builder b = menu.toBuilder();
            switch (c.below(4)) {
                case 0 -> b.setL1Menu(text);
                case 1 -> b.setL2Menu(text);
                case 2 -> b.setEFMenu(text);
                default -> b.setHLTMenu(text);
            }
            return b.build();
        }

        private TriggerMenu_p1 menu(boolean odd) {
            TriggerMenu_p1.Builder m = TriggerMenu_p1.newBuilder()
                    .setSMK(odd ? u32Extreme() : u32(1, 3000))
                    .setL1PSK(odd ? u32Extreme() : u32(1, 30000))
                    .setHLTPSK(odd ? u32Extreme() : u32(1, 30000))
                    .setL1Menu(odd ? text(c.between(0, 60), true) : c.oneOf("Physics_pp_v7_primaries",
                            "MC_pp_v8", "PhysicsP1_pp_run3_v1"));
            if (c.chance(20)) {
                m.setL2Menu(text(c.between(0, 40), odd));
            }
            if (c.chance(20)) {
                m.setEFMenu(text(c.between(0, 40), odd));
            }
            if (c.chance(60)) {
                m.setHLTMenu(odd ? text(c.between(0, 200), true) : "Physics_pp_v7_primaries");
            }
            return m.build();
        }

        /** Event numbers of the first file copied into the others' events: the same event in two files. */
        private void duplicateAcrossFiles() {
            List<Long> numbers = new ArrayList<>();
            files.get(0).events.forEach(e -> numbers.add(e.getEventNumber()));
            if (numbers.isEmpty()) {
                Draft first = files.get(0);
                first.events.add(event(first, c.betweenLong(1, 1_000_000)));
                numbers.add(first.events.get(0).getEventNumber());
            }
            for (int i = 1; i < files.size(); i++) {
                Draft f = files.get(i);
                if (f.events.isEmpty()) {
                    f.events.add(event(f, 0));
                }
                int copies = c.between(1, Math.max(1, f.events.size() / 2));
                for (int k = 0; k < copies; k++) {
                    int at = c.below(f.events.size());
                    f.events.set(at, f.events.get(at).toBuilder().setEventNumber(c.oneOf(numbers)).build());
                }
            }
        }

        /**
         * A random event position {file, event}; an event is added when the chosen file has none, so that a case's
         * point always has an event to sit in.
         */
        private int[] target() {
            int i = c.below(files.size());
            Draft f = files.get(i);
            if (f.events.isEmpty()) {
                f.events.add(event(f, nextNumber(f)));
            }
            return new int[] {i, c.below(f.events.size())};
        }

        private long nextNumber(Draft f) {
            return f.events.isEmpty() ? c.betweenLong(1, 1_000_000) : f.events.get(f.events.size() - 1)
                    .getEventNumber() + 1;
        }

        private int totalEvents() {
            return files.stream().mapToInt(f -> f.events.size()).sum();
        }

        // --- masks ----------------------------------------------------------------------------------------------

        /** A realistic L1 field: TAP within TBP, TAV within TAP, a few items each, sometimes none. */
        private String l1() {
            BitSet tbp = sparse(TriggerMask.L1_BITS, c.chance(5) ? 0 : 16);
            BitSet tap = subset(tbp);
            BitSet tav = subset(tap);
            if (c.chance(10)) {
                tav.set(edgeBit(TriggerMask.L1_BITS));
            }
            return TriggerMask.encodeL1(tbp, tap, tav);
        }

        private String hlt() {
            return TriggerMask.encodeHlt(sparse(TriggerMask.HLT_BITS, 16), sparse(TriggerMask.HLT_BITS, 2),
                    c.chance(5) ? sparse(TriggerMask.HLT_BITS, 2) : new BitSet());
        }

        /** An HLT field of exactly {@code bytes}: one of its masks starts with leading zero digits ('A'). */
        private String paddedHlt(int bytes) {
            String h = hlt();
            String[] parts = h.split(";", -1);
            int m = c.below(3);
            parts[m] = "A".repeat(bytes - h.length()) + parts[m];
            return String.join(";", parts);
        }

        /** {@code mask} with leading zero digits ('A') up to {@code bytes}. */
        private static String padded(String mask, int bytes) {
            return "A".repeat(bytes - mask.length()) + mask;
        }

        /**
         * {@code mask} with zero digits ('A') where a count starts (at the start, after a '!' or a ';'): zero-length
         * runs and leading zeros, which change no bit.
         */
        private String zeroDigits(String mask) {
            StringBuilder s = new StringBuilder(mask.length() + 16);
            for (int i = 0; i <= mask.length(); i++) {
                boolean countStarts = i == 0 || mask.charAt(i - 1) == '!' || mask.charAt(i - 1) == ';';
                if (countStarts && c.chance(20)) {
                    s.append("A".repeat(c.between(1, 3)));
                }
                if (i < mask.length()) {
                    s.append(mask.charAt(i));
                }
            }
            return s.toString();
        }

        /** {@code mask} with one character outside the alphabet somewhere. */
        private String badChar(String mask) {
            int at = c.between(0, mask.length());
            return mask.substring(0, at) + c.oneOf("#", "$", "*", " ", "-", "é") + mask.substring(at);
        }

        private BitSet sparse(int width, int most) {
            BitSet b = new BitSet(width);
            int n = c.between(0, most);
            for (int i = 0; i < n; i++) {
                b.set(c.chance(15) ? edgeBit(width) : c.below(width));
            }
            return b;
        }

        private BitSet dense(int width) {
            BitSet b = new BitSet(width);
            for (int w = 0; w < width; w += 64) {
                long bits = c.bits64();
                for (int i = 0; i < 64 && w + i < width; i++) {
                    if ((bits >>> i & 1) != 0) {
                        b.set(w + i);
                    }
                }
            }
            return b;
        }

        private BitSet subset(BitSet of) {
            BitSet b = new BitSet();
            for (int i = of.nextSetBit(0); i >= 0; i = of.nextSetBit(i + 1)) {
                if (c.chance(80)) {
                    b.set(i);
                }
            }
            return b;
        }

        private int edgeBit(int width) {
            return c.oneOf(0, 1, 63, 64, width - 2, width - 1);
        }

        // --- values -----------------------------------------------------------------------------------------------

        /** Mostly a typical value in {@code [min, max]}, sometimes a uint32 extreme. */
        private int u32(int min, int max) {
            return c.chance(92) ? c.between(min, max) : u32Extreme();
        }

        private int u32Extreme() {
            return U32_EXTREMES[c.below(U32_EXTREMES.length)];
        }

        private float weight() {
            if (c.chance(85)) {
                return c.between(-100_000, 100_000) / 1000.0f;
            }
            return c.oneOf(0.0f, -0.0f, Float.NaN, Float.intBitsToFloat(0x7FC00001), Float.POSITIVE_INFINITY,
                    Float.NEGATIVE_INFINITY, Float.MIN_VALUE, Float.MAX_VALUE, -Float.MAX_VALUE);
        }

        private String guid() {
            long a = c.bits64();
            long b = c.bits64();
            return hex(a >>> 32, 8) + "-" + hex(a >>> 16, 4) + "-" + hex(a, 4) + "-" + hex(b >>> 48, 4) + "-"
                    + hex(b, 12);
        }

        /** {@code chars} characters: ASCII letters, digits and punctuation, with non-ASCII ones when asked. */
        private String text(int chars, boolean nonAscii) {
            StringBuilder s = new StringBuilder(chars);
            for (int i = 0; i < chars; i++) {
                if (nonAscii && c.chance(30)) {
                    s.append(c.oneOf(NON_ASCII));
                } else if (c.chance(2)) {
                    // a control character: valid UTF-8, and so valid content
                    s.append((char) (int) c.oneOf(0x00, 0x01, 0x09, 0x0A, 0x1F, 0x7F));
                } else {
                    s.append((char) c.between(0x20, 0x7E));
                }
            }
            return s.toString();
        }

        /** Text of exactly {@code bytes} UTF-8 bytes, without the characters in {@code avoid}. */
        private String textOfBytes(int bytes, boolean nonAscii, String avoid) {
            StringBuilder s = new StringBuilder(bytes);
            int left = bytes;
            while (left > 0) {
                String piece = nonAscii && c.chance(30) ? c.oneOf(NON_ASCII)
                        : String.valueOf((char) c.between(0x20, 0x7E));
                int n = piece.getBytes(StandardCharsets.UTF_8).length;
                if (n > left || avoid.contains(piece)) {
                    piece = "x";
                    n = 1;
                }
                s.append(piece);
                left -= n;
            }
            return s.toString();
        }

        private String textOfBytes(int bytes, boolean nonAscii) {
            return textOfBytes(bytes, nonAscii, "");
        }

        /** {@code text} with an invalid UTF-8 sequence somewhere in it, at a character boundary. */
        private ByteString badUtf8(String text) {
            int chars = c.between(0, text.length());
            if (chars > 0 && chars < text.length() && Character.isHighSurrogate(text.charAt(chars - 1))) {
                chars--;
            }
            byte[] head = text.substring(0, chars).getBytes(StandardCharsets.UTF_8);
            byte[] tail = text.substring(chars).getBytes(StandardCharsets.UTF_8);
            // the tail starts a character, so a cut-off sequence before it stays cut off
            return ByteString.copyFrom(concat(head, c.oneOf(BAD_UTF8), tail));
        }

        private static String printable(ByteString b) {
            return Printable.of(b.toStringUtf8(), 160);
        }
    }

    // --- writing ----------------------------------------------------------------------------------------------------

    private static byte[] write(Header_p1 header, List<RandomCase.InputFile> files, long trailerEnd) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (SpbWriter w = new SpbWriter(out)) {
            w.header(header);
            for (RandomCase.InputFile f : files) {
                w.beginGuid(f.begin());
                int m = 0;
                for (int i = 0; i < f.events().size(); i++) {
                    while (m < f.menus().size() && f.menus().get(m).beforeEvent() <= i) {
                        w.triggerMenu(f.menus().get(m++).menu());
                    }
                    w.event(f.events().get(i));
                }
                while (m < f.menus().size()) {
                    w.triggerMenu(f.menus().get(m++).menu());
                }
                w.endGuid(f.endProcTime());
            }
            w.finish(trailerEnd);
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory failed", e);
        }
        return out.toByteArray();
    }

    private static long inflatedSize(byte[] gzip) {
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gzip))) {
            return in.transferTo(java.io.OutputStream.nullOutputStream());
        } catch (IOException e) {
            throw new UncheckedIOException("reading back what was just written failed", e);
        }
    }

    /** The GUID in lower case, with at least one lower-case letter (a GUID of digits only gets an 'a'). */
    private static String lowerCase(String guid) {
        String lower = guid.toLowerCase(java.util.Locale.ROOT);
        return lower.equals(guid) ? "a" + lower.substring(1) : lower;
    }

    private static ByteString utf8(String s) {
        return ByteString.copyFromUtf8(s);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static String hex(long value, int digits) {
        StringBuilder s = new StringBuilder(digits);
        for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
            s.append("0123456789ABCDEF".charAt((int) (value >>> shift) & 0xF));
        }
        return s.toString();
    }
}
