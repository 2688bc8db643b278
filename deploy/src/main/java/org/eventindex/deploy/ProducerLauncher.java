package org.eventindex.deploy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.eventindex.testing.ProducerProcess;

/**
 * Runs the producer jar once per job, each as a separate JVM process ({@link ProducerProcess}), the way a grid job
 * wrapper invokes it, several at a time. Secrets go through the environment, never the command line.
 */
public final class ProducerLauncher {
    private static final Duration PRODUCER_DEADLINE = Duration.ofMinutes(5);

    private final Path producerJar;
    private final ProducerEndpoints endpoints;
    private final int parallelism;

    public ProducerLauncher(Path producerJar, ProducerEndpoints endpoints, int parallelism) {
        this.producerJar = Objects.requireNonNull(producerJar, "producerJar is null");
        this.endpoints = Objects.requireNonNull(endpoints, "endpoints is null");
        if (!Files.isRegularFile(producerJar)) {
            throw new IllegalArgumentException("producer jar not found at " + producerJar
                    + " (build it with 'mvn -DskipTests install', or set -Dei.producer.jar)");
        }
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be >= 1: " + parallelism);
        }
        this.parallelism = parallelism;
    }

    /** Where producers send: broker list, STOMP login (both null: anonymous), S3 endpoint, bucket and credentials. */
    public record ProducerEndpoints(String brokers, String stompUser, String stompPassword, String s3Endpoint,
                                    String bucket, String accessKey, String secretKey) {
        public ProducerEndpoints {
            Objects.requireNonNull(brokers, "brokers is null");
            Objects.requireNonNull(s3Endpoint, "s3Endpoint is null");
            Objects.requireNonNull(bucket, "bucket is null");
            if ((stompUser == null) != (stompPassword == null)) {
                throw new IllegalArgumentException("give both a STOMP user and password, or neither (anonymous)");
            }
        }

        /**
         * Adds the producer's options for these endpoints to {@code command} ({@code --brokers}, {@code --s3-endpoint},
         * {@code --bucket}, {@code --user}) and its secrets to {@code environment}: secrets never go on a command line.
         */
        public void applyTo(List<String> command, Map<String, String> environment) {
            command.addAll(List.of("--brokers", brokers, "--s3-endpoint", s3Endpoint, "--bucket", bucket));
            if (stompUser != null) {
                command.addAll(List.of("--user", stompUser));
                environment.put("EI_STOMP_PASSWORD", stompPassword);
            }
            environment.put("EI_S3_ACCESS_KEY", accessKey);
            environment.put("EI_S3_SECRET_KEY", secretKey);
        }

        @Override
        public String toString() {
            return "ProducerEndpoints[brokers=" + brokers + ", stompUser=" + stompUser + ", s3=" + s3Endpoint
                    + ", bucket=" + bucket + "]";
        }
    }

    /** The outcome of one producer process. */
    public record Run(Path spbFile, int exitCode, String output) {
    }

    /**
     * Runs one producer per file, at most {@code parallelism} at a time, and reports each finished run to
     * {@code progress}. Returns the runs in the order of {@code spbFiles}.
     */
    public List<Run> runAll(List<Path> spbFiles, Consumer<Run> progress) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(parallelism, r -> {
            Thread t = new Thread(r, "producer-launcher");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Run>> futures = new ArrayList<>();
            for (Path file : spbFiles) {
                futures.add(pool.submit(() -> {
                    Run run = runOne(file);
                    progress.accept(run);
                    return run;
                }));
            }
            List<Run> runs = new ArrayList<>();
            for (Future<Run> f : futures) {
                try {
                    runs.add(f.get());
                } catch (ExecutionException e) {
                    throw new IllegalStateException("producer launcher failed: " + e.getCause(), e.getCause());
                }
            }
            return runs;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Runs the producer on one SPB file and waits for it to exit. */
    public Run runOne(Path spbFile) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of(spbFile.toString()));
        Map<String, String> environment = new HashMap<>();
        endpoints.applyTo(args, environment);
        Process p = ProducerProcess.builder(producerJar, List.of(), args, environment).redirectErrorStream(true)
                .start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(PRODUCER_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            return new Run(spbFile, -1, "producer did not exit within " + PRODUCER_DEADLINE);
        }
        return new Run(spbFile, p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
