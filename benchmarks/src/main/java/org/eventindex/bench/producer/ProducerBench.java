package org.eventindex.bench.producer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.eventindex.gen.DatasetGenerator;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.producer.ProducerArgs;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import org.eventindex.testing.ChildJvm;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedS3;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The producer benchmark ({@code bin/bench-producer}): the shaded jar's size and the median start-to-exit wall time
 * of {@code java -jar eventindex-producer.jar} for a typical 100k-event SPB against the local stack (an ActiveMQ
 * broker and S3Proxy in this JVM), next to baselines measured in the same run: a bare JVM start
 * ({@code java -version}), the producer's dry run (start + validation, nothing remote) and an in-process SDK PUT of
 * the same bytes from an already warm client (the pure transfer cost). Prints a Markdown table.
 *
 * <p>Arguments: {@code [--runs N] [--events N] [--work DIR] [--large-job]}; defaults 7 runs, 100000 events, a temp
 * folder ({@code --help}). {@code --large-job}: {@link LargeJobBench}.
 */
public final class ProducerBench {
    private static final String AK = "bench-ak";
    private static final String SK = "bench-sk";
    private static final int WARM_UP_ROUNDS = 3;

    private ProducerBench() {
    }

    /** The command line of {@code bin/bench-producer}. */
    @Command(name = "bin/bench-producer", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            sortOptions = false, description = "Producer benchmark (not a test); results go in docs/performance.md.")
    static final class Options implements Callable<Integer> {
        @Option(names = "--runs", paramLabel = "N", description = "runs per row; medians (default 7)")
        int runs = 7;
        @Option(names = "--events", paramLabel = "N", description = "events in the SPB file (default 100000)")
        int events = 100_000;
        @Option(names = "--work", paramLabel = "DIR", description = "working folder, kept (default: a temporary"
                + " one, deleted); --large-job reuses the SPB file an earlier run generated there")
        Path work;
        @Option(names = "--jar", paramLabel = "FILE", description = "the producer jar to measure (default"
                + " producer/target/eventindex-producer.jar, of the last build)")
        Path jar = Path.of("producer", "target", "eventindex-producer.jar");
        @Option(names = "--large-job", description = "the seed's largest grid job instead: one SPB of --events"
                + " events (default 30000000 here, ~660 MB) through the producer with -Xmx64m, each step once,"
                + " beside the JVM's inflate of the file and the raw multipart PUT of its bytes, with a JFR profile")
        boolean largeJob;

        @Override
        public Integer call() throws Exception {
            bench(jar, runs, largeJob && events == 100_000 ? 30_000_000 : events, largeJob, work);
            return 0;
        }
    }

    public static void main(String[] args) {
        System.exit(CommandLines.execute(new Options(), args, System.out, System.err));
    }

    private static void bench(Path jar, int runs, int events, boolean largeJob, Path work) throws Exception {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: build it with 'mvn -f producer/pom.xml package'");
        }
        Path dir = work != null ? Files.createDirectories(work) : Files.createTempDirectory("producer-bench");
        try {
            if (largeJob) {
                LargeJobBench.run(jar, dir, events, AK, SK);
            } else {
                run(jar, dir, runs, events);
            }
        } finally {
            if (work == null) {
                deleteTree(dir);
            }
        }
    }

    private static void run(Path jar, Path dir, int runs, int events) throws Exception {
        GeneratedDataset ds = new DatasetGenerator(new GeneratorSpec(
                "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824", 4, events / 4, 4, 0, 0, 0, false, 7L))
                .generate(dir.resolve("spb"));
        Path spb = ds.jobs().get(0).spbFile();
        long spbBytes = Files.size(spb);

        try (EmbeddedBroker broker = EmbeddedBroker.start(dir.resolve("broker"));
             EmbeddedS3 s3 = EmbeddedS3.start(dir.resolve("s3"), AK, SK);
             S3Client client = client(s3, AK, SK)) {
            s3.createBucket("eventindex");
            // The JVM's defaults, as a grid job without options would start the jar: that start is what is measured.
            String java = ChildJvm.java().toString();
            List<String> produce = ChildJvm.jar(jar).args(spb.toString(), "--brokers", broker.stompEndpoints(),
                    "--s3-endpoint", s3.endpoint().toString(), "--bucket", "eventindex").command();
            List<String> dryRun = ChildJvm.jar(jar).args(spb.toString(), "--dry-run", "--s3-endpoint",
                    s3.endpoint().toString(), "--bucket", "eventindex").command();
            // Untimed rounds warm the page cache and this JVM's broker / S3Proxy code (its JIT competes for the
            // same cores as the measured process).
            for (int w = 0; w < WARM_UP_ROUNDS; w++) {
                time(dir, List.of(java, "-version"));
                time(dir, dryRun);
                time(dir, produce);
                String key = "warm-" + w;
                client.putObject(b -> b.bucket("eventindex").key(key), RequestBody.fromFile(spb));
            }

            double[] jvm = new double[runs];
            double[] dry = new double[runs];
            double[] full = new double[runs];
            double[] put = new double[runs];
            for (int r = 0; r < runs; r++) {
                jvm[r] = time(dir, List.of(java, "-version"));
                dry[r] = time(dir, dryRun);
                full[r] = time(dir, produce);
                String key = "sdk-" + r;
                long t0 = System.nanoTime();
                client.putObject(b -> b.bucket("eventindex").key(key), RequestBody.fromFile(spb));
                put[r] = (System.nanoTime() - t0) / 1e6;
            }
            print(jar, spb, spbBytes, events, runs, median(jvm), median(dry), median(full), median(put),
                    broker.queueSize("/queue/atlas.eventindex.supervisor"));
        }
    }

    static S3Client client(EmbeddedS3 s3, String ak, String sk) {
        return S3Client.builder().endpointOverride(s3.endpoint()).region(Region.US_EAST_1)
                .forcePathStyle(true).httpClient(UrlConnectionHttpClient.create())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ak, sk)))
                .build();
    }

    private static void print(Path jar, Path spb, long spbBytes, int events, int runs, double jvm, double dry,
                              double full, double put, long messages) throws IOException {
        String cpu = Runtime.getRuntime().availableProcessors() + " cores";
        System.out.printf(Locale.ROOT, "Producer benchmark: %s, Java %s, %s; %d runs per row, medians%n%n",
                System.getProperty("os.name"), System.getProperty("java.version"), cpu, runs);
        System.out.printf(Locale.ROOT, "- jar: %s, %.1f MB%n", jar, Files.size(jar) / 1e6);
        System.out.printf(Locale.ROOT, "- SPB: %d events, %d bytes (%.0f bytes/event)%n%n", events, spbBytes,
                (double) spbBytes / events);
        System.out.println("| measurement | median ms | ratio to `java -version` |");
        System.out.println("|---|---:|---:|");
        row("`java -version` (JVM start, baseline)", jvm, jvm);
        row("producer `--dry-run` (start + validate + digests)", dry, jvm);
        row("producer, full run (validate, PUT, HEAD, STOMP SEND + receipt)", full, jvm);
        row("in-process SDK PUT of the same bytes, warm client (baseline)", put, jvm);
        System.out.printf(Locale.ROOT, "%nfull run / dry run: %.2f; full run - dry run: %.0f ms; "
                + "full run - JVM start: %.0f ms; messages acknowledged: %d%n", full / dry, full - dry, full - jvm,
                messages);
    }

    private static void row(String what, double ms, double baseline) {
        System.out.printf(Locale.ROOT, "| %s | %.0f | %.2f |%n", what, ms, ms / baseline);
    }

    /** Wall time in ms from process start to exit; fails on a non-zero exit. */
    private static double time(Path dir, List<String> command) throws IOException, InterruptedException {
        return time(dir, command, dir.resolve("run.log"));
    }

    /** Wall time in ms from process start to exit, its output in {@code log}; fails on a non-zero exit. */
    static double time(Path dir, List<String> command, Path log) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put(ProducerArgs.ENV_S3_ACCESS_KEY, AK);
        pb.environment().put(ProducerArgs.ENV_S3_SECRET_KEY, SK);
        long t0 = System.nanoTime();
        Process p = pb.start();
        if (!p.waitFor(Duration.ofMinutes(30).toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("timed out: " + command);
        }
        double ms = (System.nanoTime() - t0) / 1e6;
        if (p.exitValue() != 0) {
            throw new IllegalStateException("exit " + p.exitValue() + " from " + command + ": "
                    + Files.readString(log));
        }
        return ms;
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (java.util.stream.Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
