package org.eventindex.kudu;

import org.apache.kudu.client.Insert;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.PartialRow;
import org.eventindex.consolidated.EventRecord;

import static java.util.Objects.requireNonNull;
import static org.eventindex.EventIndexFailure.Kind.FATAL;

/**
 * Builds the Kudu rows of the rows {@link FileRows} decided ({@link PendingRow}) and sums their content checksums
 * ({@link RowChecksum}): a first occurrence to EVENTS (MCEVENTS for a simulation dataset), a later one to
 * DUPLICATEDEVENTS, keyed apart by its {@code insertion_time} = the load's {@code insert_start} + occurrence - 2 µs.
 * The one builder of the rows: the loader's sessions and verify's sums both take their rows from it. The checksums
 * are sums, so the order in which rows are built (by tablet, with several sessions) does not change them. One thread
 * (the mappers cache).
 */
final class EventInserts {
    private final KuduTable events;
    private final KuduTable dups;
    private final EventRowMapper eventMapper;
    private final EventRowMapper dupMapper;
    private final RowChecksum eventSum;
    private final RowChecksum dupSum;
    private final String dataset;
    private final String location;
    private final int dspid;
    private final int epoch;
    private final long startMicros;
    private final int dupInsertionTime;
    private final int[] eventKey;
    private final int[] dupKey;
    /** The values of the row being built, for its checksum. */
    private final RowValues values = new RowValues();

    /**
     * @param events      EVENTS or MCEVENTS
     * @param dups        DUPLICATEDEVENTS
     * @param location    the file's location, named in errors
     * @param dspid       the dataset's {@code dspid} and {@code epoch} ({@code rgid}): the rows' placement
     * @param startMicros the load's insert_start
     */
    EventInserts(KuduTable events, KuduTable dups, String dataset, String location, int dspid, int epoch,
                 long startMicros) {
        this.events = requireNonNull(events, "events is null");
        this.dups = requireNonNull(dups, "dups is null");
        this.dataset = requireNonNull(dataset, "dataset is null");
        this.location = requireNonNull(location, "location is null");
        this.dspid = dspid;
        this.epoch = epoch;
        this.startMicros = startMicros;
        this.eventMapper = new EventRowMapper(events.getSchema());
        this.dupMapper = new EventRowMapper(dups.getSchema());
        this.eventSum = new RowChecksum(events.getSchema());
        this.dupSum = new RowChecksum(dups.getSchema());
        this.dupInsertionTime = dups.getSchema().getColumnIndex(KuduSchemas.INSERTION_TIME);
        this.eventKey = partitionColumns(events);
        this.dupKey = partitionColumns(dups);
    }

    /** {@code eventnumber} and {@code rgid}: the columns of the tables' HASH and RANGE partitions (KuduTables). */
    private static int[] partitionColumns(KuduTable table) {
        return new int[]{table.getSchema().getColumnIndex(KuduSchemas.EVENTNUMBER),
                table.getSchema().getColumnIndex(KuduSchemas.RGID)};
    }

    KuduTable events() {
        return events;
    }

    KuduTable dups() {
        return dups;
    }

    /** Whether a held {@link PendingRow} must keep the coded mask text (a table created before decision 0037). */
    boolean storesMaskText() {
        return eventMapper.storesMaskText() || dupMapper.storesMaskText();
    }

    /**
     * Sets in {@code key} (a row of the schema of {@code row}'s table, never applied, so reusable) the columns its
     * tablet is found by.
     */
    void setPartitionKey(PendingRow row, PartialRow key) {
        int[] columns = row.duplicate() ? dupKey : eventKey;
        key.addLong(columns[0], row.event.eventNumber);
        key.addInt(columns[1], epoch);
    }

    /**
     * Refuses {@code row} now if {@link #build} would: for a row held until later, so that a malformed event fails
     * the load when it is decided, before any row decided after it is written.
     *
     * @throws DatasetLoadException when one of the event's references is malformed (naming the event and the file)
     */
    void check(PendingRow row) throws DatasetLoadException {
        try {
            (row.duplicate() ? dupMapper : eventMapper).checkReferences(row.event);
        } catch (IllegalArgumentException bad) {
            throw malformed(row.event, "reference", bad);
        }
    }

    /**
     * The Kudu row of {@code row}, its checksum added.
     *
     * @throws DatasetLoadException when one of the event's references is malformed (naming the event and the file)
     */
    Insert build(PendingRow row) throws DatasetLoadException {
        boolean dup = row.duplicate();
        Insert insert = (dup ? dups : events).newInsert();
        RowValues r = values.of(insert.getRow());
        EventRowMapper mapper = dup ? dupMapper : eventMapper;
        try {
            mapper.fill(r, dspid, epoch, row.event, row.menu);
        } catch (IllegalArgumentException bad) {
            throw malformed(row.event, "reference", bad);
        }
        mapper.fillTriggerWords(r, row.words);
        if (dup) {
            r.addLong(dupInsertionTime, startMicros + row.occurrence - 2);
        }
        (dup ? dupSum : eventSum).add(r);
        return insert;
    }

    /** The checksum of the rows built for EVENTS/MCEVENTS. */
    long uniqueSum() {
        return eventSum.value();
    }

    /** The checksum of the rows built for DUPLICATEDEVENTS. */
    long duplicatesSum() {
        return dupSum.value();
    }

    /** A load failure for an event whose {@code what} (reference, trigger mask) is malformed. */
    DatasetLoadException malformed(EventRecord e, String what, IllegalArgumentException bad) {
        return new DatasetLoadException(FATAL, dataset, "event " + e.runNumber + "/"
                + Long.toUnsignedString(e.eventNumber) + " of file " + e.guid + " in " + location
                + " has a malformed " + what + ": " + bad.getMessage(), bad);
    }
}
