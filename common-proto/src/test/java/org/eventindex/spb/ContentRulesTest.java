package org.eventindex.spb;

import org.eventindex.testing.SpbFixtures;
import com.google.protobuf.ByteString;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.testing.SpbFixtures.Raw;
import org.eventindex.spb.SpbFormatException.Problem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static org.eventindex.testing.SpbFixtures.GUID_A;
import static org.eventindex.testing.SpbFixtures.RUN;
import static org.eventindex.testing.SpbFixtures.begin;
import static org.eventindex.testing.SpbFixtures.end;
import static org.eventindex.testing.SpbFixtures.event;
import static org.eventindex.testing.SpbFixtures.header;
import static org.eventindex.testing.SpbFixtures.menu;
import static org.eventindex.testing.SpbFixtures.trailer;
import static org.eventindex.spb.SpbMessageType.BEGIN_GUID;
import static org.eventindex.spb.SpbMessageType.END_GUID;
import static org.eventindex.spb.SpbMessageType.EVENT;
import static org.eventindex.spb.SpbMessageType.HEADER;
import static org.eventindex.spb.SpbMessageType.TRAILER;
import static org.eventindex.spb.SpbMessageType.TRIGGER_MENU;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ContentRules} as {@link SpbReader} applies them, in both its modes (events parsed or scanned in place): each
 * rule refused as BAD_CONTENT naming the message, the rule and the value, with the same text in both modes (the
 * producer and the consumer must refuse an object with the same reason); what the rules allow is read.
 */
class ContentRulesTest {
    private static final String OLD_FORM_TOKEN = "[DB=" + GUID_A + "][CNT=][CLID=D82968A1-CF91-4320-B2DD-E0F739CBC7E6]"
            + "[TECH=00001000][OID=00000005-000003E8]";
    private static final String MC = "mc16_13TeV.361106.PowhegPythia8EvtGen_AZNLOCTEQ6L1_Zee.merge.AOD."
            + "e3601_s3126_r9364_tid12345678_00";

    /** A valid L1 field with bits set in each of its three masks. */
    private static final String L1_SET = org.eventindex.names.TriggerMask.encodeL1(java.util.BitSet.valueOf(
            new long[] {0x11}), java.util.BitSet.valueOf(new long[] {0x1}), java.util.BitSet.valueOf(new long[] {0x1}));

    static Stream<Arguments> breaches() {
        return Stream.of(
                Arguments.of("a ninth token is fine, a malformed one is not", file(e -> tokens(e, 8)
                        .addEitoken(EItoken_p1.newBuilder().setName("StreamRAW").setToken("[DB=x]"))),
                        "EVENT (run 327636, event 1) of GUID " + GUID_A + " eitoken 9 ('StreamRAW') is not a POOL"
                                + " token: DB 'x' is not an upper-case GUID"),
                Arguments.of("token without [DB=", file(e -> e.setEitoken(0, e.getEitoken(0).toBuilder()
                        .setToken("[CNT=x]"))), "eitoken 0 ('StreamAOD') is not a POOL token: expected '[DB=' at"
                        + " position 0"),
                Arguments.of("token that is not UTF-8", file(e -> e.setEitoken(0, e.getEitoken(0).toBuilder()
                        .setTokenBytes(ByteString.copyFrom(SpbFixtures.TOKEN.replace("POOLContainer", "P\u00c0")
                                .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1))))),
                        "is not a POOL token: CNT"),
                Arguments.of("L1 mask of issue 30", file(e -> e.setL1PassedTrigMask("B!K6!NC#")),
                        "L1PassedTrigMask is not a coded 1536-bit mask: trigger mask 'B!K6!NC#': character '#' at"
                                + " position 7 is neither '!' nor a base64 digit"),
                Arguments.of("L1 mask too wide", file(e -> e.setL1PassedTrigMask("YA!")),
                        "L1PassedTrigMask is not a coded 1536-bit mask: trigger mask 'YA!' exceeds 1536 bits"),
                Arguments.of("HLT field of two masks", file(e -> e.setEFPassedTrigMask("BAA;BAA")),
                        "EFPassedTrigMask is not three ';'-joined coded 4096-bit masks: HLT trigger mask 'BAA;BAA'"
                                + " has 2 ';'-separated masks, expected 3"),
                Arguments.of("L2 mask that is not UTF-8", file(e -> e.setL2PassedTrigMaskBytes(ByteString.copyFrom(
                        new byte[]{'A', (byte) 0xff}))), "L2PassedTrigMask is not UTF-8 (byte 1)"),
                Arguments.of("eitoken name that is not UTF-8", file(e -> e.setEitoken(0, e.getEitoken(0).toBuilder()
                        .setNameBytes(ByteString.copyFrom(new byte[]{(byte) 0xc3})))),
                        "eitoken 0 name is not UTF-8 (byte 0)"),
                Arguments.of("a second run in a data dataset", second(e -> e.setRunNumber(RUN + 1)),
                        "EVENT (run 327637, event 2) of GUID " + GUID_A + " carries run 327637, but its dataset"
                                + " data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824 is run 327636"),
                Arguments.of("another run than the data dataset's", file(e -> e.setRunNumber(RUN + 1)),
                        "carries run 327637, but its dataset"),
                Arguments.of("a second run in a simulation dataset", Raw.start()
                        .message(HEADER, header().toBuilder().setInputDsName(MC).build())
                        .message(BEGIN_GUID, begin(GUID_A)).message(EVENT, sim(284500, 1)).message(EVENT, sim(300000, 2))
                        .message(END_GUID, end(2)).message(TRAILER, trailer(2, 1)).gzip(),
                        "carries run 300000, but the object's events before it carry run 284500"),
                Arguments.of("mixed simulation flags", second(e -> e.setIsSimulation(true)),
                        "has isSimulation true, unlike the object's events before it"),
                Arguments.of("a header that names no dataset", Raw.start()
                        .message(HEADER, header().toBuilder().setInputDsName("user.someone.test").build())
                        .message(BEGIN_GUID, begin(GUID_A)).message(END_GUID, end(0)).message(TRAILER, trailer(0, 1))
                        .gzip(), "HEADER inputDsName is not a dataset name: invalid dataset name 'user.someone.test'"),
                Arguments.of("a GUID that is not UTF-8", Raw.start().message(HEADER, header())
                        .message(BEGIN_GUID, begin(GUID_A).toBuilder().setGuidBytes(ByteString.copyFrom(
                                new byte[]{'G', (byte) 0x80})).build())
                        .message(END_GUID, end(0)).message(TRAILER, trailer(0, 1)).gzip(),
                        "BEGIN_GUID guid is not UTF-8 (byte 1)"),
                Arguments.of("a menu that is not UTF-8", Raw.start().message(HEADER, header())
                        .message(BEGIN_GUID, begin(GUID_A)).message(TRIGGER_MENU, menu().toBuilder().setL1MenuBytes(
                                ByteString.copyFrom(new byte[]{(byte) 0xed, (byte) 0xa0, (byte) 0x80})).build())
                        .message(END_GUID, end(0)).message(TRAILER, trailer(0, 1)).gzip(),
                        "TRIGGER_MENU of GUID " + GUID_A + ": L1Menu is not UTF-8 (byte 0)"),
                Arguments.of("a mask one byte off a valid one seen before", Raw.start().message(HEADER, header())
                        .message(BEGIN_GUID, begin(GUID_A))
                        .message(EVENT, event(RUN, 1).toBuilder().setL1PassedTrigMask(L1_SET).build())
                        .message(EVENT, event(RUN, 2).toBuilder().setL1PassedTrigMask(
                                L1_SET.substring(0, L1_SET.length() - 1) + "#").build())
                        .message(END_GUID, end(2)).message(TRAILER, trailer(2, 1)).gzip(),
                        "EVENT (run 327636, event 2) of GUID " + GUID_A + " L1PassedTrigMask is not a coded 1536-bit"
                                + " mask"),
                Arguments.of("no input file", Raw.start().message(HEADER, header()).message(TRAILER, trailer(0, 0))
                        .gzip(), "the stream holds no input file"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("breaches")
    void eachRuleIsRefusedWithTheSameReasonInBothModes(String name, byte[] gz, String reason) {
        SpbFormatException parsed = assertThrows(SpbFormatException.class, () -> drain(gz, false), name);
        SpbFormatException raw = assertThrows(SpbFormatException.class, () -> drain(gz, true), name);
        assertEquals(Problem.BAD_CONTENT, parsed.problem(), parsed.getMessage());
        assertTrue(parsed.getMessage().contains(reason), parsed.getMessage());
        assertEquals(parsed.getMessage(), raw.getMessage(), "the producer's and the consumer's reason");
        assertThrows(SpbFormatException.class, () -> SpbSummary.scan(new ByteArrayInputStream(gz), "x.ei.spb",
                SpbLimits.DEFAULT), "the producer's scan");
    }

    /** What the rules allow: 32 tokens, the older OID form, masks at their limits, a simulation dataset's run. */
    @Test
    void whatTheRulesAllowIsRead() throws IOException {
        byte[] gz = file(e -> tokens(e, SpbContentLimits.TOKENS_PER_EVENT - 2)
                .addEitoken(EItoken_p1.newBuilder().setName("StreamRAW").setToken(OLD_FORM_TOKEN))
                .setL1PassedTrigMask(SpbFixtures.l1Mask(SpbContentLimits.L1_MASK_BYTES))
                .setEFPassedTrigMask(SpbFixtures.hltMask(SpbContentLimits.HLT_MASK_BYTES))
                .setL2PassedTrigMask("anything \u00e9"));
        assertEquals(2, drain(gz, false));
        assertEquals(2, drain(gz, true));
        byte[] mc = Raw.start().message(HEADER, header().toBuilder().setInputDsName(MC).build())
                .message(BEGIN_GUID, begin(GUID_A)).message(EVENT, sim(0xF000_0002, 1))
                .message(EVENT, sim(0xF000_0002, 2)).message(END_GUID, end(2)).message(TRAILER, trailer(2, 1)).gzip();
        try (SpbReader r = new SpbReader(new ByteArrayInputStream(mc), "mc", SpbLimits.DEFAULT).rawEvents()) {
            while (r.next() != null) {
                // read to the end
            }
            assertEquals(0xF000_0002L, r.content().run(), "the run as unsigned");
            assertEquals(Boolean.TRUE, r.content().simulation());
            assertEquals(MC, r.content().dataset().toString());
        }
    }

    private static EIEvent_p1 sim(int run, long eventNumber) {
        return event(run, eventNumber).toBuilder().setIsSimulation(true).build();
    }

    private static EIEvent_p1.Builder tokens(EIEvent_p1.Builder e, int more) {
        for (int i = 0; i < more; i++) {
            e.addEitoken(EItoken_p1.newBuilder().setName("Stream" + i).setToken(SpbFixtures.TOKEN));
        }
        return e;
    }

    /** Header, one GUID with two events; the first event edited. */
    private static byte[] file(UnaryOperator<EIEvent_p1.Builder> first) {
        return Raw.start().message(HEADER, header()).message(BEGIN_GUID, begin(GUID_A))
                .message(EVENT, first.apply(event(RUN, 1).toBuilder()).build()).message(EVENT, event(RUN, 2))
                .message(END_GUID, end(2)).message(TRAILER, trailer(2, 1)).gzip();
    }

    /** Header, one GUID with two events; the second event edited. */
    private static byte[] second(UnaryOperator<EIEvent_p1.Builder> edit) {
        return Raw.start().message(HEADER, header()).message(BEGIN_GUID, begin(GUID_A))
                .message(EVENT, event(RUN, 1)).message(EVENT, edit.apply(event(RUN, 2).toBuilder()).build())
                .message(END_GUID, end(2)).message(TRAILER, trailer(2, 1)).gzip();
    }

    private static long drain(byte[] gz, boolean raw) throws IOException {
        long events = 0;
        try (SpbReader r = new SpbReader(new ByteArrayInputStream(gz), "content.ei.spb", SpbLimits.DEFAULT)) {
            if (raw) {
                r.rawEvents();
            }
            for (SpbRecord rec = r.next(); rec != null; rec = r.next()) {
                if (rec instanceof SpbRecord.Event || rec instanceof SpbRecord.RawEvent) {
                    events++;
                }
            }
        }
        return events;
    }
}
