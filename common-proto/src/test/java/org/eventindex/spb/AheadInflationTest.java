package org.eventindex.spb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.testing.SpbFixtures;
import org.eventindex.testing.SpbFixtures.Raw;
import org.junit.jupiter.api.Test;

/**
 * Inflating on a thread of its own ({@link Inflation#AHEAD}) reads the same bytes in the same order as inflating on the
 * reader's thread, and the reader accepts and refuses the same streams with the same reasons: faults met by either
 * thread, in the gzip layer or in the content, on either side of a chunk boundary.
 */
class AheadInflationTest {
    private static final String SOURCE = "job.ei.spb";
    /** Events enough for a stream of several chunks (about 4 MiB inflated, 8 chunks of 512 KiB). */
    private static final int EVENTS = 20_000;

    @Test
    void theChunksHoldTheStreamInOrderAfterTheirHeadroom() throws IOException {
        byte[] plain = new byte[5 * AheadInflater.CHUNK_BYTES + 12_345];
        Random random = new Random(7);
        for (int i = 0; i < plain.length; i++) {
            plain[i] = (byte) (i % 251 < 200 ? i % 7 : random.nextInt()); // compressible, not trivially
        }
        byte[] gz = Raw.gzip(plain);
        CountingInputStream raw = new CountingInputStream(new ByteArrayInputStream(gz));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int headroom = 1000;
        int chunks = 0;
        try (AheadInflater in = new AheadInflater(new GZIPInputStream(raw), raw::count, headroom, SOURCE)) {
            for (AheadInflater.Chunk c = in.take(); c != null; c = in.take()) {
                assertEquals(headroom + AheadInflater.CHUNK_BYTES, c.bytes().length);
                out.write(c.bytes(), headroom, c.length());
                in.release(c);
                chunks++;
            }
            assertEquals(gz.length, in.compressedBytes(), "compressed bytes once the stream ended");
            assertNull(in.take(), "the end, again");
        }
        assertArrayEquals(plain, out.toByteArray());
        assertEquals(6, chunks, "full chunks but the last");
    }

    @Test
    void aValidStreamHasTheSameSummary() throws IOException {
        byte[] gz = Raw.valid(EVENTS).gzip();
        assertTrue(Raw.valid(EVENTS).size() > 4 * AheadInflater.CHUNK_BYTES, "the stream spans several chunks");

        String inline = outcome(gz, Inflation.INLINE);
        assertTrue(inline.startsWith("accepted"), inline);
        assertEquals(inline, outcome(gz, Inflation.AHEAD));
    }

    @Test
    void malformedStreamsAreRefusedExactlyAsInline() throws IOException {
        byte[] gz = Raw.valid(EVENTS).gzip();
        List<byte[]> malformed = new ArrayList<>();
        for (int i = 1; i < 8; i++) {
            malformed.add(Arrays.copyOf(gz, gz.length * i / 8)); // cut off: in the gzip layer, on the inflating thread
        }
        malformed.add(Arrays.copyOf(gz, gz.length - 4)); // the gzip trailer's size cut off
        for (int i = 1; i < 6; i++) {
            byte[] flipped = gz.clone();
            flipped[gz.length * i / 6] ^= 0x5a; // corrupt deflate data (or a wrong CRC at the end)
            malformed.add(flipped);
        }
        malformed.add(withBadEvent(EVENTS * 3 / 4)); // a content fault, on the checking thread, chunks in
        malformed.add(withBadEvent(1));
        malformed.add(Raw.gzip(Arrays.copyOf(Raw.valid(EVENTS).plain(), Raw.valid(EVENTS).size() - 3)));
        malformed.add(new byte[0]);
        malformed.add(Arrays.copyOf(gz, 5)); // the gzip header cut off: read before any thread starts

        for (byte[] bytes : malformed) {
            String inline = outcome(bytes, Inflation.INLINE);
            assertTrue(inline.startsWith("refused"), inline);
            assertEquals(inline, outcome(bytes, Inflation.AHEAD));
        }
        // closing the reader joins its inflating thread: none is left, without waiting
        assertTrue(Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().equals("inflate " + SOURCE)), "an inflating thread is left");
    }

    @Test
    void messagesLargerThanTheBufferAcrossChunksReadTheSame() throws IOException {
        // events of about 80 KiB (more than the reader's buffer) among small ones: some cut by a chunk's end, some by two
        EIEvent_p1 small = SpbFixtures.event(SpbFixtures.RUN, 1);
        Raw r = Raw.start().message(SpbMessageType.HEADER, SpbFixtures.header())
                .message(SpbMessageType.BEGIN_GUID, SpbFixtures.begin(SpbFixtures.GUID_A));
        int events = 0;
        for (int i = 0; i < 60; i++) {
            EIEvent_p1.Builder big = SpbFixtures.event(SpbFixtures.RUN, 2L * i + 2).toBuilder()
                    .setL1PassedTrigMask(SpbFixtures.l1Mask(SpbContentLimits.L1_MASK_BYTES))
                    .setL2PassedTrigMask("y".repeat(SpbContentLimits.HLT_MASK_BYTES))
                    .setEFPassedTrigMask(SpbFixtures.hltMask(SpbContentLimits.HLT_MASK_BYTES));
            for (int t = 1; t < SpbContentLimits.TOKENS_PER_EVENT; t++) {
                big.addEitoken(big.getEitoken(0).toBuilder().setName("Stream" + t)
                        .setToken(SpbFixtures.token(SpbContentLimits.TOKEN_BYTES)));
            }
            r.message(SpbMessageType.EVENT, big.build());
            for (int k = 0; k < i; k++) {
                r.message(SpbMessageType.EVENT, small.toBuilder().setEventNumber(2L * i + 3 + k * 1000L).build());
                events++;
            }
            events++;
        }
        byte[] plain = r.message(SpbMessageType.END_GUID, SpbFixtures.end(events))
                .message(SpbMessageType.TRAILER, SpbFixtures.trailer(events, 1)).plain();
        assertTrue(plain.length > 8 * AheadInflater.CHUNK_BYTES, "the stream spans several chunks");
        byte[] gz = Raw.gzip(plain);

        List<String> inline = rawEvents(gz, Inflation.INLINE);
        assertEquals(events + 1, inline.size(), inline.get(inline.size() - 1));
        assertEquals(inline, rawEvents(gz, Inflation.AHEAD));
        for (int i = 1; i < 10; i++) {
            byte[] cut = Raw.gzip(Arrays.copyOf(plain, plain.length * i / 10));
            assertEquals(rawEvents(cut, Inflation.INLINE), rawEvents(cut, Inflation.AHEAD));
        }
    }

    /**
     * Each raw event's bytes (as a hash and length) and offset, then how the stream ended. The large events repeat and
     * inflate more than 100 times: the limits allow it here.
     */
    private static List<String> rawEvents(byte[] gz, Inflation inflation) throws IOException {
        List<String> out = new ArrayList<>();
        SpbLimits limits = new SpbLimits(SpbLimits.DEFAULT.maxMessageBytes(), SpbLimits.DEFAULT.maxInflatedBytes(),
                SpbLimits.DEFAULT.maxEventsPerFile(), 10_000);
        try (SpbReader reader = new SpbReader(new ByteArrayInputStream(gz), SOURCE, limits, inflation)
                .rawEvents()) {
            for (SpbRecord rec = reader.next(); rec != null; rec = reader.next()) {
                if (rec instanceof SpbRecord.RawEvent e) {
                    EventScan s = e.event();
                    out.add(s.length() + " bytes " + Arrays.hashCode(Arrays.copyOfRange(s.buf(), s.offset(),
                            s.offset() + s.length())) + " at " + e.offset());
                }
            }
            out.add("end at " + reader.uncompressedBytes());
        } catch (SpbFormatException e) {
            out.add("refused " + e.problem() + " at " + e.offset() + ": " + e.getMessage());
        }
        return out;
    }

    @Test
    void aDecompressionBombIsRefusedAsOversize() throws IOException {
        // a Header declaring the largest message allowed, of zeros: the ratio check stops it while it is read
        byte[] bomb = Raw.gzip(Raw.start().u32(SpbMessageType.HEADER.code() << 8 | 1)
                .u32(SpbLimits.DEFAULT.maxMessageBytes()).bytes(new byte[SpbLimits.DEFAULT.maxMessageBytes()]).plain());
        SpbFormatException inline = assertThrows(SpbFormatException.class, () -> SpbSummary.scan(
                new ByteArrayInputStream(bomb), SOURCE, SpbLimits.DEFAULT, Inflation.INLINE));
        assertEquals(SpbFormatException.Problem.OVERSIZE, inline.problem());

        SpbFormatException e = assertThrows(SpbFormatException.class, () -> SpbSummary.scan(
                new ByteArrayInputStream(bomb), SOURCE, SpbLimits.DEFAULT, Inflation.AHEAD));

        assertEquals(SpbFormatException.Problem.OVERSIZE, e.problem());
        assertTrue(e.getMessage().contains("inflates more than 100 times"), e.getMessage());
    }

    @Test
    void aReadFailureOfTheFileReachesTheReaderAsItself() {
        byte[] gz = Raw.valid(EVENTS).gzip();
        InputStream failing = new InputStream() {
            private int at;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (at > gz.length / 2) {
                    throw new IOException("Input/output error (disk)");
                }
                int n = Math.min(len, Math.min(1000, gz.length - at));
                System.arraycopy(gz, at, b, off, n);
                at += n;
                return n;
            }
        };

        IOException e = assertThrows(IOException.class,
                () -> SpbSummary.scan(failing, SOURCE, SpbLimits.DEFAULT, Inflation.AHEAD));

        assertEquals("Input/output error (disk)", e.getMessage());
    }

    /** The valid stream with event {@code n} (1-based) carrying a token that is not a POOL token. */
    private static byte[] withBadEvent(int n) {
        Raw r = Raw.start().message(SpbMessageType.HEADER, SpbFixtures.header())
                .message(SpbMessageType.BEGIN_GUID, SpbFixtures.begin(SpbFixtures.GUID_A));
        for (int i = 1; i <= EVENTS; i++) {
            EIEvent_p1 e = SpbFixtures.event(SpbFixtures.RUN, i);
            if (i == n) {
                e = e.toBuilder().setEitoken(0, e.getEitoken(0).toBuilder().setToken("[DB=not-a-guid]")).build();
            }
            r.message(SpbMessageType.EVENT, e);
        }
        return r.message(SpbMessageType.END_GUID, SpbFixtures.end(EVENTS))
                .message(SpbMessageType.TRAILER, SpbFixtures.trailer(EVENTS, 1)).gzip();
    }

    private static String outcome(byte[] gz, Inflation inflation) throws IOException {
        try {
            return "accepted " + SpbSummary.scan(new ByteArrayInputStream(gz), SOURCE, SpbLimits.DEFAULT, inflation);
        } catch (SpbFormatException e) {
            return "refused " + e.problem() + " at " + e.offset() + ": " + e.getMessage();
        }
    }
}
