package org.eventindex.testing;

import com.google.protobuf.MessageLite;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.proto.EventIndexProtos.EndGUID_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.Trailer_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;

import org.eventindex.spb.SpbMessageType;
import org.eventindex.spb.SpbReader;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.zip.GZIPOutputStream;

/**
 * Small SPB messages and a raw stream builder for crafting malformed files byte by byte, for the tests of the modules
 * that read SPB files (the producer's refusals, the consumer's hostile objects).
 * <p>
 * common-proto's own tests keep their own copy ({@code org.eventindex.testing.SpbFixtures} in its test tree): the kit
 * depends on common-proto, so common-proto cannot have the kit on its test class path (Maven refuses the cycle). Keep
 * the two alike when one changes.
 */
public final class SpbFixtures {
    public static final String GUID_A = "0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9";
    public static final String GUID_B = "11111111-2222-3333-4444-555555555555";

    /** The run of {@link #header()}'s dataset, which its events must carry. */
    public static final int RUN = 327636;
    /** A POOL token of an event in {@link #GUID_A}. */
    public static final String TOKEN = "[DB=" + GUID_A + "][CNT=POOLContainer(DataHeader)]"
            + "[CLID=D82968A1-CF91-4320-B2DD-E0F739CBC7E6][TECH=00000202][OID=0000000000000005-0000000000000001]";

    private SpbFixtures() {
    }

    public static Header_p1 header() {
        return Header_p1.newBuilder().setStartProcTime(1_500_000_000_000L).setTaskID("12345678.G")
                .setJobID("4000000001.1").setInputDsName("data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824")
                .setProvenanceRef(true).setTriggerInfo(true).build();
    }

    public static BeginGUID_p1 begin(String guid) {
        return BeginGUID_p1.newBuilder().setStartProcTime(1_500_000_000_100L).setAMITag("f838_m1824")
                .setTrigStream("physics_Main").setProjName("data17_13TeV").setGuid(guid).build();
    }

    public static TriggerMenu_p1 menu() {
        return TriggerMenu_p1.newBuilder().setSMK(2612).setL1PSK(17).setHLTPSK(9).setL1Menu("L1_EM22VHI").build();
    }

    public static EIEvent_p1 event(int run, long eventNumber) {
        return EIEvent_p1.newBuilder().setRunNumber(run).setEventNumber(eventNumber).setLumiBlock(100)
                .setTimeStamp(1_500_000_000).setTimeStampNSOffset(123).setBcid(7).setIsSimulation(false)
                .setIsCalibration(false).setIsTestBeam(false)
                .addEitoken(EItoken_p1.newBuilder().setName("StreamAOD").setToken(TOKEN))
                .build();
    }

    /** A coded L1 mask of {@code n} characters (at least 2): no bit set, its count padded with leading zero digits. */
    public static String l1Mask(int n) {
        return "A".repeat(n - 2) + "YA";
    }

    /** A coded HLT field of {@code n} characters (at least 11): three empty masks, the first padded. */
    public static String hltMask(int n) {
        return "A".repeat(n - 11) + "BAA;BAA;BAA";
    }

    /** A POOL token of {@code n} bytes (at least 156): {@link #TOKEN} with its container padded with 'c'. */
    public static String token(int n) {
        int fixed = TOKEN.length() - "POOLContainer(DataHeader)".length();
        return TOKEN.replace("POOLContainer(DataHeader)", "c".repeat(n - fixed));
    }

    /**
     * {@code e} made valid content for {@link #header()}'s dataset ({@code org.eventindex.spb.ContentRules}), keeping
     * its shape: the dataset's run, not simulated, masks and tokens of the same lengths (within the rules' minimums) made valid.
     */
    public static EIEvent_p1 validContent(EIEvent_p1 e) {
        EIEvent_p1.Builder b = e.toBuilder().setRunNumber(RUN).setIsSimulation(false);
        if (e.hasL1PassedTrigMask()) {
            b.setL1PassedTrigMask(l1Mask(Math.max(2, e.getL1PassedTrigMaskBytes().size())));
        }
        if (e.hasEFPassedTrigMask()) {
            b.setEFPassedTrigMask(hltMask(Math.max(11, e.getEFPassedTrigMaskBytes().size())));
        }
        if (e.hasL2PassedTrigMask() && !e.getL2PassedTrigMaskBytes().isValidUtf8()) {
            b.setL2PassedTrigMask("L2");
        }
        b.clearEitoken();
        for (EItoken_p1 t : e.getEitokenList()) {
            b.addEitoken(t.toBuilder().setName(t.getNameBytes().isValidUtf8() ? t.getName() : "Stream")
                    .setToken(token(Math.max(TOKEN.length() - 25, t.getTokenBytes().size()))));
        }
        return b.build();
    }

    public static EndGUID_p1 end(int nentries) {
        return EndGUID_p1.newBuilder().setEndProcTime(1_500_000_000_200L).setNentries(nentries).build();
    }

    public static Trailer_p1 trailer(int nentries, int nfiles) {
        return Trailer_p1.newBuilder().setEndProcTime(1_500_000_000_300L).setNentries(nentries).setNfiles(nfiles)
                .build();
    }

    /** Uncompressed SPB content built field by field, then gzipped. */
    public static final class Raw {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        /** Magic and version 1. */
        public static Raw start() {
            return new Raw().u32(SpbReader.MAGIC).u32(SpbReader.FILE_VERSION);
        }

        public Raw u32(int value) {
            out.write(value);
            out.write(value >>> 8);
            out.write(value >>> 16);
            out.write(value >>> 24);
            return this;
        }

        public Raw bytes(byte[] b) {
            out.write(b, 0, b.length);
            return this;
        }

        public Raw message(SpbMessageType type, MessageLite message) {
            byte[] b = message.toByteArray();
            return u32(type.code() << 8 | 1).u32(b.length).bytes(b);
        }

        /** A minimal valid file: one GUID with {@code events} events of {@link #RUN}. */
        public static Raw valid(int events) {
            Raw r = start().message(SpbMessageType.HEADER, header())
                    .message(SpbMessageType.BEGIN_GUID, begin(GUID_A));
            for (int i = 0; i < events; i++) {
                r.message(SpbMessageType.EVENT, event(RUN, i + 1));
            }
            return r.message(SpbMessageType.END_GUID, end(events))
                    .message(SpbMessageType.TRAILER, trailer(events, 1));
        }

        public int size() {
            return out.size();
        }

        public byte[] plain() {
            return out.toByteArray();
        }

        public byte[] gzip() {
            return gzip(plain());
        }

        public static byte[] gzip(byte[] plain) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
                gz.write(plain);
            } catch (IOException e) {
                throw new UncheckedIOException("gzip in memory failed", e);
            }
            return bytes.toByteArray();
        }
    }
}
