package org.eventindex.deploy.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.deploy.ProducerLauncher;
import org.eventindex.message.Json;
import org.eventindex.testing.ProducerProcess;
import org.eventindex.testing.hosts.Host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs the producer jar once per reporting grid job, as separate processes, the way a job wrapper does: with
 * {@code --json} to learn the object URL the broker acknowledged, and a retry of the job (a new object) when the
 * producer exits 3 (transient failure) — which is what the exit-code table tells wrappers to do. The producers run on
 * one {@link Host} (a grid site's worker node; {@link Host#local()} by default).
 */
final class ProducerFleet {
    static final int ATTEMPTS = 4;
    private static final int RETRY_DEADLINE_SECONDS = 90;

    private final Path producerJar;
    private final ProducerLauncher.ProducerEndpoints endpoints;
    private final Path logDir;
    private final Host host;

    ProducerFleet(Path producerJar, ProducerLauncher.ProducerEndpoints endpoints, Path logDir) {
        this(producerJar, endpoints, logDir, Host.local());
    }

    ProducerFleet(Path producerJar, ProducerLauncher.ProducerEndpoints endpoints, Path logDir, Host host) {
        this.producerJar = Objects.requireNonNull(producerJar, "producerJar is null");
        this.endpoints = Objects.requireNonNull(endpoints, "endpoints is null");
        this.logDir = Objects.requireNonNull(logDir, "logDir is null");
        this.host = Objects.requireNonNull(host, "host is null");
        if (!Files.isRegularFile(producerJar)) {
            throw new IllegalArgumentException("producer jar not found at " + producerJar
                    + " (build it with 'mvn -DskipTests install', or set -Dei.producer.jar)");
        }
    }

    /**
     * One job: its SPB file, the exit code of each attempt, and the URL acknowledged by the broker (exit 0), if any.
     * {@code unacknowledgedUrls}: objects stored by attempts that then failed (harmless: never announced).
     */
    record Job(String dataset, Path spbFile, List<Integer> exitCodes, String acknowledgedUrl, String lastError) {
        boolean succeeded() {
            return acknowledgedUrl != null;
        }
    }

    /** A job to run: which dataset it belongs to and its SPB file. */
    record Work(String dataset, Path spbFile) {
    }

    /** Runs every job, {@code parallelism} at a time; returns when all are done. */
    List<Job> runAll(List<Work> work, int parallelism) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(parallelism, r -> {
            Thread t = new Thread(r, "chaos-producer");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Job>> futures = new ArrayList<>();
            for (Work w : work) {
                futures.add(pool.submit(() -> runJob(w)));
            }
            List<Job> jobs = new ArrayList<>();
            for (Future<Job> f : futures) {
                try {
                    jobs.add(f.get());
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException("producer job failed to run: " + e.getCause(), e.getCause());
                }
            }
            return jobs;
        } finally {
            pool.shutdownNow();
        }
    }

    private Job runJob(Work w) throws IOException, InterruptedException {
        List<Integer> codes = new ArrayList<>();
        String error = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            List<String> args = new ArrayList<>(List.of(w.spbFile().toString(), "--json",
                    "--retry-deadline", Integer.toString(RETRY_DEADLINE_SECONDS)));
            Files.createDirectories(logDir);
            Path err = logDir.resolve(w.spbFile().getFileName() + "." + attempt + ".stderr");
            // The producer login and the S3 keys go through the environment, never the command line.
            Map<String, String> environment = new HashMap<>();
            endpoints.applyTo(args, environment);
            ProcessBuilder pb = ProducerProcess.builder(producerJar, List.of(), args, environment);
            Process p = pb.command(host.command(pb.command())).redirectError(err.toFile()).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(RETRY_DEADLINE_SECONDS + 120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor();
            }
            int code = p.exitValue();
            codes.add(code);
            JsonNode result = parse(out);
            if (code == 0 && result != null && result.hasNonNull("url")) {
                return new Job(w.dataset(), w.spbFile(), codes, result.get("url").asText(), null);
            }
            error = result != null && result.hasNonNull("error") ? result.get("error").asText()
                    : new String(out, StandardCharsets.UTF_8).strip();
            if (code != 3) {
                break;
            }
        }
        return new Job(w.dataset(), w.spbFile(), codes, null, error);
    }

    private static JsonNode parse(byte[] out) {
        try {
            return out.length == 0 ? null : Json.tree(out);
        } catch (IOException e) {
            return null;
        }
    }
}
