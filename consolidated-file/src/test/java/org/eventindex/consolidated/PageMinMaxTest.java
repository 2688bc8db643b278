package org.eventindex.consolidated;

import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.schema.PrimitiveType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Page min/max in the orders of the schema's types, as parquet-mr's own statistics of those types compare. */
class PageMinMaxTest {
    private static PrimitiveType type(String name) {
        return ConsolidatedSchema.SCHEMA.getType(name).asPrimitiveType();
    }

    @Test
    void unsignedIntegersCompareUnsigned() {
        PageMinMax m = new PageMinMax(type(ConsolidatedSchema.EXTENDED_LEVEL1_ID), ValueColumn.Kind.UINT32);
        m.addWord(-1);
        m.addWord(1);
        m.addWord(Integer.MIN_VALUE);
        Statistics<?> s = m.finishPage(2);
        assertEquals(1, s.genericGetMin());
        assertEquals(-1, s.genericGetMax(), "0xFFFFFFFF is the largest unsigned value");
        assertEquals(2, s.getNumNulls());
        // parquet-mr's comparator for this column agrees
        assertTrue(type(ConsolidatedSchema.EXTENDED_LEVEL1_ID).comparator().compare(1, -1) < 0);
    }

    @Test
    void stringsCompareAsUnsignedBytesAndTheNextPageStartsEmpty() {
        PageMinMax m = new PageMinMax(type(ConsolidatedSchema.GUID), ValueColumn.Kind.BINARY);
        byte[] high = "\u00e9t\u00e9".getBytes(StandardCharsets.UTF_8);
        byte[] low = "zz".getBytes(StandardCharsets.UTF_8);
        m.addBytes(low, 0, low.length);
        m.addBytes(high, 0, high.length);
        Statistics<?> s = m.finishPage(0);
        assertArrayEquals(low, s.getMinBytes());
        assertArrayEquals(high, s.getMaxBytes(), "0xC3 sorts after 'z' as an unsigned byte");
        Statistics<?> empty = m.finishPage(5);
        assertFalse(empty.hasNonNullValue(), "a page of nulls has no min/max");
        assertEquals(5, empty.getNumNulls());
    }

    @Test
    void aNanPageIsNotAPageOfNulls() {
        PageMinMax m = new PageMinMax(type(ConsolidatedSchema.MC_EVENT_WEIGHT), ValueColumn.Kind.FLOAT);
        m.addWord(Float.floatToIntBits(Float.NaN));
        m.addWord(Float.floatToIntBits(Float.NaN));
        Statistics<?> s = m.finishPage(0);
        assertTrue(s.hasNonNullValue(), "the page has values; parquet-mr drops the column index for a NaN");
        m.addWord(Float.floatToIntBits(-2f));
        m.addWord(Float.floatToIntBits(0.5f));
        Statistics<?> next = m.finishPage(1);
        assertEquals(-2f, next.genericGetMin());
        assertEquals(0.5f, next.genericGetMax());
    }
}
