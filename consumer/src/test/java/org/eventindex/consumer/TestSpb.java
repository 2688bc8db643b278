package org.eventindex.consumer;

import org.eventindex.names.ObjectKey;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.SpbWriter;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Builds small SPB objects in memory with the real {@link SpbWriter}, and reads consolidated files back as plain
 * lists.
 */
final class TestSpb {
    static final String DATASET = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid12345678_00";
    static final String CONTAINER = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";

    /** The taskID of every test object; its jobID is the object's name (see {@link #key}). */
    static final String TASK_ID = "12345678.X";

    /**
     * The producer key of the test object named {@code name}: task {@link #TASK_ID}, jobID {@code name} (so
     * {@code object(name, ...)} has the header its key asks for) and a uuid derived from the name.
     */
    static String key(String name) {
        return ObjectKey.of(TASK_ID, name, UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString()
                .replace("-", "")).key();
    }

    private TestSpb() {
    }

    /**
     * One input file of an object: {@code count} events of run 327636 with event numbers {@code firstEvent,
     * firstEvent+1, ...}.
     */
    record Guid(String guid, long firstEvent, int count, boolean menu, long endProcTime) {
        static Guid of(String guid, long firstEvent, int count) {
            return new Guid(guid, firstEvent, count, true, 1_600_000_100L + firstEvent);
        }
    }

    static byte[] object(String jobId, long startProcTime, Guid... guids) {
        return object(DATASET, jobId, startProcTime, guids);
    }

    /** An object of {@code dataset} (a data dataset: its events carry the run of its name). */
    static byte[] object(String dataset, String jobId, long startProcTime, Guid... guids) {
        return object(dataset, org.eventindex.names.DatasetName.parse(dataset).runNumber(), false, jobId,
                startProcTime, guids);
    }

    /** An object of {@code dataset} whose events carry {@code run} and {@code simulation}. */
    static byte[] object(String dataset, int run, boolean simulation, String jobId, long startProcTime,
                         Guid... guids) {
        return object(dataset, jobId, startProcTime, e -> e.toBuilder().setRunNumber(run).setIsSimulation(simulation)
                .build(), guids);
    }

    /** An object of {@link #DATASET} whose events are edited by {@code edit} (e.g. one made malformed). */
    static byte[] object(String jobId, long startProcTime, java.util.function.UnaryOperator<EIEvent_p1> edit,
                         Guid... guids) {
        int run = org.eventindex.names.DatasetName.parse(DATASET).runNumber();
        return object(DATASET, jobId, startProcTime, e -> edit.apply(e.toBuilder().setRunNumber(run).build()), guids);
    }

    private static byte[] object(String dataset, String jobId, long startProcTime,
                                 java.util.function.UnaryOperator<EIEvent_p1> edit, Guid... guids) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (SpbWriter w = new SpbWriter(bytes)) {
            w.header(Header_p1.newBuilder().setStartProcTime(startProcTime).setTaskID(TASK_ID)
                    .setJobID(jobId).setInputDsName(dataset).setProvenanceRef(true).setTriggerInfo(true).build());
            long maxEnd = 0;
            for (Guid g : guids) {
                w.beginGuid(BeginGUID_p1.newBuilder().setStartProcTime(startProcTime).setAMITag("f838_m1824")
                        .setTrigStream("physics_Main").setProjName("data17_13TeV").setGuid(g.guid()).build());
                if (g.menu()) {
                    w.triggerMenu(TriggerMenu_p1.newBuilder().setSMK(2747).setL1PSK(19).setHLTPSK(8)
                            .setL1Menu("L1_EM3;L1_MU4").build());
                }
                for (int i = 0; i < g.count(); i++) {
                    w.event(edit.apply(event(g.firstEvent() + i)));
                }
                w.endGuid(g.endProcTime());
                maxEnd = Math.max(maxEnd, g.endProcTime());
            }
            w.finish(maxEnd);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static EIEvent_p1 event(long eventNumber) {
        return EIEvent_p1.newBuilder().setRunNumber(327636).setEventNumber(eventNumber).setLumiBlock(100)
                .setTimeStamp(1_497_000_000).setTimeStampNSOffset(5).setBcid(7).setIsSimulation(false)
                .setIsCalibration(false).setIsTestBeam(false)
                .setSMK(2747).setHLTPSK(8).setL1PSK(19).build();
    }

    /** The content of a consolidated Parquet file, read with the loader's reader (count and checksum checked). */
    record Consolidated(org.eventindex.consolidated.ConsolidatedMetadata metadata,
                        List<org.eventindex.consolidated.ConsolidatedFileReader.Row> rows) {
        List<String> guids() {
            return metadata.files().stream().map(org.eventindex.consolidated.ConsolidatedMetadata.FileInfo::guid)
                    .toList();
        }

        List<Long> eventNumbers() {
            return rows.stream().map(r -> r.event().getEventNumber()).toList();
        }
    }

    static Consolidated parquet(byte[] file) throws IOException {
        java.nio.file.Path tmp = java.nio.file.Files.createTempFile("consolidated-", ".parquet");
        try {
            java.nio.file.Files.write(tmp, file);
            List<org.eventindex.consolidated.ConsolidatedFileReader.Row> rows = new java.util.ArrayList<>();
            try (org.eventindex.consolidated.ConsolidatedFileReader r = new org.eventindex.consolidated
                    .ConsolidatedFileReader(new org.apache.parquet.io.LocalInputFile(tmp), tmp.toString())) {
                for (var row = r.next(); row != null; row = r.next()) {
                    rows.add(row);
                }
                return new Consolidated(r.metadata(), rows);
            }
        } finally {
            java.nio.file.Files.deleteIfExists(tmp);
        }
    }

    static List<Long> range(long first, int count) {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(first + i);
        }
        return out;
    }
}
