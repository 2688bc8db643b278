package org.eventindex.kudu;

import org.apache.kudu.Schema;
import org.apache.kudu.client.PartialRow;
import org.eventindex.consolidated.EventRecord;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.junit.jupiter.api.Test;

import static org.eventindex.kudu.TestKuduRows.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EventRowMapperTest {
    private static final String OWN = TestDatasetFiles.guid(1, 0);
    private static final String ESD = TestDatasetFiles.guid(1, 1);
    private static final String RAW = TestDatasetFiles.guid(1, 2);
    private static final TriggerMenu_p1 MENU = TriggerMenu_p1.newBuilder().setSMK(11).setL1PSK(12).setHLTPSK(13)
            .setL1Menu("m").build();

    private final Schema schema = KuduSchemas.events();
    private final EventRowMapper mapper = new EventRowMapper(schema);

    @Test
    void mapsFieldsAndReferencesByStream() {
        PartialRow row = schema.newPartialRow();
        mapper.fill(values(row), 5, 2, EventRecord.of(TestDatasetFiles.event(77, OWN, ESD, RAW).build(), OWN), MENU);

        assertEquals(5, row.getInt(KuduSchemas.DSPID));
        assertEquals(77, row.getLong(KuduSchemas.EVENTNUMBER));
        assertEquals(2, row.getInt(KuduSchemas.RGID));
        assertEquals(TestDatasetFiles.RUN, row.getInt(KuduSchemas.RUNNUMBER));
        assertEquals(17, row.getInt(KuduSchemas.LUMIBLOCKNR));
        assertEquals(42, row.getInt(KuduSchemas.BUNCHID));
        assertEquals(1_500_000_000, row.getInt(KuduSchemas.EVENTTIME));
        assertEquals(123, row.getInt(KuduSchemas.EVENTTIMES));
        assertEquals(0xF000_0001L, row.getLong(KuduSchemas.LVLID), "uint32 level-1 id stays unsigned");
        assertEquals(7, row.getInt(KuduSchemas.L1PSK), "the event's own key wins over the menu");
        assertEquals(13, row.getInt(KuduSchemas.HLTPSK), "missing on the event: taken from the menu");
        assertEquals(11, row.getInt(KuduSchemas.SMK));
        assertEquals(OWN, row.getString(KuduSchemas.DB));
        assertEquals(TestDatasetFiles.token(OWN, 77), row.getString(KuduSchemas.TK));
        assertEquals(OWN, row.getString(KuduSchemas.DBAOD));
        assertEquals(ESD, row.getString(KuduSchemas.DBESD));
        assertEquals(TestDatasetFiles.token(ESD, 77), row.getString(KuduSchemas.TKESD));
        assertEquals(RAW, row.getString(KuduSchemas.DBRAW));
        assertEquals(TestDatasetFiles.token(RAW, 77), row.getString(KuduSchemas.TKRAW));
    }

    /** Tables created before decision 0037 have the coded mask columns: the loader keeps filling them. */
    @Test
    void maskTextGoesOnlyToTablesThatHaveItsColumns() {
        EventRecord e = EventRecord.of(TestDatasetFiles.event(77, OWN, ESD, RAW).build(), OWN);
        assertFalse(schema.hasColumn(KuduSchemas.L1TRIGMASK) || schema.hasColumn(KuduSchemas.EFTRIGMASK),
                "tables created now have no coded mask columns");
        Schema legacy = TestKuduRows.withMaskText(schema);
        PartialRow row = legacy.newPartialRow();
        new EventRowMapper(legacy).fill(values(row), 5, 2, e, MENU);
        assertEquals(TestDatasetFiles.L1_MASK, row.getString(KuduSchemas.L1TRIGMASK));
        assertEquals(TestDatasetFiles.HLT_MASK, row.getString(KuduSchemas.EFTRIGMASK));
        PartialRow absent = legacy.newPartialRow();
        new EventRowMapper(legacy).fill(values(absent), 5, 2, EventRecord.of(TestDatasetFiles.event(78, OWN, ESD, RAW)
                .clearL1PassedTrigMask().clearEFPassedTrigMask().build(), OWN), MENU);
        assertFalse(absent.isSet(KuduSchemas.L1TRIGMASK) || absent.isSet(KuduSchemas.EFTRIGMASK));
    }

    /** Zero words stay NULL; an empty (present) mask keeps word 0 as 0, an absent one leaves every word NULL. */
    @Test
    void emptyMaskIsKeptApartFromAnAbsentOne() {
        String emptyL1 = org.eventindex.names.TriggerMask.encodeL1(new java.util.BitSet(), new java.util.BitSet(),
                new java.util.BitSet());
        TriggerBits bits = new TriggerBits();
        bits.decode(EventRecord.of(TestDatasetFiles.event(1, OWN, ESD, RAW).setL1PassedTrigMask(emptyL1)
                .clearEFPassedTrigMask().build(), OWN));
        PartialRow row = schema.newPartialRow();
        mapper.fillTriggerWords(values(row), TriggerWords.of(bits));
        assertEquals(0L, row.getLong(KuduSchemas.l1Word(0)));
        for (int w = 1; w < KuduSchemas.L1_WORDS; w++) {
            assertFalse(row.isSet(KuduSchemas.l1Word(w)), "word " + w);
        }
        for (int w = 0; w < KuduSchemas.HLT_WORDS; w++) {
            assertFalse(row.isSet(KuduSchemas.hltWord(w)), "absent HLT mask: word " + w + " NULL");
        }
        bits.decode(EventRecord.of(TestDatasetFiles.event(2, OWN, ESD, RAW).build(), OWN));
        PartialRow full = schema.newPartialRow();
        mapper.fillTriggerWords(values(full), TriggerWords.of(bits));
        // TestDatasetFiles.L1_MASK: bits 3, 4 of TBP and TAP, 3, 4, 9 of TAV; no word 0 bits beyond them
        assertEquals((1L << 3) | (1L << 4), full.getLong(KuduSchemas.l1Word(0)));
        assertFalse(full.isSet(KuduSchemas.l1Word(1)), "zero word of a non-empty mask stays NULL");
    }

    @Test
    void ownStreamOtherThanTheThreeStagesOnlyFillsDb() {
        EIEvent_p1 e = TestDatasetFiles.event(1, OWN, ESD, RAW).clearEitoken()
                .addEitoken(EItoken_p1.newBuilder().setName("StreamDAOD_PHYS").setToken(TestDatasetFiles.token(OWN, 1)))
                .addEitoken(EItoken_p1.newBuilder().setName("StreamAOD").setToken(TestDatasetFiles.token(ESD, 1)))
                .build();
        PartialRow row = schema.newPartialRow();
        mapper.fill(values(row), 1, 0, EventRecord.of(e, OWN), null);
        assertEquals(OWN, row.getString(KuduSchemas.DB));
        assertEquals(ESD, row.getString(KuduSchemas.DBAOD));
        assertFalse(row.isSet(KuduSchemas.DBESD));
        assertFalse(row.isSet(KuduSchemas.DBRAW));
        assertFalse(row.isSet(KuduSchemas.HLTPSK), "no menu and no key on the event: null");
    }

    @Test
    void eventWithoutTokensGetsItsFileGuid() {
        PartialRow row = schema.newPartialRow();
        mapper.fill(values(row), 1, 0,
                EventRecord.of(TestDatasetFiles.event(1, OWN, ESD, RAW).clearEitoken().build(), OWN), null);
        assertEquals(OWN, row.getString(KuduSchemas.DB));
        assertFalse(row.isSet(KuduSchemas.TK));
    }

    @Test
    void malformedTokenIsRefused() {
        EIEvent_p1 e = TestDatasetFiles.event(1, OWN, ESD, RAW).setEitoken(0,
                EItoken_p1.newBuilder().setName("StreamAOD").setToken("[DB=nope][CNT=]")).build();
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> mapper.fill(values(schema.newPartialRow()), 1, 0, EventRecord.of(e, OWN), null));
        assertTrue(x.getMessage().contains("nope"), x.getMessage());
    }

    @Test
    void checkingTheReferencesRefusesWhatFillRefusesAndFillsNothing() {
        EventRecord bad = EventRecord.of(TestDatasetFiles.event(1, OWN, ESD, RAW).setEitoken(2,
                EItoken_p1.newBuilder().setName("StreamRAW").setToken("[DB=nope][CNT=]")).build(), OWN);
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> mapper.checkReferences(bad));
        assertTrue(x.getMessage().contains("nope"), x.getMessage());
        // a held row checked first is filled as one filled at once
        EventRecord good = EventRecord.of(TestDatasetFiles.event(2, OWN, ESD, RAW).build(), OWN);
        mapper.checkReferences(good);
        PartialRow row = schema.newPartialRow();
        mapper.fill(values(row), 1, 0, good, null);
        PartialRow fresh = schema.newPartialRow();
        new EventRowMapper(schema).fill(values(fresh), 1, 0, good, null);
        assertEquals(fresh.toString(), row.toString());
    }

    @Test
    void duplicatedEventsSchemaMapsTheSameWay() {
        Schema dups = KuduSchemas.duplicatedEvents();
        PartialRow row = dups.newPartialRow();
        new EventRowMapper(dups).fill(values(row), 5, 2,
                EventRecord.of(TestDatasetFiles.event(77, OWN, ESD, RAW).build(), OWN), MENU);
        assertEquals(RAW, row.getString(KuduSchemas.DBRAW));
        assertFalse(row.isSet(KuduSchemas.INSERTION_TIME), "set by the loader");
    }

    @Test
    void guidsOfInterleavedFilesComeFromEachToken() {
        // rows sorted by (run, event) alternate between input files: each row must get its own file's GUIDs
        String other = TestDatasetFiles.guid(2, 0);
        String otherEsd = TestDatasetFiles.guid(2, 1);
        String otherRaw = TestDatasetFiles.guid(2, 2);
        for (int i = 0; i < 4; i++) {
            boolean first = i % 2 == 0;
            String own = first ? OWN : other;
            PartialRow row = schema.newPartialRow();
            mapper.fill(values(row), 1, 0, EventRecord.of(TestDatasetFiles.event(10 + i, own, first ? ESD : otherEsd,
                    first ? RAW : otherRaw).build(), own), null);
            assertEquals(own, row.getString(KuduSchemas.DB));
            assertEquals(TestDatasetFiles.token(own, 10 + i), row.getString(KuduSchemas.TK));
            assertEquals(first ? ESD : otherEsd, row.getString(KuduSchemas.DBESD));
            assertEquals(first ? RAW : otherRaw, row.getString(KuduSchemas.DBRAW));
        }
    }

    /**
     * The loader sums each row's checksum from the values the mapper set ({@link RowValues}), verify from rows read
     * back: both give the same value, for rows of either table, with or without tokens, masks and menu keys.
     */
    @Test
    void theChecksumOfTheValuesSetIsThatOfTheRowBuilt() {
        for (Schema table : new Schema[] {schema, KuduSchemas.duplicatedEvents()}) {
            EventRowMapper m = new EventRowMapper(table);
            RowChecksum fromValues = new RowChecksum(table);
            RowChecksum fromRows = new RowChecksum(table);
            TriggerBits bits = new TriggerBits();
            RowValues values = new RowValues();
            for (int i = 0; i < 40; i++) {
                EIEvent_p1.Builder b = TestDatasetFiles.event(100 + i, OWN, i % 3 == 0 ? ESD : OWN, RAW);
                if (i % 4 == 1) {
                    b.clearEitoken();
                }
                if (i % 5 == 2) {
                    b.clearEFPassedTrigMask().clearL1PSK();
                }
                EventRecord e = EventRecord.of(b.build(), OWN);
                bits.decode(e);
                PartialRow row = table.newPartialRow();
                m.fill(values.of(row), 3, 1, e, i % 2 == 0 ? MENU : null);
                m.fillTriggerWords(values, TriggerWords.of(bits));
                fromValues.add(values);
                fromRows.add(row);
                assertEquals(fromRows.value(), fromValues.value(), "row " + i + " of " + table.getColumnCount()
                        + "-column table");
            }
        }
    }
}
