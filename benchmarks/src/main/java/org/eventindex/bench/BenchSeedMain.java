package org.eventindex.bench;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.deploy.BrokerLogins;
import org.eventindex.deploy.EmbeddedStack;
import org.eventindex.deploy.PipelineRun;
import org.eventindex.deploy.ProducerLauncher;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.gen.EventSize;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.supervisor.CollectionState;
import org.eventindex.supervisor.DatasetView;
import org.eventindex.testing.EmbeddedKudu;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * {@code bin/bench-seed}: seed 000's Table 2 dataset end to end on the embedded stack, then the old messaging path
 * on the same dataset (or a stated fraction of it) as the baseline. Prints one table: each stage's figure beside the
 * seed's. Not a test; results and the command go in docs/performance.md (quiet machine) or
 * docs/performance-log.md.
 */
@Command(name = "bin/bench-seed", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false, description = {"Seed 000's Table 2 dataset (1,160 files, 21,103,653 events, 1,447 objects"
                + " of which 287 retried jobs' duplicates) through producers, the supervisor, HDFS and Kudu of the"
                + " embedded stack and one consumer process, then through the old messaging path (10 kB JSON"
                + " messages, one HDFS file per input file, a cleaning pass) as the baseline. Prints each stage"
                + " beside the seed's figure."},
        footer = {"", "The consumer runs as shipped: the distribution's tarball (distribution/target/eventindex-*.tar.gz"
                + " of the last build, or -Dei.distribution.tarball=FILE) unpacked into <work>/dist and its launcher"
                + " run, bin/eventindex consumer run --config FILE (lib/, jvm/consumer.options, conf/logback.xml;"
                + " log <work>/consumer-1.log); the broker, S3, HDFS and the supervisor run in this JVM, Kudu as"
                + " processes. Measured by polling every 100 ms (HDFS file appearing, spool folder size, this JVM's"
                + " memory) and every 250 ms for the consumer process (its /metrics, /proc/PID/status VmHWM,"
                + " /proc/PID/stat CPU) and the tablet server's CPU. See docs/performance.md."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:both paths took the dataset and every count is right", "1:a count is wrong or a stage"
                + " failed", "2:bad options"})
public final class BenchSeedMain implements Callable<Integer> {
    /** Seed 000 Table 2. */
    static final String DATASET = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
    static final int SEED_FILES = 1_160;
    static final long SEED_EVENTS = 21_103_653L;
    static final int SEED_DUPLICATES = 287;
    static final int SEED_OBJECTS = 1_447;

    private final PrintStream out;
    private final PrintStream err;
    @Spec
    private CommandSpec spec;
    @Option(names = "--scale", paramLabel = "F", description = "fraction of the seed's events, files and duplicated"
            + " objects, kept in proportion (default 1: the whole dataset; 0.01 takes about a minute)")
    private double scale = 1.0;
    @Option(names = "--baseline-scale", paramLabel = "F", description = "fraction of the dataset's job attempts sent"
            + " through the old messaging path (default 1: all; 0: no baseline). Its figures are rates and per-event"
            + " sizes, so a fraction compares with the whole")
    private double baselineScale = 1.0;
    @Option(names = "--parallel", paramLabel = "N", description = "producer processes (and baseline senders) at"
            + " once (default 4)")
    private int parallel = 4;
    @Option(names = "--work", paramLabel = "DIR", description = "working folder, wiped first (default"
            + " work/bench-seed)")
    private java.nio.file.Path work = Paths.get("work", "bench-seed");
    @Option(names = "--generated", paramLabel = "DIR", description = "keep the generated SPB files in DIR between"
            + " runs (not wiped): a run whose dataset (the same --scale and generator) is there already reuses it,"
            + " otherwise generates it there first. Default: generated inside --work each run")
    private java.nio.file.Path generated;
    @Option(names = "--generate-only", description = "generate the dataset into --generated and stop (no stack"
            + " started): so that a later measured run on a quiet machine spends no time generating")
    private boolean generateOnly;
    @Option(names = "--timeout-minutes", paramLabel = "N", description = "give up a stage after N minutes"
            + " (default 180)")
    private int timeoutMinutes = 180;
    @Option(names = "--consumer-heap", paramLabel = "SIZE", description = "the consumer process's heap, e.g. 1g:"
            + " -Xms and -Xmx in EVENTINDEX_JAVA_OPTS, after the launcher's files (default: the tarball's"
            + " jvm/consumer.options; its other options are kept either way)")
    private String consumerHeap;
    @Option(names = "--consumer-java-option", paramLabel = "OPT", description = "a JVM option of the consumer"
            + " process, after its options files and --consumer-heap (repeatable; one word each), e.g."
            + " -XX:MaxGCPauseMillis=500 to measure a G1 setting before it goes to jvm/consumer.options")
    private List<String> consumerJavaOptions = new ArrayList<>();
    @Option(names = "--consumer-set", paramLabel = "KEY=VALUE", description = "a key of the consumer's configuration"
            + " file, added or replacing the stack's (repeatable), e.g. consumer.kudu.load.overlap=false for the"
            + " load after the merge")
    private Map<String, String> consumerSet = new java.util.LinkedHashMap<>();
    @Option(names = "--tserver-flag", paramLabel = "FLAG", description = "a flag of the Kudu tablet server, after the"
            + " test fixture's (repeatable; given once, it replaces the default), e.g. --tserver-flag"
            + " --log_segment_size_mb=1 --tserver-flag --metrics_log_interval_ms=1000 for the tablet server of runs"
            + " before decision 0085 (default: " + SITE_TSERVER_FLAG + ", Kudu's own WAL segment size, as a site runs"
            + " it)")
    private List<String> tserverFlags = new ArrayList<>(List.of(SITE_TSERVER_FLAG));

    /**
     * The tablet server's WAL segments at Kudu's default size instead of the fixture's 1 MB (for small test disks):
     * with the metrics log that the fixture no longer writes every second, the tablet server's CPU was 3-12% lower at a
     * tenth of the seed (decision 0085; the two flags' shares not separated).
     */
    static final String SITE_TSERVER_FLAG = "--log_segment_size_mb=8";

    private BenchSeedMain(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err));
    }

    static int execute(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new BenchSeedMain(out, err), args, out, err);
    }

    /**
     * The stack, its Kudu tablet server with {@link #tserverFlags} after the fixture's flags (the last of a flag wins),
     * through the fixture's system property, which is restored once the stack has started (this runs inside other
     * tests' JVMs too).
     */
    private EmbeddedStack startStack(EmbeddedStack.Options options, Progress bar) throws IOException {
        String before = System.getProperty(EmbeddedKudu.TSERVER_FLAGS_PROPERTY);
        System.setProperty(EmbeddedKudu.TSERVER_FLAGS_PROPERTY, String.join(",", tserverFlags));
        try {
            return EmbeddedStack.startWithoutConsumers(options, s -> bar.log("stack: " + s));
        } finally {
            if (before == null) {
                System.clearProperty(EmbeddedKudu.TSERVER_FLAGS_PROPERTY);
            } else {
                System.setProperty(EmbeddedKudu.TSERVER_FLAGS_PROPERTY, before);
            }
        }
    }

    /** The dataset at {@code scale}: files, events per file and duplicated jobs in the seed's proportions. */
    static GeneratorSpec seedSpec(double scale) {
        int files = Math.max(2, (int) Math.round(SEED_FILES * scale));
        int eventsPerFile = (int) Math.max(1, Math.round((double) SEED_EVENTS / SEED_FILES));
        int duplicated = Math.min(files, (int) Math.round(SEED_DUPLICATES * scale));
        // One file per job (Table 2: "every producer indexes one input file"), no crashed jobs (the seed counts
        // only reported objects), a few events copied across files as real datasets have.
        // HEAVY: the seed's single dataset is 3.3 GB for 26.3M indexed events (125 bytes per event), not its mean.
        return new GeneratorSpec(DATASET, files, eventsPerFile, 1, duplicated, 0, Math.min(eventsPerFile, 10), false,
                2017L, EventSize.HEAVY);
    }

    @Override
    public Integer call() throws Exception {
        if (!(scale > 0 && scale <= 1)) {
            throw new ParameterException(spec.commandLine(), "--scale must be in (0, 1], got " + scale);
        }
        if (!(baselineScale >= 0 && baselineScale <= 1)) {
            throw new ParameterException(spec.commandLine(), "--baseline-scale must be in [0, 1], got "
                    + baselineScale);
        }
        if (parallel < 1 || timeoutMinutes < 1) {
            throw new ParameterException(spec.commandLine(), "--parallel and --timeout-minutes must be >= 1, got "
                    + parallel + " and " + timeoutMinutes);
        }
        if (consumerHeap != null && !consumerHeap.matches("\\d+[kKmMgG]?")) {
            throw new ParameterException(spec.commandLine(), "--consumer-heap must be a JVM heap size such as 1g or"
                    + " 768m, got '" + consumerHeap + "'");
        }
        for (String flag : tserverFlags) {
            String problem = EmbeddedKudu.checkFlag(flag);
            if (problem != null) {
                throw new ParameterException(spec.commandLine(), "--tserver-flag: " + problem);
            }
        }
        if (generateOnly) {
            if (generated == null) {
                throw new ParameterException(spec.commandLine(), "--generate-only needs --generated DIR (where the"
                        + " files are kept for the measured run)");
            }
            Progress bar = new Progress(err);
            GeneratedDataset ds = dataset(seedSpec(scale), bar);
            bar.done();
            out.println("generated " + ds.datasetName() + " in "
                    + new GeneratedCache(generated).folder(seedSpec(scale)));
            return 0;
        }
        java.nio.file.Path tarball;
        try {
            tarball = ConsumerProcess.tarball();
        } catch (IOException e) {
            err.println("bench-seed: " + e.getMessage());
            return 1;
        }
        return run(tarball);
    }

    /** The dataset's files, from {@code --generated} when it holds them, generated (there or in the work folder). */
    private GeneratedDataset dataset(GeneratorSpec gspec, Progress bar) throws IOException {
        GeneratedCache cache = new GeneratedCache(generated != null ? generated : work.resolve("generated"));
        long t0 = System.nanoTime();
        GeneratedDataset ds = cache.get(gspec, (done, total, events, bytes) -> bar.update("job attempts", done, total),
                reused -> bar.stage(reused ? "reusing the generated dataset in " + generated
                        : "generating " + gspec.files() + " files x " + gspec.eventsPerFile() + " events"));
        bar.log(String.format(Locale.ROOT, "%s: %d files, %d job attempts, %d events, %.1f bytes/event (%.1f s)",
                ds.datasetName(), ds.manifest().size(), ds.jobs().size(), ds.expectedEvents(), ds.bytesPerEvent(),
                (System.nanoTime() - t0) / 1e9));
        return ds;
    }

    private int run(java.nio.file.Path tarball) throws Exception {
        java.nio.file.Path producerJar = Paths.get(System.getProperty("ei.producer.jar",
                "producer/target/eventindex-producer.jar"));
        if (!Files.isRegularFile(producerJar)) {
            err.println("bench-seed: producer jar not found at " + producerJar + " (build: mvn -DskipTests package)");
            return 1;
        }
        ConsumerBenchMain.deleteTree(work);
        Files.createDirectories(work);
        Duration timeout = Duration.ofMinutes(timeoutMinutes);
        Progress bar = new Progress(err);
        GeneratorSpec gspec = seedSpec(scale);
        GeneratedDataset ds = dataset(gspec, bar);
        EmbeddedStack.Options stackOptions = new EmbeddedStack.Options(work.resolve("stack"), 1, "eventindex", "",
                64, 1);
        try (EmbeddedStack stack = startStack(stackOptions, bar);
             ConsumerProcess consumer = ConsumerProcess.start(stack, ConsumerProcess.unpack(tarball,
                     work.resolve("dist")), work, consumerHeap, consumerJavaOptions, consumerSet,
                     Duration.ofMinutes(3), s -> bar.log("stack: " + s))) {
            PipelineRun pipeline = new PipelineRun(stack, producerJar, bar::log);
            List<GeneratedJob> reported = ds.jobs(GeneratedJob.Outcome.REPORTED);
            long objectBytes = 0;
            for (GeneratedJob j : reported) {
                objectBytes += Files.size(j.spbFile());
            }
            pipeline.registerManifests(List.of(ds));

            Sampler sampler = new Sampler(stack, work.resolve("stack"), consumer);
            sampler.start();
            try {
                // Producers: one process per job attempt, several at once.
                ProducerLauncher launcher = new ProducerLauncher(producerJar, stack.producerEndpoints(), parallel);
                List<java.nio.file.Path> files = reported.stream().map(GeneratedJob::spbFile).toList();
                AtomicLong done = new AtomicLong();
                long p0 = System.nanoTime();
                bar.stage("producers");
                List<ProducerLauncher.Run> runs = launcher.runAll(files,
                        r -> bar.update("producers", done.incrementAndGet(), files.size()));
                long uploadNanos = System.nanoTime() - p0;
                List<String> failed = runs.stream().filter(r -> r.exitCode() != 0)
                        .map(r -> r.spbFile().getFileName() + ": " + r.output().strip()).toList();
                if (!failed.isEmpty()) {
                    err.println("bench-seed: " + failed.size() + " producer(s) failed: " + failed);
                    return 1;
                }
                bar.stage("supervisor, consolidation, Kudu load");
                DatasetView view = awaitDone(stack, consumer, ds, timeout, bar);
                sampler.sampleConsumer();
                Figures f = figures(stack, ds, view, sampler, runs.size(), objectBytes, uploadNanos);
                MessagingBaseline.Result baseline = null;
                if (baselineScale > 0) {
                    List<GeneratedJob> sent = fraction(reported, baselineScale);
                    long events = sent.stream().mapToLong(j -> j.guids().size()).sum() * gspec.eventsPerFile();
                    bar.stage("messaging baseline: " + sent.size() + " job attempts");
                    baseline = new MessagingBaseline(stack.brokerLogins().settings(
                            stack.broker().stompEndpoints(), BrokerLogins.ADMIN), stack.hdfs().fs(),
                            new Path("/eventindex/messaging", DATASET), parallel)
                            .run(sent, timeout, n -> bar.update("baseline events", n, events));
                }
                bar.done();
                print(f, baseline, ds, consumer);
                List<String> problems = problems(f, ds, baseline);
                problems.forEach(p -> out.println("PROBLEM: " + p));
                return problems.isEmpty() ? 0 : 1;
            } finally {
                sampler.stop();
            }
        }
    }

    /** Every {@code 1/fraction}-th attempt, so that the duplicated attempts keep their share. */
    static List<GeneratedJob> fraction(List<GeneratedJob> all, double fraction) {
        List<GeneratedJob> out = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            if (Math.floor((i + 1) * fraction) > Math.floor(i * fraction)) {
                out.add(all.get(i));
            }
        }
        return out.isEmpty() ? List.of(all.get(0)) : out;
    }

    private static DatasetView awaitDone(EmbeddedStack stack, ConsumerProcess consumer, GeneratedDataset ds,
                                         Duration timeout, Progress bar) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (true) {
            DatasetView v = stack.supervisor().dataset(ds.datasetName()).orElse(null);
            if (v != null && v.state() == CollectionState.DONE) {
                return v;
            }
            consumer.checkAlive();
            if (v != null && v.consumer() != null && "FAILED".equals(v.consumer().status())) {
                throw new IllegalStateException("the consumer failed the dataset: " + v.consumer().reason());
            }
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException(ds.datasetName() + " not DONE within " + timeout + " (state "
                        + (v == null ? "unknown" : v.state()) + ")");
            }
            bar.update("waiting for DONE (" + (v == null ? "unknown" : v.state()) + ")", 0, 0);
            Thread.sleep(100);
        }
    }

    /** What the object-store path measured. */
    record Figures(int objects, long objectBytes, long uploadMillis, long supervisorMillis, long consolidationMillis,
                   long eventsWritten, long bytesRead, long kuduMillis, long eventsLoaded, long totalMillis,
                   long kuduEvents, long peakHeap, long peakRss, long spoolPeak, long hdfsBytes,
                   ConsumerFigures consumer, long signalToDoneMillis, long tserverCpuMillis) {
    }

    /**
     * What the consumer process used: peaks over the run (-1 when never sampled) and its GC and CPU time over the
     * consolidation and over the Kudu load.
     */
    record ConsumerFigures(long peakHeap, long maxHeap, long peakRss, long runMemoryPeak, long runMemoryLimit,
                           Usage consolidation, Usage load) {
    }

    /** GC collections, time in them and CPU time of the consumer process between two samples; -1 when unknown. */
    record Usage(long gcCount, double gcSeconds, long cpuNanos) {
        static final Usage UNKNOWN = new Usage(-1, -1, -1);

        static Usage between(ConsumerProcess.Sample a, ConsumerProcess.Sample b) {
            if (a == null || b == null || a.gcCount() < 0 || b.gcCount() < 0 || a.cpuNanos() < 0 || b.cpuNanos() < 0) {
                return UNKNOWN;
            }
            return new Usage(b.gcCount() - a.gcCount(), b.gcSeconds() - a.gcSeconds(), b.cpuNanos() - a.cpuNanos());
        }
    }

    private static Figures figures(EmbeddedStack stack, GeneratedDataset ds, DatasetView view, Sampler sampler,
                                   int objects, long objectBytes, long uploadNanos) throws IOException {
        DatasetView.Timeline t = view.times();
        Instant hdfsAt = sampler.hdfsFileAt();
        if (hdfsAt == null) {
            hdfsAt = t.doneAt();
        }
        var queries = stack.kuduQueries();
        var row = queries.dataset(ds.datasetName());
        long kuduEvents = row.isPresent() ? queries.countEvents(row.get().dspid(), row.get().rgid()).events() : -1;
        DatasetView.ConsumerOutcome c = view.consumer();
        long hdfsBytes = stack.hdfs().fs().getFileStatus(new Path(c.hdfsPath())).getLen();
        return new Figures(objects, objectBytes, uploadNanos / 1_000_000,
                millis(t.lastObjectAt(), t.signalSentAt()), millis(t.signalSentAt(), hdfsAt), c.eventsWritten(),
                c.bytesRead(), millis(hdfsAt, t.doneAt()), c.eventsLoaded(), millis(t.lastObjectAt(), t.doneAt()),
                kuduEvents, sampler.peakHeap(), Math.max(sampler.peakRss(), Sampler.rssHighWater()),
                sampler.spoolPeak(), hdfsBytes, sampler.consumerFigures(t.signalSentAt(), hdfsAt, t.doneAt()),
                millis(t.signalSentAt(), t.doneAt()), sampler.tserverCpuMillis(t.signalSentAt(), t.doneAt()));
    }

    private static long millis(Instant from, Instant to) {
        return from == null || to == null ? -1 : Math.max(0, Duration.between(from, to).toMillis());
    }

    private static List<String> problems(Figures f, GeneratedDataset ds, MessagingBaseline.Result b) {
        List<String> p = new ArrayList<>();
        if (f.kuduEvents() != ds.expectedUniqueEvents()) {
            p.add("Kudu holds " + f.kuduEvents() + " events, expected " + ds.expectedUniqueEvents());
        }
        if (f.eventsWritten() != ds.expectedEvents()) {
            // the HDFS file keeps the events copied across files; Kudu's key removes them
            p.add("HDFS file holds " + f.eventsWritten() + " events, expected " + ds.expectedEvents());
        }
        if (b != null && b.hdfsFilesWritten() - b.filesCleaned() != b.inputFiles()) {
            p.add("messaging baseline kept " + (b.hdfsFilesWritten() - b.filesCleaned()) + " HDFS files for "
                    + b.inputFiles() + " input files");
        }
        return p;
    }

    private void print(Figures f, MessagingBaseline.Result b, GeneratedDataset ds, ConsumerProcess consumer) {
        out.printf(Locale.ROOT, "bench-seed: %s at scale %s: %d files, %d events (%d unique), %d objects of which"
                        + " %d duplicates%n", DATASET, scale, ds.manifest().size(), ds.expectedEvents(),
                ds.expectedUniqueEvents(), f.objects(), f.objects() - ds.manifest().size());
        String fmt = "%-36s %-62s %s%n";
        out.printf(Locale.ROOT, fmt, "stage", "measured", "seed 000 (Table 2) / issue 22");
        double upS = f.uploadMillis() / 1e3;
        row(fmt, "producer upload", String.format(Locale.ROOT, "%.1f objects/s, %.2f MB/s (%d objects, %s)",
                f.objects() / upS, f.objectBytes() / 1e6 / upS, f.objects(), mb(f.objectBytes())),
                "1,447 objects, 3.3 GB over 55.5 h of grid jobs");
        row(fmt, "supervisor: last message -> signal", sec(f.supervisorMillis()), "not measured in the seed");
        double cS = f.consolidationMillis() / 1e3;
        row(fmt, "consolidation", String.format(Locale.ROOT, "%s, %.0f events/s", sec(f.consolidationMillis()),
                f.eventsWritten() / cS), "34 min, 10,344 events/s (target 300,000)");
        row(fmt, "consolidation bytes read/stored", String.format(Locale.ROOT, "%s of %s (%.0f%%)", mb(f.bytesRead()),
                mb(f.objectBytes()), 100.0 * f.bytesRead() / f.objectBytes()), "2.5 GB of 3.3 GB (76%)");
        row(fmt, "Kudu load", String.format(Locale.ROOT, "%s, %.0f rows/s", sec(f.kuduMillis()),
                f.eventsLoaded() / (f.kuduMillis() / 1e3)), "none in the seed; 463.8 s, 45,501 rows/s (issue 22)");
        row(fmt, "last producer message -> queryable", sec(f.totalMillis()), "34 min to HDFS; target 5 min");
        row(fmt, "signal -> queryable", sec(f.signalToDoneMillis()) + " (consolidation and load, overlapping or"
                + " not)", "none in the seed");
        int cores = Runtime.getRuntime().availableProcessors();
        row(fmt, "tablet server CPU (the load's floor)", f.tserverCpuMillis() < 0 ? "n/a" : String.format(
                Locale.ROOT, "%.1f s CPU, %.2f us/row: %.1f s of all %d cores, signal -> queryable",
                f.tserverCpuMillis() / 1e3, f.tserverCpuMillis() * 1e3 / Math.max(1, f.eventsLoaded()),
                f.tserverCpuMillis() / 1e3 / cores, cores), "the tablet server alone; docs: ~200-226 s for the"
                + " seed's rows on 2 cores");
        ConsumerFigures c = f.consumer();
        row(fmt, "consumer process -Xmx", "-Xmx" + consumer.jvm().xmx() + " from " + consumer.jvm().source(),
                "the distribution's default, or --consumer-heap");
        row(fmt, "consumer peak heap in use / max", mb(c.peakHeap()) + " / " + mb(c.maxHeap()),
                "not in the seed; target: consumer heap <= 1 GiB");
        ConsumerProcess.GcFigures g = consumer.gcFigures();
        row(fmt, "consumer heap after GC / full GCs", mb(g.peakAfter()) + " / " + g.fullGcs() + " of "
                + g.pauses() + " pauses", "what survived collections (GC log): the heap it needs");
        row(fmt, "consumer peak RSS (VmHWM)", mb(c.peakRss()), "not in the seed");
        row(fmt, "consumer GC: consolidation / load", gc(c.consolidation()) + " / " + gc(c.load()),
                "not in the seed");
        row(fmt, "consumer CPU: consolidation / load", cpu(c.consolidation(), f.eventsWritten()) + " / "
                + cpu(c.load(), f.eventsLoaded()), "not in the seed");
        row(fmt, "consumer run memory peak / limit", mb(c.runMemoryPeak()) + " / " + mb(c.runMemoryLimit()),
                "not in the seed (sorted runs held in the consumer's heap)");
        row(fmt, "stack JVM peak heap / peak RSS", mb(f.peakHeap()) + " / " + mb(f.peakRss()),
                "broker, S3, HDFS, supervisor (not the consumer)");
        row(fmt, "spool disk peak", mb(f.spoolPeak()), "not in the seed");
        row(fmt, "HDFS file", mb(f.hdfsBytes()) + String.format(Locale.ROOT, " (%.1f B/event)",
                (double) f.hdfsBytes() / f.eventsWritten()), "1 HDFS file, 9 GB (426 B/event)");
        out.println("consumer log: " + consumer.log().toAbsolutePath());
        out.println("consumer GC log: " + consumer.gcLog().toAbsolutePath());
        out.println("consumer configuration: the stack's" + (consumerSet.isEmpty() ? "" : ", with " + consumerSet)
                + " (" + consumer.log().resolveSibling(ConsumerProcess.NAME + ".properties").toAbsolutePath() + ")");
        out.println("tablet server: the test fixture's flags, then " + String.join(" ", tserverFlags));
        if (b == null) {
            out.println("messaging baseline: not run (--baseline-scale 0)");
            return;
        }
        double mS = b.totalMillis() / 1e3;
        row(fmt, "messaging: sent", String.format(Locale.ROOT, "%d messages, %s JSON (%.0f B/event), %d attempts",
                b.messages(), mb(b.jsonBytes()), (double) b.jsonBytes() / b.eventsReceived(), b.attempts()),
                "1,515,131 messages, 15 GB (570 B/event)");
        row(fmt, "messaging: received + cleaned", String.format(Locale.ROOT,
                "%s + %s clean, %.0f events/s, %d HDFS files (%d cleaned)", sec(b.receiveMillis()),
                sec(b.cleanMillis()), b.eventsKept() / mS, b.hdfsFilesWritten(), b.filesCleaned()),
                "244 min, 1,793 events/s, 1,447 HDFS files / 11.2 GB");
        double objectRate = f.eventsWritten() / cS;
        double messagingRate = b.eventsKept() / mS;
        double objectPerEvent = (double) f.objectBytes() / ds.expectedEvents();
        double jsonPerEvent = (double) b.jsonBytes() / b.eventsReceived();
        row(fmt, "throughput ratio (object/messaging)", String.format(Locale.ROOT, "%.1fx", objectRate / messagingRate),
                "15x (issue 22); Table 2's throughputs: 5.8x");
        row(fmt, "data ratio (messaging/object)", String.format(Locale.ROOT, "%.1fx (%.0f vs %.0f B/event)",
                jsonPerEvent / objectPerEvent, jsonPerEvent, objectPerEvent), "4.5x (15 GB / 3.3 GB)");
    }

    private void row(String fmt, String stage, String measured, String seed) {
        out.printf(Locale.ROOT, fmt, stage, measured, seed);
    }

    private static String sec(long millis) {
        return millis < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f s", millis / 1e3);
    }

    private static String mb(long bytes) {
        return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
    }

    private static String gc(Usage u) {
        return u.gcCount() < 0 ? "n/a" : String.format(Locale.ROOT, "%d GCs, %.2f s", u.gcCount(), u.gcSeconds());
    }

    /** CPU seconds and microseconds per event (or row). */
    private static String cpu(Usage u, long events) {
        return u.cpuNanos() < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f s CPU, %.2f us/event", u.cpuNanos() / 1e9,
                events > 0 ? u.cpuNanos() / 1e3 / events : 0);
    }


    /**
     * Polls every 100 ms when the dataset's HDFS file appears (end of the consolidation), the spool folders' size, this
     * JVM's heap in use and its resident set; every 250 ms, the consumer process ({@link ConsumerProcess#sample()}),
     * each sample kept so that its GC and CPU counters can be read at the stages' boundaries.
     */
    static final class Sampler {
        private static final long CONSUMER_PERIOD_NANOS = 250_000_000L;
        private final EmbeddedStack stack;
        private final java.nio.file.Path stackDir;
        private final ConsumerProcess consumer;
        private final List<ConsumerProcess.Sample> consumerSamples = new ArrayList<>();
        /** (epoch ms, the tablet server's CPU ms so far), taken with each consumer sample. */
        private final List<long[]> tserverSamples = new ArrayList<>();
        private final Thread thread;
        private volatile boolean stop;
        private volatile Instant hdfsFileAt;
        private volatile long peakHeap;
        private volatile long peakRss;
        private volatile long spoolPeak;
        private long lastConsumerSample;

        Sampler(EmbeddedStack stack, java.nio.file.Path stackDir, ConsumerProcess consumer) {
            this.stack = stack;
            this.stackDir = stackDir;
            this.consumer = consumer;
            this.thread = new Thread(this::loop, "bench-seed-sampler");
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            stop = true;
            thread.join(5_000);
        }

        private void loop() {
            while (!stop) {
                try {
                    sample();
                } catch (IOException | RuntimeException e) {
                    // a file vanishing between list and stat: the next sample sees the new state
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        private void sample() throws IOException {
            if (System.nanoTime() - lastConsumerSample >= CONSUMER_PERIOD_NANOS) {
                lastConsumerSample = System.nanoTime();
                sampleConsumer();
            }
            Path container = new Path(stack.hdfsRoot(), DATASET);
            if (hdfsFileAt == null && stack.hdfs().fs().exists(container)) {
                for (FileStatus st : stack.hdfs().fs().listStatus(container)) {
                    if (!st.getPath().getName().startsWith(".")) {
                        hdfsFileAt = Instant.now();
                    }
                }
            }
            long heap = 0;
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == MemoryType.HEAP) {
                    heap += pool.getUsage().getUsed();
                }
            }
            peakHeap = Math.max(peakHeap, heap);
            peakRss = Math.max(peakRss, statusBytes("VmRSS:"));
            spoolPeak = Math.max(spoolPeak, spoolBytes());
        }

        /** One sample of the consumer process now (also called once the dataset is DONE, for the load's end). */
        void sampleConsumer() {
            long tserver = stack.kudu().tabletServerCpuMillis();
            synchronized (tserverSamples) {
                tserverSamples.add(new long[] {System.currentTimeMillis(), tserver});
            }
            consumer.sample().ifPresent(s -> {
                synchronized (consumerSamples) {
                    consumerSamples.add(s);
                }
            });
        }

        /**
         * The consumer's peaks over every sample, and its GC and CPU between the samples last taken at or before
         * {@code signal}, {@code hdfsFile} and {@code done} (the consolidation, then the Kudu load).
         */
        ConsumerFigures consumerFigures(Instant signal, Instant hdfsFile, Instant done) {
            List<ConsumerProcess.Sample> all;
            synchronized (consumerSamples) {
                all = List.copyOf(consumerSamples);
            }
            long heap = -1;
            long max = -1;
            long rss = -1;
            long run = -1;
            long runLimit = -1;
            for (ConsumerProcess.Sample s : all) {
                heap = Math.max(heap, s.heapUsed());
                max = Math.max(max, s.heapMax());
                rss = Math.max(rss, s.rssPeak());
                run = Math.max(run, s.runMemoryUsed());
                runLimit = Math.max(runLimit, s.runMemoryLimit());
            }
            ConsumerProcess.Sample atSignal = at(all, signal);
            ConsumerProcess.Sample atFile = at(all, hdfsFile);
            ConsumerProcess.Sample atDone = at(all, done);
            return new ConsumerFigures(heap, max, rss, run, runLimit, Usage.between(atSignal, atFile),
                    Usage.between(atFile, atDone));
        }

        /**
         * The tablet server's CPU between the samples last taken at or before {@code from} and {@code to}; -1 when
         * unknown.
         */
        long tserverCpuMillis(Instant from, Instant to) {
            List<long[]> all;
            synchronized (tserverSamples) {
                all = List.copyOf(tserverSamples);
            }
            if (from == null || to == null || all.isEmpty()) {
                return -1;
            }
            long[] a = all.get(0);
            long[] b = all.get(0);
            for (long[] p : all) {
                if (p[0] <= from.toEpochMilli()) {
                    a = p;
                }
                if (p[0] <= to.toEpochMilli()) {
                    b = p;
                }
            }
            return a[1] < 0 || b[1] < 0 ? -1 : b[1] - a[1];
        }

        /** The last sample taken at or before {@code t} (the first one when none was); null without samples. */
        static ConsumerProcess.Sample at(List<ConsumerProcess.Sample> samples, Instant t) {
            if (samples.isEmpty() || t == null) {
                return null;
            }
            ConsumerProcess.Sample found = samples.get(0);
            for (ConsumerProcess.Sample s : samples) {
                if (!s.at().isAfter(t)) {
                    found = s;
                }
            }
            return found;
        }

        private long spoolBytes() throws IOException {
            long total = 0;
            try (Stream<java.nio.file.Path> dirs = Files.list(stackDir)) {
                for (java.nio.file.Path d : dirs.filter(p -> p.getFileName().toString().startsWith("spool-"))
                        .toList()) {
                    try (Stream<java.nio.file.Path> s = Files.walk(d)) {
                        for (java.nio.file.Path p : s.filter(Files::isRegularFile).toList()) {
                            try {
                                total += Files.size(p);
                            } catch (IOException gone) {
                                // deleted while walking
                            }
                        }
                    }
                }
            }
            return total;
        }

        /** This JVM's peak resident set ({@code VmHWM}), 0 where /proc is not there. */
        static long rssHighWater() {
            return statusBytes("VmHWM:");
        }

        private static long statusBytes(String key) {
            try {
                return Math.max(0, ConsumerProcess.statusBytes(Files.readString(Paths.get("/proc/self/status")), key));
            } catch (IOException | RuntimeException e) {
                return 0;
            }
        }

        Instant hdfsFileAt() {
            return hdfsFileAt;
        }

        long peakHeap() {
            return peakHeap;
        }

        long peakRss() {
            return peakRss;
        }

        long spoolPeak() {
            return spoolPeak;
        }
    }

    /** A one-line progress bar on the error stream (log lines above it). */
    static final class Progress {
        private final PrintStream err;
        private String stage = "";
        private long lastDraw;

        Progress(PrintStream err) {
            this.err = err;
        }

        synchronized void stage(String name) {
            clear();
            stage = name;
            err.println("[bench-seed] " + name);
        }

        synchronized void log(String line) {
            clear();
            err.println("[bench-seed] " + line);
        }

        synchronized void update(String what, long done, long total) {
            long now = System.nanoTime();
            if (now - lastDraw < 200_000_000L && done != total) {
                return;
            }
            lastDraw = now;
            StringBuilder b = new StringBuilder("\r[");
            int width = 30;
            int filled = total > 0 ? (int) Math.min(width, width * done / total) : 0;
            b.append("#".repeat(filled)).append("-".repeat(width - filled)).append("] ");
            if (total > 0) {
                b.append(String.format(Locale.ROOT, "%3d%% %s %d/%d", 100 * done / total, what, done, total));
            } else {
                b.append(what);
            }
            err.print(b.append("   "));
            err.flush();
        }

        synchronized void done() {
            clear();
            err.println("[bench-seed] " + stage + ": done");
        }

        private void clear() {
            if (lastDraw != 0) {
                err.print("\r" + " ".repeat(100) + "\r");
                lastDraw = 0;
            }
        }
    }
}
