package org.eventindex.rebuild.bench;

import org.apache.hadoop.fs.Path;
import org.apache.kudu.client.KuduClient;
import org.apache.spark.api.java.JavaSparkContext;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.consolidated.ConsolidatedFileWriter;
import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.kudu.DatasetLoader;
import org.eventindex.kudu.DatasetSource;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.kudu.LoadRequest;
import org.eventindex.kudu.LoaderSettings;
import org.eventindex.names.DatasetName;
import org.eventindex.names.PoolToken;
import org.eventindex.names.TriggerMask;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.rebuild.DatasetSelection;
import org.eventindex.rebuild.RebuildJob;
import org.eventindex.rebuild.RebuildTarget;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.EmbeddedKudu;
import org.eventindex.testing.KuduBinaries;
import org.eventindex.testing.SparkStandalone;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;

/**
 * {@code bin/bench-rebuild}: on one Kudu (one tablet server) and one HDFS started here, the same datasets loaded by the
 * consumer's loader (one after the other, its default sessions), rebuilt by {@code eventindex rebuild}'s job on a
 * Spark standalone cluster of four one-core workers with 1, 2 and 4 executors (executors started and warm before the
 * clock starts), each with the work split by run and by tablet ({@code --split}, decision 0076), and {@code kudu
 * perf loadgen} inserting as many rows into its own table; rows/s of each and their ratios to the loader and to each
 * other. Each dataset is its own run, so {@code --split run} has one task per dataset. Beside each rate, the CPU time
 * per row of the tablet server and of the writing side (the executors, or this JVM for the loader) and the tablet
 * server's busy share of the wall time: whether the writers wait on the tablet server or on their own CPU.
 */
@Command(name = "bench-rebuild", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Rows/s of the Spark rebuild for 1, 2 and 4 executors against the loader and kudu perf loadgen"
                + " on the same Kudu in the same run.")
public final class RebuildBench implements Callable<Integer> {
    private static final String CLID = "D82968A1-CF91-4320-B2DD-E0F739CBC7E6";
    private static final int BUCKETS = RebuildRuns.BUCKETS;
    private static final int[] L1_MENU = IntStream.range(0, 32).map(i -> i * 16).toArray();
    private static final int[] HLT_MENU = IntStream.range(0, 48).map(i -> i * 85).toArray();

    @Option(names = "--events", paramLabel = "N", description = "events in all (default: 200000)")
    long events = 200_000;
    @Option(names = "--datasets", paramLabel = "N", description = "datasets, each of its own run (default: 8)")
    int datasets = 8;
    @Option(names = "--work", paramLabel = "DIR", description = "working folder (default: a new temporary one)")
    java.nio.file.Path work;

    private final PrintStream out;

    private RebuildBench(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the benchmark; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new RebuildBench(out), args, out, err);
    }

    @Override
    public Integer call() throws Exception {
        java.nio.file.Path dir = work != null ? Files.createDirectories(work)
                : Files.createTempDirectory("bench-rebuild-");
        long perDataset = events / datasets;
        out.printf("bench-rebuild: %d datasets of %,d events, %d buckets, 1 tablet server; work in %s%n", datasets,
                perDataset, BUCKETS, dir);
        try (SparkStandalone spark = SparkStandalone.launch(dir.resolve("spark"), 4, 1, "640m");
             EmbeddedHdfs hdfs = EmbeddedHdfs.start(dir.resolve("hdfs"));
             EmbeddedKudu kudu = EmbeddedKudu.start(dir.resolve("kudu"), 1)) {
            KuduClient client = kudu.client();
            KuduTablesConfig source = new KuduTablesConfig("src_", BUCKETS, 1);
            KuduTables tables = new KuduTables(client, source);
            tables.createOrVerify(1);
            List<Path> files = new ArrayList<>();
            for (int i = 0; i < datasets; i++) {
                files.add(write(hdfs, name(i), 400_000 + i, perDataset, new Random(i)));
            }
            long total = perDataset * datasets;
            DatasetLoader loader = new DatasetLoader(client, tables, LoaderSettings.defaults(), Clock.systemUTC());
            Cpu cpu = Cpu.now(ProcessHandle.current());
            long t0 = System.nanoTime();
            for (int i = 0; i < datasets; i++) {
                loader.load(new LoadRequest(DatasetName.parse(name(i)), 100 + i, 1, "bench-" + i,
                        DatasetSource.hadoop(hdfs.fs(), files.get(i))));
            }
            double loaderSeconds = seconds(t0);
            double loaderRate = total / loaderSeconds;
            out.printf("loader (the consumer's, %d sessions, one dataset after the other): %,.0f rows/s; %s%n",
                    LoaderSettings.defaults().loadThreads(), loaderRate,
                    cpu.since(ProcessHandle.current(), total, loaderSeconds, "this JVM"));

            cpu = Cpu.now(null);
            t0 = System.nanoTime();
            double loadgenRate = loadgen(kudu, total);
            out.printf("kudu perf loadgen (1 thread, its own table and schema, %d buckets): %,.0f rows/s = %.2fx the"
                    + " loader; %s%n", BUCKETS, loadgenRate, loadgenRate / loaderRate,
                    cpu.since(null, total, seconds(t0), "loadgen"));

            spark.awaitWorkers(4);
            for (int executors : new int[] {1, 2, 4}) {
                double byRun = rebuild(spark, client, kudu.masterAddresses(), source, executors,
                        RebuildJob.Split.RUN, total);
                double byTablet = rebuild(spark, client, kudu.masterAddresses(), source, executors,
                        RebuildJob.Split.TABLET, total);
                out.printf("rebuild on Spark, %d executor(s) of 1 core: --split run %,.0f rows/s = %.2fx the loader,"
                        + " %.2fx loadgen; --split tablet %,.0f rows/s = %.2fx the loader, %.2fx loadgen, %.2fx"
                        + " --split run%n", executors, byRun, byRun / loaderRate, byRun / loadgenRate, byTablet,
                        byTablet / loaderRate, byTablet / loadgenRate, byTablet / byRun);
            }
        }
        return 0;
    }

    private double rebuild(SparkStandalone spark, KuduClient client, String masters, KuduTablesConfig source,
                           int executors, RebuildJob.Split split, long total) throws IOException {
        String prefix = "r" + executors + split.name().charAt(0) + "_";
        try (JavaSparkContext sc = RebuildRuns.application(spark, "bench-rebuild " + executors, executors)) {
            Cpu cpu = Cpu.now(null);
            long t0 = System.nanoTime();
            RebuildJob.Summary summary = new RebuildJob(sc, client, RebuildJob.Tasks.defaults().withSplit(split))
                    .run(source, new RebuildTarget(masters, prefix, BUCKETS, 1, 1, null), DatasetSelection.all());
            double seconds = seconds(t0);
            out.printf("  %d executor(s), --split %s: %s%n", executors, split.name().toLowerCase(Locale.ROOT),
                    cpu.since(null, total, seconds, "executors"));
            if (!summary.failures().isEmpty() || summary.events() != total) {
                throw new IllegalStateException("the rebuild with " + executors + " executors wrote "
                        + summary.events() + " events of " + total + ": " + summary.failures());
            }
            return total / seconds;
        } finally {
            RebuildRuns.dropTables(client, prefix);
        }
    }

    private static double loadgen(EmbeddedKudu kudu, long rows) throws IOException, InterruptedException {
        List<String> cmd = List.of(KuduBinaries.kudu().toString(), "perf", "loadgen", kudu.masterAddresses(),
                "--num_threads=1", "--num_rows_per_thread=" + rows, "--table_num_hash_partitions=" + BUCKETS,
                "--table_num_replicas=1", "--run_scan=false", "--keep_auto_table=false");
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("kudu perf loadgen failed: " + text);
        }
        return rows / seconds(t0);
    }

    static String name(int i) {
        return String.format("data17_13TeV.%08d.physics_Main.merge.AOD.f900_m2001", 400_000 + i);
    }

    /** A consolidated file of {@code count} events of one run, each with its own and a RAW reference and triggers. */
    static Path write(EmbeddedHdfs hdfs, String dataset, int run, long count, Random random)
            throws IOException {
        Path file = new Path("/bench/" + dataset + ".parquet");
        String guid = String.format("%08X-5555-4000-8000-%012X", run, run);
        String raw = String.format("%08X-6666-4000-8000-%012X", run, run);
        try (OutputStream os = hdfs.fs().create(file, true)) {
            ConsolidatedFileWriter w = new ConsolidatedFileWriter(os);
            for (long e = 1; e <= count; e++) {
                BitSet l1 = new BitSet();
                BitSet hlt = new BitSet();
                // a menu of a few dozen items, as a real run's: the trigger pairs stay a small table
                for (int b = 0; b < 6; b++) {
                    l1.set(L1_MENU[random.nextInt(L1_MENU.length)]);
                    hlt.set(HLT_MENU[random.nextInt(HLT_MENU.length)]);
                }
                w.write(EIEvent_p1.newBuilder().setRunNumber(run).setEventNumber(e).setLumiBlock((int) (e / 1000) + 1)
                        .setTimeStamp(1_500_000_000).setTimeStampNSOffset(0).setBcid(7).setIsSimulation(false)
                        .setIsCalibration(false).setIsTestBeam(false)
                        .setL1PassedTrigMask(TriggerMask.encodeL1(l1, l1, l1))
                        .setEFPassedTrigMask(TriggerMask.encodeHlt(hlt, new BitSet(), new BitSet()))
                        .addEitoken(EItoken_p1.newBuilder().setName("StreamAOD")
                                .setToken(new PoolToken(guid, "POOLContainer(DataHeader)", CLID, 0x202, 0x10L, e)
                                        .format()))
                        .addEitoken(EItoken_p1.newBuilder().setName("StreamRAW")
                                .setToken(new PoolToken(raw, "POOLContainer(DataHeader)", CLID, 0x202, 0x10L, e)
                                        .format()))
                        .build(), guid);
            }
            w.finish(new ConsolidatedMetadata(dataset, "bench",
                    new ConsolidatedMetadata.HeaderInfo(1, "bench", "bench", true, true), List.of("s3://bench/" + run),
                    List.of(), List.of(), w.events(), List.of((long) run), 0, 2, w.finishDigest()).toKeyValues());
        }
        return file;
    }

    /**
     * CPU time so far of the tablet server(s) (descendants of this JVM running {@code tserver}) and of the writing
     * side: {@code writer} when given, else the Spark executors (descendants running
     * {@code CoarseGrainedExecutorBackend}, the ones that end during the phase included: they are sampled once more at
     * its end while alive) or the loadgen process.
     */
    private record Cpu(Duration tserver, Duration writers) {
        static Cpu now(ProcessHandle writer) {
            return new Cpu(sum("tserver"), writer != null ? cpu(writer) : sum("CoarseGrainedExecutorBackend"));
        }

        /** What the phase cost per row, and the tablet server's busy share of its wall time. */
        String since(ProcessHandle writer, long rows, double seconds, String writerName) {
            Cpu end = now(writer);
            Duration tablet = end.tserver.minus(tserver);
            Duration written = end.writers.minus(writers);
            return String.format("tablet server %.1f us CPU/row (busy %.0f%% of the wall time), %s %s", micros(tablet)
                    / rows, 100 * micros(tablet) / 1e6 / seconds, writerName, written.isZero() && writer == null
                    && writerName.equals("loadgen") ? "(its own process, not sampled)"
                    : String.format("%.1f us CPU/row", micros(written) / rows));
        }

        private static double micros(Duration d) {
            return d.toNanos() / 1e3;
        }

        private static Duration sum(String command) {
            return ProcessHandle.current().descendants()
                    .filter(p -> commandLine(p).contains(command))
                    .map(Cpu::cpu).reduce(Duration.ZERO, Duration::plus);
        }

        /**
         * The whole command line: the JDK's {@code ProcessHandle.Info.commandLine()} gives only the executable when
         * the command line is longer than a page (an executor's class path is), which hid every executor.
         */
        private static String commandLine(ProcessHandle p) {
            try {
                return new String(Files.readAllBytes(java.nio.file.Path.of("/proc", Long.toString(p.pid()),
                        "cmdline")), StandardCharsets.ISO_8859_1);
            } catch (IOException | UncheckedIOException e) {
                return p.info().commandLine().orElse(""); // not Linux, or the process ended
            }
        }

        private static Duration cpu(ProcessHandle p) {
            return p.info().totalCpuDuration().orElse(Duration.ZERO);
        }
    }

    private static double seconds(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }
}
