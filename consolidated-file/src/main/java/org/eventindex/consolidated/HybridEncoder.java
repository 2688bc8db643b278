package org.eventindex.consolidated;

/**
 * Parquet's RLE/bit-packed hybrid encoding (format spec, "Run Length Encoding / Bit-Packing Hybrid"), used for the
 * repetition and definition levels and for dictionary indices. A run of 8 or more equal values becomes an RLE run
 * (header {@code count << 1}, then the value in {@code ceil(width / 8)} bytes); everything else is bit-packed in
 * groups of 8 values (header {@code groups << 1 | 1}, values packed from the least significant bit). Encodes a
 * whole page's values at once, so runs are found by looking ahead instead of by a state machine per value.
 */
final class HybridEncoder {
    /** The shortest run worth an RLE header: a bit-packed group holds 8 values anyway. */
    private static final int MIN_RUN = 8;

    private HybridEncoder() {
    }

    /** Bits needed for values up to {@code max} (0 for 0). */
    static int bitWidth(int max) {
        return 32 - Integer.numberOfLeadingZeros(max);
    }

    /** Appends the encoding of {@code values[0, n)}, each below {@code 2^width}, to {@code out}. */
    static void encode(int[] values, int n, int width, ByteSink out) {
        int i = 0;
        int packedFrom = -1;
        while (i < n) {
            int v = values[i];
            int end = i + 1;
            while (end < n && values[end] == v) {
                end++;
            }
            if (packedFrom < 0) {
                if (end - i >= MIN_RUN) {
                    writeRun(v, end - i, width, out);
                } else {
                    packedFrom = i;
                }
                i = end;
                continue;
            }
            // a bit-packed stretch is open: it must close on a multiple of 8 values, taking the first values of
            // this run if needed; what remains of the run is RLE-encoded if still long enough
            int pad = (8 - (i - packedFrom) % 8) % 8;
            if (end - i - pad >= MIN_RUN) {
                writePacked(values, packedFrom, i + pad, width, out);
                writeRun(v, end - i - pad, width, out);
                packedFrom = -1;
            }
            i = end;
        }
        if (packedFrom >= 0) {
            writePacked(values, packedFrom, n, width, out);
        }
    }

    private static void writeRun(int value, int count, int width, ByteSink out) {
        out.writeUnsignedVarInt(count << 1);
        for (int b = 0; b < width; b += 8) {
            out.writeByte(value >>> b);
        }
    }

    /** Bit-packs {@code values[from, to)}, the last group padded with zeros to 8 values. */
    private static void writePacked(int[] values, int from, int to, int width, ByteSink out) {
        int groups = (to - from + 7) / 8;
        out.writeUnsignedVarInt(groups << 1 | 1);
        int bytes = groups * width;
        out.ensure(bytes);
        byte[] buf = out.array();
        int pos = out.size();
        long acc = 0;
        int bits = 0;
        for (int i = from, stop = from + groups * 8; i < stop; i++) {
            long v = i < to ? values[i] & 0xFFFFFFFFL : 0;
            acc |= v << bits;
            bits += width;
            while (bits >= 8) {
                buf[pos++] = (byte) acc;
                acc >>>= 8;
                bits -= 8;
            }
        }
        out.advance(bytes);
    }
}
