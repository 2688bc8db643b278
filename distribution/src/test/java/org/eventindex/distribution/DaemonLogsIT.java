package org.eventindex.distribution;

import org.eventindex.deploy.DaemonProcesses;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the daemons of the unpacked tarball write for an operator, run through bin/eventindex with the shipped logging
 * configuration and JVM options: the supervisor, here, with its broker down.
 *
 * <p>No log storm: its ten STOMP subscriptions (the producer queue's eight group-commit slots, the control and the
 * heartbeat queues) retry the broker together; before the shared {@code Outage} each logged two lines per retry (352
 * lines in its first minute, measured); now the daemon logs one line per retry with the reason and the wait, and one
 * line when the broker is back. The log is counted per logger once six retries have been announced.
 *
 * <p>GC log and heap dump: a supervisor with a heap too small to start leaves its heap dump and its rotated GC log in
 * the configured folder, and the launcher deleted the older dumps first.
 */
final class DaemonLogsIT {
    private static final Duration STEP = Duration.ofMinutes(2);
    /** A log line of the shipped text format: time, level, [thread], logger - message. */
    private static final Pattern LINE = Pattern.compile("^\\S+ +(\\w+) +\\[[^\\]]*] (\\S+) - ");
    /** Lines any one logger may write by the sixth retry: two per retry of ten workers would be 120. */
    private static final int PER_LOGGER = 20;

    @TempDir
    Path temp;

    private Process supervisor;
    private EmbeddedBroker broker;

    @AfterEach
    void stop() throws InterruptedException {
        if (supervisor != null) {
            supervisor.destroy();
            if (!supervisor.waitFor(1, TimeUnit.MINUTES)) {
                supervisor.destroyForcibly().waitFor();
            }
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void aBrokerDownGivesOneLinePerRetryAndOneLineWhenItIsBack() throws Exception {
        InstalledTree tree = InstalledTree.unpack(temp);
        int brokerPort = Ports.free();
        Path file = supervisorConfig(brokerPort);
        Path logs = temp.resolve("logs");
        Path log = logs.resolve("supervisor.log");

        supervisor = tree.start(Map.of("EVENTINDEX_LOG_DIR", logs.toString()), temp.resolve("supervisor.out"),
                "supervisor", "run", "--config", file.toString());
        Await.until("the sixth retry on the broker announced in " + log, STEP, () -> {
            assertTrue(supervisor.isAlive(), () -> "the supervisor exited: " + read(temp.resolve("supervisor.out"))
                    + read(log));
            return read(log).contains("; retry 6 in ");
        });
        String down = read(log);
        Map<String, Integer> perLogger = linesPerLogger(down);
        String stomp = "o.eventindex.stomp.StompQueueWorker";
        assertTrue(perLogger.getOrDefault(stomp, 0) >= 1, "no retry line of " + stomp + ": " + perLogger);
        perLogger.forEach((logger, n) -> assertTrue(n <= PER_LOGGER, logger + " wrote " + n + " lines (at most "
                + PER_LOGGER + ") by the sixth retry: " + perLogger + "\n" + down));
        assertTrue(down.contains("WARN  [") && down.contains(" STOMP broker 127.0.0.1:" + brokerPort
                + " unreachable (no STOMP broker accepted a connection: "), down);

        broker = EmbeddedBroker.startOn(temp.resolve("broker"), "127.0.0.1", brokerPort);
        String back = "STOMP broker 127.0.0.1:" + brokerPort + " reachable again after ";
        Await.until("'" + back + "' in " + log, STEP, () -> read(log).contains(back));
        String after = read(log);
        Matcher again = Pattern.compile(Pattern.quote(back) + "[0-9hmins ]+, (\\d+) retries").matcher(after);
        assertTrue(again.find(), after);
        assertTrue(Integer.parseInt(again.group(1)) >= 6, again.group());
        Await.until("the ten subscriptions back", STEP,
                () -> read(log).split("subscribed to /queue/", -1).length - 1 >= 10);
        assertTrue(after.indexOf(back) == after.lastIndexOf(back), "one 'reachable again' line for all the workers: "
                + after);
        // EVENTINDEX_LOG_DIR alone: the JVM's own logs go to <log dir>/<command>
        assertTrue(Files.size(logs.resolve("supervisor/gc.log")) > 0, "no GC log in " + logs.resolve("supervisor"));
    }

    @Test
    void anOutOfMemoryErrorLeavesAHeapDumpAndTheRotatedGcLogInTheConfiguredFolder() throws Exception {
        InstalledTree tree = InstalledTree.unpack(temp);
        Path file = supervisorConfig(Ports.free());
        Path diagnostics = Files.createDirectories(temp.resolve("jvm logs"));
        // two dumps of earlier runs, the older first: with EVENTINDEX_HEAP_DUMPS=2 the launcher keeps the newer one
        Path oldest = Files.writeString(diagnostics.resolve("java_pid101.hprof"), "an old dump");
        Path older = Files.writeString(diagnostics.resolve("java_pid202.hprof"), "a newer old dump");
        Files.setLastModifiedTime(oldest, FileTime.from(Instant.now().minus(Duration.ofDays(2))));
        Files.setLastModifiedTime(older, FileTime.from(Instant.now().minus(Duration.ofDays(1))));

        Map<String, String> env = Map.of("EVENTINDEX_JVM_LOG_DIR", diagnostics.toString(),
                "EVENTINDEX_HEAP_DUMPS", "2", "EVENTINDEX_GC_LOG_FILES", "2", "EVENTINDEX_GC_LOG_FILE_SIZE", "2k",
                // after the options file's -Xms512m -Xmx2g: too small for the supervisor to start
                "EVENTINDEX_JAVA_OPTS", "-Xms8m -Xmx8m");
        InstalledTree.Run run = tree.run(env, temp.resolve("supervisor.out"), 2, "supervisor", "run", "--config",
                file.toString());

        // -XX:+ExitOnOutOfMemoryError of the shipped options: exit 3, after the dump
        assertEquals(3, run.exit(), run.output());
        assertTrue(run.output().contains("eventindex: deleted the old heap dump " + oldest), run.output());
        assertTrue(run.output().contains("Dumping heap to " + diagnostics), run.output());
        assertFalse(Files.exists(oldest), "the oldest dump is still there");
        assertTrue(Files.exists(older), "the newest old dump was deleted too");
        List<Path> dumps;
        try (Stream<Path> files = Files.list(diagnostics)) {
            dumps = files.filter(f -> f.toString().endsWith(".hprof") && !f.equals(older)).toList();
        }
        assertEquals(1, dumps.size(), "this run's dump: " + dumps);
        assertTrue(Files.size(dumps.get(0)) > 1 << 20, dumps.get(0) + " is too small for a heap dump");
        try (InputStream in = Files.newInputStream(dumps.get(0))) {
            assertEquals("JAVA PROFILE 1.0.2", new String(in.readNBytes(18), StandardCharsets.US_ASCII));
        }

        // rotated within its cap: gc.log and gc.log.0, gc.log.1 of about 2 KiB each, no third old file
        assertTrue(Files.readString(diagnostics.resolve("gc.log")).contains("gc"), "gc.log");
        assertTrue(Files.exists(diagnostics.resolve("gc.log.0")), "the GC log did not rotate");
        assertFalse(Files.exists(diagnostics.resolve("gc.log.2")), "more GC log files than EVENTINDEX_GC_LOG_FILES");
        try (Stream<Path> files = Files.list(diagnostics)) {
            for (Path gc : files.filter(f -> f.getFileName().toString().startsWith("gc.log")).toList()) {
                assertTrue(Files.size(gc) <= 4096, gc + " is " + Files.size(gc) + " bytes, over 2 KiB and a line");
            }
        }
    }

    /** A supervisor's configuration with its broker at {@code brokerPort}; S3 and Kudu are not reached. */
    private Path supervisorConfig(int brokerPort) throws IOException {
        Path secrets = Files.createDirectories(temp.resolve("secrets"));
        Path password = secret(secrets.resolve("supervisor.password"), "not-checked-by-this-broker");
        Path s3Secret = secret(secrets.resolve("s3-secret-key"), "not-used");
        Map<String, String> config = new LinkedHashMap<>();
        config.put(SupervisorConfig.BROKERS, "127.0.0.1:" + brokerPort);
        config.put(SupervisorConfig.STOMP_USER, "supervisor");
        config.put(SupervisorConfig.STOMP_PASSWORD_FILE, password.toString());
        config.put(SupervisorConfig.JOURNAL_DIR, temp.resolve("journal").toString());
        config.put(SupervisorConfig.JOURNAL_MIN_FREE_BYTES, "1048576");
        config.put(SupervisorConfig.HTTP_HOST, "127.0.0.1");
        config.put(SupervisorConfig.HTTP_PORT, Integer.toString(Ports.free()));
        // S3 and Kudu are not reached while no dataset completes
        config.put(SupervisorConfig.S3_BUCKET, "eventindex");
        config.put(SupervisorConfig.S3_ENDPOINT, "http://127.0.0.1:" + Ports.free());
        config.put(SupervisorConfig.S3_ACCESS_KEY, "eventindex-supervisor");
        config.put(SupervisorConfig.S3_SECRET_KEY_FILE, s3Secret.toString());
        config.put(SupervisorConfig.KUDU_MASTERS, "127.0.0.1:" + Ports.free());
        config.put(SupervisorConfig.KUDU_REPLICAS, "1");
        return DaemonProcesses.writeConfig(temp.resolve("supervisor.properties"), config);
    }

    private static Map<String, Integer> linesPerLogger(String log) {
        Map<String, Integer> counts = new TreeMap<>();
        for (String line : log.split("\n")) {
            Matcher m = LINE.matcher(line);
            if (m.find()) {
                counts.merge(m.group(2), 1, Integer::sum);
            }
        }
        return counts;
    }

    private static Path secret(Path file, String value) throws IOException {
        Files.writeString(file, value);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    private static String read(Path file) {
        try {
            return InstalledTree.read(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read " + file, e);
        }
    }
}
