package org.eventindex.kudu;

import org.apache.kudu.client.Insert;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.PartialRow;
import org.eventindex.consolidated.EventRecord;

import static java.util.Objects.requireNonNull;
import static org.eventindex.EventIndexFailure.Kind.FATAL;

/**
 * Builds the Kudu rows of one load's decided rows ({@link PendingRow}) and sums their content checksums
 * ({@link RowChecksum}): a first occurrence to EVENTS (MCEVENTS for a simulation dataset), a later one to
 * DUPLICATEDEVENTS, keyed apart by its {@code insertion_time}. The checksums are sums, so the order in which rows are
 * built (by tablet, with several sessions) does not change them. On the loading thread only (the mappers cache).
 */
final class EventInserts {
    private final KuduTable events;
    private final KuduTable dups;
    private final EventRowMapper eventMapper;
    private final EventRowMapper dupMapper;
    private final RowChecksum eventSum;
    private final RowChecksum dupSum;
    private final LoadRequest request;
    private final String dataset;
    private final long startMicros;
    private final int dupInsertionTime;
    private final int[] eventKey;
    private final int[] dupKey;

    /**
     * @param events      EVENTS or MCEVENTS
     * @param dups        DUPLICATEDEVENTS
     * @param startMicros the load's insert_start; a duplicate's {@code insertion_time} is this plus occurrence - 2
     */
    EventInserts(KuduTable events, KuduTable dups, LoadRequest request, long startMicros) {
        this.events = requireNonNull(events, "events is null");
        this.dups = requireNonNull(dups, "dups is null");
        this.request = requireNonNull(request, "request is null");
        this.dataset = request.dataset().toString();
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

    /** The table {@code row} goes to. */
    KuduTable table(PendingRow row) {
        return row.duplicate() ? dups : events;
    }

    /** Whether a {@link PendingRow} must keep the coded mask text (a table created before decision 0037). */
    boolean storesMaskText() {
        return eventMapper.storesMaskText() || dupMapper.storesMaskText();
    }

    /**
     * Sets in {@code key} (a row of {@link #table}'s schema, never applied, so reusable) the columns its tablet is
     * found by.
     */
    void setPartitionKey(PendingRow row, PartialRow key) {
        int[] columns = row.duplicate() ? dupKey : eventKey;
        key.addLong(columns[0], row.event.eventNumber);
        key.addInt(columns[1], request.epoch());
    }

    /**
     * The Kudu row of {@code row}, its checksum added.
     *
     * @throws DatasetLoadException when one of the event's references is malformed (naming the event and the file)
     */
    Insert build(PendingRow row) throws DatasetLoadException {
        boolean dup = row.duplicate();
        Insert insert = (dup ? dups : events).newInsert();
        PartialRow r = insert.getRow();
        EventRowMapper mapper = dup ? dupMapper : eventMapper;
        try {
            mapper.fill(r, request.dspid(), request.epoch(), row.event, row.menu);
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
                + Long.toUnsignedString(e.eventNumber) + " of file " + e.guid + " in " + request.source().location()
                + " has a malformed " + what + ": " + bad.getMessage(), bad);
    }
}
