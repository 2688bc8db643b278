package org.eventindex.lookup;

import org.apache.kudu.ColumnSchema;
import org.eventindex.kudu.KuduSchemas;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

class KuduEventReaderTest {

    /** A lookup decodes one block of each column it projects: each must be one of the small-block columns. */
    @Test
    void everyProjectedColumnHasSmallBlocks() {
        int serverDefault = 256 * 1024;
        for (String name : KuduEventReader.EVENT_COLUMNS) {
            for (var schema : java.util.List.of(KuduSchemas.events(), KuduSchemas.duplicatedEvents())) {
                ColumnSchema c = schema.getColumn(name);
                assertTrue(c.getDesiredBlockSize() > 0 && c.getDesiredBlockSize() < serverDefault,
                        name + " has block size " + c.getDesiredBlockSize());
            }
        }
    }
}
