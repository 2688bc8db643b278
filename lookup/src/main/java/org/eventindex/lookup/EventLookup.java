package org.eventindex.lookup;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.eventindex.kudu.KuduTablesConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import static java.util.Objects.requireNonNull;

/**
 * Event picking over the Kudu tables: (run, event) -> the files holding the event, shared by the command line and
 * the HTTP server.
 * <p>
 * A batch is grouped by run; each run's LOADED datasets are read once from DATASETS (a range scan on its first key
 * column; with a dataset cache TTL, reused across lookups for that long, see {@link DatasetCache}), filtered by
 * dataset name, then each (event, dataset) pair is one point scan on EVENTS (or MCEVENTS) with
 * the full primary key, so Kudu reads one tablet. Point scans of a batch run on a fixed pool of {@code threads}; a
 * single event is looked up on the caller's thread.
 * <p>
 * Reported per event row: the event's own file ({@code db/tk}, typed {@code Stream<datatype>} after its dataset)
 * and its provenance ({@code dbraw/dbesd/dbaod} as {@code StreamRAW/StreamESD/StreamAOD}), a provenance entry equal
 * to the own file left out. Cross-file duplicates (later copies of the event in DUPLICATEDEVENTS) are reported only
 * when {@code withDuplicates} is set: the EVENTS row already names a file that holds the event.
 */
public final class EventLookup implements AutoCloseable {
    /** The columns of EVENTS (MCEVENTS) a lookup reads: its projection of each point scan. */
    public static final List<String> EVENT_COLUMNS = KuduEventReader.EVENT_COLUMNS;
    /** How long {@code bin/eventindex lookup} reuses a run's LOADED datasets unless told otherwise. */
    public static final Duration DEFAULT_DATASET_CACHE_TTL = Duration.ofSeconds(1);

    private final KuduEventReader reader;
    private final DatasetCache datasets;
    private final ExecutorService pool;
    private final boolean withDuplicates;
    private final MissExplainer explainer;

    /**
     * @param threads        parallel point scans, at least 1
     * @param withDuplicates also report the DUPLICATEDEVENTS copies of each event
     * @throws KuduException when Kudu is unreachable or a table is missing
     */
    public EventLookup(KuduClient client, KuduTablesConfig config, int threads, boolean withDuplicates)
            throws KuduException {
        this(client, config, threads, withDuplicates, Duration.ZERO);
    }

    /**
     * @param datasetCacheTtl how long the LOADED datasets of a run are reused between lookups ({@link DatasetCache});
     *                        zero reads DATASETS for every lookup (every batch per run)
     */
    public EventLookup(KuduClient client, KuduTablesConfig config, int threads, boolean withDuplicates,
                       Duration datasetCacheTtl) throws KuduException {
        this(client, config, threads, withDuplicates, datasetCacheTtl, System::nanoTime);
    }

    /**
     * @param pending the supervisor's datasets not yet done, for {@link #explained} ({@link PendingDatasets#NONE}:
     *                none asked)
     */
    EventLookup(KuduClient client, KuduTablesConfig config, int threads, boolean withDuplicates,
                Duration datasetCacheTtl, PendingDatasets pending) throws KuduException {
        this(client, config, threads, withDuplicates, datasetCacheTtl, System::nanoTime, pending);
    }

    EventLookup(KuduClient client, KuduTablesConfig config, int threads, boolean withDuplicates,
                Duration datasetCacheTtl, LongSupplier nanoTime) throws KuduException {
        this(client, config, threads, withDuplicates, datasetCacheTtl, nanoTime, PendingDatasets.NONE);
    }

    private EventLookup(KuduClient client, KuduTablesConfig config, int threads, boolean withDuplicates,
                        Duration datasetCacheTtl, LongSupplier nanoTime, PendingDatasets pending)
            throws KuduException {
        if (threads < 1 || threads > 256) {
            throw new IllegalArgumentException("threads must be within 1..256: " + threads);
        }
        this.reader = new KuduEventReader(requireNonNull(client, "client is null"),
                requireNonNull(config, "config is null"), nanoTime);
        this.datasets = new DatasetCache(reader::loadedDatasets, datasetCacheTtl, nanoTime);
        this.withDuplicates = withDuplicates;
        AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "lookup-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.explainer = new MissExplainer(reader, this::lookup, requireNonNull(pending, "pending is null"), pool);
    }

    /**
     * How many times lookups moved to other tables because a rebuild's swap put them under the configured names
     * (the tables are checked by name every second; docs/rebuild.md); {@code lookup serve} exports it as
     * {@code eventindex_lookup_table_switches_total}.
     */
    public long tableSwitches() {
        return reader.tableSwitches();
    }

    /** Looks up one event. */
    public LookupResult lookup(EventKey key, LookupFilter filter) {
        return lookup(List.of(key), filter).get(0);
    }

    /**
     * Looks up a batch; one result per key, in the order of {@code keys}. A failure of one lookup (Kudu timeout)
     * is reported in that key's result and does not stop the others.
     */
    public List<LookupResult> lookup(List<EventKey> keys, LookupFilter filter) {
        requireNonNull(keys, "keys is null");
        requireNonNull(filter, "filter is null");
        if (keys.size() == 1) {
            // one event (the HTTP path): on the caller's thread, no hand-over to the pool
            EventKey k = keys.get(0);
            try {
                return List.of(lookupIn(k, datasets(k.run(), filter), filter));
            } catch (CompletionException e) {
                return List.of(new LookupResult(k, List.of(), reason(e)));
            }
        }
        Map<Integer, CompletableFuture<List<LoadedDataset>>> runs = new LinkedHashMap<>();
        for (EventKey k : keys) {
            runs.computeIfAbsent(k.run(), run -> CompletableFuture.supplyAsync(() -> datasets(run, filter), pool));
        }
        List<CompletableFuture<LookupResult>> futures = new ArrayList<>(keys.size());
        for (EventKey k : keys) {
            futures.add(runs.get(k.run()).thenApplyAsync(ds -> lookupIn(k, ds, filter), pool)
                    .exceptionally(e -> new LookupResult(k, List.of(), reason(e))));
        }
        List<LookupResult> out = new ArrayList<>(keys.size());
        for (CompletableFuture<LookupResult> f : futures) {
            out.add(f.join());
        }
        return out;
    }

    /**
     * {@link #lookup(List, LookupFilter)}, each event not found carrying a {@link MissExplanation}: the misses of the
     * batch are explained together ({@link MissExplainer}); hits cost what they cost without it.
     */
    public List<LookupResult> explained(List<EventKey> keys, LookupFilter filter) {
        return explainer.explain(lookup(keys, filter), filter);
    }

    private List<LoadedDataset> datasets(int run, LookupFilter filter) {
        try {
            return datasets.loadedDatasets(run).stream().filter(filter::acceptsDataset).toList();
        } catch (KuduException e) {
            throw new CompletionException(new LookupException("reading the datasets of run " + run + ": "
                    + e.getMessage(), e));
        }
    }

    private LookupResult lookupIn(EventKey key, List<LoadedDataset> datasets, LookupFilter filter) {
        List<LookupMatch> matches = new ArrayList<>();
        try {
            for (LoadedDataset d : datasets) {
                KuduEventReader.EventRow row = reader.eventRow(d, key.event());
                if (row == null || !sameRun(d, row, key)) {
                    continue;
                }
                addMatches(matches, key, d, row, false, filter);
                if (withDuplicates) {
                    for (KuduEventReader.EventRow dup : reader.duplicateRows(d, key.event())) {
                        addMatches(matches, key, d, dup, true, filter);
                    }
                }
            }
        } catch (KuduException e) {
            return new LookupResult(key, List.of(), "Kudu lookup of " + key.text() + " failed: " + e.getMessage());
        }
        return new LookupResult(key, matches, null);
    }

    /**
     * A real-data row must carry the run asked for (a dataset holds one run, but multi-run files exist); simulated
     * events carry the conditions run, not the dataset number the lookup is keyed by.
     */
    private static boolean sameRun(LoadedDataset d, KuduEventReader.EventRow row, EventKey key) {
        return d.simulation() || row.run() == null || row.run() == key.run();
    }

    private static void addMatches(List<LookupMatch> out, EventKey key, LoadedDataset d, KuduEventReader.EventRow r,
                                   boolean duplicate, LookupFilter filter) {
        String ownType = d.ownType();
        add(out, filter, new LookupMatch(key, r.db(), ownType, r.tk(), d.name(), true, duplicate));
        addProvenance(out, filter, key, d, r.dbRaw(), r.tkRaw(), "StreamRAW", r.db(), ownType, duplicate);
        addProvenance(out, filter, key, d, r.dbEsd(), r.tkEsd(), "StreamESD", r.db(), ownType, duplicate);
        addProvenance(out, filter, key, d, r.dbAod(), r.tkAod(), "StreamAOD", r.db(), ownType, duplicate);
    }

    private static void addProvenance(List<LookupMatch> out, LookupFilter filter, EventKey key, LoadedDataset d,
                                      String guid, String token, String type, String ownGuid, String ownType,
                                      boolean duplicate) {
        if (guid == null || (type.equals(ownType) && guid.equals(ownGuid))) {
            return;
        }
        add(out, filter, new LookupMatch(key, guid, type, token, d.name(), false, duplicate));
    }

    private static void add(List<LookupMatch> out, LookupFilter filter, LookupMatch m) {
        if (m.guid() != null && filter.acceptsType(m.type())) {
            out.add(m);
        }
    }

    private static String reason(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return cause.getMessage() == null ? cause.toString() : cause.getMessage();
    }

    /** Stops the worker threads; lookups in progress finish. Idempotent. */
    @Override
    public void close() {
        pool.shutdown();
    }
}
