package org.eventindex.kudu;

import org.apache.kudu.Schema;
import org.apache.kudu.client.PartialRow;
import org.eventindex.consolidated.EventRecord;
import org.junit.jupiter.api.Test;

import static org.eventindex.kudu.TestKuduRows.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link PendingRow}: the row built later is the row built at once, whatever the reader does with its record. */
class PendingRowTest {
    private static final String OWN = TestDatasetFiles.guid(1, 0);
    private static final String ESD = TestDatasetFiles.guid(1, 1);
    private static final String RAW = TestDatasetFiles.guid(1, 2);

    private final Schema schema = KuduSchemas.events();

    @Test
    void aRowBuiltLaterIsTheRowOfItsEventAfterTheRecordIsRefilled() {
        EventRecord record = EventRecord.of(TestDatasetFiles.event(77, OWN, ESD, RAW).build(), OWN);
        TriggerBits bits = new TriggerBits();
        bits.decode(record);
        PartialRow atOnce = row(PendingRow.held(record, null, 1, TriggerWords.of(bits), false));

        PendingRow pending = PendingRow.held(record, null, 1, TriggerWords.of(bits), false);
        // the Parquet reader refills the same record for the next event
        record.set(TestDatasetFiles.event(78, OWN, RAW, ESD).clearL1PassedTrigMask().build(), OWN);
        bits.decode(record);
        PartialRow later = row(pending);

        assertEquals(77, later.getLong(KuduSchemas.EVENTNUMBER));
        assertEquals(atOnce.stringifyRowKey(), later.stringifyRowKey());
        for (int c = 0; c < schema.getColumnCount(); c++) {
            assertEquals(atOnce.isSet(c), later.isSet(c), schema.getColumnByIndex(c).getName());
            if (atOnce.isSet(c)) {
                assertEquals(atOnce.getObject(c), later.getObject(c), schema.getColumnByIndex(c).getName());
            }
        }
        assertTrue(later.isSet(KuduSchemas.l1Word(0)), "the L1 words of event 77, not of the refilled record");
    }

    @Test
    void theMaskTextIsKeptOnlyForATableThatStoresIt() {
        EventRecord record = EventRecord.of(TestDatasetFiles.event(77, OWN, ESD, RAW).build(), OWN);
        TriggerBits bits = new TriggerBits();
        bits.decode(record);
        assertNull(PendingRow.held(record, null, 1, TriggerWords.of(bits), false).event.l1PassedTrigMask);
        assertEquals(record.l1PassedTrigMask, PendingRow.held(record, null, 1, TriggerWords.of(bits), true)
                .event.l1PassedTrigMask);
    }

    private PartialRow row(PendingRow p) {
        PartialRow row = schema.newPartialRow();
        EventRowMapper mapper = new EventRowMapper(schema);
        mapper.fill(values(row), 5, 2, p.event, p.menu);
        mapper.fillTriggerWords(values(row), p.words);
        return row;
    }
}
