package org.eventindex.kudu;

import org.eventindex.names.PoolToken;
import org.eventindex.names.TriggerMask;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.SpbWriter;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;

/** Builds small consolidated dataset files (SPB) for the loader tests. */
final class TestDatasetFiles {
    static final int RUN = 327636;
    static final int SMK = 2711;
    /** TBP/TAP/TAV items 3 and 4 fired, then TAV 9 too; HLT physics chains 1 and 70. */
    static final String L1_MASK = TriggerMask.encodeL1(bits(512, 3, 4), bits(512, 3, 4), bits(512, 3, 4, 9));
    static final String HLT_MASK = TriggerMask.encodeHlt(bits(4096, 1, 70), bits(4096), bits(4096));
    private static final String CLID = "D82968A1-CF91-4320-B2DD-E0F739CBC7E6";

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

    /** Writes the file; {@code tweak} may change each event before it is written. */
    static Path write(Path file, String dataset, List<InputFile> inputs, UnaryOperator<EIEvent_p1.Builder> tweak)
            throws IOException {
        // a data dataset's events carry its run (the content rules the SPB reader applies)
        org.eventindex.names.DatasetName name = org.eventindex.names.DatasetName.parse(dataset);
        int run = name.project().startsWith("data") ? name.runNumber() : RUN;
        try (OutputStream out = Files.newOutputStream(file); SpbWriter w = new SpbWriter(out)) {
            w.header(Header_p1.newBuilder().setStartProcTime(1).setTaskID("T.12345678._000001.G").setJobID("1.1")
                    .setInputDsName(dataset).setProvenanceRef(true).setTriggerInfo(true).build());
            int fileNo = 0;
            for (InputFile in : inputs) {
                fileNo++;
                w.beginGuid(BeginGUID_p1.newBuilder().setStartProcTime(1).setAMITag("f838_m1824")
                        .setTrigStream("physics_Main").setProjName("data17_13TeV").setGuid(in.guid()).build());
                w.triggerMenu(TriggerMenu_p1.newBuilder().setSMK(SMK).setL1PSK(7).setHLTPSK(9).setL1Menu("m")
                        .build());
                for (long en : in.eventNumbers()) {
                    w.event(tweak.apply(event(en, in.guid(), guid(fileNo, 1), guid(fileNo, 2)).setRunNumber(run))
                            .build());
                }
                w.endGuid(2);
            }
            w.finish(3);
        }
        return file;
    }
}
