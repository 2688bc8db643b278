package org.eventindex.spb;

import org.eventindex.testing.SpbFixtures;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.testing.SpbFixtures.Raw;
import org.eventindex.spb.SpbFormatException.Problem;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.eventindex.testing.SpbFixtures.GUID_A;
import static org.eventindex.testing.SpbFixtures.begin;
import static org.eventindex.testing.SpbFixtures.end;
import static org.eventindex.testing.SpbFixtures.header;
import static org.eventindex.testing.SpbFixtures.trailer;
import static org.eventindex.spb.SpbMessageType.BEGIN_GUID;
import static org.eventindex.spb.SpbMessageType.END_GUID;
import static org.eventindex.spb.SpbMessageType.EVENT;
import static org.eventindex.spb.SpbMessageType.HEADER;
import static org.eventindex.spb.SpbMessageType.TRAILER;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SpbReader#rawEvents}: every event comes as its canonical serialization (as written, or re-serialized when
 * the file's bytes are not canonical), with the same counts and the same refusals as the parsing mode.
 */
class SpbReaderRawEventsTest {

    @Test
    void eventsComeAsProtobufsSerializationOfWhatTheParsingModeReturns() throws IOException {
        Random rnd = new Random(3);
        Raw raw = Raw.start().message(HEADER, header()).message(BEGIN_GUID, begin(GUID_A));
        List<EIEvent_p1> written = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            EIEvent_p1 e = SpbFixtures.validContent(EventScanTest.randomEvent(rnd));
            written.add(e);
            if (i % 7 == 3) {
                // the same event with its fields in reverse order: valid protobuf, not canonical
                raw.u32(EVENT.code() << 8 | 1);
                byte[] reversed = reversedFields(e);
                raw.u32(reversed.length).bytes(reversed);
            } else {
                raw.message(EVENT, e);
            }
        }
        // one event with a field this schema does not know (a newer producer's): read without it
        EIEvent_p1 known = written.get(1);
        byte[] withUnknown = known.toBuilder().setUnknownFields(com.google.protobuf.UnknownFieldSet.newBuilder()
                .addField(19, com.google.protobuf.UnknownFieldSet.Field.newBuilder().addVarint(7).build())
                .build()).build().toByteArray();
        written.add(known);
        raw.u32(EVENT.code() << 8 | 1).u32(withUnknown.length).bytes(withUnknown);
        // one event bigger than the reader's 64 KiB buffer, every field at its content limit
        EIEvent_p1.Builder bigger = written.get(0).toBuilder().clearEitoken()
                .setL1PassedTrigMask(SpbFixtures.l1Mask(SpbContentLimits.L1_MASK_BYTES))
                .setL2PassedTrigMask("y".repeat(SpbContentLimits.HLT_MASK_BYTES))
                .setEFPassedTrigMask(SpbFixtures.hltMask(SpbContentLimits.HLT_MASK_BYTES));
        for (int t = 0; t < SpbContentLimits.TOKENS_PER_EVENT; t++) {
            bigger.addEitoken(org.eventindex.proto.EventIndexProtos.EItoken_p1.newBuilder()
                    .setName("Stream" + t).setToken(SpbFixtures.token(SpbContentLimits.TOKEN_BYTES)));
        }
        EIEvent_p1 big = bigger.build();
        assertTrue(big.getSerializedSize() > SpbInput.BUFFER_BYTES, "the event is larger than the buffer");
        written.add(big);
        raw.message(EVENT, big);
        byte[] gz = raw.message(END_GUID, end(written.size())).message(TRAILER, trailer(written.size(), 1)).gzip();

        List<byte[]> events = new ArrayList<>();
        try (SpbReader r = new SpbReader(new ByteArrayInputStream(gz), "test", SpbLimits.DEFAULT).rawEvents()) {
            for (SpbRecord rec = r.next(); rec != null; rec = r.next()) {
                assertTrue(!(rec instanceof SpbRecord.Event), "a parsed event in raw mode");
                if (rec instanceof SpbRecord.RawEvent e) {
                    EventScan s = e.event();
                    events.add(Arrays.copyOfRange(s.buf(), s.offset(), s.offset() + s.length()));
                    EventScanTest.assertSameFields(written.get(events.size() - 1), s);
                }
            }
        }
        assertEquals(written.size(), events.size());
        for (int i = 0; i < written.size(); i++) {
            assertArrayEquals(written.get(i).toByteArray(), events.get(i), "event " + i);
        }
    }

    @Test
    void malformedEventsAreRefusedAsInTheParsingMode() {
        byte[] garbage = {(byte) 0xff, (byte) 0xff, (byte) 0xff};
        byte[] gz = Raw.start().message(HEADER, header()).message(BEGIN_GUID, begin(GUID_A))
                .u32(EVENT.code() << 8 | 1).u32(garbage.length).bytes(garbage)
                .message(END_GUID, end(1)).message(TRAILER, trailer(1, 1)).gzip();
        SpbFormatException raw = assertThrows(SpbFormatException.class, () -> {
            try (SpbReader r = new SpbReader(new ByteArrayInputStream(gz), SpbReaderTest.SOURCE, SpbLimits.DEFAULT)
                    .rawEvents()) {
                while (r.next() != null) {
                    // read to the failure
                }
            }
        });
        SpbFormatException parsed = assertThrows(SpbFormatException.class, () -> SpbReaderTest.readAll(gz));
        assertEquals(Problem.BAD_PROTOBUF, raw.problem());
        assertEquals(parsed.getMessage(), raw.getMessage());
    }

    /** The event's fields serialized in descending field number order. */
    private static byte[] reversedFields(EIEvent_p1 e) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        com.google.protobuf.CodedOutputStream c = com.google.protobuf.CodedOutputStream.newInstance(out);
        List<com.google.protobuf.Descriptors.FieldDescriptor> fields = new ArrayList<>(e.getAllFields().keySet());
        fields.sort((a, b) -> Integer.compare(b.getNumber(), a.getNumber()));
        for (com.google.protobuf.Descriptors.FieldDescriptor f : fields) {
            EIEvent_p1 only = EIEvent_p1.newBuilder().setField(f, e.getField(f)).buildPartial();
            c.writeRawBytes(only.toByteArray());
        }
        c.flush();
        return out.toByteArray();
    }
}
