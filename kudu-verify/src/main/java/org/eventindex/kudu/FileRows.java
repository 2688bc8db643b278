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

/**
 * The rows a load of one consolidated file writes, decided event by event in file order: the first occurrence of
 * each event number to EVENTS (MCEVENTS for a simulation dataset), later ones to DUPLICATEDEVENTS keyed apart by
 * {@code insertion_time} = the load's {@code insert_start} + occurrence - 2 µs. Each row is decided as a
 * {@link PendingRow} and built as its Kudu row, summed with the {@link RowChecksum} of its table, by the one builder
 * {@link EventInserts}: at once ({@link #row}), or, once {@link #holdRows} was called, later ({@link #build}) when the
 * loader's sessions take it (decision 0078); a malformed event is refused by {@link #next} either way. The loader
 * writes the rows ({@code EventWriter}); verify only sums them ({@link DatasetVerifier}), so both decide and build
 * them with this code. File order is fixed, so a reload gives the same split.
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
    private final TriggerBits bits = new TriggerBits();

    // set at the first event (a file without events opens no event table)
    private EventInserts inserts;
    private boolean held;

    // duplicate classification: by adjacency (sorted single-run files), else by the set of event numbers seen
    private final LongHashSet seen;
    private final Map<Long, Integer> repeats = new HashMap<>();
    private long lastEvent = -1;
    private int lastOccurrence;

    private PendingRow pending;
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
    }

    /**
     * From now on {@link #next} decides each row and checks it without building it: its {@link #pending} row is
     * kept (a copy of the event) and built later by {@link #build}. Before the first {@link #next}.
     */
    FileRows holdRows() {
        if (count > 0) {
            throw new IllegalStateException("holdRows after the first event");
        }
        held = true;
        return this;
    }

    /**
     * Reads the next event and decides its row ({@link #first}): built at once ({@link #row}) or, held, checked
     * ({@link #pending}); false at the end of the file.
     *
     * @throws DatasetLoadException when an event's reference or trigger mask is malformed
     * @throws IOException          when the file cannot be read
     */
    boolean next() throws IOException {
        if (!source.next()) {
            return false;
        }
        EventRecord e = source.event;
        if (inserts == null) {
            String table = source.simulation() ? config.mcEventsTable() : config.eventsTable();
            inserts = new EventInserts(client.openTable(table), dups, dataset, location, dspid, epoch, startMicros);
        }
        count++;
        try {
            bits.decode(e);
        } catch (IllegalArgumentException bad) {
            throw inserts.malformed(e, "trigger mask", bad);
        }
        int occurrence = adjacent ? adjacentOccurrence(e.eventNumber) : seenOccurrence(e.eventNumber);
        first = occurrence == 1;
        if (!first) {
            duplicates++;
            if (occurrence == 2) {
                uniqDupl++;
            }
        }
        TriggerWords words = TriggerWords.of(bits);
        if (held) {
            pending = PendingRow.held(e, source.menu, occurrence, words, inserts.storesMaskText());
            inserts.check(pending);
        } else {
            row = inserts.build(PendingRow.current(e, source.menu, occurrence, words));
        }
        return true;
    }

    /**
     * The row of the event read last, built and summed: to {@link #eventTable} when {@link #first}, else to
     * DUPLICATEDEVENTS. Null when the rows are held ({@link #pending}).
     */
    Insert row() {
        return row;
    }

    /** The row of the event read last, decided and checked, when the rows are held ({@link #holdRows}); else null. */
    PendingRow pending() {
        return pending;
    }

    /**
     * The Kudu row of a held row, its checksum added to {@link #uniqueSum} or {@link #duplicatesSum}; on the thread
     * that reads, in any order.
     */
    Insert build(PendingRow held) throws DatasetLoadException {
        return inserts.build(held);
    }

    /** The builder of the rows: null before the first event. */
    EventInserts inserts() {
        return inserts;
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
        return inserts == null ? null : inserts.events();
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

    /** The {@link RowChecksum} of the rows built for EVENTS/MCEVENTS so far. */
    long uniqueSum() {
        return inserts == null ? 0 : inserts.uniqueSum();
    }

    /** The {@link RowChecksum} of the rows built for DUPLICATEDEVENTS so far. */
    long duplicatesSum() {
        return inserts == null ? 0 : inserts.duplicatesSum();
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
}
