package org.eventindex.kudu;

import org.apache.kudu.client.Insert;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.SessionConfiguration;
import org.eventindex.consolidated.EventRecord;
import org.eventindex.names.DatasetName;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.LongHashSet;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static org.eventindex.EventIndexFailure.Kind.FATAL;
import static org.eventindex.EventIndexFailure.Kind.RETRIABLE;
import static java.util.Objects.requireNonNull;

/**
 * Loads one consolidated dataset file (Parquet sorted by (run, event), or SPB of earlier versions) into EVENTS (MCEVENTS
 * for a simulation dataset) and DUPLICATEDEVENTS, computes TRIGGERCOUNT and EVENTSOVERLAP on the way, and records the
 * dataset in DATASETS. {@link #delete(DatasetName)} removes a dataset.
 * <p>
 * Protocol, which makes every load safe to repeat:
 * <ol>
 *   <li>A load of an older selection than the one DATASETS holds ({@link LoadRequest#selectedAt()} below the row's
 *       {@code signal_ts}, another load id) is refused and changes nothing: a superseded signal delivered late must
 *       not replace newer content ({@link #checkNotSuperseded}). Checked again before the row is set LOADED.</li>
 *   <li>If DATASETS holds the dataset as LOADED with the same {@code load_id}: nothing is written; the stored counts
 *       are returned.</li>
 *   <li>Otherwise the row is set LOADING (with the new load_id, dspid, rgid, insert_start), and every row of this
 *       (dspid, epoch) — and of the row's previous (dspid, rgid) if they differ — left in EVENTS, MCEVENTS and
 *       DUPLICATEDEVENTS by an earlier or interrupted load is deleted.</li>
 *   <li>The file is streamed in order: the first occurrence of each event number goes to EVENTS/MCEVENTS, later
 *       ones to DUPLICATEDEVENTS. File order is fixed, so a reload gives the same split. The dataset's TRIGGERCOUNT
 *       and EVENTSOVERLAP rows are then replaced.</li>
 *   <li>After a clean flush (no row refused) and, by default, a row count matching what was written, the row is set
 *       LOADED with its counts and insert_end.</li>
 * </ol>
 * Readers must treat only LOADED datasets as present. {@code insertion_time} of a duplicate is insert_start plus
 * (occurrence - 2) microseconds, so the second, third... occurrences of one event number get distinct keys.
 * <p>
 * Two loads of the same dataset must not run at once (the supervisor sends each dataset to one consumer); the count
 * check then refuses LOADED. Loads of different datasets may run concurrently, each with its own loader call.
 */
public final class DatasetLoader {

    /** Receives progress while a file is loaded. */
    @FunctionalInterface
    public interface Progress {
        void events(String dataset, long eventsSoFar);

        Progress NONE = (dataset, events) -> {
        };
    }

    private final KuduClient client;
    private final KuduTables tables;
    private final LoaderSettings settings;
    private final Clock clock;
    private final DatasetsTable datasets;
    private final DatasetAnalytics analytics;

    public DatasetLoader(KuduClient client, KuduTables tables, LoaderSettings settings, Clock clock) {
        this.client = requireNonNull(client, "client is null");
        this.tables = requireNonNull(tables, "tables is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.datasets = new DatasetsTable(client, tables.config().datasetsTable());
        this.analytics = new DatasetAnalytics(client, tables.config());
    }

    public LoadResult load(LoadRequest request) throws IOException {
        return load(request, Progress.NONE);
    }

    /**
     * Refuses a load ({@code loadId}, selected at {@code selectedAt} ms, see {@link LoadRequest#selectedAt()}) if
     * DATASETS already holds, loaded or loading, a newer selection of {@code dataset} under another load id; changes
     * nothing. The consumer calls it before it replaces the dataset's HDFS file.
     *
     * @throws DatasetLoadException naming both selections when the load is superseded
     * @throws IOException          when DATASETS cannot be read
     */
    public void checkNotSuperseded(DatasetName dataset, String loadId, long selectedAt) throws IOException {
        requireNonNull(dataset, "dataset is null");
        requireNonNull(loadId, "loadId is null");
        refuseIfSuperseded(dataset, loadId, selectedAt, datasets.find(dataset));
    }

    private static void refuseIfSuperseded(LoadRequest request, Optional<DatasetsRow> existing)
            throws DatasetLoadException {
        refuseIfSuperseded(request.dataset(), request.loadId(), request.selectedAt(), existing);
    }

    private static void refuseIfSuperseded(DatasetName dataset, String loadId, long selectedAt,
                                           Optional<DatasetsRow> existing) throws DatasetLoadException {
        if (selectedAt <= 0 || existing.isEmpty()) {
            return;
        }
        DatasetsRow r = existing.get();
        if (r.signalTs() != null && r.signalTs() > selectedAt && !loadId.equals(r.loadId())) {
            throw new DatasetLoadException(FATAL, dataset.toString(), "superseded: DATASETS holds load " + r.loadId()
                    + " (" + r.state() + ") of a selection made at " + Instant.ofEpochMilli(r.signalTs())
                    + ", newer than this load " + loadId + " selected at " + Instant.ofEpochMilli(selectedAt)
                    + "; nothing changed");
        }
    }

    /**
     * Loads {@code request} following the protocol above; adds the epoch's range if missing.
     *
     * @throws DatasetLoadException     when Kudu refuses rows, counts differ or an event reference is malformed;
     *                                  the dataset stays LOADING
     * @throws IOException              when the file cannot be read or is not a valid SPB stream, or Kudu fails
     */
    public LoadResult load(LoadRequest request, Progress progress) throws IOException {
        requireNonNull(request, "request is null");
        requireNonNull(progress, "progress is null");
        long t0 = System.nanoTime();
        String dataset = request.dataset().toString();
        Optional<DatasetsRow> existing = datasets.find(request.dataset());
        refuseIfSuperseded(request, existing);
        if (existing.isPresent() && existing.get().isLoaded() && request.loadId().equals(existing.get().loadId())) {
            DatasetsRow r = existing.get();
            if (r.dspid() != request.dspid() || r.rgid() != request.epoch()) {
                throw new DatasetLoadException(FATAL, dataset, "already LOADED with load id " + r.loadId()
                        + " as dspid " + r.dspid() + " epoch " + r.rgid() + ", but the request places the same load"
                        + " at dspid " + request.dspid() + " epoch " + request.epoch()
                        + "; use a new load id to move it");
            }
            long events = orZero(r.countEvents());
            long duplicates = orZero(r.numDuplicates());
            return new LoadResult(events, events - duplicates, duplicates, elapsedMillis(t0), true);
        }
        tables.ensureEpoch(request.epoch());
        if (existing.isPresent() && existing.get().rgid() >= 0
                && (existing.get().dspid() != request.dspid() || existing.get().rgid() != request.epoch())) {
            // The supervisor re-placed the dataset: remove the old placement's rows while the row still names it,
            // so a crash in between leaves a LOADING row that a retry cleans up the same way.
            datasets.markState(request.dataset(), LoadState.LOADING);
            deleteRows(existing.get().dspid(), existing.get().rgid(), dataset);
        }
        Instant start = clock.instant();
        datasets.markLoading(request, start);
        deleteRows(request.dspid(), request.epoch(), dataset);

        Written w = write(request, DatasetsTable.micros(start), progress);

        if (settings.verifyCounts()) {
            EventCounts stored = new EventCounts(
                    EventRows.count(client, tables.config().eventsTable(), request.dspid(), request.epoch())
                            + EventRows.count(client, tables.config().mcEventsTable(), request.dspid(),
                            request.epoch()),
                    EventRows.count(client, tables.config().duplicatedEventsTable(), request.dspid(),
                            request.epoch()));
            if (stored.events() != w.unique() || stored.duplicates() != w.duplicates()) {
                throw new DatasetLoadException(RETRIABLE, dataset, "after loading " + w.events()
                        + " events Kudu holds " + stored.events() + " rows in EVENTS (expected " + w.unique() + ") and "
                        + stored.duplicates() + " in DUPLICATEDEVENTS (expected " + w.duplicates() + ") for dspid "
                        + request.dspid() + " epoch " + request.epoch() + "; is another load of it running?");
            }
        }
        // a newer selection may have started loading meanwhile: then its load, not this one, ends LOADED
        refuseIfSuperseded(request, datasets.find(request.dataset()));
        datasets.markLoaded(request, w.events(), w.uniqDuplEvents(), w.duplicates(), w.smk(), clock.instant());
        return new LoadResult(w.events(), w.unique(), w.duplicates(), elapsedMillis(t0), false);
    }

    private record Written(long events, long unique, long duplicates, long uniqDuplEvents, Integer smk) {
    }

    private Written write(LoadRequest request, long startMicros, Progress progress) throws IOException {
        String dataset = request.dataset().toString();
        KuduTable dups = client.openTable(tables.config().duplicatedEventsTable());
        EventRowMapper dupMapper = new EventRowMapper(dups.getSchema());
        int insertionTime = dups.getSchema().getColumnIndex(KuduSchemas.INSERTION_TIME);
        TriggerBits bits = new TriggerBits();
        AsyncPairCounter pairs = new AsyncPairCounter(dataset);
        DatasetAnalytics.Overlap overlap = null;

        // Sorted single-run Parquet files have equal event numbers adjacent: no set needed. Older SPB files and
        // multi-run files keep every event number in a set (~16 B each).
        LongHashSet seen = null;
        Map<Long, Integer> repeats = new HashMap<>();
        long lastEvent = -1;
        int lastOccurrence = 0;
        long count = 0;
        long duplicates = 0;
        long uniqDupl = 0;
        Integer smk = null;
        KuduTable events = null;
        EventRowMapper eventMapper = null;
        String tableNames = null;

        KuduSession session = newSession();
        Throwable failure = null;
        try (EventSource source = EventSource.open(request.source(), settings)) {
            boolean adjacent = source.adjacentDuplicates();
            if (!adjacent) {
                seen = new LongHashSet(1 << 16);
            }
            while (source.next()) {
                EventRecord e = source.event;
                if (events == null) {
                    String table = source.simulation() ? tables.config().mcEventsTable()
                            : tables.config().eventsTable();
                    events = client.openTable(table);
                    eventMapper = new EventRowMapper(events.getSchema());
                    tableNames = table + "/" + tables.config().duplicatedEventsTable();
                    overlap = analytics.overlap(table, datasets.loadedInRun(
                            request.dataset().runNumber(), request.dspid()));
                }
                count++;
                if (smk == null && e.hasSmk) {
                    smk = e.smk;
                } else if (smk == null && source.menu != null) {
                    smk = source.menu.getSMK();
                }
                decode(bits, e, request);
                int occurrence;
                if (adjacent) {
                    occurrence = count > 1 && e.eventNumber == lastEvent ? lastOccurrence + 1 : 1;
                    lastEvent = e.eventNumber;
                    lastOccurrence = occurrence;
                } else {
                    occurrence = seen.add(e.eventNumber) ? 1
                            : repeats.merge(e.eventNumber, 2, (a, b) -> a + 1);
                }
                Insert insert;
                if (occurrence == 1) {
                    insert = events.newInsert();
                    fill(eventMapper, insert, request, e, source.menu);
                    eventMapper.fillTriggerWords(insert.getRow(), bits);
                    pairs.add(bits.fired, bits.firedCount);
                    overlap.add(e.runNumber, e.eventNumber);
                } else {
                    if (occurrence == 2) {
                        uniqDupl++;
                    }
                    insert = dups.newInsert();
                    fill(dupMapper, insert, request, e, source.menu);
                    dupMapper.fillTriggerWords(insert.getRow(), bits);
                    insert.getRow().addLong(insertionTime, startMicros + occurrence - 2);
                    duplicates++;
                }
                session.apply(insert);
                if (count % settings.progressEvery() == 0) {
                    EventRows.failOnErrors(session, tableNames, "insert events", dataset);
                    progress.events(dataset, count);
                }
            }
            session.flush();
            if (tableNames != null) {
                EventRows.failOnErrors(session, tableNames, "insert events", dataset);
            }
            progress.events(dataset, count);
            analytics.writeTriggerCounts(request.dspid(), pairs.finish(), dataset);
            analytics.writeOverlaps(request.dspid(), overlap == null ? Map.of() : overlap.result(), dataset);
        } catch (IOException | RuntimeException e) {
            failure = e;
            throw e;
        } finally {
            pairs.close();
            closeSession(session, failure);
        }
        return new Written(count, count - duplicates, duplicates, uniqDupl, smk);
    }

    private static void decode(TriggerBits bits, EventRecord e, LoadRequest request)
            throws DatasetLoadException {
        try {
            bits.decode(e);
        } catch (IllegalArgumentException bad) {
            throw new DatasetLoadException(FATAL, request.dataset().toString(), "event " + e.runNumber + "/"
                    + Long.toUnsignedString(e.eventNumber) + " of file " + e.guid + " in "
                    + request.source().location() + " has a malformed trigger mask: " + bad.getMessage(), bad);
        }
    }

    /**
     * Removes a dataset: its rows in EVENTS, MCEVENTS and DUPLICATEDEVENTS, its TRIGGERCOUNT and EVENTSOVERLAP rows,
     * then its DATASETS row. The row is first set DELETING-safe (LOADING), so a crash midway leaves a dataset that
     * readers ignore and a repeat of the delete finishes.
     *
     * @return false when the dataset was not in DATASETS
     */
    public boolean delete(DatasetName name) throws IOException {
        Optional<DatasetsRow> existing = datasets.find(name);
        if (existing.isEmpty()) {
            return false;
        }
        DatasetsRow r = existing.get();
        String dataset = name.toString();
        datasets.markState(name, LoadState.LOADING);
        if (r.rgid() >= 0) {
            deleteRows(r.dspid(), r.rgid(), dataset);
        }
        analytics.deleteTriggerCounts(r.dspid(), dataset);
        analytics.deleteOverlaps(r.dspid(), dataset);
        datasets.delete(name);
        return true;
    }

    private static void fill(EventRowMapper mapper, Insert insert, LoadRequest request, EventRecord e,
                             TriggerMenu_p1 menu) throws DatasetLoadException {
        try {
            mapper.fill(insert.getRow(), request.dspid(), request.epoch(), e, menu);
        } catch (IllegalArgumentException bad) {
            throw new DatasetLoadException(FATAL, request.dataset().toString(), "event " + e.runNumber + "/"
                    + Long.toUnsignedString(e.eventNumber) + " of file " + e.guid + " in "
                    + request.source().location() + " has a malformed reference: " + bad.getMessage(), bad);
        }
    }

    private KuduSession newSession() {
        KuduSession session = client.newSession();
        session.setFlushMode(SessionConfiguration.FlushMode.AUTO_FLUSH_BACKGROUND);
        session.setMutationBufferSpace(settings.mutationBufferOps());
        session.setFlushInterval((int) settings.flushInterval().toMillis());
        session.setTimeoutMillis(settings.operationTimeout().toMillis());
        return session;
    }

    private static void closeSession(KuduSession session, Throwable failure) throws KuduException {
        try {
            session.close();
        } catch (KuduException e) {
            if (failure == null) {
                throw e;
            }
            failure.addSuppressed(e);
        }
    }

    private void deleteRows(int dspid, int epoch, String dataset) throws IOException {
        EventRows.deleteAll(client, tables.config().eventsTable(), dspid, epoch, dataset);
        EventRows.deleteAll(client, tables.config().duplicatedEventsTable(), dspid, epoch, dataset);
        EventRows.deleteAll(client, tables.config().mcEventsTable(), dspid, epoch, dataset);
    }

    private static long orZero(Long value) {
        return value == null ? 0 : value;
    }

    private static long elapsedMillis(long t0) {
        return Duration.ofNanos(System.nanoTime() - t0).toMillis();
    }
}
