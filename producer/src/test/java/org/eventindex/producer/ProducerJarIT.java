package org.eventindex.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eventindex.message.Queues;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedS3;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the shaded jar as the grid job wrapper does: a separate JVM, secrets in the environment. */
class ProducerJarIT {
    private static final Path JAR = Path.of("target", "eventindex-producer.jar");

    @TempDir
    Path dir;

    @Test
    void shadedJarStoresObjectAndSendsMessage() throws Exception {
        assumeTrue(Files.isRegularFile(JAR), "run under 'mvn verify' so that the shaded jar exists");
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "23456789.T", "4100000002.3", 20);
        try (EmbeddedBroker broker = EmbeddedBroker.start(dir.resolve("broker"));
             EmbeddedS3 s3 = EmbeddedS3.start(dir.resolve("s3"), "jar-ak", "jar-sk")) {
            s3.createBucket("eventindex");
            Result help = run(Map.of(), "--help");
            assertEquals(0, help.code());
            assertTrue(help.stdout().contains("Exit codes"), help.stdout());

            Result r = run(Map.of(ProducerArgs.ENV_S3_ACCESS_KEY, "jar-ak", ProducerArgs.ENV_S3_SECRET_KEY, "jar-sk"),
                    file.toString(), "--brokers", broker.stompEndpoints(), "--s3-endpoint", s3.endpoint().toString(),
                    "--bucket", "eventindex");
            assertEquals(0, r.code(), r.stderr());
            assertTrue(r.stdout().startsWith("stored " + file), r.stdout());
            assertEquals("", r.stderr());
            List<String> keys = s3.keys("eventindex");
            assertEquals(1, keys.size());
            assertTrue(keys.get(0).startsWith("tier0/23456789/23456789.T_4100000002.3_"), keys.get(0));
            assertEquals(1, broker.queueSize(Queues.SUPERVISOR));

            Result bad = run(Map.of(), dir.resolve("missing.ei.spb").toString(), "--dry-run",
                    "--s3-endpoint", s3.endpoint().toString(), "--bucket", "eventindex");
            assertEquals(2, bad.code(), bad.stderr());
        }
    }

    private Result run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", JAR.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().remove(ProducerArgs.ENV_S3_ACCESS_KEY);
        pb.environment().remove(ProducerArgs.ENV_S3_SECRET_KEY);
        pb.environment().remove(ProducerArgs.ENV_STOMP_PASSWORD);
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("producer jar did not finish within 120 s: " + command);
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    private record Result(int code, String stdout, String stderr) {
    }
}
