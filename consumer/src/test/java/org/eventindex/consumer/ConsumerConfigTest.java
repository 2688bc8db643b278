package org.eventindex.consumer;

import org.eventindex.config.SecretFile;
import org.eventindex.message.Queues;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompFrameLimits;
import org.eventindex.kudu.LoaderSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConsumerConfigTest {
    @TempDir
    Path dir;

    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    /** The S3 pair and the passcode from files, read again when they change (rotation). */
    @Test
    void secretsFromFilesFollowTheirFiles() throws IOException {
        Path ak = org.eventindex.config.SecretFile.write(dir.resolve("ak"), "AK1");
        Path sk = org.eventindex.config.SecretFile.write(dir.resolve("sk"), "SK1");
        Path pw = org.eventindex.config.SecretFile.write(dir.resolve("pw"), "PW1");
        ConsumerConfig c = ConsumerConfig.fromProperties(props(ConsumerConfig.ID, "c1",
                ConsumerConfig.S3_ACCESS_KEY_FILE, ak.toString(), ConsumerConfig.S3_SECRET_KEY_FILE, sk.toString(),
                ConsumerConfig.STOMP_PASSWORD_FILE, pw.toString()), Map.of());
        org.eventindex.config.SecretFile.write(ak, "AK2");
        org.eventindex.config.SecretFile.write(sk, "SK2");
        org.eventindex.config.SecretFile.write(pw, "PW2");
        assertEquals("AK2", c.s3AccessKey().value());
        assertEquals("SK2", c.s3SecretKey().value());
        assertEquals("PW2", Consumer.stompSettings(c).passcode().value());
    }

    @Test
    void defaults() throws IOException {
        ConsumerConfig c = ConsumerConfig.fromProperties(props(ConsumerConfig.ID, "c1"), Map.of());
        assertEquals("c1", c.consumerId());
        assertEquals(List.of(new StompEndpoint("localhost", 61613)), c.brokers());
        assertEquals("", c.stompUser());
        assertNull(c.stompPassword());
        assertEquals(Queues.CONSUMER, c.signalQueue());
        assertEquals(Queues.SUPERVISOR_CONTROL, c.reportQueue());
        assertEquals(URI.create("http://localhost:7480"), c.s3Endpoint());
        assertEquals(7480, c.s3EndpointPort());
        assertEquals("eventindex", c.s3Bucket());
        assertEquals("", c.s3AccessKey().value());
        assertNull(c.s3SecretKey());
        assertEquals(URI.create("hdfs://localhost:8020"), c.hdfsUri());
        assertEquals("/eventindex/datasets", c.hdfsRoot());
        assertEquals("localhost:7051", c.kuduMasters());
        assertEquals("", c.kuduTablePrefix());
        assertEquals(64, c.kuduBuckets());
        assertEquals(3, c.kuduReplicas());
        assertEquals(4, c.fetchThreads());
        assertEquals(3, c.fetchAttempts());
        assertEquals(Path.of("/var/lib/eventindex/consumer/spool"), c.spoolDir());
        assertEquals(64L * 1024 * 1024, c.sortMemoryBytes());
        assertEquals(Math.max(0, (Runtime.getRuntime().maxMemory() - (384L << 20)) / 2), c.runMemoryBytes(),
                "half the heap left after 384 MiB");
        assertEquals(8083, c.httpPort());
        assertEquals("127.0.0.1", c.httpHost(), "the unauthenticated operations endpoints bind to loopback");
        assertFalse(ConsumerConfig.fromProperties(new Properties(), Map.of()).consumerId().isBlank(),
                "the id defaults to the host name");
    }

    @Test
    void mapsEveryKey() throws IOException {
        Path pw = SecretFile.write(dir.resolve("stomp.pw"), "stomp-secret\n");
        Path sk = SecretFile.write(dir.resolve("s3.sk"), "s3-secret\n");
        ConsumerConfig c = ConsumerConfig.fromProperties(props(
                ConsumerConfig.ID, "c2",
                ConsumerConfig.BROKERS, "b1:1,b2:2",
                ConsumerConfig.STOMP_USER, "ei",
                ConsumerConfig.STOMP_PASSWORD_FILE, pw.toString(),
                ConsumerConfig.QUEUE_SIGNAL, "/queue/sig",
                ConsumerConfig.QUEUE_REPORT, "/queue/rep",
                ConsumerConfig.S3_ENDPOINT, "https://rgw.example",
                ConsumerConfig.S3_BUCKET, "bkt",
                ConsumerConfig.S3_ACCESS_KEY, "AK",
                ConsumerConfig.S3_SECRET_KEY_FILE, sk.toString(),
                ConsumerConfig.HDFS_URI, "hdfs://nn:9000",
                ConsumerConfig.HDFS_ROOT, "/ei",
                ConsumerConfig.KUDU_MASTERS, "m1:7051,m2:7051",
                ConsumerConfig.KUDU_TABLE_PREFIX, "test_",
                ConsumerConfig.KUDU_BUCKETS, "8",
                ConsumerConfig.KUDU_REPLICAS, "1",
                ConsumerConfig.FETCH_THREADS, "16",
                ConsumerConfig.FETCH_ATTEMPTS, "5",
                ConsumerConfig.SPOOL_DIR, dir.toString(),
                ConsumerConfig.SORT_MEMORY_BYTES, "1048576",
                ConsumerConfig.RUN_MEMORY_BYTES, "0",
                ConsumerConfig.HTTP_HOST, "10.0.0.7",
                ConsumerConfig.HTTP_PORT, "0"), Map.of());
        assertEquals(List.of(new StompEndpoint("b1", 1), new StompEndpoint("b2", 2)), c.brokers());
        assertEquals("ei", c.stompUser());
        assertEquals("stomp-secret", c.stompPassword().value());
        assertEquals("/queue/sig", c.signalQueue());
        assertEquals("/queue/rep", c.reportQueue());
        assertEquals(443, c.s3EndpointPort());
        assertEquals("bkt", c.s3Bucket());
        assertEquals("AK", c.s3AccessKey().value());
        assertEquals("s3-secret", c.s3SecretKey().value());
        assertEquals(URI.create("hdfs://nn:9000"), c.hdfsUri());
        assertEquals("/ei", c.hdfsRoot());
        assertEquals("m1:7051,m2:7051", c.kuduMasters());
        assertEquals("test_", c.kuduTablePrefix());
        assertEquals(8, c.kuduBuckets());
        assertEquals(1, c.kuduReplicas());
        assertEquals(16, c.fetchThreads());
        assertEquals(5, c.fetchAttempts());
        assertEquals(dir, c.spoolDir());
        assertEquals(1048576, c.sortMemoryBytes());
        assertEquals(0, c.runMemoryBytes());
        assertEquals("10.0.0.7", c.httpHost());
        assertEquals(0, c.httpPort());
    }

    @Test
    void secretsComeFromTheEnvironmentWhenNoFileIsGivenAndAreNeverPrinted() throws IOException {
        ConsumerConfig c = ConsumerConfig.fromProperties(props(ConsumerConfig.ID, "c3"), Map.of(
                ConsumerConfig.ENV_STOMP_PASSWORD, "pw-from-env",
                ConsumerConfig.ENV_S3_ACCESS_KEY, "ak-from-env",
                ConsumerConfig.ENV_S3_SECRET_KEY, "sk-from-env"));
        assertEquals("pw-from-env", c.stompPassword().value());
        assertEquals("ak-from-env", c.s3AccessKey().value());
        assertEquals("sk-from-env", c.s3SecretKey().value());
        String shown = c.toString();
        assertFalse(shown.contains("from-env"), shown);
        assertTrue(shown.contains("stompPassword=***"), shown);
        assertFalse(Consumer.stompSettings(c).toString().contains("pw-from-env"));
    }

    /** A new key whose name says it holds a secret or the path to one must be declared so (decision 0058). */
    @Test
    void everyKeyWhoseNameLooksLikeASecretIsMarkedSecret() {
        assertEquals(List.of(), ConsumerConfig.KEYS.stream().filter(org.eventindex.config.ConfigKey::unmarkedSecret)
                .map(org.eventindex.config.ConfigKey::name).toList());
    }

    /** The spool must not land wherever the daemon happened to be started. */
    @Test
    void kuduLoadThreadsDefaultFromTheCoresAndAreChecked() throws IOException {
        assertEquals(Math.min(4, Runtime.getRuntime().availableProcessors()),
                ConsumerConfig.fromProperties(props(ConsumerConfig.ID, "c6"), Map.of()).kuduLoadThreads());
        assertEquals(3, ConsumerConfig.fromProperties(props(ConsumerConfig.KUDU_LOAD_THREADS, "3"), Map.of())
                .kuduLoadThreads());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConsumerConfig.fromProperties(props(ConsumerConfig.KUDU_LOAD_THREADS, "0"), Map.of()));
        assertTrue(e.getMessage().contains("consumer.kudu.load.threads"), e.getMessage());
    }

    @Test
    void kuduBufferRowsDefaultToTheLoadersAndAreChecked() throws IOException {
        assertEquals(LoaderSettings.DEFAULT_BUFFER_ROWS,
                ConsumerConfig.fromProperties(props(ConsumerConfig.ID, "c6"), Map.of()).kuduBufferRows());
        assertEquals(7_000, ConsumerConfig.fromProperties(props(ConsumerConfig.KUDU_BUFFER_ROWS, "7000"), Map.of())
                .kuduBufferRows());
        for (String bad : new String[] {"99", "100001"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ConsumerConfig.fromProperties(props(ConsumerConfig.KUDU_BUFFER_ROWS, bad), Map.of()));
            assertTrue(e.getMessage().contains("consumer.kudu.load.buffer.rows") && e.getMessage().contains(bad),
                    e.getMessage());
        }
    }

    @Test
    void theLoadOverlapsTheMergeByDefaultAndTakesOnlyTrueOrFalse() throws IOException {
        assertTrue(ConsumerConfig.fromProperties(props(ConsumerConfig.ID, "c7"), Map.of()).kuduLoadOverlap());
        assertFalse(ConsumerConfig.fromProperties(props(ConsumerConfig.KUDU_LOAD_OVERLAP, "false"), Map.of())
                .kuduLoadOverlap());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConsumerConfig.fromProperties(props(ConsumerConfig.KUDU_LOAD_OVERLAP, "yes"), Map.of()));
        assertTrue(e.getMessage().contains("consumer.kudu.load.overlap") && e.getMessage().contains("'yes'"),
                e.getMessage());
    }

    @Test
    void kuduBudgetRowsDefaultToTheLoadersAndAreChecked() throws IOException {
        assertEquals(LoaderSettings.DEFAULT_BUDGET_ROWS,
                ConsumerConfig.fromProperties(props(ConsumerConfig.ID, "c6"), Map.of()).kuduBudgetRows());
        assertEquals(8_000, ConsumerConfig.fromProperties(props(ConsumerConfig.KUDU_BUDGET_ROWS, "8000"), Map.of())
                .kuduBudgetRows());
        for (String bad : new String[] {"199", "200001"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ConsumerConfig.fromProperties(props(ConsumerConfig.KUDU_BUDGET_ROWS, bad), Map.of()));
            assertTrue(e.getMessage().contains("consumer.kudu.load.budget.rows") && e.getMessage().contains(bad),
                    e.getMessage());
        }
    }

    @Test
    void aRelativeSpoolDirectoryIsRefusedNamingTheKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConsumerConfig.fromProperties(props(ConsumerConfig.SPOOL_DIR, "spool"), Map.of()));
        assertEquals("consumer.spool.dir 'spool' must be an absolute path", e.getMessage());
    }

    @Test
    void aFileWithAnotherDaemonsOrADuplicateKeyIsRefusedWithItsLines() throws IOException {
        Path f = dir.resolve("consumer.properties");
        Files.writeString(f, ConsumerConfig.ID + "=c1\nsupervisor.journal.dir=/var/lib/j\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConsumerConfig.load(f, Map.of()));
        assertEquals(f + ":2: 'supervisor.journal.dir' is a key of the supervisor's configuration, not of the"
                + " consumer's; every key of this file starts with 'consumer.' and is listed by: eventindex consumer"
                + " config-keys", e.getMessage());
        Files.writeString(f, ConsumerConfig.ID + "=c1\nconsumer.spool.dri=/s\n" + ConsumerConfig.ID + "=c2\n");
        e = assertThrows(IllegalArgumentException.class, () -> ConsumerConfig.load(f, Map.of()));
        assertEquals(f + ":3: duplicate key 'consumer.id' (first set on line 1); keep one of the two lines",
                e.getMessage());
        Files.writeString(f, ConsumerConfig.ID + "=c1\nconsumer.spool.dri=/s\n");
        e = assertThrows(IllegalArgumentException.class, () -> ConsumerConfig.load(f, Map.of()));
        assertTrue(e.getMessage().startsWith(f + ":2: unknown configuration key 'consumer.spool.dri' (did you mean"
                + " 'consumer.spool.dir'?)"), e.getMessage());
    }

    @Test
    void refusesUnknownKeysAndBadValuesNamingTheKey() throws IOException {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConsumerConfig.fromProperties(props("consumer.fetch.thread", "2"), Map.of()));
        assertTrue(e.getMessage().contains("unknown configuration key 'consumer.fetch.thread'"), e.getMessage());
        // removed with the SPB file's spools (docs/consumer.md): an old file that still sets it is refused
        e = assertThrows(IllegalArgumentException.class,
                () -> ConsumerConfig.fromProperties(props("consumer.spool.memory.bytes", "0"), Map.of()));
        assertTrue(e.getMessage().contains("unknown configuration key 'consumer.spool.memory.bytes'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> ConsumerConfig.fromProperties(props(ConsumerConfig.FETCH_THREADS, "many"), Map.of()));
        assertTrue(e.getMessage().contains(ConsumerConfig.FETCH_THREADS), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> ConsumerConfig.fromProperties(props(ConsumerConfig.FETCH_THREADS, "0"), Map.of()));
        assertTrue(e.getMessage().contains("consumer.fetch.threads must be in 1..256"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> ConsumerConfig.fromProperties(props(ConsumerConfig.KUDU_REPLICAS, "2"), Map.of()));
        assertTrue(e.getMessage().contains(ConsumerConfig.KUDU_REPLICAS), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> ConsumerConfig.fromProperties(props(ConsumerConfig.HDFS_ROOT, "relative"), Map.of()));
        assertTrue(e.getMessage().contains(ConsumerConfig.HDFS_ROOT), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> ConsumerConfig.fromProperties(props(ConsumerConfig.RUN_MEMORY_BYTES, "-1"), Map.of()));
        assertTrue(e.getMessage().contains("consumer.run.memory.bytes must not be negative"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> ConsumerConfig.fromProperties(props(ConsumerConfig.SORT_MEMORY_BYTES, "0"), Map.of()));
        assertTrue(e.getMessage().contains("consumer.sort.memory.bytes is 0: each of the"), e.getMessage());
        Properties small = props(ConsumerConfig.SORT_MEMORY_BYTES, Long.toString(4 * 65536 - 1));
        small.setProperty(ConsumerConfig.FETCH_THREADS, "4");
        e = assertThrows(IllegalArgumentException.class, () -> ConsumerConfig.fromProperties(small, Map.of()));
        assertTrue(e.getMessage().contains("each of the 4 fetch threads (consumer.fetch.threads) would sort in 65535"
                + " bytes, and at least 65536 are needed"), e.getMessage());
        small.setProperty(ConsumerConfig.SORT_MEMORY_BYTES, Long.toString(4 * 65536));
        assertEquals(4 * 65536, ConsumerConfig.fromProperties(small, Map.of()).sortMemoryBytes());
        e = assertThrows(IllegalArgumentException.class,
                () -> ConsumerConfig.fromProperties(props(ConsumerConfig.S3_ENDPOINT, "s3://x:1"), Map.of()));
        assertTrue(e.getMessage().contains(ConsumerConfig.S3_ENDPOINT), e.getMessage());
        IOException io = assertThrows(IOException.class, () -> ConsumerConfig.fromProperties(
                props(ConsumerConfig.S3_SECRET_KEY_FILE, dir.resolve("missing").toString()), Map.of()));
        assertTrue(io.getMessage().contains(ConsumerConfig.S3_SECRET_KEY_FILE), io.getMessage());
    }

    @Test
    void frameLimitsAreReadCheckedAndPassedToTheStompClient() throws IOException {
        ConsumerConfig c = ConsumerConfig.fromProperties(props(ConsumerConfig.ID, "c4",
                ConsumerConfig.STOMP_FRAME_MAX_BYTES, "4096", ConsumerConfig.STOMP_FRAME_MAX_HEADER_BYTES, "2048"),
                Map.of());
        assertEquals(new StompFrameLimits(4096, 2048), c.frameLimits());
        assertEquals(new StompFrameLimits(4096, 2048), Consumer.stompSettings(c).frameLimits());
        assertEquals(StompFrameLimits.DEFAULT, ConsumerConfig.fromProperties(props(ConsumerConfig.ID, "c5"), Map.of())
                .frameLimits());
        for (String[] bad : new String[][] {{ConsumerConfig.STOMP_FRAME_MAX_BYTES, "0"},
                {ConsumerConfig.STOMP_FRAME_MAX_BYTES, "2147483648"},
                {ConsumerConfig.STOMP_FRAME_MAX_HEADER_BYTES, "100"}}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ConsumerConfig.fromProperties(props(bad[0], bad[1]), Map.of()));
            assertTrue(e.getMessage().startsWith(bad[0] + " must be in 1024.."), e.getMessage());
        }
    }

    @Test
    void theBrokersResolveIntervalIsReadCheckedAndPassedToTheStompClient() throws IOException {
        ConsumerConfig c = ConsumerConfig.fromProperties(props(ConsumerConfig.ID, "c6",
                "consumer.brokers.resolve.interval", "2m"), Map.of());
        assertEquals(Duration.ofMinutes(2), c.brokersResolveInterval());
        assertEquals(Duration.ofMinutes(2), Consumer.stompSettings(c).resolveInterval());
        assertEquals(Duration.ofSeconds(60), ConsumerConfig.fromProperties(props(ConsumerConfig.ID, "c7"), Map.of())
                .brokersResolveInterval());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ConsumerConfig.fromProperties(
                props("consumer.brokers.resolve.interval", "0s"), Map.of()));
        assertTrue(e.getMessage().startsWith("consumer.brokers.resolve.interval must be positive"), e.getMessage());
    }

    @Test
    void loadsAPropertiesFile() throws IOException {
        Path file = Files.writeString(dir.resolve("consumer.properties"), "consumer.id = from-file\n"
                + "consumer.fetch.threads = 2\n");
        ConsumerConfig c = ConsumerConfig.load(file, Map.of());
        assertEquals("from-file", c.consumerId());
        assertEquals(2, c.fetchThreads());
    }

    @Test
    void everyKeyIsDocumented() throws IOException {
        Path doc = Path.of("..", "docs", "consumer.md");
        String text = Files.readString(doc);
        for (org.eventindex.config.ConfigKey k : ConsumerConfig.KEYS) {
            assertTrue(text.contains("`" + k.name() + "`"), "docs/consumer.md does not document " + k.name());
            if (k.envVar() != null) {
                assertTrue(text.contains("`" + k.envVar() + "`"), "docs/consumer.md does not name " + k.envVar());
            }
        }
        // and the table has no row for a key the consumer does not read
        java.util.Set<String> known = ConsumerConfig.KEYS.stream().map(org.eventindex.config.ConfigKey::name)
                .collect(java.util.stream.Collectors.toSet());
        java.util.regex.Matcher row = java.util.regex.Pattern.compile("(?m)^\\| `(consumer\\.[^`]+)`").matcher(text);
        int rows = 0;
        while (row.find()) {
            assertTrue(known.contains(row.group(1)), "docs/consumer.md documents " + row.group(1)
                    + ", which ConsumerConfig does not know");
            rows++;
        }
        assertEquals(known.size(), rows, "one table row per key");
    }
}
