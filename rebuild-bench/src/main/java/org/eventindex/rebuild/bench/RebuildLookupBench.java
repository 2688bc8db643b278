package org.eventindex.rebuild.bench;

import org.apache.hadoop.fs.Path;
import org.apache.kudu.client.KuduClient;
import org.apache.spark.api.java.JavaSparkContext;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.kudu.DatasetLoader;
import org.eventindex.kudu.DatasetSource;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.kudu.LoadRequest;
import org.eventindex.kudu.LoaderSettings;
import org.eventindex.lookup.EventKey;
import org.eventindex.lookup.EventLookup;
import org.eventindex.lookup.LookupFilter;
import org.eventindex.lookup.LookupResult;
import org.eventindex.names.DatasetName;
import org.eventindex.rebuild.DatasetSelection;
import org.eventindex.rebuild.RebuildJob;
import org.eventindex.rebuild.RebuildTarget;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.EmbeddedKudu;
import org.eventindex.testing.SparkStandalone;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code bin/bench-rebuild-lookups}: lookups' latency (p50, p99) while nothing else runs, and while {@code eventindex
 * rebuild} writes the same index into other tables on a Spark standalone cluster, unthrottled and with
 * {@code --max-tasks 1}; on one Kudu (one tablet server) and one HDFS started here. The lookups are the service's
 * ({@link EventLookup}, one event per call, closed loop on {@code --lookup-threads} threads) of random loaded events.
 */
@Command(name = "bench-rebuild-lookups", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Lookups' p50/p99 alone, during an unthrottled rebuild and during a rebuild with --max-tasks 1,"
                + " on the same Kudu in the same run.")
public final class RebuildLookupBench implements Callable<Integer> {
    private static final int BUCKETS = RebuildRuns.BUCKETS;

    @Option(names = "--events", paramLabel = "N", description = "events in all (default: 400000)")
    long events = 400_000;
    @Option(names = "--datasets", paramLabel = "N", description = "datasets, each of its own run (default: 8)")
    int datasets = 8;
    @Option(names = "--executors", paramLabel = "N", description = "executors of the rebuild (default: 2)")
    int executors = 2;
    @Option(names = "--lookup-threads", paramLabel = "N", description = "threads looking up (default: 2)")
    int lookupThreads = 2;
    @Option(names = "--baseline-seconds", paramLabel = "S", description = "lookups alone (default: 20)")
    int baselineSeconds = 20;
    @Option(names = "--work", paramLabel = "DIR", description = "working folder (default: a new temporary one)")
    java.nio.file.Path work;

    private final PrintStream out;

    private RebuildLookupBench(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the benchmark; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new RebuildLookupBench(out), args, out, err);
    }

    /** Latencies of one phase. */
    private record Phase(String name, long[] nanos, double seconds, double rowsPerSecond) {
        double percentileMillis(double p) {
            long[] sorted = nanos.clone();
            Arrays.sort(sorted);
            return sorted.length == 0 ? Double.NaN
                    : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)] / 1e6;
        }
    }

    @Override
    public Integer call() throws Exception {
        java.nio.file.Path dir = work != null ? Files.createDirectories(work)
                : Files.createTempDirectory("bench-rebuild-lookups-");
        long perDataset = events / datasets;
        out.printf("bench-rebuild-lookups: %d datasets of %,d events, %d buckets, 1 tablet server, %d executors,"
                + " %d lookup threads; work in %s%n", datasets, perDataset, BUCKETS, executors, lookupThreads, dir);
        try (SparkStandalone spark = SparkStandalone.launch(dir.resolve("spark"), executors, 1, "640m");
             EmbeddedHdfs hdfs = EmbeddedHdfs.start(dir.resolve("hdfs"));
             EmbeddedKudu kudu = EmbeddedKudu.start(dir.resolve("kudu"), 1)) {
            KuduClient client = kudu.client();
            KuduTablesConfig source = new KuduTablesConfig("src_", BUCKETS, 1);
            KuduTables tables = new KuduTables(client, source);
            tables.createOrVerify(1);
            DatasetLoader loader = new DatasetLoader(client, tables, LoaderSettings.defaults(), Clock.systemUTC());
            for (int i = 0; i < datasets; i++) {
                Path file = RebuildBench.write(hdfs, RebuildBench.name(i), 400_000 + i, perDataset, new Random(i));
                loader.load(new LoadRequest(DatasetName.parse(RebuildBench.name(i)), 100 + i, 1, "bench-" + i,
                        DatasetSource.hadoop(hdfs.fs(), file)));
            }
            spark.awaitWorkers(executors);
            List<Phase> phases = new ArrayList<>();
            try (EventLookup lookup = new EventLookup(client, source, 1, false, EventLookup.DEFAULT_DATASET_CACHE_TTL)) {
                lookups(lookup, perDataset, Duration.ofSeconds(5), null); // warm-up
                phases.add(lookups(lookup, perDataset, Duration.ofSeconds(baselineSeconds), null));
                phases.add(duringRebuild(spark, client, kudu.masterAddresses(), source, lookup, perDataset,
                        Integer.MAX_VALUE));
                phases.add(duringRebuild(spark, client, kudu.masterAddresses(), source, lookup, perDataset, 1));
            }
            out.println("| phase | lookups | p50 ms | p99 ms | p99 / alone | rebuild rows/s |");
            out.println("|---|---|---|---|---|---|");
            double alone = phases.get(0).percentileMillis(0.99);
            for (Phase p : phases) {
                double p99 = p.percentileMillis(0.99);
                out.printf("| %s | %,d | %.2f | %.2f | %.2fx | %s |%n", p.name(), p.nanos().length,
                        p.percentileMillis(0.5), p99, p99 / alone,
                        Double.isNaN(p.rowsPerSecond()) ? "-" : String.format("%,.0f", p.rowsPerSecond()));
            }
        }
        return 0;
    }

    private Phase duringRebuild(SparkStandalone spark, KuduClient client, String masters, KuduTablesConfig source,
                                EventLookup lookup, long perDataset, int maxTasks) throws Exception {
        String prefix = "t" + (maxTasks == Integer.MAX_VALUE ? "all" : Integer.toString(maxTasks)) + "_";
        try (JavaSparkContext sc = RebuildRuns.application(spark, "bench-rebuild-lookups", executors)) {
            AtomicBoolean done = new AtomicBoolean();
            long[] rows = new long[1];
            Exception[] failed = new Exception[1];
            Thread rebuild = new Thread(() -> {
                try {
                    rows[0] = new RebuildJob(sc, client, RebuildJob.Tasks.defaults().withMaxTasks(maxTasks)).run(source,
                            new RebuildTarget(masters, prefix, BUCKETS, 1, 1, null), DatasetSelection.all()).events();
                } catch (Exception e) {
                    failed[0] = e;
                } finally {
                    done.set(true);
                }
            }, "rebuild");
            long t0 = System.nanoTime();
            rebuild.start();
            Phase p = lookups(lookup, perDataset, null, done);
            rebuild.join();
            if (failed[0] != null) {
                throw failed[0];
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            String name = maxTasks == Integer.MAX_VALUE ? "during a rebuild (" + executors + " tasks at once)"
                    : "during a rebuild, --max-tasks " + maxTasks;
            return new Phase(name, p.nanos(), seconds, rows[0] / seconds);
        } finally {
            RebuildRuns.dropTables(client, prefix);
        }
    }

    /** Lookups on every thread until {@code length} passed or {@code done} is set. */
    private Phase lookups(EventLookup lookup, long perDataset, Duration length, AtomicBoolean done)
            throws InterruptedException {
        long t0 = System.nanoTime();
        long end = length == null ? Long.MAX_VALUE : t0 + length.toNanos();
        List<long[]> perThread = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        int[] counts = new int[lookupThreads];
        for (int t = 0; t < lookupThreads; t++) {
            long[] nanos = new long[2_000_000];
            perThread.add(nanos);
            int index = t;
            Thread thread = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                int n = 0;
                while (n < nanos.length && System.nanoTime() < end && (done == null || !done.get())) {
                    EventKey key = new EventKey(400_000 + random.nextInt(datasets), 1 + random.nextLong(perDataset));
                    long s = System.nanoTime();
                    LookupResult r = lookup.lookup(key, LookupFilter.all());
                    nanos[n++] = System.nanoTime() - s;
                    if (r.error() != null || r.matches().isEmpty()) {
                        throw new IllegalStateException("lookup of " + key + " failed: " + r);
                    }
                }
                counts[index] = n;
            }, "lookups-" + t);
            threads.add(thread);
            thread.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        long[] all = new long[Arrays.stream(counts).sum()];
        int at = 0;
        for (int t = 0; t < lookupThreads; t++) {
            System.arraycopy(perThread.get(t), 0, all, at, counts[t]);
            at += counts[t];
        }
        return new Phase("lookups alone", all, (System.nanoTime() - t0) / 1e9, Double.NaN);
    }
}
