package org.eventindex.consolidated;

import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.schema.PrimitiveType;

import java.util.Arrays;

/**
 * The min/max of one page's values in the order of the column's type (unsigned integers unsigned, floats
 * numerically with NaN left out, byte strings as unsigned bytes), turned into one parquet-mr {@link Statistics} per
 * page. Byte strings are copied only when they become the min or the max.
 */
final class PageMinMax {
    private final PrimitiveType type;
    private final ValueColumn.Kind kind;
    private boolean hasValue;
    /** A FLOAT page holds a NaN: its values have no order (see {@link #finishPage}). */
    private boolean nan;
    private long minL;
    private long maxL;
    private float minF;
    private float maxF;
    private byte[] minB = new byte[64];
    private int minLen;
    private byte[] maxB = new byte[64];
    private int maxLen;

    PageMinMax(PrimitiveType type, ValueColumn.Kind kind) {
        this.type = type;
        this.kind = kind;
    }

    /** An INT32 (unsigned) or the bits of a FLOAT. */
    void addWord(int v) {
        if (kind == ValueColumn.Kind.FLOAT) {
            addFloat(Float.intBitsToFloat(v));
        } else {
            addUnsigned(v & 0xFFFFFFFFL);
        }
    }

    void addUnsigned(long v) {
        if (!hasValue) {
            minL = maxL = v;
            hasValue = true;
        } else if (Long.compareUnsigned(v, minL) < 0) {
            minL = v;
        } else if (Long.compareUnsigned(v, maxL) > 0) {
            maxL = v;
        }
    }

    private void addFloat(float v) {
        if (Float.isNaN(v)) {
            nan = true;
            return;
        }
        if (!hasValue) {
            minF = maxF = v;
            hasValue = true;
        } else if (Float.compare(v, minF) < 0) {
            minF = v;
        } else if (Float.compare(v, maxF) > 0) {
            maxF = v;
        }
    }

    void addBytes(byte[] b, int off, int len) {
        if (!hasValue) {
            minB = copy(minB, b, off, len);
            minLen = len;
            maxB = copy(maxB, b, off, len);
            maxLen = len;
            hasValue = true;
        } else if (Arrays.compareUnsigned(b, off, off + len, minB, 0, minLen) < 0) {
            minB = copy(minB, b, off, len);
            minLen = len;
        } else if (Arrays.compareUnsigned(b, off, off + len, maxB, 0, maxLen) > 0) {
            maxB = copy(maxB, b, off, len);
            maxLen = len;
        }
    }

    private static byte[] copy(byte[] into, byte[] b, int off, int len) {
        byte[] dst = into.length >= len ? into : new byte[Math.max(len, into.length * 2)];
        System.arraycopy(b, off, dst, 0, len);
        return dst;
    }

    /** The page's statistics with {@code nulls} nulls; starts the next page's. */
    Statistics<?> finishPage(int nulls) {
        if (nan) {
            return nanPage(nulls);
        }
        Statistics.Builder b = Statistics.getBuilderForReading(type).withNumNulls(nulls);
        if (hasValue) {
            hasValue = false;
            switch (kind) {
                case UINT32 -> b.withMin(le((int) minL, 4)).withMax(le((int) maxL, 4));
                case UINT64 -> b.withMin(le(minL, 8)).withMax(le(maxL, 8));
                case FLOAT -> b.withMin(le(Float.floatToIntBits(minF), 4)).withMax(le(Float.floatToIntBits(maxF), 4));
                case BINARY -> b.withMin(Arrays.copyOf(minB, minLen)).withMax(Arrays.copyOf(maxB, maxLen));
                default -> throw new IllegalStateException("no statistics for " + kind);
            }
        }
        return b.build();
    }

    /**
     * A page with a NaN gets the statistics parquet-mr's writer would give it (a NaN among the values), so that the
     * file writer drops the chunk's column index as parquet-mr does, instead of a "null page" entry that would make
     * readers skip the page's values.
     */
    private Statistics<?> nanPage(int nulls) {
        Statistics<?> st = Statistics.createStats(type);
        st.updateStats(Float.NaN);
        if (hasValue) {
            st.updateStats(minF);
            st.updateStats(maxF);
        }
        st.incrementNumNulls(nulls);
        clear();
        return st;
    }

    /** Forgets the open page. */
    void clear() {
        hasValue = false;
        nan = false;
    }

    /** PLAIN (little-endian) bytes of the low {@code n} bytes of {@code v}. */
    private static byte[] le(long v, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
    }
}
