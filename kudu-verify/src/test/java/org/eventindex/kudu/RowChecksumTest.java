package org.eventindex.kudu;

import org.apache.kudu.ColumnSchema;
import org.apache.kudu.Schema;
import org.apache.kudu.Type;
import org.apache.kudu.client.PartialRow;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** {@link RowChecksum}: order-free, every value counts, a NULL or a column added later counts for nothing. */
class RowChecksumTest {
    private static final Schema TABLE = schema(false);
    /** The same table after a nullable column was added (as create-tables upgrades a table). */
    private static final Schema UPGRADED = schema(true);

    @Test
    void theSumIsTheSameInAnyOrderAndChangesWithAnyValue() {
        long sum = sum(TABLE, row(TABLE, 1, "a", 7L), row(TABLE, 2, "b", null));

        assertEquals(sum, sum(TABLE, row(TABLE, 2, "b", null), row(TABLE, 1, "a", 7L)));
        assertNotEquals(sum, sum(TABLE, row(TABLE, 1, "a", 8L), row(TABLE, 2, "b", null)), "a value changed");
        assertNotEquals(sum, sum(TABLE, row(TABLE, 1, "ab", 7L), row(TABLE, 2, "", null)), "text moved over");
        assertNotEquals(sum, sum(TABLE, row(TABLE, 1, "a", 7L)), "a row deleted");
        assertNotEquals(sum, sum(TABLE, row(TABLE, 1, "a", 7L), row(TABLE, 2, "b", 0L)), "NULL is not 0");
    }

    @Test
    void aNullOrUnsetColumnAndAColumnAddedLaterCountForNothing() {
        PartialRow explicitNull = row(TABLE, 2, "b", null);
        explicitNull.setNull("n");
        PartialRow unset = TABLE.newPartialRow();
        unset.addInt("k", 2);
        unset.addString("s", "b");

        long sum = sum(TABLE, row(TABLE, 1, "a", 7L), unset);

        assertEquals(sum, sum(TABLE, row(TABLE, 1, "a", 7L), explicitNull));
        assertEquals(sum, sum(UPGRADED, row(UPGRADED, 1, "a", 7L), row(UPGRADED, 2, "b", null)));
        PartialRow withAdded = row(UPGRADED, 2, "b", null);
        withAdded.addInt("added", 3);
        assertNotEquals(sum, sum(UPGRADED, row(UPGRADED, 1, "a", 7L), withAdded));
    }

    private static long sum(Schema schema, PartialRow... rows) {
        RowChecksum checksum = new RowChecksum(schema);
        for (PartialRow r : rows) {
            checksum.add(r);
        }
        assertEquals(rows.length, checksum.rows());
        return checksum.value();
    }

    private static PartialRow row(Schema schema, int key, String text, Long number) {
        PartialRow r = schema.newPartialRow();
        r.addInt("k", key);
        r.addString("s", text);
        if (number != null) {
            r.addLong("n", number);
        }
        return r;
    }

    private static Schema schema(boolean upgraded) {
        List<ColumnSchema> columns = new ArrayList<>(List.of(
                new ColumnSchema.ColumnSchemaBuilder("k", Type.INT32).key(true).build(),
                new ColumnSchema.ColumnSchemaBuilder("s", Type.STRING).nullable(true).build(),
                new ColumnSchema.ColumnSchemaBuilder("n", Type.INT64).nullable(true).build()));
        if (upgraded) {
            columns.add(new ColumnSchema.ColumnSchemaBuilder("added", Type.INT32).nullable(true).build());
        }
        return new Schema(columns);
    }

    /**
     * The checksum is stored (DATASETS content_checksum) and compared across versions: the value of rows holding every
     * column type the tables use is pinned here, as the loader of 0070 computed it.
     */
    @Test
    void theValueOfEveryColumnTypeIsTheStoredDefinitions() {
        Schema all = new Schema(List.of(
                new ColumnSchema.ColumnSchemaBuilder("i8", Type.INT8).key(true).build(),
                new ColumnSchema.ColumnSchemaBuilder("i16", Type.INT16).nullable(true).build(),
                new ColumnSchema.ColumnSchemaBuilder("i32", Type.INT32).nullable(true).build(),
                new ColumnSchema.ColumnSchemaBuilder("i64", Type.INT64).nullable(true).build(),
                new ColumnSchema.ColumnSchemaBuilder("t", Type.UNIXTIME_MICROS).nullable(true).build(),
                new ColumnSchema.ColumnSchemaBuilder("b", Type.BOOL).nullable(true).build(),
                new ColumnSchema.ColumnSchemaBuilder("f", Type.FLOAT).nullable(true).build(),
                new ColumnSchema.ColumnSchemaBuilder("d", Type.DOUBLE).nullable(true).build(),
                new ColumnSchema.ColumnSchemaBuilder("s", Type.STRING).nullable(true).build(),
                new ColumnSchema.ColumnSchemaBuilder("bin", Type.BINARY).nullable(true).build()));
        PartialRow full = all.newPartialRow();
        full.addByte("i8", (byte) -3);
        full.addShort("i16", (short) -30_000);
        full.addInt("i32", -2_000_000_000);
        full.addLong("i64", Long.MIN_VALUE + 7);
        full.addLong("t", 1_700_000_000_123_456L);
        full.addBoolean("b", true);
        full.addFloat("f", -1.5f);
        full.addDouble("d", Math.PI);
        full.addString("s", "[DB=4E3F0C1A-0B2D-4C5E-8F70-1A2B3C4D5E6F][CNT=POOLContainer(DataHeader)]");
        full.addBinary("bin", new byte[] {0, 1, -1, 127, -128});
        PartialRow sparse = all.newPartialRow();
        sparse.addByte("i8", (byte) 4);
        sparse.addString("s", "Zürich \u00e9v\u00e8nement \ud83d\ude00");
        sparse.setNull("i64");
        sparse.addBoolean("b", false);
        RowChecksum sum = new RowChecksum(all);
        sum.add(full);
        assertEquals(PINNED_FULL, RowChecksum.hex(sum.value()));
        sum.add(sparse);
        assertEquals(PINNED_BOTH, sum.hex());
    }

    /**
     * A row's values as the loader records them while it sets them sum as the row built: texts ASCII or not (the
     * first non-ASCII byte at the start, in a word or in the tail), of any length, columns set out of order, a column
     * set twice (the last value is the row's).
     */
    @Test
    void valuesRecordedAsTheyAreSetSumAsTheRowReadBack() {
        Schema wide = new Schema(List.of(
                new ColumnSchema.ColumnSchemaBuilder("k", Type.INT32).key(true).build(),
                new ColumnSchema.ColumnSchemaBuilder("t", Type.UNIXTIME_MICROS).nullable(true).build(),
                new ColumnSchema.ColumnSchemaBuilder("a", Type.STRING).nullable(true).build(),
                new ColumnSchema.ColumnSchemaBuilder("n", Type.INT64).nullable(true).build(),
                new ColumnSchema.ColumnSchemaBuilder("b", Type.STRING).nullable(true).build(),
                new ColumnSchema.ColumnSchemaBuilder("m", Type.INT32).nullable(true).build()));
        String[] texts = {"", "x", "GUID", "[DB=4E3F0C1A-0B2D-4C5E-8F70-1A2B3C4D5E6F]", "Zürich", "é1234567",
            "\ud83d\ude00 ok", "abc\u0000d", "abcdé", "abcdefé"};
        RowChecksum fromValues = new RowChecksum(wide);
        RowChecksum fromRows = new RowChecksum(wide);
        RowValues values = new RowValues();
        for (int i = 0; i < texts.length * 3; i++) {
            PartialRow row = wide.newPartialRow();
            values.of(row);
            values.addStringUtf8(4, texts[(i + 3) % texts.length].getBytes(StandardCharsets.UTF_8));
            values.addInt(0, i - 7);
            if (i % 3 != 0) {
                values.addStringUtf8(2, texts[i % texts.length].getBytes(StandardCharsets.UTF_8));
            }
            values.addLong(3, -1L << i);
            if (i % 2 == 0) {
                values.addLong(1, 1_700_000_000_000_000L + i);
                values.addInt(5, Integer.MIN_VALUE + i);
                values.addLong(3, i); // set again: the last value counts
            }
            fromValues.add(values);
            fromRows.add(row);
            assertEquals(fromRows.value(), fromValues.value(), "row " + i);
        }
        assertEquals(fromRows.rows(), fromValues.rows());
    }

    private static final String PINNED_FULL = "42f83bf5bb2a5d54";
    private static final String PINNED_BOTH = "d326aefa3f20280d";
}
