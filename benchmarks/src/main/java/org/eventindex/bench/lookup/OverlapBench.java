package org.eventindex.bench.lookup;

import org.apache.kudu.client.Insert;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanToken;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.SessionConfiguration;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.lookup.DatasetOverlaps;
import org.eventindex.lookup.DatasetQueries;
import org.eventindex.testing.EmbeddedKudu;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code bin/bench-overlap}: the exact overlap of two datasets ({@code lookup overlap}, decision 0063) against the
 * raw Kudu scan of the same rows in the same run. Starts a real Kudu (1 tablet server, 64 hash buckets), writes two
 * datasets of one run in two epochs, a known share of their event numbers in common, waits until the tablet server
 * is quiet, then times, alternating, (a) a plain projected scan of both datasets' (eventnumber, runnumber), unordered,
 * the tablets on the same number of threads, rows counted only: the floor of any exact answer that reads the rows;
 * (b) {@link DatasetQueries#overlap}: ordered scans merged per hash bucket. Prints seconds, rows/s and the ratio.
 */
public final class OverlapBench {
    private static final KuduTablesConfig CONFIG = new KuduTablesConfig("ovl_", 64, 1);
    private static final int RUN = 358031;

    @Command(name = "bin/bench-overlap", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            sortOptions = false, description = "Dataset overlap benchmark (not a test); results go in docs/lookup.md.")
    static final class Options implements Callable<Integer> {
        @Option(names = "--events", paramLabel = "N", description = "events per dataset (default 2000000)")
        long events = 2_000_000;
        @Option(names = "--shared", paramLabel = "F", description = "fraction of each dataset's events in the other"
                + " (default 0.1)")
        double shared = 0.1;
        @Option(names = "--threads", paramLabel = "N", description = "parallel bucket scans (default 4)")
        int threads = 4;
        @Option(names = "--runs", paramLabel = "N", description = "timed runs of each path, alternating (default 3)")
        int runs = 3;
        @Option(names = "--work", paramLabel = "DIR", description = "working folder (default: a temporary one)")
        Path work;

        @Override
        public Integer call() throws Exception {
            bench(this);
            return 0;
        }
    }

    private OverlapBench() {
    }

    public static void main(String[] args) {
        System.exit(CommandLines.execute(new Options(), args, System.out, System.err));
    }

    private static void bench(Options o) throws Exception {
        Path dir = o.work != null ? Files.createDirectories(o.work) : Files.createTempDirectory("bench-overlap");
        try (EmbeddedKudu kudu = EmbeddedKudu.start(dir.resolve("kudu"), 1)) {
            KuduClient client = kudu.client();
            KuduTables tables = new KuduTables(client, CONFIG);
            tables.createOrVerify(0);
            tables.ensureEpoch(1);
            long t0 = System.nanoTime();
            // dataset 1: events 0..n-1 (times 3); dataset 2 starts where the share of dataset 1 begins
            long n = o.events;
            long offset = n - Math.round(n * o.shared);
            load(client, 1, "f1000_m2000", 0, n);
            load(client, 2, "f1001_m2001", offset, n);
            double load = (System.nanoTime() - t0) / 1e9;
            System.out.printf(Locale.ROOT, "loaded 2 x %,d events (%,d shared) in %.1f s%n", n, n - offset, load);
            LookupBench.settle(kudu);
            List<String> names = List.of(name("f1000_m2000"), name("f1001_m2001"));
            try (DatasetQueries q = DatasetQueries.of(client, CONFIG, o.threads)) {
                KuduTable events = client.openTable(CONFIG.eventsTable());
                ExecutorService pool = Executors.newFixedThreadPool(o.threads);
                try {
                    rawScan(client, events, pool); // warm-up
                    q.overlap(names, null, 10);
                    System.out.println("| run | path | seconds | rows/s | ratio to raw |");
                    System.out.println("|---:|---|---:|---:|---:|");
                    for (int r = 1; r <= o.runs; r++) {
                        long a = System.nanoTime();
                        long rows = rawScan(client, events, pool);
                        double raw = (System.nanoTime() - a) / 1e9;
                        long b = System.nanoTime();
                        DatasetOverlaps.Overlap ov = q.overlap(names, null, 1000);
                        double exact = (System.nanoTime() - b) / 1e9;
                        if (rows != 2 * n || ov.sharedEvents() != n - offset) {
                            throw new IllegalStateException("raw scan read " + rows + " rows, the overlap found "
                                    + ov.sharedEvents() + " shared; expected " + 2 * n + " and " + (n - offset));
                        }
                        System.out.printf(Locale.ROOT, "| %d | raw projected scan (eventnumber, runnumber) | %.2f |"
                                + " %,.0f | 1.00 |%n", r, raw, rows / raw);
                        System.out.printf(Locale.ROOT, "| %d | overlap (ordered scans merged per bucket) | %.2f |"
                                + " %,.0f | %.2f |%n", r, exact, rows / exact, raw / exact);
                    }
                    System.out.printf(Locale.ROOT, "%d threads; shared events found: %,d (exact)%n", o.threads,
                            n - offset);
                } finally {
                    pool.shutdownNow();
                }
            }
        }
    }

    private static String name(String version) {
        return "data18_13TeV.00" + RUN + ".physics_Main.merge.AOD." + version;
    }

    /** Both datasets' rows, projected as the overlap reads them, one scan per tablet on the pool; rows counted. */
    private static long rawScan(KuduClient client, KuduTable events, ExecutorService pool) throws Exception {
        List<Future<Long>> parts = new ArrayList<>();
        for (int dspid = 1; dspid <= 2; dspid++) {
            List<KuduScanToken> tokens = client.newScanTokenBuilder(events)
                    .setProjectedColumnNames(List.of(KuduSchemas.EVENTNUMBER, KuduSchemas.RUNNUMBER))
                    .addPredicate(KuduPredicate.newComparisonPredicate(events.getSchema()
                            .getColumn(KuduSchemas.DSPID), KuduPredicate.ComparisonOp.EQUAL, dspid))
                    .addPredicate(KuduPredicate.newComparisonPredicate(events.getSchema()
                            .getColumn(KuduSchemas.RGID), KuduPredicate.ComparisonOp.EQUAL, dspid - 1))
                    .build();
            for (KuduScanToken t : tokens) {
                parts.add(pool.submit(() -> {
                    KuduScanner s = t.intoScanner(client);
                    long rows = 0;
                    try {
                        while (s.hasMoreRows()) {
                            rows += s.nextRows().getNumRows();
                        }
                    } finally {
                        s.close();
                    }
                    return rows;
                }));
            }
        }
        long rows = 0;
        for (Future<Long> f : parts) {
            rows += f.get();
        }
        return rows;
    }

    private static void load(KuduClient client, int dspid, String version, long first, long count)
            throws Exception {
        KuduTable ds = client.openTable(CONFIG.datasetsTable());
        KuduTable events = client.openTable(CONFIG.eventsTable());
        KuduSession session = client.newSession();
        session.setFlushMode(SessionConfiguration.FlushMode.AUTO_FLUSH_BACKGROUND);
        session.setMutationBufferSpace(10_000);
        try {
            String guid = String.format("%08X-0000-4000-8000-%012X", dspid, dspid);
            for (long i = first; i < first + count; i++) {
                Insert ins = events.newInsert();
                PartialRow row = ins.getRow();
                row.addInt(KuduSchemas.DSPID, dspid);
                row.addLong(KuduSchemas.EVENTNUMBER, 3 * i + 1);
                row.addInt(KuduSchemas.RGID, dspid - 1);
                row.addInt(KuduSchemas.RUNNUMBER, RUN);
                row.addString(KuduSchemas.DB, guid);
                session.apply(ins);
            }
            session.apply(LookupBench.loadedDataset(ds, RUN, version, dspid, dspid - 1, count));
            LookupBench.flush(session);
        } finally {
            session.close();
        }
    }
}
