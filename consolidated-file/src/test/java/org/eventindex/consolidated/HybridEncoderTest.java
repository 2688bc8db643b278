package org.eventindex.consolidated;

import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Our RLE/bit-packed hybrid encoding, decoded by parquet-mr's own decoder. */
class HybridEncoderTest {
    /** Run lengths around the 8-value group and the 63/64-group boundaries, mixed with short runs. */
    private static final int[] LENGTHS = {1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 503, 504, 505, 511, 512, 513};

    @Test
    void randomLevelSequencesDecodeToThemselves() throws IOException {
        Random random = new Random(3);
        for (int round = 0; round < 2_000; round++) {
            int width = 1 + random.nextInt(2);
            int[] values = new int[random.nextInt(3_000)];
            int n = 0;
            while (n < values.length) {
                int v = random.nextInt(1 << width);
                int run = random.nextBoolean() ? LENGTHS[random.nextInt(LENGTHS.length)] : 1 + random.nextInt(4);
                for (int k = 0; k < run && n < values.length; k++) {
                    // runs, or noise when the run is short
                    values[n++] = run < 5 ? random.nextInt(1 << width) : v;
                }
            }
            assertRoundTrip(values, n, width, "round " + round);
        }
    }

    @Test
    void everyWidthUpTo32AndWidthZero() throws IOException {
        Random random = new Random(5);
        for (int width = 0; width <= 32; width++) {
            int[] values = new int[1_000];
            for (int i = 0; i < values.length; i++) {
                int v = width == 0 ? 0 : random.nextInt() >>> (32 - width);
                values[i] = i % 100 < 50 ? v : (width == 0 ? 0 : (int) ((1L << width) - 1));
            }
            assertRoundTrip(values, values.length, width, "width " + width);
        }
    }

    @Test
    void longRunsTakeAFewBytes() throws IOException {
        int[] values = new int[100_000];
        java.util.Arrays.fill(values, 50_000, values.length, 1);
        ByteSink out = new ByteSink(16);
        HybridEncoder.encode(values, values.length, 1, out);
        assertTrue(out.size() <= 8, "two RLE runs: " + out.size() + " bytes");
        assertRoundTrip(values, values.length, 1, "two runs");
    }

    private static void assertRoundTrip(int[] values, int n, int width, String what) throws IOException {
        ByteSink out = new ByteSink(16);
        HybridEncoder.encode(values, n, width, out);
        RunLengthBitPackingHybridDecoder decoder = new RunLengthBitPackingHybridDecoder(width,
                new ByteArrayInputStream(out.array(), 0, out.size()));
        for (int i = 0; i < n; i++) {
            assertEquals(values[i], decoder.readInt(), what + ", value " + i + " of " + n);
        }
    }
}
