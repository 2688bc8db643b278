package org.eventindex.producer;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.spb.SpbWriter;

/** Small valid SPB files for producer tests. */
final class TestSpbFiles {
    static final String INPUT_DS = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";

    private TestSpbFiles() {
    }

    /** Two input files (GUIDs) with {@code eventsPerGuid} events each, run 327636. */
    static Path write(Path file, String taskID, String jobID, int eventsPerGuid) throws IOException {
        long[][] events = new long[2][eventsPerGuid];
        for (int g = 0; g < 2; g++) {
            for (int e = 0; e < eventsPerGuid; e++) {
                events[g][e] = 1000L * g + e;
            }
        }
        return write(file, taskID, jobID, events);
    }

    /** One input file per array of event numbers (uint64 bit patterns), run 327636. */
    static Path write(Path file, String taskID, String jobID, long[]... eventNumbersPerGuid) throws IOException {
        try (OutputStream out = Files.newOutputStream(file); SpbWriter w = new SpbWriter(out)) {
            w.header(Header_p1.newBuilder().setStartProcTime(1_600_000_000_000L).setTaskID(taskID).setJobID(jobID)
                    .setInputDsName(INPUT_DS).setProvenanceRef(true).setTriggerInfo(false).build());
            for (int g = 0; g < eventNumbersPerGuid.length; g++) {
                String guid = "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F" + g;
                w.beginGuid(BeginGUID_p1.newBuilder().setStartProcTime(1_600_000_000_100L).setAMITag("f838_m1824")
                        .setTrigStream("physics_Main").setProjName("data17_13TeV").setGuid(guid).build());
                for (long eventNumber : eventNumbersPerGuid[g]) {
                    w.event(EIEvent_p1.newBuilder().setRunNumber(327636).setEventNumber(eventNumber)
                            .setLumiBlock(10).setTimeStamp(1_600_000_000).setTimeStampNSOffset(0).setBcid(1)
                            .setIsSimulation(false).setIsCalibration(false).setIsTestBeam(false)
                            .addEitoken(EItoken_p1.newBuilder().setName("StreamAOD").setToken("[DB=" + guid + "][CNT=POOLContainer(DataHeader)][CLID=D82968A1-CF91-4320-B2DD-E0F739CBC7E6]"
                                    + "[TECH=00000202][OID=0000000000000005-" + String.format("%016X]", eventNumber)))
                            .build());
                }
                w.endGuid(1_600_000_000_200L);
            }
            w.finish(1_600_000_000_300L);
        }
        return file;
    }
}
