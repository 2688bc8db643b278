package org.eventindex.kudu;

import org.apache.kudu.client.Insert;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduTable;
import org.eventindex.consolidated.EventRecord;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.LongHashSet;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

import static java.util.Objects.requireNonNull;
import static org.eventindex.EventIndexFailure.Kind.FATAL;

/**
 * The rows a load of one consolidated file writes, decided event by event in file order: the first occurrence of
 * each event number to EVENTS (MCEVENTS for a simulation dataset), later ones to DUPLICATEDEVENTS keyed apart by
 * {@code insertion_time} = the load's {@code insert_start} + occurrence - 2 µs; each row summed with the
 * {@link RowChecksum} of its table. The loader writes the rows ({@code EventWriter}); verify only sums them
 * ({@link DatasetVerifier}), so both decide them with this code. File order is fixed, so a reload gives the same split.
 * <p>
 * Sorted single-run files have equal event numbers adjacent: no set needed. Multi-run files keep every event number
 * in a set (~16 B each). One instance per pass over a file, on one thread.
 */
final class FileRows {
    private final KuduClient client;
    private final KuduTablesConfig config;
    private final EventSource source;
    private final String dataset;
    private final String location;
    private final int dspid;
    private final int epoch;
    private final long startMicros;
    private final boolean adjacent;

    private final KuduTable dups;
    private final EventRowMapper dupMapper;
    private final RowChecksum dupSum;
    private final int insertionTime;
    private final TriggerBits bits = new TriggerBits();

    // set at the first event (a file without events opens no event table)
    private KuduTable events;
    private EventRowMapper eventMapper;
    private RowChecksum eventSum;

    // duplicate classification: by adjacency (sorted single-run files), else by the set of event numbers seen
    private final LongHashSet seen;
    private final Map<Long, Integer> repeats = new HashMap<>();
    private long lastEvent = -1;
    private int lastOccurrence;

    private Insert row;
    private boolean first;
    private long count;
    private long duplicates;
    private long uniqDupl;

    /**
     * @param source      the file, opened by the caller (who closes it); read from its current position
     * @param location    the file's location, named in errors
     * @param dspid       the dataset's {@code dspid} and {@code epoch} ({@code rgid}): the rows' placement
     * @param startMicros the load's {@code insert_start}
     * @throws KuduException when DUPLICATEDEVENTS cannot be opened
     * @throws IOException   when the file's footer cannot be read
     */
    FileRows(KuduClient client, KuduTablesConfig config, EventSource source, String location, String dataset,
             int dspid, int epoch, long startMicros) throws IOException {
        this.client = requireNonNull(client, "client is null");
        this.config = requireNonNull(config, "config is null");
        this.source = requireNonNull(source, "source is null");
        this.dataset = requireNonNull(dataset, "dataset is null");
        this.location = requireNonNull(location, "location is null");
        this.dspid = dspid;
        this.epoch = epoch;
        this.startMicros = startMicros;
        this.adjacent = source.adjacentDuplicates();
        this.seen = adjacent ? null : new LongHashSet(1 << 16);
        this.dups = client.openTable(config.duplicatedEventsTable());
        this.dupMapper = new EventRowMapper(dups.getSchema());
        this.dupSum = new RowChecksum(dups.getSchema());
        this.insertionTime = dups.getSchema().getColumnIndex(KuduSchemas.INSERTION_TIME);
    }

    /**
     * Reads the next event and decides its row ({@link #row}, {@link #first}); false at the end of the file.
     *
     * @throws DatasetLoadException when an event's reference or trigger mask is malformed
     * @throws IOException          when the file cannot be read
     */
    boolean next() throws IOException {
        if (!source.next()) {
            return false;
        }
        EventRecord e = source.event;
        if (events == null) {
            String table = source.simulation() ? config.mcEventsTable() : config.eventsTable();
            events = client.openTable(table);
            eventMapper = new EventRowMapper(events.getSchema());
            eventSum = new RowChecksum(events.getSchema());
        }
        count++;
        try {
            bits.decode(e);
        } catch (IllegalArgumentException bad) {
            throw malformed(e, "trigger mask", bad);
        }
        int occurrence = adjacent ? adjacentOccurrence(e.eventNumber) : seenOccurrence(e.eventNumber);
        first = occurrence == 1;
        row = first ? first(e, source.menu) : duplicate(e, source.menu, occurrence);
        (first ? eventSum : dupSum).add(row.getRow());
        return true;
    }

    /** The row of the event read last: to {@link #eventTable} when {@link #first}, else to DUPLICATEDEVENTS. */
    Insert row() {
        return row;
    }

    /** Whether the event read last is the first occurrence of its event number (its row goes to the event table). */
    boolean first() {
        return first;
    }

    /** The trigger bits of the event read last (the loader counts a first occurrence's fired pairs). */
    TriggerBits bits() {
        return bits;
    }

    /** EVENTS or MCEVENTS, as the file's content decides; null before the first event. */
    KuduTable eventTable() {
        return events;
    }

    KuduTable duplicatesTable() {
        return dups;
    }

    /** Events read so far. */
    long events() {
        return count;
    }

    /** Rows decided for DUPLICATEDEVENTS so far (occurrences after the first). */
    long duplicates() {
        return duplicates;
    }

    /** Rows decided for the event table so far. */
    long unique() {
        return count - duplicates;
    }

    /** Event numbers seen more than once so far. */
    long uniqDuplEvents() {
        return uniqDupl;
    }

    /** The {@link RowChecksum} of the rows decided for EVENTS/MCEVENTS so far. */
    long uniqueSum() {
        return eventSum == null ? 0 : eventSum.value();
    }

    /** The {@link RowChecksum} of the rows decided for DUPLICATEDEVENTS so far. */
    long duplicatesSum() {
        return dupSum.value();
    }

    private int adjacentOccurrence(long eventNumber) {
        int occurrence = count > 1 && eventNumber == lastEvent ? lastOccurrence + 1 : 1;
        lastEvent = eventNumber;
        lastOccurrence = occurrence;
        return occurrence;
    }

    private int seenOccurrence(long eventNumber) {
        return seen.add(eventNumber) ? 1 : repeats.merge(eventNumber, 2, (a, b) -> a + 1);
    }

    private Insert first(EventRecord e, TriggerMenu_p1 menu) throws DatasetLoadException {
        Insert insert = events.newInsert();
        fill(eventMapper, insert, e, menu);
        eventMapper.fillTriggerWords(insert.getRow(), bits);
        return insert;
    }

    private Insert duplicate(EventRecord e, TriggerMenu_p1 menu, int occurrence) throws DatasetLoadException {
        if (occurrence == 2) {
            uniqDupl++;
        }
        Insert insert = dups.newInsert();
        fill(dupMapper, insert, e, menu);
        dupMapper.fillTriggerWords(insert.getRow(), bits);
        insert.getRow().addLong(insertionTime, startMicros + occurrence - 2);
        duplicates++;
        return insert;
    }

    private void fill(EventRowMapper mapper, Insert insert, EventRecord e, TriggerMenu_p1 menu)
            throws DatasetLoadException {
        try {
            mapper.fill(insert.getRow(), dspid, epoch, e, menu);
        } catch (IllegalArgumentException bad) {
            throw malformed(e, "reference", bad);
        }
    }

    private DatasetLoadException malformed(EventRecord e, String what, IllegalArgumentException bad) {
        return new DatasetLoadException(FATAL, dataset, "event " + e.runNumber + "/"
                + Long.toUnsignedString(e.eventNumber) + " of file " + e.guid + " in " + location
                + " has a malformed " + what + ": " + bad.getMessage(), bad);
    }
}
