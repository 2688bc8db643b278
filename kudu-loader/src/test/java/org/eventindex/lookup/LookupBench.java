package org.eventindex.lookup;

import org.apache.kudu.Schema;
import org.apache.kudu.client.AsyncKuduScanner;
import org.apache.kudu.client.Insert;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.ReplicaSelection;
import org.apache.kudu.client.SessionConfiguration;
import org.apache.kudu.client.Upsert;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.testing.EmbeddedKudu;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Lookup benchmark (not a test), after seed 001's: random (run, event) lookups on a loaded EVENTS table, at 1 and 8
 * client threads, through {@link EventLookup} (DATASETS scan + point scan per dataset of the run) and, as the
 * baseline in the same run, a raw Kudu client point scan with the (dspid, eventnumber, rgid) key already known.
 * Rows are written directly with the Kudu client (key, run, GUIDs and tokens; trigger words left NULL) into
 * {@code --datasets} LOADED datasets of one run each, spread over two epochs, 64 hash buckets as in production.
 * Run through {@code bin/bench-lookup}; options: --events N (default 2000000), --datasets N (default 20),
 * --lookups N (default 8000), --work DIR.
 */
public final class LookupBench {
    private static final KuduTablesConfig CONFIG = new KuduTablesConfig("bench_", 64, 1);
    private static final int FIRST_RUN = 400_000;

    private record Target(int run, long event, int dspid, int rgid) {
    }

    public static void main(String[] args) throws Exception {
        long events = 2_000_000;
        int datasets = 20;
        int lookups = 8000;
        Path work = null;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--events" -> events = Long.parseLong(args[i + 1]);
                case "--datasets" -> datasets = Integer.parseInt(args[i + 1]);
                case "--lookups" -> lookups = Integer.parseInt(args[i + 1]);
                case "--work" -> work = Path.of(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (known: --events --datasets --lookups --work)");
            }
        }
        Path dir = work != null ? Files.createDirectories(work) : Files.createTempDirectory("bench-lookup");
        try (EmbeddedKudu kudu = EmbeddedKudu.start(dir.resolve("kudu"), 1)) {
            KuduClient client = kudu.client();
            KuduTables tables = new KuduTables(client, CONFIG);
            tables.createOrVerify(0);
            tables.ensureEpoch(1);
            long t0 = System.nanoTime();
            long perDataset = events / datasets;
            load(client, datasets, perDataset);
            double loadSeconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf(Locale.ROOT, "loaded %,d events in %d datasets (2 epochs, 64 buckets) in %.1f s"
                    + " (%,.0f rows/s)%n", perDataset * datasets, datasets, loadSeconds,
                    perDataset * datasets / loadSeconds);

            Random r = new Random(42);
            List<Target> targets = new ArrayList<>(lookups);
            for (int i = 0; i < lookups; i++) {
                int ds = r.nextInt(datasets);
                targets.add(new Target(FIRST_RUN + ds, eventNumber(ds, (long) (r.nextDouble() * perDataset)),
                        ds + 1, ds % 2));
            }
            Duration cacheTtl = Duration.ofMillis(LookupMain.DEFAULT_DATASET_CACHE_MS);
            try (EventLookup one = new EventLookup(client, CONFIG, 1, false);
                 EventLookup eight = new EventLookup(client, CONFIG, 8, false);
                 EventLookup oneCached = new EventLookup(client, CONFIG, 1, false, cacheTtl);
                 EventLookup eightCached = new EventLookup(client, CONFIG, 8, false, cacheTtl)) {
                KuduTable events1 = client.openTable(CONFIG.eventsTable());
                // warm-up: connections, tablet locations, block cache
                run(targets.subList(0, Math.min(2000, lookups)), 8, t -> rawLookup(client, events1, t));
                run(targets.subList(0, Math.min(2000, lookups)), 8, t -> lookupOne(eight, t));
                System.out.println("| client threads | path | p50 ms | p99 ms | lookups/s | ratio to raw |");
                System.out.println("|---:|---|---:|---:|---:|---:|");
                for (int threads : new int[]{1, 8}) {
                    EventLookup service = threads == 1 ? one : eight;
                    EventLookup cached = threads == 1 ? oneCached : eightCached;
                    Result raw = run(targets, threads, t -> rawLookup(client, events1, t));
                    Result svc = run(targets, threads, t -> lookupOne(service, t));
                    Result hit = run(targets, threads, t -> lookupOne(cached, t));
                    print(threads, "raw Kudu point scan (key known)", raw, raw);
                    print(threads, "EventLookup (DATASETS + point scan)", svc, raw);
                    print(threads, "EventLookup, DATASETS cached " + cacheTtl.toMillis() + " ms", hit, raw);
                }
                long b0 = System.nanoTime();
                List<EventKey> keys = targets.stream().map(t -> new EventKey(t.run(), t.event())).toList();
                long found = eight.lookup(keys, LookupFilter.all()).stream().filter(LookupResult::found).count();
                double s = (System.nanoTime() - b0) / 1e9;
                if (found != keys.size()) {
                    throw new IllegalStateException("batch found " + found + " of " + keys.size());
                }
                System.out.printf(Locale.ROOT, "one batch of %,d lookups, 8 pool threads: %.2f s, %,.0f lookups/s%n",
                        keys.size(), s, keys.size() / s);
            }
        }
    }

    private interface Probe {
        boolean lookup(Target t) throws Exception;
    }

    private record Result(double p50, double p99, double perSecond) {
    }

    private static Result run(List<Target> targets, int threads, Probe probe) throws Exception {
        long[] nanos = new long[targets.size()];
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long t0 = System.nanoTime();
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                fs.add(pool.submit(() -> {
                    for (int k = next.getAndIncrement(); k < targets.size(); k = next.getAndIncrement()) {
                        long s = System.nanoTime();
                        if (!probe.lookup(targets.get(k))) {
                            throw new IllegalStateException("not found: " + targets.get(k));
                        }
                        nanos[k] = System.nanoTime() - s;
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        Arrays.sort(nanos);
        return new Result(nanos[nanos.length / 2] / 1e6, nanos[(int) (nanos.length * 0.99)] / 1e6,
                targets.size() / seconds);
    }

    private static void print(int threads, String path, Result r, Result raw) {
        System.out.printf(Locale.ROOT, "| %d | %s | %.2f | %.2f | %,.0f | %.2f |%n", threads, path, r.p50(), r.p99(),
                r.perSecond(), r.perSecond() / raw.perSecond());
    }

    private static boolean lookupOne(EventLookup lookup, Target t) {
        LookupResult r = lookup.lookup(new EventKey(t.run(), t.event()), LookupFilter.all());
        if (r.failed()) {
            throw new IllegalStateException(r.error());
        }
        return r.found();
    }

    private static boolean rawLookup(KuduClient client, KuduTable table, Target t) throws Exception {
        Schema s = table.getSchema();
        KuduScanner scanner = client.newScannerBuilder(table)
                .setProjectedColumnNames(List.of(KuduSchemas.DB, KuduSchemas.TK))
                .readMode(AsyncKuduScanner.ReadMode.READ_LATEST)
                .replicaSelection(ReplicaSelection.LEADER_ONLY)
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.DSPID),
                        KuduPredicate.ComparisonOp.EQUAL, t.dspid()))
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.EVENTNUMBER),
                        KuduPredicate.ComparisonOp.EQUAL, t.event()))
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.RGID),
                        KuduPredicate.ComparisonOp.EQUAL, t.rgid()))
                .build();
        try {
            int rows = 0;
            while (scanner.hasMoreRows()) {
                rows += scanner.nextRows().getNumRows();
            }
            return rows == 1;
        } finally {
            scanner.close();
        }
    }

    /** Sparse, dataset-specific event numbers, as real runs have. */
    private static long eventNumber(int dataset, long i) {
        return 1_000_000_000L * (dataset + 1) + 3 * i + 1;
    }

    private static void load(KuduClient client, int datasets, long perDataset) throws Exception {
        KuduTable ds = client.openTable(CONFIG.datasetsTable());
        KuduTable events = client.openTable(CONFIG.eventsTable());
        KuduSession session = client.newSession();
        session.setFlushMode(SessionConfiguration.FlushMode.AUTO_FLUSH_BACKGROUND);
        session.setMutationBufferSpace(10_000);
        try {
            for (int d = 0; d < datasets; d++) {
                int run = FIRST_RUN + d;
                String guid = String.format("%08X-0000-4000-8000-%012X", d, d);
                for (long i = 0; i < perDataset; i++) {
                    long e = eventNumber(d, i);
                    Insert ins = events.newInsert();
                    PartialRow row = ins.getRow();
                    row.addInt(KuduSchemas.DSPID, d + 1);
                    row.addLong(KuduSchemas.EVENTNUMBER, e);
                    row.addInt(KuduSchemas.RGID, d % 2);
                    row.addInt(KuduSchemas.RUNNUMBER, run);
                    row.addString(KuduSchemas.DB, guid);
                    row.addString(KuduSchemas.TK, LookupFixture.token(guid, e));
                    row.addString(KuduSchemas.DBRAW, guid);
                    session.apply(ins);
                }
                Upsert up = ds.newUpsert();
                PartialRow row = up.getRow();
                row.addInt(KuduSchemas.RUNNUMBER, run);
                row.addString(KuduSchemas.PROJECT, "data18_13TeV");
                row.addString(KuduSchemas.STREAMNAME, "physics_Main");
                row.addString(KuduSchemas.PRODSTEP, "merge");
                row.addString(KuduSchemas.DATATYPE, "AOD");
                row.addString(KuduSchemas.VERSION, "f1000_m2000");
                row.addInt(KuduSchemas.DSPID, d + 1);
                row.addInt(KuduSchemas.RGID, d % 2);
                row.addString(KuduSchemas.STATE, "LOADED");
                row.addLong(KuduSchemas.COUNT_EVENTS, perDataset);
                session.apply(up);
            }
            session.flush();
            if (session.countPendingErrors() > 0) {
                throw new IllegalStateException("Kudu refused " + session.countPendingErrors() + " rows, first: "
                        + session.getPendingErrors().getRowErrors()[0]);
            }
        } finally {
            session.close();
        }
    }
}
