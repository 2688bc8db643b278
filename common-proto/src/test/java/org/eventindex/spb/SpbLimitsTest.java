package org.eventindex.spb;

import org.eventindex.testing.SpbFixtures;
import static org.eventindex.testing.SpbFixtures.RUN;

import org.eventindex.testing.SpbFixtures.Raw;
import org.eventindex.spb.SpbFormatException.Problem;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPOutputStream;

import static org.eventindex.testing.SpbFixtures.GUID_A;
import static org.eventindex.testing.SpbFixtures.begin;
import static org.eventindex.testing.SpbFixtures.event;
import static org.eventindex.testing.SpbFixtures.header;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bounds of {@link SpbLimits} against hostile streams: each stops the read with OVERSIZE and a clear reason. */
class SpbLimitsTest {
    private static final String SOURCE = "hostile.ei.spb";

    @Test
    void gzipBombStopsAtTheInflatedLimitAfterReadingLittleOfIt() throws IOException {
        // 128 MiB of identical events compress about 1000:1; the reader may inflate only 4 MiB of them.
        byte[] bomb = bomb(128L << 20);
        long limit = 4L << 20;
        CountingStream in = new CountingStream(new ByteArrayInputStream(bomb));
        SpbFormatException e = assertThrows(SpbFormatException.class, () -> drain(new SpbReader(in, SOURCE,
                new SpbLimits(1 << 20, limit, Long.MAX_VALUE, Integer.MAX_VALUE))));
        assertEquals(Problem.OVERSIZE, e.problem());
        assertTrue(e.getMessage().contains("inflates to more than " + limit + " bytes"), e.getMessage());
        assertTrue(e.getMessage().startsWith(SOURCE), e.getMessage());
        assertTrue(in.count < bomb.length / 4, "read " + in.count + " of " + bomb.length + " compressed bytes");
    }

    @Test
    void gzipBombStopsAtTheInflationRatioWhateverItsTotal() throws IOException {
        // The same 1000:1 bomb with no total limit: the default ratio (100) stops it within its first megabytes.
        byte[] bomb = bomb(128L << 20);
        CountingStream in = new CountingStream(new ByteArrayInputStream(bomb));
        SpbFormatException e = assertThrows(SpbFormatException.class, () -> drain(new SpbReader(in, SOURCE,
                SpbLimits.DEFAULT)));
        assertEquals(Problem.OVERSIZE, e.problem());
        assertTrue(e.getMessage().contains("inflates more than " + SpbLimits.DEFAULT_INFLATION_RATIO + " times"),
                e.getMessage());
        assertTrue(in.count < bomb.length / 4, "read " + in.count + " of " + bomb.length + " compressed bytes");
    }

    @Test
    void aSmallStreamMayInflateMoreThanTheRatioUpToTheFreeBytes() throws IOException {
        // 512 KiB of identical events compress about 1000:1 but stay under RATIO_FREE_BYTES.
        byte[] small = bomb(SpbLimits.RATIO_FREE_BYTES / 2);
        assertTrue(small.length * 100L < SpbLimits.RATIO_FREE_BYTES / 2, small.length + " compressed bytes");
        SpbFormatException e = assertThrows(SpbFormatException.class, () -> drain(new SpbReader(
                new ByteArrayInputStream(small), SOURCE, SpbLimits.DEFAULT)));
        assertEquals(Problem.TRUNCATED, e.problem(), "read to its end: " + e.getMessage());
    }

    @Test
    void aDeclaredSizeLowersTheInflatedLimitOnly() {
        assertEquals(1000, SpbLimits.DEFAULT.forDeclaredSize(1000).maxInflatedBytes());
        assertEquals(SpbLimits.DEFAULT.maxInflationRatio(), SpbLimits.DEFAULT.forDeclaredSize(1000)
                .maxInflationRatio());
        assertEquals(SpbLimits.DEFAULT, SpbLimits.DEFAULT.forDeclaredSize(0));
        assertEquals(SpbLimits.DEFAULT, SpbLimits.DEFAULT.forDeclaredSize(Long.MAX_VALUE));
    }

    @Test
    void declaredFourGigabyteMessageIsRefusedBeforeAllocation() {
        // 0xFFFFFFFF as an unsigned length is 4 GiB - 1; even the largest possible limit refuses it.
        byte[] gz = Raw.start().message(SpbMessageType.HEADER, header()).u32(SpbMessageType.BEGIN_GUID.code() << 8 | 1)
                .u32(0xFFFFFFFF).gzip();
        SpbFormatException e = assertThrows(SpbFormatException.class, () -> drain(new SpbReader(
                new ByteArrayInputStream(gz), SOURCE, new SpbLimits(Integer.MAX_VALUE))));
        assertEquals(Problem.OVERSIZE, e.problem());
        assertTrue(e.getMessage().contains("declares 4294967295 bytes"), e.getMessage());
    }

    @Test
    void eventsPerFileAboveTheLimitAreRefused() {
        byte[] gz = Raw.valid(6).gzip();
        SpbFormatException e = assertThrows(SpbFormatException.class, () -> drain(new SpbReader(
                new ByteArrayInputStream(gz), SOURCE, new SpbLimits(1 << 20, 1L << 30, 5))));
        assertEquals(Problem.OVERSIZE, e.problem());
        assertTrue(e.getMessage().contains("GUID " + GUID_A + " has more than 5 events"), e.getMessage());
    }

    @Test
    void aFileWithinEveryLimitReadsToTheEnd() throws IOException {
        byte[] gz = Raw.valid(5).gzip();
        assertEquals(5, drain(new SpbReader(new ByteArrayInputStream(gz), SOURCE,
                new SpbLimits(1 << 20, Raw.valid(5).size(), 5))));
    }

    @Test
    void limitsMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new SpbLimits(1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new SpbLimits(1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new SpbLimits(1, 1, 1, 0));
    }

    private static long drain(SpbReader reader) throws IOException {
        long events = 0;
        try (reader) {
            for (SpbRecord r = reader.next(); r != null; r = reader.next()) {
                if (r instanceof SpbRecord.Event) {
                    events++;
                }
            }
        }
        return events;
    }

    /** Header, one BeginGUID, then identical events up to about {@code inflatedBytes}, gzipped as they are made. */
    private static byte[] bomb(long inflatedBytes) throws IOException {
        byte[] one = new Raw().message(SpbMessageType.EVENT, event(RUN, 1)).plain();
        byte[] block = new byte[one.length * 4096];
        for (int i = 0; i < 4096; i++) {
            System.arraycopy(one, 0, block, i * one.length, one.length);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out, 1 << 16)) {
            gz.write(Raw.start().message(SpbMessageType.HEADER, header())
                    .message(SpbMessageType.BEGIN_GUID, begin(GUID_A)).plain());
            for (long written = 0; written < inflatedBytes; written += block.length) {
                gz.write(block);
            }
        }
        return out.toByteArray();
    }

    private static final class CountingStream extends InputStream {
        private final InputStream in;
        long count;

        CountingStream(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            count += b < 0 ? 0 : 1;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            count += Math.max(0, n);
            return n;
        }
    }
}
