package org.eventindex.kudu;

import org.apache.kudu.client.KuduClient;
import org.eventindex.names.DatasetName;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import static org.eventindex.EventIndexFailure.Kind.FATAL;
import static org.eventindex.EventIndexFailure.Kind.RETRIABLE;
import static java.util.Objects.requireNonNull;

/**
 * Loads one consolidated dataset file (Parquet, sorted by (run, event)) into EVENTS (MCEVENTS for a simulation
 * dataset) and DUPLICATEDEVENTS, computes TRIGGERCOUNT and EVENTSOVERLAP on the way, and records the
 * dataset in DATASETS. {@link #delete(DatasetName)} removes a dataset.
 * <p>
 * Protocol, which makes every load safe to repeat ({@link #load(LoadRequest, Progress)} reads as these steps, numbered
 * as in docs/kudu-loader.md):
 * <ol start="0">
 *   <li>A load of an older selection than the one DATASETS holds ({@link LoadRequest#selectedAt()} below the row's
 *       {@code signal_ts}, another load id) is refused and changes nothing: a superseded signal delivered late must
 *       not replace newer content ({@link #checkNotSuperseded}). Checked again before the row is set LOADED.</li>
 *   <li>If DATASETS holds the dataset as LOADED with the same {@code load_id}: nothing is written; the stored counts
 *       are returned.</li>
 *   <li>Otherwise the file is opened and its footer read ({@link EventSource}): a file that is not a consolidated
 *       Parquet file is refused here and nothing changes. Then the row is set LOADING (with the new load_id, dspid,
 *       rgid, insert_start), and every row of this (dspid, epoch) — and of the row's previous (dspid, rgid) if they
 *       differ — left in EVENTS, MCEVENTS and DUPLICATEDEVENTS by an earlier or interrupted load is deleted.</li>
 *   <li>The file is streamed in order ({@link EventWriter}): the first occurrence of each event number goes to
 *       EVENTS/MCEVENTS, later ones to DUPLICATEDEVENTS. File order is fixed, so a reload gives the same split.
 *       The rows so decided are written by {@link LoaderSettings#loadThreads()} sessions on as many threads; a
 *       failure in any of them fails the load here, before step 4.</li>
 *   <li>The dataset's TRIGGERCOUNT and EVENTSOVERLAP rows are replaced.</li>
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

        /**
         * A step of the load without events is done ({@code step}: the dataset marked LOADING with no earlier row
         * left, its analytics written, its counts verified): work a caller watching for progress counts too.
         */
        default void step(String dataset, String step) {
        }

        Progress NONE = (dataset, events) -> {
        };
    }

    private final KuduClient client;
    private final KuduTables tables;
    private final LoaderSettings settings;
    private final Clock clock;
    private final DatasetsTable datasets;
    private final DatasetAnalytics analytics;
    private volatile ParallelSessions.Fault fault;
    /** The load writing rows now, if any (one at a time per consumer), for {@link #bufferedRows()}. */
    private volatile EventWriter writing;

    public DatasetLoader(KuduClient client, KuduTables tables, LoaderSettings settings, Clock clock) {
        this.client = requireNonNull(client, "client is null");
        this.tables = requireNonNull(tables, "tables is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.datasets = new DatasetsTable(client, tables.config().datasetsTable());
        this.analytics = new DatasetAnalytics(client, tables.config());
    }

    /**
     * A loader that loads {@code catalogued}'s dataset again as it was loaded: the same placement, load id and
     * selection time, and its {@code insert_start} and {@code insert_end} replayed, so that every row it writes
     * (the duplicates' {@code insertion_time} included) is the row the first load wrote. What {@code eventindex
     * rebuild} runs, into other tables, for each dataset.
     *
     * @throws IllegalArgumentException when the row is not LOADED (no times to replay)
     */
    public static DatasetLoader replaying(KuduClient client, KuduTables tables, LoaderSettings settings,
                                          DatasetsRow catalogued) {
        checkReplayable(catalogued);
        return new DatasetLoader(client, tables, settings,
                new ReplayClock(catalogued.insertStart(), catalogued.insertEnd()));
    }

    /** @throws IllegalArgumentException when {@code catalogued} is not LOADED with its insert times */
    static void checkReplayable(DatasetsRow catalogued) {
        requireNonNull(catalogued, "catalogued is null");
        if (!catalogued.isLoaded() || catalogued.insertStart() == null || catalogued.insertEnd() == null) {
            throw new IllegalArgumentException("dataset " + catalogued.dataset() + " is " + catalogued.state()
                    + " in DATASETS, not LOADED with its insert times: nothing to replay");
        }
    }

    /**
     * Loads {@code catalogued}'s dataset again as it was loaded (a loader made by {@link #replaying}), also when
     * DATASETS holds it LOADED: the repair of a dataset whose rows in Kudu no longer match its file. The row is set
     * LOADING first, so readers ignore the dataset until it is LOADED again and a crash midway is finished by a
     * repeat.
     */
    public LoadResult reload(DatasetsRow catalogued, DatasetSource source) throws IOException {
        requireNonNull(catalogued, "catalogued is null");
        datasets.markState(DatasetName.parse(catalogued.dataset()), LoadState.LOADING);
        return load(replayRequest(catalogued, source));
    }

    /**
     * Repairs a dataset whose Kudu rows verify found wrong: reloads {@code catalogued}'s dataset from {@code source}
     * as it was loaded ({@link #replaying}, {@link #reload}), on one session.
     *
     * @throws IllegalStateException when {@code found} is not {@link Verification.Verdict#KUDU_DIFFERS}: a file that
     *                               disagrees with the catalogue is not loaded over the rows
     */
    public static LoadResult repair(KuduClient client, KuduTables tables, Verification found, DatasetsRow catalogued,
                                    DatasetSource source) throws IOException {
        if (found.verdict() != Verification.Verdict.KUDU_DIFFERS) {
            throw new IllegalStateException("dataset " + found.dataset() + " is " + found.verdict()
                    + ": only a dataset whose Kudu rows disagree with a file that agrees with the catalogue is"
                    + " reloaded");
        }
        return replaying(client, tables, LoaderSettings.defaults().withLoadThreads(1), catalogued)
                .reload(catalogued, source);
    }

    /** The request that loads {@code catalogued}'s dataset again from {@code source} (see {@link #replaying}). */
    public static LoadRequest replayRequest(DatasetsRow catalogued, DatasetSource source) {
        requireNonNull(catalogued, "catalogued is null");
        return new LoadRequest(DatasetName.parse(catalogued.dataset()), catalogued.dspid(), catalogued.rgid(),
                catalogued.loadId(), source, catalogued.signalTs() == null ? 0 : catalogued.signalTs());
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
        datasets.checkNotSuperseded(dataset, loadId, selectedAt);
    }

    /**
     * Whether Kudu holds a queryable load of {@code dataset} other than {@code loadId}: a LOADED row of an earlier
     * signal, whose rows a new load replaces. The consumer loads such a dataset only after its new file is published
     * (decision 0073), so that the earlier content stays queryable until then.
     */
    public boolean holdsEarlierLoad(DatasetName dataset, String loadId) throws IOException {
        requireNonNull(dataset, "dataset is null");
        requireNonNull(loadId, "loadId is null");
        Optional<DatasetsRow> row = datasets.find(dataset);
        return row.isPresent() && row.get().state() == LoadState.LOADED && !loadId.equals(row.get().loadId());
    }

    /**
     * Loads {@code request} following the protocol above; adds the epoch's range if missing.
     *
     * @throws DatasetLoadException     when the load is refused, the file is not a Parquet file, Kudu refuses rows,
     *                                  counts differ or an event reference is malformed; the dataset stays LOADING
     *                                  (refused, or not a Parquet file: as it was)
     * @throws IOException              when the file cannot be read or does not match its footer, or Kudu fails
     */
    public LoadResult load(LoadRequest request, Progress progress) throws IOException {
        requireNonNull(request, "request is null");
        requireNonNull(progress, "progress is null");
        long t0 = System.nanoTime();
        String dataset = request.dataset().toString();
        int dspid = request.dspid();

        // 0-1. one read of DATASETS decides: refused (superseded), already loaded, or load (fresh or replacing)
        DatasetsTable.Decision decision = datasets.decide(request);
        if (decision instanceof DatasetsTable.Decision.Refused refused) {
            throw new DatasetLoadException(FATAL, dataset, refused.reason());
        }
        if (decision instanceof DatasetsTable.Decision.AlreadyLoaded loaded) {
            return new LoadResult(loaded.events(), loaded.events() - loaded.duplicates(), loaded.duplicates(),
                    elapsedMillis(t0), true);
        }

        // the file is opened (and its footer read) before anything changes: a file that is not a consolidated
        // Parquet file is refused here, leaving the dataset as it was
        EventSource source = EventSource.open(request.source(), dataset);
        EventWriter.Written written;
        try (source) {
            // 2. LOADING, and no row of an earlier or interrupted load left
            Instant start = clock.instant();
            clearForLoad(client, tables, datasets, request, decision, start);
            progress.step(dataset, "loading");

            // 3. the file, streamed into EVENTS/MCEVENTS and DUPLICATEDEVENTS
            List<Placement> others = datasets.loadedInRun(request.dataset().runNumber(), dspid);
            try (EventWriter writer = new EventWriter(client, tables.config(), settings, request,
                    DatasetsReader.micros(start), others, progress, fault)) {
                writing = writer;
                written = writer.write(source);
            } finally {
                writing = null;
            }
        }

        // 4. the dataset's TRIGGERCOUNT and EVENTSOVERLAP rows replaced
        analytics.writeTriggerCounts(dspid, written.triggerPairs()::forEach, dataset);
        analytics.writeOverlaps(dspid, written.overlaps(), dataset);
        progress.step(dataset, "analytics");

        // 5. the stored rows are what was written, then LOADED (unless a newer selection started meanwhile)
        if (settings.verifyCounts()) {
            checkCounts(client, tables.config(), request, written);
            progress.step(dataset, "counts verified");
        }
        datasets.markLoaded(request, written, clock.instant());
        return new LoadResult(written.events(), written.unique(), written.duplicates(), elapsedMillis(t0), false);
    }

    /**
     * Step 5's check: Kudu holds, for the request's dataset id and epoch, the rows {@code written} says were written.
     *
     * @throws DatasetLoadException when it does not (rows lost, or another load of the dataset writing)
     */
    static void checkCounts(KuduClient client, KuduTablesConfig config, LoadRequest request,
                            EventWriter.Written written) throws IOException {
        EventCounts stored = EventRows.counts(client, config, request.dspid(), request.epoch());
        if (stored.events() != written.unique() || stored.duplicates() != written.duplicates()) {
            throw new DatasetLoadException(RETRIABLE, request.dataset().toString(), "after loading "
                    + written.events() + " events Kudu holds " + stored.events() + " rows in EVENTS (expected "
                    + written.unique() + ") and " + stored.duplicates() + " in DUPLICATEDEVENTS (expected "
                    + written.duplicates() + ") for dspid " + request.dspid() + " epoch " + request.epoch()
                    + "; is another load of it running?");
        }
    }

    /**
     * Step 2 of the protocol: the dataset LOADING (from {@code start}), and no row of an earlier or interrupted load
     * left, at its placement or at the one it moved from.
     */
    static void clearForLoad(KuduClient client, KuduTables tables, DatasetsTable datasets, LoadRequest request,
                             DatasetsTable.Decision decision, Instant start) throws IOException {
        String dataset = request.dataset().toString();
        tables.ensureEpoch(request.epoch());
        if (decision instanceof DatasetsTable.Decision.Replace replace && replace.movedFrom().isPresent()) {
            // The supervisor re-placed the dataset: remove the old placement's rows while the row still names
            // it, so a crash in between leaves a LOADING row that a retry cleans up the same way.
            Placement old = replace.movedFrom().get();
            datasets.markState(request.dataset(), LoadState.LOADING);
            EventRows.deleteDataset(client, tables.config(), old.dspid(), old.rgid(), dataset);
        }
        datasets.markLoading(request, start);
        EventRows.deleteDataset(client, tables.config(), request.dspid(), request.epoch(), dataset);
    }

    /**
     * What {@code kudu-loader delete} and {@code supervisor delete-dataset} do: {@link #delete} on the tables of
     * {@code config}, with {@code client}.
     *
     * @return false when the dataset was not in DATASETS
     */
    public static boolean delete(KuduClient client, KuduTablesConfig config, DatasetName name) throws IOException {
        return new DatasetLoader(client, new KuduTables(client, config), LoaderSettings.defaults(), Clock.systemUTC())
                .delete(name);
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
            EventRows.deleteDataset(client, tables.config(), r.dspid(), r.rgid(), dataset);
        }
        analytics.deleteTriggerCounts(r.dspid(), dataset);
        analytics.deleteOverlaps(r.dspid(), dataset);
        datasets.delete(name);
        return true;
    }

    /**
     * Undoes a load that failed for good ({@code loadId} of {@code name}: a malformed file, or a bug), so that nothing
     * of it is left half done: its rows in EVENTS, MCEVENTS and DUPLICATEDEVENTS, its TRIGGERCOUNT and EVENTSOVERLAP
     * rows and its DATASETS row are removed, as {@link #delete} does, but only while DATASETS still names that load and
     * not as LOADED (a newer load of the dataset, or a completed one, is left alone). Safe to repeat.
     *
     * @return true when the load's rows were removed; false when DATASETS holds no row of that load
     */
    public boolean abandon(DatasetName name, String loadId) throws IOException {
        requireNonNull(name, "name is null");
        requireNonNull(loadId, "loadId is null");
        Optional<DatasetsRow> existing = datasets.find(name);
        if (existing.isEmpty() || existing.get().isLoaded() || !loadId.equals(existing.get().loadId())) {
            return false;
        }
        return delete(name);
    }

    /** Tests only: a failure injected into the writing threads of later loads (null: none). */
    /**
     * Rows the load in progress handed to Kudu that Kudu has not yet taken (its sessions' buffers and hand-over; at
     * most about {@link LoaderSettings#bufferBudgetRows()}), 0 when no load writes: what the consumer's heap holds
     * for the load, for a gauge. Any thread.
     */
    public long bufferedRows() {
        EventWriter w = writing;
        return w == null ? 0 : w.bufferedRows();
    }

    void injectFault(ParallelSessions.Fault fault) {
        this.fault = fault;
    }

    private static long elapsedMillis(long t0) {
        return Duration.ofNanos(System.nanoTime() - t0).toMillis();
    }
}
