package org.eventindex.kudu;

import org.apache.kudu.ColumnSchema;
import org.apache.kudu.Schema;
import org.apache.kudu.Type;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KuduSchemasTest {

    @Test
    void keysFollowTheSeed() {
        assertEquals(KuduSchemas.DATASETS_KEY, names(KuduSchemas.datasets().getPrimaryKeyColumns()));
        assertEquals(KuduSchemas.EVENTS_KEY, names(KuduSchemas.events().getPrimaryKeyColumns()));
        assertEquals(KuduSchemas.DUPLICATED_EVENTS_KEY,
                names(KuduSchemas.duplicatedEvents().getPrimaryKeyColumns()));
    }

    @Test
    void encodingsFollowTheSeed() {
        for (Schema s : List.of(KuduSchemas.datasets(), KuduSchemas.events(), KuduSchemas.duplicatedEvents())) {
            for (ColumnSchema c : s.getColumns()) {
                if (c.getType() == Type.STRING) {
                    assertEquals(ColumnSchema.Encoding.DICT_ENCODING, c.getEncoding(), c.getName());
                    assertEquals(ColumnSchema.CompressionAlgorithm.SNAPPY, c.getCompressionAlgorithm(), c.getName());
                } else {
                    assertEquals(ColumnSchema.Encoding.BIT_SHUFFLE, c.getEncoding(), c.getName());
                    assertEquals(ColumnSchema.CompressionAlgorithm.LZ4, c.getCompressionAlgorithm(), c.getName());
                }
                assertEquals(!c.isKey(), c.isNullable(), c.getName());
            }
        }
    }

    @Test
    void referenceColumnsHaveSmallBlocksAndTheRestTheServerDefault() {
        List<String> reference = List.of(KuduSchemas.RUNNUMBER, KuduSchemas.DB, KuduSchemas.TK, KuduSchemas.DBRAW,
                KuduSchemas.TKRAW, KuduSchemas.DBESD, KuduSchemas.TKESD, KuduSchemas.DBAOD, KuduSchemas.TKAOD);
        for (Schema s : List.of(KuduSchemas.events(), KuduSchemas.duplicatedEvents())) {
            for (ColumnSchema c : s.getColumns()) {
                int expected = reference.contains(c.getName()) ? KuduSchemas.LOOKUP_BLOCK_BYTES : 0;
                assertEquals(expected, c.getDesiredBlockSize(), c.getName());
            }
        }
        for (ColumnSchema c : KuduSchemas.datasets().getColumns()) {
            assertEquals(0, c.getDesiredBlockSize(), c.getName());
        }
    }

    @Test
    void duplicatedEventsIsEventsPlusInsertionTime() {
        List<String> events = names(KuduSchemas.events().getColumns());
        List<String> dups = names(KuduSchemas.duplicatedEvents().getColumns());
        assertEquals(events.size() + 1, dups.size());
        assertTrue(dups.containsAll(events));
        assertEquals(Type.UNIXTIME_MICROS, KuduSchemas.duplicatedEvents().getColumn(KuduSchemas.INSERTION_TIME)
                .getType());
    }

    /** Decision 0037: the masks are stored as words only; the coded text is derived from them. */
    @Test
    void eventTablesHaveTheMaskWordsAndNoMaskText() {
        for (Schema s : List.of(KuduSchemas.events(), KuduSchemas.duplicatedEvents())) {
            assertFalse(s.hasColumn(KuduSchemas.L1TRIGMASK) || s.hasColumn(KuduSchemas.EFTRIGMASK));
            for (String c : TriggerMaskColumns.l1Columns()) {
                assertEquals(Type.INT64, s.getColumn(c).getType(), c);
            }
            for (String c : TriggerMaskColumns.hltColumns()) {
                assertEquals(Type.INT64, s.getColumn(c).getType(), c);
            }
        }
        assertEquals(List.of("l1w00", "l1w23"), List.of(TriggerMaskColumns.l1Columns().get(0),
                TriggerMaskColumns.l1Columns().get(KuduSchemas.L1_WORDS - 1)));
        assertEquals("hltw191", TriggerMaskColumns.hltColumns().get(KuduSchemas.HLT_WORDS - 1));
    }

    @Test
    void verificationNamesMissingColumns() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> KuduTables.verifySchema("T",
                KuduSchemas.events(), KuduSchemas.duplicatedEvents(), KuduSchemas.EVENTS_KEY));
        assertTrue(e.getMessage().contains("missing column insertion_time"), e.getMessage());
    }

    @Test
    void configValidatesAndNamesTables() {
        KuduTablesConfig c = new KuduTablesConfig("t_", 64, 1);
        assertEquals("t_DATASETS", c.datasetsTable());
        assertEquals("t_EVENTS", c.eventsTable());
        assertEquals("t_DUPLICATEDEVENTS", c.duplicatedEventsTable());
        assertEquals(new KuduTablesConfig("", 64, 3), KuduTablesConfig.defaults());
        assertThrows(IllegalArgumentException.class, () -> new KuduTablesConfig("a b", 64, 1));
        assertThrows(IllegalArgumentException.class, () -> new KuduTablesConfig("", 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new KuduTablesConfig("", 64, 2));
        assertThrows(IllegalArgumentException.class, () -> KuduTables.checkEpoch(-1));
        assertThrows(IllegalArgumentException.class, () -> KuduTables.checkEpoch(Integer.MAX_VALUE));
    }

    private static List<String> names(List<ColumnSchema> columns) {
        return columns.stream().map(ColumnSchema::getName).toList();
    }
}
