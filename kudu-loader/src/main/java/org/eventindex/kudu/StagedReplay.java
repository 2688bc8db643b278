package org.eventindex.kudu;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.RowResult;

import java.io.IOException;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.eventindex.EventIndexFailure.Kind.FATAL;
import static java.util.Objects.requireNonNull;

/**
 * A replayed load ({@link DatasetLoader#replaying}) cut into three steps that may run on different machines, so that
 * whoever writes the rows is not whoever decides them: what a rebuild routing rows by tablet runs
 * (docs/decisions/0076). The steps are {@link DatasetLoader}'s protocol, with its own pieces:
 * <ol>
 *   <li>{@link #prepare}: steps 0-2 (refused, already LOADED, or LOADING with no row of an earlier attempt left);</li>
 *   <li>{@link #decide}: step 3 with every row handed to a {@link RowSink} instead of Kudu (the first-occurrence
 *       rule, the duplicates' {@code insertion_time}, the trigger pairs and the checksums as a load decides them);
 *       changes nothing, so it can be repeated;</li>
 *   <li>{@link #finish}, once the caller wrote every decided row: steps 4-5, the overlap counted from the dataset's
 *       rows now in Kudu against the run's other LOADED datasets (the ones a load finds), the counts checked, LOADED
 *       with the recorded {@code insert_end}.</li>
 * </ol>
 * The rows written are those of {@link DatasetLoader#load}: the same decisions in the same file order; only who
 * writes them, and when the overlap is counted, differ.
 */
public final class StagedReplay {

    /**
     * What {@link #decide} found in the file: what {@link #finish} records. Serializable, as it travels from the task
     * that decided to the one that finishes.
     *
     * @param pairTriples the trigger pair counts as (trig1, trig2, count) triples
     */
    public record Decided(long events, long duplicates, long uniqDuplEvents, Integer smk, boolean simulation,
                          long[] pairTriples, long uniqueSum, long duplicatesSum) implements Serializable {
        public Decided {
            requireNonNull(pairTriples, "pairTriples is null");
        }
    }

    private final KuduClient client;
    private final KuduTables tables;
    private final LoaderSettings settings;
    private final DatasetsTable datasets;
    private final DatasetAnalytics analytics;

    public StagedReplay(KuduClient client, KuduTables tables, LoaderSettings settings) {
        this.client = requireNonNull(client, "client is null");
        this.tables = requireNonNull(tables, "tables is null");
        this.settings = requireNonNull(settings, "settings is null").withLoadThreads(1);
        this.datasets = new DatasetsTable(client, tables.config().datasetsTable());
        this.analytics = new DatasetAnalytics(client, tables.config());
    }

    /**
     * Steps 0-2 for {@code catalogued}'s load: nothing when the target already holds it LOADED with its load id (the
     * stored counts returned); else the file is opened (a file that is not a consolidated one is refused before
     * anything changes), the dataset set LOADING with the recorded {@code insert_start}, and every row an earlier
     * attempt left deleted.
     *
     * @return the stored counts when already loaded, else empty (ready for {@link #decide})
     * @throws DatasetLoadException when the load is refused (superseded, or LOADED at another placement)
     */
    public Optional<LoadResult> prepare(DatasetsRow catalogued, DatasetSource source) throws IOException {
        long t0 = System.nanoTime();
        LoadRequest request = request(catalogued, source);
        String dataset = catalogued.dataset();
        DatasetsTable.Decision decision = datasets.decide(request);
        if (decision instanceof DatasetsTable.Decision.Refused refused) {
            throw new DatasetLoadException(FATAL, dataset, refused.reason());
        }
        if (decision instanceof DatasetsTable.Decision.AlreadyLoaded loaded) {
            return Optional.of(new LoadResult(loaded.events(), loaded.events() - loaded.duplicates(),
                    loaded.duplicates(), (System.nanoTime() - t0) / 1_000_000, true));
        }
        EventSource.open(source, dataset).close();
        DatasetLoader.clearForLoad(client, tables, datasets, request, decision, catalogued.insertStart());
        return Optional.empty();
    }

    /**
     * Step 3 without Kudu: every row the load writes, in file order, to {@code sink}. Reads the tables' schemas
     * only; safe to repeat.
     *
     * @throws DatasetLoadException when an event's reference or trigger mask is malformed
     * @throws IOException          when the file cannot be read or does not match its footer
     */
    public Decided decide(DatasetsRow catalogued, DatasetSource source, RowSink sink) throws IOException {
        requireNonNull(sink, "sink is null");
        LoadRequest request = request(catalogued, source);
        try (EventSource events = EventSource.open(source, catalogued.dataset());
             EventWriter writer = new EventWriter(client, tables.config(), settings, request,
                     DatasetsReader.micros(catalogued.insertStart()), List.of(), DatasetLoader.Progress.NONE, null)) {
            EventWriter.Written w = writer.divertTo(sink).write(events);
            return new Decided(w.events(), w.duplicates(), w.uniqDuplEvents(), w.smk(),
                    w.events() > 0 && events.simulation(), w.triggerPairs().triples(), w.uniqueSum(),
                    w.duplicatesSum());
        }
    }

    /**
     * Steps 4-5, after every row {@link #decide} handed over is in Kudu: TRIGGERCOUNT and EVENTSOVERLAP replaced,
     * the stored rows counted against {@code decided}, and the dataset LOADED with the recorded {@code insert_end}.
     *
     * @throws DatasetLoadException when Kudu holds other counts than decided (rows lost or written twice), or a
     *                              newer selection of the dataset started meanwhile
     */
    public LoadResult finish(DatasetsRow catalogued, DatasetSource source, Decided decided) throws IOException {
        long t0 = System.nanoTime();
        LoadRequest request = request(catalogued, source);
        String dataset = catalogued.dataset();
        EventWriter.Written written = new EventWriter.Written(decided.events(), decided.duplicates(),
                decided.uniqDuplEvents(), decided.smk(), null, overlaps(request, decided), decided.uniqueSum(),
                decided.duplicatesSum());
        analytics.writeTriggerCounts(request.dspid(), sink -> PairCounter.forEachTriple(decided.pairTriples(), sink),
                dataset);
        analytics.writeOverlaps(request.dspid(), written.overlaps(), dataset);
        if (settings.verifyCounts()) {
            DatasetLoader.checkCounts(client, tables.config(), request, written);
        }
        datasets.markLoaded(request, written, catalogued.insertEnd());
        return new LoadResult(written.events(), written.unique(), written.duplicates(),
                (System.nanoTime() - t0) / 1_000_000, false);
    }

    /**
     * A session to write decided rows through, configured as a load's single session (background flushes of the
     * loader's buffer, its flush interval and timeout).
     */
    public KuduSession session() {
        return EventWriter.newSession(client, settings, settings.mutationBufferOps());
    }

    /**
     * Throws if Kudu refused rows written through {@code session}, as a load does.
     *
     * @param tables the tables written, for the message
     * @param whose  whose rows they are, for the message
     * @throws DatasetLoadException naming the tables, how many rows and the first ones
     */
    public static void failOnErrors(KuduSession session, String tables, String whose) throws DatasetLoadException {
        EventRows.failOnErrors(session, tables, "write decided rows", whose);
    }

    /**
     * The overlap a load counts as it writes, counted from the dataset's rows in Kudu instead: each (run, event) of
     * its EVENTS/MCEVENTS rows (its first occurrences) against the run's other LOADED datasets.
     */
    private Map<Integer, Long> overlaps(LoadRequest request, Decided decided) throws IOException {
        List<Placement> others = datasets.loadedInRun(request.dataset().runNumber(), request.dspid());
        if (others.isEmpty() || decided.events() == 0) {
            return Map.of();
        }
        String table = decided.simulation() ? tables.config().mcEventsTable() : tables.config().eventsTable();
        DatasetAnalytics.Overlap overlap = new DatasetAnalytics.Overlap(client, table, others);
        KuduScanner scanner = EventRows.scanner(client, client.openTable(table), request.dspid(), request.epoch(),
                List.of(KuduSchemas.RUNNUMBER, KuduSchemas.EVENTNUMBER));
        try {
            while (scanner.hasMoreRows()) {
                for (RowResult r : scanner.nextRows()) {
                    overlap.add(r.getInt(0), r.getLong(1));
                }
            }
        } finally {
            scanner.close();
        }
        return overlap.result();
    }

    private static LoadRequest request(DatasetsRow catalogued, DatasetSource source) {
        DatasetLoader.checkReplayable(catalogued);
        return DatasetLoader.replayRequest(catalogued, source);
    }
}
