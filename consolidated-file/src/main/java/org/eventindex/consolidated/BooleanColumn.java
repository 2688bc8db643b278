package org.eventindex.consolidated;

import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.statistics.Statistics;

/**
 * A required BOOLEAN column: PLAIN values (one bit each, from the least significant bit of each byte), min/max
 * statistics with false before true. Booleans have no dictionary in Parquet.
 */
final class BooleanColumn extends ColumnEncoder {
    private final ByteSink bits = new ByteSink(ConsolidatedSchema.PAGE_BYTES / 8);
    private int count;
    private int pending;
    private boolean seenFalse;
    private boolean seenTrue;

    BooleanColumn(ColumnDescriptor column, PageCompressor compressor) {
        super(column, compressor);
    }

    void write(boolean v) {
        level(0, 0);
        if (v) {
            pending |= 1 << (count & 7);
            seenTrue = true;
        } else {
            seenFalse = true;
        }
        if ((++count & 7) == 0) {
            bits.writeByte(pending);
            pending = 0;
        }
    }

    @Override
    int valueBytes() {
        return bits.size();
    }

    @Override
    Encoding writeValues(ByteSink page) {
        page.write(bits.array(), 0, bits.size());
        if ((count & 7) != 0) {
            page.writeByte(pending);
        }
        bits.reset();
        count = 0;
        pending = 0;
        return Encoding.PLAIN;
    }

    @Override
    Statistics<?> pageStatistics(int nulls) {
        Statistics.Builder b = Statistics.getBuilderForReading(column.getPrimitiveType()).withNumNulls(nulls);
        if (seenFalse || seenTrue) {
            b.withMin(new byte[] {(byte) (seenFalse ? 0 : 1)}).withMax(new byte[] {(byte) (seenTrue ? 1 : 0)});
        }
        seenFalse = false;
        seenTrue = false;
        return b.build();
    }

    @Override
    Dictionary dictionary() {
        return null;
    }

    @Override
    void resetChunk() {
        bits.reset();
        count = 0;
        pending = 0;
        seenFalse = false;
        seenTrue = false;
    }
}
