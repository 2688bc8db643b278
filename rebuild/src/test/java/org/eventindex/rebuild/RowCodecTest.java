package org.eventindex.rebuild;

import org.apache.kudu.ColumnSchema;
import org.apache.kudu.Schema;
import org.apache.kudu.Type;
import org.apache.kudu.client.PartialRow;
import org.eventindex.kudu.KuduSchemas;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RowCodecTest {

    @Test
    void aDecodedRowSetsTheSameColumnsToTheSameValues() {
        Schema schema = KuduSchemas.duplicatedEvents();
        PartialRow row = schema.newPartialRow();
        int column = 0;
        for (ColumnSchema c : schema.getColumns()) {
            int i = column++;
            if (i % 7 == 3) {
                continue; // left unset
            }
            if (c.isNullable() && i % 5 == 1) {
                row.setNull(i);
                continue;
            }
            switch (c.getType()) {
                case INT32 -> row.addInt(i, -1000 - i);
                case INT64 -> row.addLong(i, Long.MIN_VALUE + i);
                case UNIXTIME_MICROS -> row.addLong(i, 1_765_000_000_000_000L + i);
                case STRING -> row.addString(i, "värde " + i + " [DB=ABC][OID=0000000A-00000001]");
                default -> throw new AssertionError("a type the EVENTS schemas do not have: " + c.getType());
            }
        }
        RowCodec codec = new RowCodec("DUPLICATEDEVENTS", schema);
        byte[] encoded = codec.encode(row);
        PartialRow decoded = schema.newPartialRow();
        codec.decode(encoded, decoded);

        assertEquals(row.toString(), decoded.toString());
        for (int i = 0; i < schema.getColumnCount(); i++) {
            assertEquals(row.isSet(i), decoded.isSet(i), "column " + i + " set");
            if (row.isSet(i)) {
                assertEquals(row.isNull(i), decoded.isNull(i), "column " + i + " NULL");
                assertEquals(row.getObject(i), decoded.getObject(i), "column " + i);
            }
        }
        assertFalse(decoded.isSet(3));
        assertArrayEquals(encoded, codec.encode(decoded), "encoded again, the same bytes");
    }

    @Test
    void aColumnOfATypeItCannotCarryIsNamed() {
        Schema schema = new Schema(List.of(new ColumnSchema.ColumnSchemaBuilder("k", Type.INT32).key(true).build(),
                new ColumnSchema.ColumnSchemaBuilder("when", Type.DATE).nullable(true).build()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RowCodec("T", schema));
        assertTrue(e.getMessage().contains("column when of Kudu table T has type"), e.getMessage());
    }

    @Test
    void bytesOfAnotherSchemaAreRefused() {
        RowCodec codec = new RowCodec("EVENTS", KuduSchemas.events());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> codec.decode(new byte[] {2, 0}, KuduSchemas.events().newPartialRow()));
        assertTrue(e.getMessage().contains("a row of EVENTS"), e.getMessage());
    }
}
