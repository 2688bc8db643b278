package org.eventindex.spb;

import org.eventindex.testing.SpbFixtures;
import static org.eventindex.testing.SpbFixtures.RUN;

import com.google.protobuf.ByteString;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.testing.SpbFixtures.Raw;
import org.eventindex.spb.SpbFormatException.Problem;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.eventindex.testing.SpbFixtures.GUID_A;
import static org.eventindex.testing.SpbFixtures.GUID_B;
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
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SpbReaderTest {
    static final String SOURCE = "test-object.ei.spb";

    @Test
    void roundTripThroughWriter() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<EIEvent_p1> written = new ArrayList<>();
        try (SpbWriter w = new SpbWriter(bytes)) {
            w.header(header());
            w.beginGuid(begin(GUID_A));
            w.triggerMenu(menu());
            for (int i = 0; i < 3; i++) {
                written.add(event(327636, 1000 + i));
                w.event(written.get(written.size() - 1));
            }
            w.endGuid(11);
            w.beginGuid(begin(GUID_B));
            written.add(event(327636, 5));
            w.event(written.get(written.size() - 1));
            w.endGuid(12);
            w.finish(13);
            assertEquals(4, w.events());
            assertEquals(2, w.files());
        }
        List<SpbRecord> records = readAll(bytes.toByteArray());
        assertEquals(11, records.size());
        assertEquals(header(), ((SpbRecord.Header) records.get(0)).message());
        assertEquals(begin(GUID_A), ((SpbRecord.BeginGuid) records.get(1)).message());
        assertEquals(menu(), ((SpbRecord.TriggerMenu) records.get(2)).message());
        List<EIEvent_p1> read = new ArrayList<>();
        for (SpbRecord r : records) {
            if (r instanceof SpbRecord.Event e) {
                read.add(e.message());
            }
        }
        assertEquals(written, read);
        SpbRecord.EndGuid firstEnd = (SpbRecord.EndGuid) records.get(6);
        assertEquals(3, firstEnd.message().getNentries());
        assertEquals(11, firstEnd.message().getEndProcTime());
        SpbRecord.Trailer t = (SpbRecord.Trailer) records.get(10);
        assertEquals(4, t.message().getNentries());
        assertEquals(2, t.message().getNfiles());
        assertEquals(13, t.message().getEndProcTime());
    }

    @Test
    void offsetsAndByteCounts() throws IOException {
        Raw raw = Raw.valid(2);
        byte[] gz = raw.gzip();
        try (SpbReader r = new SpbReader(new ByteArrayInputStream(gz), SOURCE, SpbLimits.DEFAULT)) {
            assertEquals(8, r.next().offset());
            SpbRecord begin = r.next();
            assertEquals(8 + 8 + header().getSerializedSize(), begin.offset());
            while (r.next() != null) {
                // drain
            }
            assertNull(r.next());
            assertEquals(raw.size(), r.uncompressedBytes());
            assertEquals(gz.length, r.compressedBytes());
        }
    }

    @Test
    void messageLargerThanTheBufferIsRead() throws IOException {
        char[] menuText = new char[200_000];
        Arrays.fill(menuText, 'x');
        TriggerMenu_p1 big = menu().toBuilder().setL1Menu(new String(menuText)).build();
        byte[] gz = Raw.start().message(HEADER, header()).message(BEGIN_GUID, begin(GUID_A))
                .message(TRIGGER_MENU, big).message(EVENT, event(RUN, 1)).message(END_GUID, end(1))
                .message(TRAILER, trailer(1, 1)).gzip();
        List<SpbRecord> records = readAll(gz);
        assertEquals(big, ((SpbRecord.TriggerMenu) records.get(2)).message());
        assertEquals(event(RUN, 1), ((SpbRecord.Event) records.get(3)).message());
    }

    @Test
    void triggerMenuMayFollowEvents() throws IOException {
        byte[] gz = Raw.start().message(HEADER, header()).message(BEGIN_GUID, begin(GUID_A))
                .message(EVENT, event(RUN, 1)).message(TRIGGER_MENU, menu()).message(EVENT, event(RUN, 2))
                .message(END_GUID, end(2)).message(TRAILER, trailer(2, 1)).gzip();
        assertEquals(7, readAll(gz).size());
    }

    @Test
    void fileWithNoInputFilesIsRefused() {
        // its producer message would list no input file, which the supervisor refuses (ContentRules)
        SpbFormatException e = fail(Raw.start().message(HEADER, header()).message(TRAILER, trailer(0, 0)).gzip());
        assertEquals(Problem.BAD_CONTENT, e.problem());
        assertTrue(e.getMessage().contains("no input file"), e.getMessage());
    }

    @Test
    void emptyFile() {
        SpbFormatException e = fail(new byte[0]);
        assertEquals(Problem.EMPTY, e.problem());
        assertEquals(SOURCE, e.source());
        assertTrue(e.getMessage().startsWith(SOURCE + ": "), e.getMessage());
    }

    @Test
    void emptyGzipStream() {
        assertEquals(Problem.EMPTY, fail(Raw.gzip(new byte[0])).problem());
    }

    @Test
    void notGzip() {
        assertEquals(Problem.BAD_GZIP, fail(Raw.valid(1).plain()).problem());
    }

    @Test
    void corruptGzipData() {
        byte[] gz = Raw.valid(50).gzip();
        // Flip bytes in the middle of the deflate data: either the inflater or the CRC check must object.
        for (int i = gz.length / 2; i < gz.length / 2 + 8; i++) {
            gz[i] ^= (byte) 0x5a;
        }
        SpbFormatException e = fail(gz);
        assertTrue(e.problem() == Problem.BAD_GZIP || e.problem() == Problem.BAD_PROTOBUF
                || e.problem() == Problem.UNKNOWN_TYPE || e.problem() == Problem.OVERSIZE
                || e.problem() == Problem.BAD_MESSAGE_VERSION || e.problem() == Problem.TRUNCATED, e.getMessage());
    }

    @Test
    void badMagic() {
        SpbFormatException e = fail(new Raw().u32(0x12345678).u32(1).gzip());
        assertEquals(Problem.BAD_MAGIC, e.problem());
        assertEquals(0, e.offset());
        assertTrue(e.getMessage().contains("0x12345678"), e.getMessage());
    }

    @Test
    void wrongVersion() {
        SpbFormatException e = fail(new Raw().u32(SpbReader.MAGIC).u32(2).gzip());
        assertEquals(Problem.BAD_VERSION, e.problem());
        assertEquals(4, e.offset());
    }

    @Test
    void magicCutShort() {
        assertEquals(Problem.TRUNCATED, fail(Raw.gzip(new byte[] {(byte) 0xc7, (byte) 0xc8})).problem());
    }

    @Test
    void unknownType() {
        SpbFormatException e = fail(Raw.start().message(HEADER, header()).u32(7 << 8 | 1).u32(0).gzip());
        assertEquals(Problem.UNKNOWN_TYPE, e.problem());
        assertEquals(8 + 8 + header().getSerializedSize(), e.offset());
    }

    @Test
    void badMessageVersion() {
        byte[] h = header().toByteArray();
        SpbFormatException e = fail(Raw.start().u32(HEADER.code() << 8 | 2).u32(h.length).bytes(h).gzip());
        assertEquals(Problem.BAD_MESSAGE_VERSION, e.problem());
        assertEquals(8, e.offset());
    }

    @Test
    void lengthPastEndOfStream() {
        byte[] h = header().toByteArray();
        SpbFormatException e = fail(Raw.start().u32(HEADER.code() << 8 | 1).u32(h.length + 100).bytes(h).gzip());
        assertEquals(Problem.TRUNCATED, e.problem());
    }

    @Test
    void hugeDeclaredLengthRefusedBeforeAllocating() {
        // 0xFFFFFFF0 bytes: allocating it would fail with OutOfMemoryError, so a clean OVERSIZE proves the order.
        SpbFormatException e = fail(Raw.start().u32(HEADER.code() << 8 | 1).u32(0xFFFFFFF0).gzip());
        assertEquals(Problem.OVERSIZE, e.problem());
        assertTrue(e.getMessage().contains("4294967280"), e.getMessage());
    }

    @Test
    void lengthAboveConfiguredLimit() {
        byte[] gz = Raw.valid(1).gzip();
        SpbFormatException e = assertThrows(SpbFormatException.class, () -> readAll(gz, new SpbLimits(10)));
        assertEquals(Problem.OVERSIZE, e.problem());
    }

    @Test
    void truncatedGzip() {
        byte[] gz = Raw.valid(200).gzip();
        SpbFormatException e = fail(Arrays.copyOf(gz, gz.length / 2));
        assertEquals(Problem.TRUNCATED, e.problem());
    }

    @Test
    void truncatedGzipTrailer() {
        byte[] gz = Raw.valid(3).gzip();
        SpbFormatException e = fail(Arrays.copyOf(gz, gz.length - 4));
        assertEquals(Problem.TRUNCATED, e.problem());
    }

    @Test
    void messageHeaderCutShort() {
        assertEquals(Problem.TRUNCATED, fail(Raw.start().message(HEADER, header()).u32(BEGIN_GUID.code() << 8 | 1)
                .gzip()).problem());
    }

    @Test
    void missingTrailer() {
        SpbFormatException e = fail(Raw.start().message(HEADER, header()).message(BEGIN_GUID, begin(GUID_A))
                .message(EVENT, event(RUN, 1)).message(END_GUID, end(1)).gzip());
        assertEquals(Problem.TRUNCATED, e.problem());
        assertTrue(e.getMessage().contains("without a Trailer"), e.getMessage());
    }

    @Test
    void trailerCountMismatch() {
        SpbFormatException e = fail(Raw.start().message(HEADER, header()).message(BEGIN_GUID, begin(GUID_A))
                .message(EVENT, event(RUN, 1)).message(END_GUID, end(1)).message(TRAILER, trailer(2, 1)).gzip());
        assertEquals(Problem.COUNT_MISMATCH, e.problem());
        assertTrue(e.getMessage().contains("2 events"), e.getMessage());
    }

    @Test
    void trailerFileCountMismatch() {
        SpbFormatException e = fail(Raw.start().message(HEADER, header()).message(TRAILER, trailer(0, 1)).gzip());
        assertEquals(Problem.COUNT_MISMATCH, e.problem());
    }

    @Test
    void endGuidCountMismatch() {
        SpbFormatException e = fail(Raw.start().message(HEADER, header()).message(BEGIN_GUID, begin(GUID_A))
                .message(EVENT, event(RUN, 1)).message(END_GUID, end(5)).message(TRAILER, trailer(1, 1)).gzip());
        assertEquals(Problem.COUNT_MISMATCH, e.problem());
        assertTrue(e.getMessage().contains(GUID_A), e.getMessage());
    }

    @Test
    void eventOutsideGuid() {
        SpbFormatException e = fail(Raw.start().message(HEADER, header()).message(EVENT, event(RUN, 1)).gzip());
        assertEquals(Problem.BAD_ORDER, e.problem());
        assertTrue(e.getMessage().contains("outside BEGIN_GUID/END_GUID"), e.getMessage());
    }

    @Test
    void headerNotFirst() {
        assertEquals(Problem.BAD_ORDER, fail(Raw.start().message(BEGIN_GUID, begin(GUID_A)).gzip()).problem());
    }

    @Test
    void trailerInsideGuid() {
        assertEquals(Problem.BAD_ORDER, fail(Raw.start().message(HEADER, header()).message(BEGIN_GUID, begin(GUID_A))
                .message(TRAILER, trailer(0, 0)).gzip()).problem());
    }

    @Test
    void dataAfterTrailer() {
        SpbFormatException e = fail(Raw.valid(1).message(EVENT, event(RUN, 2)).gzip());
        assertEquals(Problem.BAD_ORDER, e.problem());
        assertTrue(e.getMessage().contains("after the TRAILER"), e.getMessage());
    }

    @Test
    void garbageByteAfterTrailer() {
        assertEquals(Problem.BAD_ORDER, fail(Raw.valid(1).bytes(new byte[] {0}).gzip()).problem());
    }

    @Test
    void missingRequiredField() {
        // A Header with only startProcTime set: parses as protobuf but misses required fields.
        byte[] partial = {0x08, 0x01};
        SpbFormatException e = fail(Raw.start().u32(HEADER.code() << 8 | 1).u32(partial.length).bytes(partial)
                .gzip());
        assertEquals(Problem.BAD_PROTOBUF, e.problem());
        assertTrue(e.getMessage().contains("taskID"), e.getMessage());
    }

    @Test
    void garbageProtobuf() {
        byte[] junk = ByteString.copyFromUtf8("\u00ff\u00ff\u00ff not protobuf").toByteArray();
        assertEquals(Problem.BAD_PROTOBUF, fail(Raw.start().u32(HEADER.code() << 8 | 1).u32(junk.length)
                .bytes(junk).gzip()).problem());
    }

    @Test
    void emptyGuidAndDuplicateGuid() {
        assertEquals(Problem.BAD_CONTENT, fail(Raw.start().message(HEADER, header()).message(BEGIN_GUID, begin(""))
                .gzip()).problem());
        // blank as well (found by the differential test): the supervisor and the consumer refuse a blank GUID
        SpbFormatException blank = fail(Raw.start().message(HEADER, header()).message(BEGIN_GUID, begin(" \t"))
                .gzip());
        assertEquals(Problem.BAD_CONTENT, blank.problem());
        assertTrue(blank.getMessage().contains("empty or blank guid"), blank.getMessage());
        assertEquals(Problem.BAD_CONTENT, fail(Raw.start().message(HEADER, header())
                .message(BEGIN_GUID, begin(GUID_A)).message(END_GUID, end(0))
                .message(BEGIN_GUID, begin(GUID_A)).gzip()).problem());
    }

    @Test
    void recordsAreOfTheRightType() throws IOException {
        List<SpbRecord> records = readAll(Raw.valid(1).gzip());
        assertInstanceOf(SpbRecord.Header.class, records.get(0));
        assertInstanceOf(SpbRecord.BeginGuid.class, records.get(1));
        assertInstanceOf(SpbRecord.Event.class, records.get(2));
        assertInstanceOf(SpbRecord.EndGuid.class, records.get(3));
        assertInstanceOf(SpbRecord.Trailer.class, records.get(4));
    }

    private static SpbFormatException fail(byte[] gz) {
        return assertThrows(SpbFormatException.class, () -> readAll(gz));
    }

    static List<SpbRecord> readAll(byte[] gz) throws IOException {
        return readAll(gz, SpbLimits.DEFAULT);
    }

    static List<SpbRecord> readAll(byte[] gz, SpbLimits limits) throws IOException {
        List<SpbRecord> out = new ArrayList<>();
        try (SpbReader r = new SpbReader(new ByteArrayInputStream(gz), SOURCE, limits)) {
            for (SpbRecord rec = r.next(); rec != null; rec = r.next()) {
                out.add(rec);
            }
        }
        return out;
    }
}
