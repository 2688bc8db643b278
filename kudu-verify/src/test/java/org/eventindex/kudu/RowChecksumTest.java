package org.eventindex.kudu;

import org.apache.kudu.ColumnSchema;
import org.apache.kudu.Schema;
import org.apache.kudu.Type;
import org.apache.kudu.client.PartialRow;
import org.junit.jupiter.api.Test;

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
}
