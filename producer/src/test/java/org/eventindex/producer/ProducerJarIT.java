package org.eventindex.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.eventindex.message.Queues;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedS3;
import org.eventindex.testing.Prerequisites;
import org.eventindex.testing.ProducerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the shaded jar as the grid job wrapper does: a separate JVM, secrets in the environment. */
class ProducerJarIT {
    static final Path JAR = Path.of("target", "eventindex-producer.jar");

    /** The shaded jar is made by 'package': with CI set its absence fails the test instead of skipping it. */
    static void requireJar() {
        Prerequisites.require(Files.isRegularFile(JAR), JAR.toAbsolutePath() + " does not exist; run under"
                + " 'mvn verify' (or after 'mvn package') so that the shaded jar is built");
    }

    @TempDir
    Path dir;

    @Test
    void shadedJarStoresObjectAndSendsMessage() throws Exception {
        requireJar();
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "23456789.T", "4100000002.3", 20);
        try (EmbeddedBroker broker = EmbeddedBroker.start(dir.resolve("broker"));
             EmbeddedS3 s3 = EmbeddedS3.start(dir.resolve("s3"), "jar-ak", "jar-sk")) {
            s3.createBucket("eventindex");
            Result help = run(Map.of(), "--help");
            assertEquals(0, help.code());
            assertTrue(help.stdout().contains("Exit codes"), help.stdout());
            // the version resource of common-proto is in the jar, and ProjectVersion needs no picocli
            Result version = run(Map.of(), "--version");
            assertEquals(0, version.code(), version.stderr());
            assertEquals("eventindex-producer " + org.eventindex.ProjectVersion.describe(), version.stdout().strip());
            Result unknown = run(Map.of(), file.toString(), "--dry-run", "--frobnicate");
            assertEquals(2, unknown.code());
            assertTrue(unknown.stderr().contains("unknown option --frobnicate"), unknown.stderr());

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

    @Test
    void jarIsSmallAndHoldsNoHadoopOrKudu() throws Exception {
        requireJar();
        long size = Files.size(JAR);
        assertTrue(size < 20L * 1024 * 1024, JAR + " is " + size + " bytes, the limit is 20 MB");
        List<String> forbidden = new java.util.ArrayList<>();
        try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(JAR.toFile())) {
            zip.stream().map(java.util.zip.ZipEntry::getName)
                    .filter(n -> n.startsWith("org/apache/hadoop/") || n.startsWith("org/apache/kudu/")
                            // the data generator and the daemons' ops server are modules of their own
                            || n.startsWith("org/eventindex/gen/") || n.startsWith("org/eventindex/ops/")
                            // its own argument parser: picocli costs every start ~65 ms (docs/decisions/0023),
                            // so neither picocli nor the cli module's conventions built on it
                            || n.startsWith("picocli/") || n.startsWith("org/eventindex/cli/")
                            // test-scope only: the kit's embedded services and helpers
                            || n.startsWith("org/eventindex/testing/"))
                    .limit(5).forEach(forbidden::add);
            assertTrue(zip.getEntry("org/eventindex/producer/ProducerMain.class") != null);
        }
        assertEquals(List.of(), forbidden, "the producer jar must not contain Hadoop, Kudu,"
                + " the generator, the ops server, picocli, the cli module or the test kit");
    }

    /**
     * A DNS alias naming several brokers (the seed ran six behind one name): every address is tried. The JVM resolves
     * the alias from a hosts file (jdk.net.hosts.file) to 127.0.0.2, where a dead broker accepts and hangs up, and
     * to 127.0.0.1, where the real broker listens on the same port. A producer starts at a random address of the
     * alias (to spread the grid's jobs over the brokers), so the jar runs until one run has met the dead broker first
     * (each run does with probability 1/2; at most {@value #ALIAS_RUNS} runs): that run, like every other, must get its
     * message through the live broker.
     */
    private static final int ALIAS_RUNS = 20;

    @Test
    void everyAddressOfABrokerAliasIsTried() throws Exception {
        requireJar();
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "23456789.T", "4100000002.4", 3);
        Path hosts = Files.writeString(dir.resolve("hosts"),
                "127.0.0.2 brokers.eventindex.test\n127.0.0.1 brokers.eventindex.test\n");
        try (EmbeddedBroker broker = EmbeddedBroker.start(dir.resolve("broker"));
             EmbeddedS3 s3 = EmbeddedS3.start(dir.resolve("s3"), "jar-ak", "jar-sk");
             java.net.ServerSocket dead = new java.net.ServerSocket(broker.stompPort(), 50,
                     java.net.InetAddress.getByName("127.0.0.2"))) {
            s3.createBucket("eventindex");
            java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
            Thread hangUp = new Thread(() -> {
                while (!dead.isClosed()) {
                    try (java.net.Socket s = dead.accept()) {
                        refused.incrementAndGet();
                    } catch (IOException closed) {
                        return;
                    }
                }
            }, "dead-broker");
            hangUp.setDaemon(true);
            hangUp.start();
            int runs = 0;
            while (refused.get() == 0 && runs < ALIAS_RUNS) {
                Result r = run(List.of("-Djdk.net.hosts.file=" + hosts),
                        Map.of(ProducerArgs.ENV_S3_ACCESS_KEY, "jar-ak", ProducerArgs.ENV_S3_SECRET_KEY, "jar-sk"),
                        file.toString(), "--brokers", "brokers.eventindex.test:" + broker.stompPort(),
                        "--s3-endpoint", s3.endpoint().toString(), "--bucket", "eventindex");
                runs++;
                assertEquals(0, r.code(), "run " + runs + ": " + r.stderr());
            }
            assertEquals(1, refused.get(), "no run of " + runs + " tried the dead address of the alias");
            assertEquals(runs, broker.queueSize(Queues.SUPERVISOR), "one message per run");
        }
    }

    private Result run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        return run(List.of(), env, args);
    }

    private Result run(List<String> jvmOptions, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        return runJar(dir, jvmOptions, env, args);
    }

    /** Runs the shaded jar in a new JVM with the given options; secrets only from {@code env}. */
    static Result runJar(Path dir, List<String> jvmOptions, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        ProcessBuilder pb = ProducerProcess.builder(JAR, jvmOptions, List.of(args), env);
        ProducerProcess.Result r = ProducerProcess.run(pb, out, err, Duration.ofSeconds(300));
        if (r.exitCode() == -1) {
            throw new AssertionError("producer jar did not finish within 300 s: " + pb.command());
        }
        return new Result(r.exitCode(), r.stdout(), r.stderr());
    }

    record Result(int code, String stdout, String stderr) {
    }
}
