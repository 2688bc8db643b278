package org.eventindex.kudu;

import org.eventindex.consolidated.ConsolidatedFileWriter;
import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.consolidated.StageRefs;
import org.eventindex.consolidated.TriggerMenus;
import org.eventindex.names.DatasetName;
import org.eventindex.names.PoolToken;
import org.eventindex.names.TriggerMask;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.EventScan;
import org.eventindex.spb.SpbWriter;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Builds small consolidated dataset files for the loader tests: the Parquet file the consumer writes, with its footer
 * (input files with their BeginGUID/EndGUID fields and trigger menu, runs, counts, row checksum).
 */
final class TestDatasetFiles {
    static final int RUN = 327636;
    static final int SMK = 2711;
    /** TBP/TAP/TAV items 3 and 4 fired, then TAV 9 too; HLT physics chains 1 and 70. */
    static final String L1_MASK = TriggerMask.encodeL1(bits(512, 3, 4), bits(512, 3, 4), bits(512, 3, 4, 9));
    static final String HLT_MASK = TriggerMask.encodeHlt(bits(4096, 1, 70), bits(4096), bits(4096));
    private static final String CLID = "D82968A1-CF91-4320-B2DD-E0F739CBC7E6";
    private static final String OBJECT = "s3://127.0.0.1:9000/eventindex/panda/12345678/job.ei.spb";

    private TestDatasetFiles() {
    }

    static java.util.BitSet bits(int width, int... set) {
        java.util.BitSet b = new java.util.BitSet(width);
        for (int i : set) {
            b.set(i);
        }
        return b;
    }

    /** One input file of the dataset: its GUID and the event numbers it holds, in order. */
    record InputFile(String guid, long... eventNumbers) {
    }

    /** The GUID of test file {@code i} at stage {@code stage} (0 own, 1 ESD, 2 RAW). */
    static String guid(int i, int stage) {
        return String.format("%08X-0000-4000-8000-%012X", i, stage);
    }

    static String token(String guid, long entry) {
        return new PoolToken(guid, "POOLContainer(DataHeader)", CLID, 0x202, 3, entry).format();
    }

    /** A standard AOD event: own token first, then ESD and RAW provenance. */
    static EIEvent_p1.Builder event(long eventNumber, String ownGuid, String esdGuid, String rawGuid) {
        return EIEvent_p1.newBuilder()
                .setRunNumber(RUN)
                .setEventNumber(eventNumber)
                .setLumiBlock(17)
                .setTimeStamp(1_500_000_000)
                .setTimeStampNSOffset(123)
                .setBcid(42)
                .setExtendedLevel1ID(0xF000_0001)
                .setIsSimulation(false)
                .setIsCalibration(false)
                .setIsTestBeam(false)
                .setL1PassedTrigMask(L1_MASK)
                .setEFPassedTrigMask(HLT_MASK)
                .setL1PSK(7)
                .addEitoken(EItoken_p1.newBuilder().setName("StreamAOD").setToken(token(ownGuid, eventNumber)))
                .addEitoken(EItoken_p1.newBuilder().setName("StreamESD").setToken(token(esdGuid, eventNumber)))
                .addEitoken(EItoken_p1.newBuilder().setName("StreamRAW").setToken(token(rawGuid, eventNumber)));
    }

    static Path write(Path file, String dataset, List<InputFile> inputs) throws IOException {
        return write(file, dataset, inputs, UnaryOperator.identity());
    }

    /**
     * Writes the file; {@code tweak} may change each event before it is written. An event whose token is not a POOL
     * token (which the consumer never writes: its reader refuses such an object) is written with no stage reference
     * columns, which the loader does not read: it derives the references from the tokens itself.
     */
    static Path write(Path file, String dataset, List<InputFile> inputs, UnaryOperator<EIEvent_p1.Builder> tweak)
            throws IOException {
        // a data dataset's events carry its run (the content rules the consumer applies)
        DatasetName name = DatasetName.parse(dataset);
        int run = name.project().startsWith("data") ? name.runNumber() : RUN;
        List<Row> rows = new ArrayList<>();
        List<ConsolidatedMetadata.FileInfo> files = new ArrayList<>();
        TriggerMenus menus = new TriggerMenus(dataset);
        int menu = menus.add(new ConsolidatedMetadata.MenuInfo(SMK, 7, 9, "m", null, null, null));
        int fileNo = 0;
        for (InputFile in : inputs) {
            fileNo++;
            for (long en : in.eventNumbers()) {
                rows.add(new Row(tweak.apply(event(en, in.guid(), guid(fileNo, 1), guid(fileNo, 2)).setRunNumber(run))
                        .build(), in.guid()));
            }
            files.add(new ConsolidatedMetadata.FileInfo(in.guid(), OBJECT, 1, "f838_m1824", "physics_Main",
                    "data17_13TeV", 2, in.eventNumbers().length, List.of(menu)));
        }
        // as the consumer writes them: sorted by (run, event), unsigned, ties in input order (a stable sort)
        rows.sort(Comparator.comparing((Row r) -> r.event().getRunNumber(), Integer::compareUnsigned)
                .thenComparing(r -> r.event().getEventNumber(), Long::compareUnsigned));
        String signal = "signal-" + file.getFileName();
        try (OutputStream out = Files.newOutputStream(file)) {
            ConsolidatedFileWriter w = new ConsolidatedFileWriter(out);
            StageRefs.Resolver resolver = new StageRefs.Resolver();
            for (Row r : rows) {
                write(w, resolver, r);
            }
            List<Long> runs = rows.stream().map(r -> Integer.toUnsignedLong(r.event().getRunNumber())).distinct()
                    .sorted().toList();
            long simulation = rows.stream().filter(r -> r.event().getIsSimulation()).count();
            w.finish(new ConsolidatedMetadata(dataset, signal,
                    new ConsolidatedMetadata.HeaderInfo(1, "consolidated", signal, true, true), List.of(OBJECT),
                    files, menus.list(), w.events(), runs, simulation, 3, w.finishDigest()).toKeyValues());
        }
        return file;
    }

    /**
     * A consolidated SPB file ({@code <dataset>.ei.spb}, gzip) as versions before the Parquet file wrote it: Header,
     * per input file BeginGUID, TriggerMenu, events and EndGUID, then the Trailer. The loader refuses it.
     */
    static Path writeConsolidatedSpb(Path file, String dataset, InputFile input) throws IOException {
        try (OutputStream out = Files.newOutputStream(file); SpbWriter w = new SpbWriter(out)) {
            w.header(Header_p1.newBuilder().setStartProcTime(1).setTaskID("consolidated").setJobID("signal-spb")
                    .setInputDsName(dataset).setProvenanceRef(true).setTriggerInfo(true).build());
            w.beginGuid(BeginGUID_p1.newBuilder().setStartProcTime(1).setAMITag("f838_m1824")
                    .setTrigStream("physics_Main").setProjName("data17_13TeV").setGuid(input.guid()).build());
            w.triggerMenu(TriggerMenu_p1.newBuilder().setSMK(SMK).setL1PSK(7).setHLTPSK(9).setL1Menu("m").build());
            int run = DatasetName.parse(dataset).runNumber();
            for (long en : input.eventNumbers()) {
                w.event(event(en, input.guid(), guid(1, 1), guid(1, 2)).setRunNumber(run).build());
            }
            w.endGuid(2);
            w.finish(3);
        }
        return file;
    }

    private record Row(EIEvent_p1 event, String guid) {
    }

    private static void write(ConsolidatedFileWriter w, StageRefs.Resolver resolver, Row row) throws IOException {
        EventScan scan = new EventScan();
        byte[] bytes = row.event().toByteArray();
        scan.scanCanonical(bytes, 0, bytes.length);
        StageRefs refs = new StageRefs();
        try {
            resolver.resolve(scan, row.guid(), refs);
        } catch (IllegalArgumentException notAPoolToken) {
            refs = new StageRefs();
        }
        StageRefs rowRefs = refs;
        w.write(new ConsolidatedFileWriter.RowBatch() {
            @Override
            public int size() {
                return 1;
            }

            @Override
            public EventScan event(int i) {
                return scan;
            }

            @Override
            public String guid(int i) {
                return row.guid();
            }

            @Override
            public StageRefs refs(int i) {
                return rowRefs;
            }
        });
    }
}
