package org.eventindex.bench;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.eventindex.cli.CommandLines;
import org.eventindex.consolidated.ConsolidatedFileWriter;
import org.eventindex.consolidated.ConsolidatedSchema;
import org.eventindex.cli.VersionProvider;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.consumer.Consumer;
import org.eventindex.consumer.ConsumerConfig;
import org.eventindex.consumer.DatasetIngest;
import org.eventindex.consumer.ParquetConsolidatedFormat;
import org.eventindex.consumer.S3ObjectFetcher;
import org.eventindex.gen.DatasetGenerator;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.gen.EventSize;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.S3ObjectUrl;
import org.eventindex.message.SignalObject;
import org.eventindex.names.DatasetName;
import org.eventindex.names.ObjectKey;
import org.eventindex.spb.Inflation;
import org.eventindex.spb.SpbLimits;
import org.eventindex.spb.SpbSummary;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.EmbeddedKudu;
import org.eventindex.testing.EmbeddedS3;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.GZIPInputStream;

/**
 * Benchmarks of the consumer and the Kudu loader (not tests): each figure is printed with its ratio to a baseline
 * measured in the same run on the same machine.
 * <ul>
 *   <li>Consolidation events/s (fetch, checksum, decode, select, sort, Parquet, HDFS commit) against the raw bound:
 *       GET the same objects with the same threads and copy their bytes to HDFS without decoding; against the
 *       same copy with each object's gzip stream inflated on the way (output discarded), the one decoding step a
 *       consolidation of SPB objects cannot skip; and against the same copy through the consumer's first read of an
 *       object (its SHA-256 and the SPB reader with the content rules, events discarded).</li>
 *   <li>Kudu ingest rows/s of the loader against {@code kudu perf loadgen} on the same cluster, into a table with
 *       the EVENTS schema and hash buckets ({@link KuduBench}), and both extrapolated to the seed's 21,103,653 rows
 *       (the tablet-server bound); with {@code --mask-text} also against tables that keep the coded mask text.</li>
 * </ul>
 * Usage: {@code bin/bench-consumer [--events N] [--files N] [--threads N] [--run-memory BYTES] [--kudu-rows all|N|0]
 * [--work DIR]}; {@code --help} lists every option.
 */
public final class ConsumerBenchMain {
    static final String DATASET = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
    private static final String BUCKET = "eventindex";

    /** Columns of the {@code --timeline} table: thread role -> label. */
    private static final Map<String, String> TIMELINE_ROLES = timelineRoles();

    private static Map<String, String> timelineRoles() {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        m.put("consumer fetch threads", "fetch");
        m.put("handler (main) + other consumer", "handler");
        m.put("Parquet second encoding thread", "encode-2");
        m.put("Parquet row group writer", "rg-write");
        m.put(ThreadCpuMeter.VM_GC, "GC+VM");
        m.put(ThreadCpuMeter.VM_JIT, "JIT");
        return m;
    }

    private ConsumerBenchMain() {
    }

    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err));
    }

    /** Parses {@code args} and runs the benchmark; {@code --help}, {@code --version} and bad options return at once. */
    static int execute(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new Options(), args, out, err);
    }

    /** The command line of {@code bin/bench-consumer}. */
    @Command(name = "bin/bench-consumer", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            sortOptions = false, description = "Benchmarks of the consumer and the Kudu loader, with baselines"
                    + " measured in the same run (not tests). Results go into docs/performance.md.")
    static final class Options implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Option(names = "--events", paramLabel = "N", description = "events in the dataset (default 1000000)")
        int events = 1_000_000;
        @Option(names = "--files", paramLabel = "N", description = "input files (default 20)")
        int files = 20;
        @Option(names = "--threads", paramLabel = "N", description = "fetch threads (default 4)")
        int threads = 4;
        @Option(names = "--encoding-threads", paramLabel = "1|2", description = "Parquet encoding threads (default 2)")
        int encodingThreads = 2;
        @Option(names = "--warmups", paramLabel = "N", description = "untimed runs of each path first (default 1)")
        int warmups = 1;
        @Option(names = "--timeline", paramLabel = "MS", description = "cores busy per thread role in intervals of MS"
                + " during the consolidation (default 0 = off)")
        long timelineMillis;
        @Option(names = "--run-memory", paramLabel = "BYTES", description = "sorted runs kept in memory,"
                + " consumer.run.memory.bytes (default: the consumer's default)")
        String runMemory = "default";
        @Option(names = "--kudu-rows", paramLabel = "all|N|0", description = "rows loadgen inserts: as many as the"
                + " loader loaded (all, the default), at most N, or no Kudu part (0)")
        String kuduRows = "all";
        @Option(names = "--load-threads", paramLabel = "N,N...", split = ",", description = "then load the file with"
                + " each of these numbers of Kudu sessions on as many threads, each against loadgen with as many"
                + " threads (default 1,2,4; 0 = skip)")
        int[] loadThreads = {1, 2, 4};
        @Option(names = "--writer", paramLabel = "own|parquet-mr", description = "column encoders of the measured"
                + " consolidation: the own page encoders (the consumer's, the default) or parquet-mr's column writers")
        String writer = "own";
        @Option(names = "--pairs", paramLabel = "N", description = "then consolidate N more times with each writer's"
                + " encoders, alternating, and print each pair's ratios (default 0 = off; decision 0022)")
        int pairs;
        @Option(names = "--mask-text", description = "also load the file into event tables that have the coded"
                + " mask text columns (as created before decision 0037) and print rows/s, tablet server CPU per row"
                + " and bytes per event on disk with and without them")
        boolean maskText;
        @Option(names = "--no-raw-bounds", description = "measure the consolidation only, without the raw bounds"
                + " before it (e.g. a seed-scale dataset in a small heap, where the raw copy's HDFS packets are not"
                + " what is measured)")
        boolean noRawBounds;
        @Option(names = "--work", paramLabel = "DIR", description = "working folder, wiped first (default"
                + " ${java.io.tmpdir}/ei-bench)")
        java.nio.file.Path work = java.nio.file.Path.of(System.getProperty("java.io.tmpdir"), "ei-bench");

        @Override
        public Integer call() throws Exception {
            int rows;
            try {
                rows = kuduRows.equals("all") ? Integer.MAX_VALUE : Integer.parseInt(kuduRows);
            } catch (NumberFormatException e) {
                throw new ParameterException(spec.commandLine(),
                        "--kudu-rows must be all or a whole number, got '" + kuduRows + "'");
            }
            if (!WRITERS.containsKey(writer)) {
                throw new ParameterException(spec.commandLine(), "--writer must be one of " + WRITERS.keySet()
                        + ", got '" + writer + "'");
            }
            int[] sweep = java.util.Arrays.stream(loadThreads).filter(n -> n != 0).toArray();
            for (int n : sweep) {
                if (n < 1 || n > org.eventindex.kudu.LoaderSettings.MAX_LOAD_THREADS) {
                    throw new ParameterException(spec.commandLine(), "--load-threads must list numbers between 1"
                            + " and " + org.eventindex.kudu.LoaderSettings.MAX_LOAD_THREADS + " (or 0), got " + n);
                }
            }
            bench(events, files, threads, encodingThreads, warmups, timelineMillis, runMemory, rows, writer, pairs,
                    sweep, maskText, !noRawBounds, work);
            return 0;
        }
    }

    /** The Parquet column encoders of the measured consolidation; {@code --pairs N} alternates both (decision 0022). */
    private static final Map<String, ParquetConsolidatedFormat.WriterFactory> WRITERS = writers();

    private static Map<String, ParquetConsolidatedFormat.WriterFactory> writers() {
        Map<String, ParquetConsolidatedFormat.WriterFactory> w = new java.util.LinkedHashMap<>();
        w.put("own", ParquetConsolidatedFormat.OWN_ENCODERS);
        w.put("parquet-mr", (stream, twoThreads) -> new ConsolidatedFileWriter(stream, twoThreads,
                ConsolidatedSchema.ROW_GROUP_BYTES, ParquetMrColumns::new));
        return java.util.Collections.unmodifiableMap(w);
    }

    private static void bench(int events, int files, int threads, int encodingThreads, int warmups,
                              long timelineMillis, String runMemory, int kuduRows, String writer, int pairs,
                              int[] loadThreads, boolean maskText, boolean rawBounds, java.nio.file.Path work)
            throws Exception {
        PrintStream out = System.out;
        deleteTree(work);
        Files.createDirectories(work);
        out.printf("bench: %,d events in %d files, %d fetch threads, %d Parquet encoding thread(s) (%s encoders),"
                + " %d warm-up run(s), %d cores, heap %d MiB%n", events, files, threads, encodingThreads, writer,
                warmups, Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20);

        // HEAVY keeps the figures in docs/performance.md comparable (the seed's dataset's bytes per event).
        GeneratorSpec spec = new GeneratorSpec(DATASET, files, events / files, 1, 0, 0, 0, false, 7L, EventSize.HEAVY);
        GeneratedDataset ds = new DatasetGenerator(spec).generate(work.resolve("spb"));
        try (EmbeddedS3 s3 = EmbeddedS3.start(work.resolve("s3"), "bench", "bench-secret");
             EmbeddedHdfs hdfs = EmbeddedHdfs.start(work.resolve("hdfs"));
             // short MemRowSet flush thresholds, so column sizes can be read from disk at the end
             EmbeddedKudu kudu = EmbeddedKudu.start(work.resolve("kudu"), 1,
                     List.of("--flush_threshold_secs=1", "--flush_threshold_mb=16"))) {
            s3.createBucket(BUCKET);
            ConsumerSignal signal = upload(s3, ds, spec.eventsPerFile());
            long totalEvents = signal.expectedEvents();
            ConsumerConfig config = config(s3, hdfs, kudu, threads, encodingThreads, runMemory, work);
            out.printf("consumer run memory (sorted runs kept off disk): %,d MiB%n", config.runMemoryBytes() >> 20);

            // both paths write with the consumer's HDFS client settings
            org.apache.hadoop.conf.Configuration clientConf = Consumer.hdfsClientConf(hdfs.conf());
            try (S3ObjectFetcher fetcher = S3ObjectFetcher.connect(s3.endpoint(), s3.accessKey(), s3.secretKey(),
                    threads);
                 org.apache.hadoop.fs.FileSystem rawFs = ClusterAccess.unsecured(clientConf).fileSystem(hdfs.uri())) {
                FileContext fc = ClusterAccess.unsecured(clientConf).fileContext(hdfs.uri(), clientConf);
                Map<String, Consumer> consumers = new java.util.LinkedHashMap<>();
                WRITERS.forEach((name, factory) -> consumers.put(name, new Consumer(config, new Consumer.Services(
                        fetcher, fc, (sig, file) -> new DatasetIngest.Loaded(0, 0), report -> { }, factory),
                        Clock.systemUTC())));
                Consumer consumer = consumers.get(writer);
                // warm-up of both paths (JIT, connections, HDFS pipeline), then the measured runs; a long-lived
                // consumer has compiled its code after a few datasets, which more warm-up runs show
                for (int w = 0; w < warmups; w++) {
                    if (rawBounds) {
                        raw(fetcher, rawFs, signal, threads, Bound.COPY);
                        raw(fetcher, rawFs, signal, threads, Bound.INFLATE);
                        raw(fetcher, rawFs, signal, threads, Bound.VALIDATE);
                    }
                    if (pairs > 0) {
                        for (Consumer c : consumers.values()) {
                            consolidate(c, signal);
                        }
                    } else {
                        consolidate(consumer, signal);
                    }
                }
                long inflate0 = processCpuNanos();
                double inflateSeconds = rawBounds ? raw(fetcher, rawFs, signal, threads, Bound.INFLATE) : Double.NaN;
                long inflateCpu = processCpuNanos() - inflate0;
                long validate0 = processCpuNanos();
                double validateSeconds = rawBounds ? raw(fetcher, rawFs, signal, threads, Bound.VALIDATE)
                        : Double.NaN;
                long validateCpu = processCpuNanos() - validate0;
                ThreadCpuMeter rawMeter = new ThreadCpuMeter();
                long cpu0 = processCpuNanos();
                double rawSeconds = rawBounds ? raw(fetcher, rawFs, signal, threads, Bound.COPY) : Double.NaN;
                long cpu1 = processCpuNanos();
                Map<String, Double> rawThreads = rawMeter.stop();
                ThreadCpuMeter consMeter = new ThreadCpuMeter();
                long cpu1b = processCpuNanos();
                double consSeconds = consolidate(consumer, signal);
                long cpu2 = processCpuNanos();
                Map<String, Double> consThreads = consMeter.stop();
                double rawRate = totalEvents / rawSeconds;
                double consRate = totalEvents / consSeconds;
                if (rawBounds) {
                    out.printf("raw bound (GET + copy to HDFS, no decoding): %,.0f events/s (%.2f s)%n", rawRate,
                            rawSeconds);
                    double inflateRate = totalEvents / inflateSeconds;
                    out.printf("raw bound + inflation (same, and gunzip each object, output discarded): %,.0f events/s"
                            + " (%.2f s, JVM CPU %.2f us/event)%n", inflateRate, inflateSeconds,
                            inflateCpu / 1e3 / totalEvents);
                    double validateRate = totalEvents / validateSeconds;
                    out.printf("raw bound + the first read (same, with each object's SHA-256 and SPB reader: its structure"
                            + " and content rules, as the consumer and the producer check them, events discarded):"
                            + " %,.0f events/s (%.2f s, JVM CPU %.2f us/event) = %.0f%% of the raw bound + inflation%n",
                            validateRate, validateSeconds, validateCpu / 1e3 / totalEvents,
                            100 * validateRate / inflateRate);
                    out.printf("consolidation to Parquet:                    %,.0f events/s (%.2f s) = %.0f%% of the"
                            + " raw bound, %.0f%% of the raw bound + inflation, %.0f%% of the raw bound + the first"
                            + " read%n", consRate, consSeconds, 100 * consRate / rawRate, 100 * consRate / inflateRate,
                            100 * consRate / validateRate);
                    // CPU of the whole JVM (S3 and HDFS servers included) while each path ran: less sensitive to other
                    // work on the machine than the wall-clock rates
                    out.printf("JVM CPU: raw bound %.2f s (%.2f us/event), consolidation %.2f s (%.2f us/event)%n",
                            (cpu1 - cpu0) / 1e9, (cpu1 - cpu0) / 1e3 / totalEvents, (cpu2 - cpu1b) / 1e9,
                            (cpu2 - cpu1b) / 1e3 / totalEvents);
                    printThreads(out, "raw bound", rawThreads, cpu1 - cpu0, totalEvents);
                } else {
                    out.printf("consolidation to Parquet: %,.0f events/s (%.2f s); raw bounds not measured%n",
                            consRate, consSeconds);
                    out.printf("JVM CPU: consolidation %.2f s (%.2f us/event)%n", (cpu2 - cpu1b) / 1e9,
                            (cpu2 - cpu1b) / 1e3 / totalEvents);
                }
                printThreads(out, "consolidation", consThreads, cpu2 - cpu1b, totalEvents);
                StringBuilder alloc = new StringBuilder("  consolidation bytes allocated per event by thread:");
                consMeter.allocated().forEach((role, bytes) -> alloc.append(String.format(" %s %,d;", role,
                        bytes / totalEvents)));
                out.println(alloc);
                if (timelineMillis > 0) {
                    out.printf("  consolidation timeline: cores busy per %d ms%n", timelineMillis);
                    consMeter.timeline(timelineMillis, TIMELINE_ROLES).forEach(l -> out.println("  " + l));
                }
                if (pairs > 0) {
                    writerPairs(out, consumers, signal, pairs, hdfs.fs(), parquetPath(config));
                }
            }

            Path parquet = parquetPath(config);
            out.printf("Parquet file: %,d bytes (%.1f B/event)%n", hdfs.fs().getFileStatus(parquet).getLen(),
                    (double) hdfs.fs().getFileStatus(parquet).getLen() / totalEvents);
            if (kuduRows > 0) {
                new KuduBench(kudu, hdfs, out, work.resolve("kudu").resolve("kudu-cluster").resolve("ts-0"))
                        .run(parquet, kuduRows, loadThreads, maskText);
            }
        }
    }

    private static Path parquetPath(ConsumerConfig config) {
        return new Path(new Path(config.hdfsRoot(), DatasetName.parse(DATASET).container()), DATASET + ".parquet");
    }

    /**
     * Consolidates {@code pairs} times with each writer's consumer, back to back, the first of a pair alternating;
     * prints each run's events/s, JVM CPU per event and file size, each pair's ratio and the medians.
     */
    private static void writerPairs(PrintStream out, Map<String, Consumer> consumers, ConsumerSignal signal,
                                    int pairs, FileSystem fs, Path parquet) throws Exception {
        List<String> names = new ArrayList<>(consumers.keySet());
        long events = signal.expectedEvents();
        Map<String, List<Double>> rates = new java.util.LinkedHashMap<>();
        Map<String, List<Double>> cpus = new java.util.LinkedHashMap<>();
        names.forEach(n -> {
            rates.put(n, new ArrayList<>());
            cpus.put(n, new ArrayList<>());
        });
        List<Double> rateRatios = new ArrayList<>();
        List<Double> cpuRatios = new ArrayList<>();
        out.printf("writer pairs: %s, %d pairs, the first of each pair alternating%n", names, pairs);
        for (int p = 0; p < pairs; p++) {
            StringBuilder line = new StringBuilder(String.format("  pair %d:", p + 1));
            for (int k = 0; k < names.size(); k++) {
                String name = names.get((k + p) % names.size());
                long cpu0 = processCpuNanos();
                double seconds = consolidate(consumers.get(name), signal);
                double cpu = (processCpuNanos() - cpu0) / 1e3 / events;
                rates.get(name).add(events / seconds);
                cpus.get(name).add(cpu);
                line.append(String.format(" %s %,.0f events/s (%.2f us/event, %,d bytes);", name, events / seconds,
                        cpu, fs.getFileStatus(parquet).getLen()));
            }
            double rateRatio = rates.get(names.get(0)).get(p) / rates.get(names.get(1)).get(p);
            double cpuRatio = cpus.get(names.get(0)).get(p) / cpus.get(names.get(1)).get(p);
            rateRatios.add(rateRatio);
            cpuRatios.add(cpuRatio);
            line.append(String.format(" %s/%s %.2f events/s, %.2f CPU per event", names.get(0), names.get(1),
                    rateRatio, cpuRatio));
            out.println(line);
        }
        for (String n : names) {
            out.printf("  %s: median %,.0f events/s, %.2f us/event JVM CPU%n", n, median(rates.get(n)),
                    median(cpus.get(n)));
        }
        // the pairs' own ratios: each pair ran back to back, under the same load
        out.printf("  median of the pairs' ratios %s/%s: %.2f events/s, %.2f CPU per event%n", names.get(0),
                names.get(1), median(rateRatios), median(cpuRatios));
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static ConsumerConfig config(EmbeddedS3 s3, EmbeddedHdfs hdfs, EmbeddedKudu kudu, int threads,
                                         int encodingThreads, String runMemory,
                                         java.nio.file.Path work) throws Exception {
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.ID, "bench");
        p.setProperty(ConsumerConfig.S3_ENDPOINT, s3.endpoint().toString());
        p.setProperty(ConsumerConfig.S3_BUCKET, BUCKET);
        p.setProperty(ConsumerConfig.HDFS_URI, hdfs.uri().toString());
        p.setProperty(ConsumerConfig.KUDU_MASTERS, kudu.masterAddresses());
        p.setProperty(ConsumerConfig.FETCH_THREADS, Integer.toString(threads));
        p.setProperty(ConsumerConfig.PARQUET_ENCODING_THREADS, Integer.toString(encodingThreads));
        p.setProperty(ConsumerConfig.SPOOL_DIR, work.toAbsolutePath().resolve("spool").toString());
        p.setProperty(ConsumerConfig.HTTP_PORT, "0");
        if (!runMemory.equals("default")) {
            p.setProperty(ConsumerConfig.RUN_MEMORY_BYTES, runMemory);
        }
        return ConsumerConfig.fromProperties(p, Map.of("EI_S3_ACCESS_KEY", s3.accessKey(),
                "EI_S3_SECRET_KEY", s3.secretKey()));
    }

    /** PUTs every reported job's SPB file with its sha256 metadata; returns the signal selecting all of them. */
    private static ConsumerSignal upload(EmbeddedS3 s3, GeneratedDataset ds, int eventsPerFile) throws Exception {
        List<SignalObject> objects = new ArrayList<>();
        long total = 0;
        try (S3Client client = S3Client.builder().endpointOverride(s3.endpoint()).region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(),
                        s3.secretKey())))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build()) {
            for (GeneratedJob job : ds.jobs(GeneratedJob.Outcome.REPORTED)) {
                byte[] bytes = Files.readAllBytes(job.spbFile());
                // The key a producer of this job writes: the consumer checks the SPB header against it.
                String key = ObjectKey.of(job.taskID(), job.jobID(), UUID.nameUUIDFromBytes(bytes).toString()
                        .replace("-", "")).key();
                String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
                client.putObject(PutObjectRequest.builder().bucket(BUCKET).key(key).metadata(Map.of("sha256", sha))
                        .build(), RequestBody.fromBytes(bytes));
                S3ObjectUrl url = new S3ObjectUrl(s3.endpoint().getHost(), s3.endpoint().getPort(), BUCKET, key);
                long n = (long) eventsPerFile * job.guids().size();
                objects.add(new SignalObject(url.toString(), bytes.length, job.guids(), n));
                total += n;
            }
        }
        return new ConsumerSignal(ConsumerSignal.TYPE, "bench-1", DATASET, DatasetName.parse(DATASET).container(),
                1, 0, objects, total, 0L);
    }

    /** What the baselines do to each object besides copying its bytes to HDFS. */
    private enum Bound {
        /** Nothing: GET and copy. */
        COPY,
        /** Gunzip it as it is copied (the step no consolidation can skip), the output discarded. */
        INFLATE,
        /**
         * The consumer's first read of an object without its selection and sorted runs: the SHA-256 of the bytes
         * read, and the SPB reader over them (structure, limits and the content rules, the one definition of valid
         * content the producer applies too), the events discarded.
         */
        VALIDATE
    }

    /**
     * GETs every object with {@code threads} threads and copies its bytes to its own HDFS file, doing {@code bound}
     * to it on the way. Seconds taken.
     */
    private static double raw(S3ObjectFetcher fetcher, FileSystem fs, ConsumerSignal signal, int threads,
                              Bound bound) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long t0 = System.nanoTime();
        try {
            List<Future<Long>> done = new ArrayList<>();
            for (int i = 0; i < signal.objects().size(); i++) {
                SignalObject so = signal.objects().get(i);
                Path target = new Path("/bench/raw/" + i);
                done.add(pool.submit(() -> {
                    S3ObjectUrl url = S3ObjectUrl.parse(so.url());
                    try (InputStream in = bound == Bound.VALIDATE ? fetcher.openWithChecksum(url).in()
                            : fetcher.open(url);
                         FSDataOutputStream hout = fs.create(target, true)) {
                        long n = switch (bound) {
                            case COPY -> in.transferTo(hout);
                            case INFLATE -> copyInflating(in, hout);
                            case VALIDATE -> copyValidating(in, hout, so.url());
                        };
                        hout.hsync();
                        return n;
                    }
                }));
            }
            for (Future<Long> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /** Copies {@code in} to {@code out} while the SPB reader checks it ({@link Bound#VALIDATE}); bytes copied. */
    static long copyValidating(InputStream in, OutputStream out, String source) throws IOException {
        Tee tee = new Tee(in, out);
        SpbSummary.scan(tee, source, SpbLimits.DEFAULT, Inflation.INLINE);
        return tee.copied;
    }

    /** Copies {@code in} to {@code out} while gunzipping it (the inflated bytes are dropped); bytes copied. */
    static long copyInflating(InputStream in, OutputStream out) throws IOException {
        Tee tee = new Tee(in, out);
        byte[] inflated = new byte[64 * 1024];
        GZIPInputStream gz = new GZIPInputStream(tee, 64 * 1024);
        while (gz.read(inflated) >= 0) {
            // the inflated bytes are what decoding would start from; not needed here
        }
        // whatever follows the gzip stream (nothing in an SPB object) is copied as well
        tee.transferTo(OutputStream.nullOutputStream());
        return tee.copied;
    }

    /** A stream that copies every byte read (or skipped) from it to {@code out}. */
    private static final class Tee extends FilterInputStream {
        private final OutputStream out;
        long copied;

        Tee(InputStream in, OutputStream out) {
            super(in);
            this.out = out;
        }

        @Override
        public int read() throws IOException {
            // the gzip header and trailer are read a byte at a time
            int b = super.read();
            if (b >= 0) {
                out.write(b);
                copied++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                out.write(b, off, n);
                copied += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            // skipped bytes are copied too; 0, not -1, at the end
            int chunk = (int) Math.min(Math.max(n, 0), 8192);
            return Math.max(0, read(new byte[chunk], 0, chunk));
        }
    }

    /** CPU per event by thread role; what no Java thread accounts for is GC and other VM threads. */
    static void printThreads(PrintStream out, String what, Map<String, Double> threads, long processNanos,
                                     long events) {
        StringBuilder b = new StringBuilder("  " + what + " CPU us/event by thread:");
        double javaSeconds = 0;
        for (Map.Entry<String, Double> e : threads.entrySet()) {
            b.append(String.format(" %s %.2f;", e.getKey(), e.getValue() * 1e6 / events));
            javaSeconds += e.getValue();
        }
        b.append(String.format(" rest (threads not seen) %.2f", (processNanos / 1e9 - javaSeconds) * 1e6 / events));
        out.println(b);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static double consolidate(Consumer consumer, ConsumerSignal signal) {
        long t0 = System.nanoTime();
        ConsumerReport r = consumer.handler().handle(signal);
        if (!ConsumerReport.DONE.equals(r.status())) {
            throw new IllegalStateException("consolidation failed: " + r.reason());
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /** Deletes {@code dir} and everything below it; nothing when it does not exist. */
    static void deleteTree(java.nio.file.Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (java.util.stream.Stream<java.nio.file.Path> paths = Files.walk(dir)) {
            for (java.nio.file.Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
