package org.eventindex.supervisor;

import org.eventindex.config.Secret;
import org.eventindex.cluster.ClusterSettings;
import org.eventindex.config.TlsSettings;
import org.eventindex.retry.Backoff;
import org.eventindex.config.SecretFile;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.message.Queues;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompFrameLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SupervisorConfigTest {
    @TempDir
    Path dir;

    /** The refusal of {@code line} as the third line of a supervisor.properties after a valid one. */
    private String refusal(String line) throws IOException {
        Path f = Files.writeString(dir.resolve("supervisor.properties"),
                "# site\n" + SupervisorConfig.HTTP_PORT + "=8080\n" + line + "\n");
        return assertThrows(IllegalArgumentException.class, () -> SupervisorConfig.load(f, Map.of())).getMessage();
    }

    @Test
    void aFileWithAForeignMisspeltOrDuplicateKeyIsRefusedWithTheLineAndTheNearestKey() throws IOException {
        Path f = dir.resolve("supervisor.properties");
        assertEquals(f + ":3: 'consumer.spool.dir' is a key of the consumer's configuration, not of the"
                + " supervisor's; every key of this file starts with 'supervisor.' and is listed by: eventindex"
                + " supervisor config-keys", refusal("consumer.spool.dir=/var/spool"));
        assertTrue(refusal("supervisr.http.port=1").startsWith(f + ":3: unknown configuration key"
                + " 'supervisr.http.port' (did you mean 'supervisor.http.port'?)"), refusal("supervisr.http.port=1"));
        assertTrue(refusal("Supervisor.journal.dir=/j").startsWith(f + ":3: unknown configuration key"
                + " 'Supervisor.journal.dir' (did you mean 'supervisor.journal.dir'?)"));
        assertTrue(refusal("no.daemon.knows=1").startsWith(f + ":3: unknown configuration key 'no.daemon.knows'"));
        assertEquals(f + ":3: duplicate key 'supervisor.http.port' (first set on line 2); keep one of the two lines",
                refusal(SupervisorConfig.HTTP_PORT + " = 9090"));
        // a bad value still names the file (and the key)
        assertTrue(refusal(SupervisorConfig.JOURNAL_DIR + "=relative").startsWith(f + ": "
                + SupervisorConfig.JOURNAL_DIR), refusal(SupervisorConfig.JOURNAL_DIR + "=relative"));
    }

    /** The cleanup's S3 pair from files, read again when they change (rotation); the key and its file not both. */
    @Test
    void theCleanupKeysFromFilesFollowTheirFiles() throws IOException {
        Path ak = org.eventindex.config.SecretFile.write(dir.resolve("ak"), "AK1");
        Path sk = org.eventindex.config.SecretFile.write(dir.resolve("sk"), "SK1");
        Properties p = new Properties();
        p.setProperty(SupervisorConfig.S3_ACCESS_KEY_FILE, ak.toString());
        p.setProperty(SupervisorConfig.S3_SECRET_KEY_FILE, sk.toString());
        SupervisorConfig c = SupervisorConfig.fromProperties(p, Map.of());
        assertEquals("AK1", c.cleanup().accessKey().value());
        org.eventindex.config.SecretFile.write(ak, "AK2");
        org.eventindex.config.SecretFile.write(sk, "SK2");
        assertEquals("AK2", c.cleanup().accessKey().value());
        assertEquals("SK2", c.cleanup().secretKey().value());
        assertFalse(c.toString().contains("SK2"), c.toString());
        p.setProperty(SupervisorConfig.S3_ACCESS_KEY, "AK0");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SupervisorConfig.fromProperties(p, Map.of()));
        assertEquals(SupervisorConfig.S3_ACCESS_KEY + " and " + SupervisorConfig.S3_ACCESS_KEY_FILE
                + " are both set: give one", e.getMessage());
    }

    @Test
    void defaults() throws IOException {
        SupervisorConfig c = SupervisorConfig.fromProperties(new Properties(), Map.of());

        assertEquals(List.of(new StompEndpoint("localhost", 61613)), c.brokers());
        assertEquals("", c.stompUser());
        assertNull(c.stompPassword());
        assertEquals(Queues.SUPERVISOR, c.producerQueue());
        assertEquals(Queues.SUPERVISOR_CONTROL, c.controlQueue());
        assertEquals(Queues.CONSUMER, c.consumerQueue());
        assertTrue(c.quarantine().isEmpty());
        assertEquals(50, c.prefetch());
        assertEquals(new SupervisorConfig.JournalSettings(Path.of("/var/lib/eventindex/supervisor/journal"),
                134_217_728, 100_000, 10), c.journal());
        assertEquals("eventindex", c.s3Bucket());
        assertEquals("127.0.0.1", c.httpHost());
        assertEquals(8082, c.httpPort());
        assertEquals(KuduTablesConfig.FIRST_EPOCH, c.kuduEpoch(), "the range kudu-loader create-tables adds");
        assertEquals(Duration.ofSeconds(1), c.signalRetryInitial());
        assertEquals(Duration.ofMinutes(1), c.signalRetryMax());
        assertEquals(Duration.ofSeconds(30), c.shutdownGrace());
        assertNull(c.stompSettings().login());
    }

    @Test
    void everyKeyMapsToItsField() throws IOException {
        Path secret = dir.resolve("stomp.password");
        SecretFile.write(secret, "s3cret\n");
        Properties p = new Properties();
        p.setProperty(SupervisorConfig.BROKERS, "mq1:61613, mq2:61614");
        p.setProperty(SupervisorConfig.STOMP_USER, "ei");
        p.setProperty(SupervisorConfig.STOMP_PASSWORD_FILE, secret.toString());
        p.setProperty(SupervisorConfig.QUEUE_PRODUCER, "/queue/p");
        p.setProperty(SupervisorConfig.QUEUE_CONTROL, "/queue/c");
        p.setProperty(SupervisorConfig.QUEUE_CONSUMER, "/queue/s");
        p.setProperty(SupervisorConfig.QUEUE_QUARANTINE, "/queue/q");
        p.setProperty(SupervisorConfig.QUEUE_PREFETCH, "7");
        p.setProperty(SupervisorConfig.JOURNAL_DIR, "/var/lib/ei");
        p.setProperty(SupervisorConfig.JOURNAL_MIN_FREE_BYTES, "1048576");
        p.setProperty(SupervisorConfig.JOURNAL_CHECKPOINT_ENTRIES, "5000");
        p.setProperty(SupervisorConfig.JOURNAL_KEEP_SEGMENTS, "3");
        p.setProperty(SupervisorConfig.S3_BUCKET, "b2");
        p.setProperty(SupervisorConfig.HTTP_HOST, "127.0.0.1");
        p.setProperty(SupervisorConfig.HTTP_PORT, "0");
        p.setProperty(SupervisorConfig.KUDU_EPOCH, "4");
        p.setProperty(SupervisorConfig.SIGNAL_RETRY_INITIAL, "250ms");
        p.setProperty(SupervisorConfig.SIGNAL_RETRY_MAX, "PT2M");
        p.setProperty(SupervisorConfig.SHUTDOWN_GRACE, "5s");
        p.setProperty(SupervisorConfig.MESSAGE_MAX_BYTES, "2048");
        p.setProperty(SupervisorConfig.SIGNAL_LEASE, "10m");
        p.setProperty(SupervisorConfig.RETRY_INITIAL, "2s");
        p.setProperty(SupervisorConfig.RETRY_MAX, "3m");
        p.setProperty(SupervisorConfig.RETRY_ATTEMPTS, "2");
        p.setProperty(SupervisorConfig.TICK_INTERVAL, "100ms");
        p.setProperty(SupervisorConfig.KUDU_EPOCH_MAX_EVENTS, "5000000000");
        p.setProperty(SupervisorConfig.KUDU_MASTERS, "km1:7051,km2:7051");
        p.setProperty(SupervisorConfig.KUDU_TABLE_PREFIX, "t_");
        p.setProperty(SupervisorConfig.KUDU_BUCKETS, "8");
        p.setProperty(SupervisorConfig.KUDU_REPLICAS, "1");
        p.setProperty(SupervisorConfig.KERBEROS_PRINCIPAL, "eventindex/sv.example.org@EXAMPLE.ORG");
        p.setProperty(SupervisorConfig.KERBEROS_KEYTAB, "/etc/eventindex/sv.keytab");
        p.setProperty(SupervisorConfig.CATALOGUE_URL, "https://rucio.example:443");
        p.setProperty(SupervisorConfig.CATALOGUE_ACCOUNT, "eventindex");
        p.setProperty(SupervisorConfig.CATALOGUE_USERNAME, "ei");
        p.setProperty(SupervisorConfig.CATALOGUE_INTERVAL, "30s");
        p.setProperty(SupervisorConfig.S3_ENDPOINT, "http://rgw:7480");
        p.setProperty(SupervisorConfig.S3_REGION, "eu-1");
        p.setProperty(SupervisorConfig.S3_ACCESS_KEY, "AK");
        p.setProperty(SupervisorConfig.CLEANUP_RETENTION, "24h");
        p.setProperty(SupervisorConfig.CLEANUP_ORPHAN_RETENTION, "48h");
        p.setProperty(SupervisorConfig.CLEANUP_INTERVAL, "10m");
        p.setProperty(SupervisorConfig.EVENTS_QUEUE, "9");
        p.setProperty(SupervisorConfig.QUEUE_HEARTBEAT, "/queue/h");
        p.setProperty(SupervisorConfig.CONSUMER_MISSING_HEARTBEATS, "4");
        p.setProperty("supervisor.stomp.tls", "true");
        p.setProperty(SupervisorConfig.STOMP_FRAME_MAX_BYTES, "5000");
        p.setProperty(SupervisorConfig.STOMP_FRAME_MAX_HEADER_BYTES, "3000");
        p.setProperty(SupervisorConfig.HISTORY_DAYS, "3");
        p.setProperty(SupervisorConfig.CONSOLE_STUCK_AFTER, "20m");
        p.setProperty(SupervisorConfig.JOURNAL_GROUP_COMMIT_MAX, "6");
        p.setProperty(SupervisorConfig.HA_ENABLED, "TRUE");
        p.setProperty(SupervisorConfig.HA_ID, "sv-2.example.org");
        p.setProperty(SupervisorConfig.HA_LEASE, "6s");
        p.setProperty(SupervisorConfig.HA_RENEW_INTERVAL, "500ms");
        p.setProperty(SupervisorConfig.HA_STORE, "zookeeper");
        p.setProperty(SupervisorConfig.HA_ZOOKEEPER_CONNECT, "zk1:2181,zk2:2181,zk3:2181");
        p.setProperty(SupervisorConfig.HA_ZOOKEEPER_ROOT, "/ei/sv");
        p.setProperty(SupervisorConfig.JOURNAL_HDFS_DIR, "hdfs://ns1/eventindex/supervisor");
        p.setProperty(SupervisorConfig.HADOOP_CONF_DIR, "/etc/hadoop/conf");
        p.setProperty("supervisor.brokers.resolve.interval", "15s");
        p.setProperty(SupervisorConfig.HTTP_ACCESS + "auth", "kerberos");
        p.setProperty(SupervisorConfig.HTTP_ACCESS + "kerberos.principal", "HTTP/sv.example.org@EXAMPLE.ORG");
        p.setProperty(SupervisorConfig.HTTP_ACCESS + "kerberos.keytab", "/etc/eventindex/http.keytab");
        p.setProperty(SupervisorConfig.HTTP_ACCESS + "metrics.port", "9182");
        p.setProperty(SupervisorConfig.VERIFY_INTERVAL, "10m");

        SupervisorConfig c = SupervisorConfig.fromProperties(p, Map.of(SupervisorConfig.ENV_STOMP_PASSWORD, "ignored",
                SupervisorConfig.ENV_RUCIO_PASSWORD, "rucio-pw", SupervisorConfig.ENV_S3_SECRET_KEY, "s3-secret"));

        assertEquals(List.of(new StompEndpoint("mq1", 61613), new StompEndpoint("mq2", 61614)), c.brokers());
        assertEquals("ei", c.stompSettings().login());
        assertEquals("s3cret", c.stompPassword().value());
        assertEquals("/queue/p", c.producerQueue());
        assertEquals("/queue/c", c.controlQueue());
        assertEquals("/queue/s", c.consumerQueue());
        assertEquals("/queue/q", c.quarantine().orElseThrow());
        assertEquals(7, c.prefetch());
        assertEquals(new SupervisorConfig.JournalSettings(Path.of("/var/lib/ei"), 1_048_576, 5000, 3, 6),
                c.journal());
        assertEquals("b2", c.s3Bucket());
        assertEquals("127.0.0.1", c.httpHost());
        assertEquals(0, c.httpPort());
        assertEquals(4, c.kuduEpoch());
        assertEquals(Duration.ofMillis(250), c.signalRetryInitial());
        assertEquals(Duration.ofMinutes(2), c.signalRetryMax());
        assertEquals(Backoff.doubling(Duration.ofMillis(250), Duration.ofMinutes(2)), c.signalBackoff());
        assertEquals(Duration.ofSeconds(5), c.shutdownGrace());
        assertEquals(2048, c.maxMessageBytes());
        assertEquals(new SupervisorConfig.HandOff(Duration.ofMinutes(10), Duration.ofSeconds(2), Duration.ofMinutes(3),
                2, Duration.ofMillis(100)), c.handOff());
        assertEquals(Backoff.doubling(Duration.ofSeconds(2), Duration.ofMinutes(3)), c.handOff().retryBackoff());
        assertEquals(new SupervisorConfig.Epochs(5_000_000_000L, "km1:7051,km2:7051", "t_", 8, 1,
                new ClusterSettings(Path.of("/etc/hadoop/conf"), "eventindex/sv.example.org@EXAMPLE.ORG",
                        Path.of("/etc/eventindex/sv.keytab"),
                        ClusterSettings.Names.keys("supervisor."))), c.epochs());
        assertEquals(new SupervisorConfig.CatalogueSettings("https://rucio.example:443", "eventindex", "ei",
                "rucio-pw", Duration.ofSeconds(30)), c.catalogue());
        assertEquals(new SupervisorConfig.Cleanup("http://rgw:7480", "eu-1", Secret.of("AK"), Secret.of("s3-secret"),
                Duration.ofHours(24),
                Duration.ofHours(48), Duration.ofMinutes(10)), c.cleanup());
        assertEquals(9, c.eventsQueue());
        assertEquals("/queue/h", c.heartbeatQueue());
        assertEquals(4, c.missingHeartbeats());
        assertFalse(c.toString().contains("s3cret"), c.toString());
        assertFalse(c.toString().contains("rucio-pw"), c.toString());
        assertFalse(c.toString().contains("s3-secret"), c.toString());
        assertEquals(new TlsSettings("supervisor.", true, null, null), c.tls());
        assertEquals(new StompFrameLimits(5000, 3000), c.frameLimits());
        assertEquals(new StompFrameLimits(5000, 3000), c.stompSettings().frameLimits());
        assertEquals(new SupervisorConfig.Console(3, Duration.ofMinutes(20)), c.console());
        assertEquals(new SupervisorConfig.Ha(true, "sv-2.example.org", Duration.ofSeconds(6), Duration.ofMillis(500),
                Optional.of(new SupervisorConfig.ZooKeeperStore("zk1:2181,zk2:2181,zk3:2181", "/ei/sv",
                        URI.create("hdfs://ns1/eventindex/supervisor")))), c.ha());
        assertEquals(Duration.ofSeconds(15), c.brokersResolveInterval());
        assertEquals(Duration.ofSeconds(15), c.stompSettings().resolveInterval());
        assertEquals(java.util.Set.of(org.eventindex.ops.HttpAccess.Mechanism.KERBEROS), c.httpAccess().mechanisms());
        assertEquals("HTTP/sv.example.org@EXAMPLE.ORG", c.httpAccess().kerberosPrincipal());
        assertEquals(Path.of("/etc/eventindex/http.keytab"), c.httpAccess().kerberosKeytab());
        assertEquals(Optional.of(9182), c.httpAccess().metricsPort());
        assertFalse(c.httpAccess().tls());
        assertEquals(Duration.ofMinutes(10), c.verifyInterval());
        // the HTTP access keys are HttpAccess's (HttpAccessTest maps each)
        assertEquals(69 + org.eventindex.ops.HttpAccess.keys(SupervisorConfig.HTTP_ACCESS).size(),
                SupervisorConfig.KEYS.size(), "a key was added: map it in this test and in the docs");

        // what /supervisor shows: every key, the secrets and the paths to them only as set or not set
        assertEquals(SupervisorConfig.KEYS.size(), c.shown().size());
        assertEquals("mq1:61613, mq2:61614", c.shown().get(SupervisorConfig.BROKERS));
        assertEquals("eventindex/sv.example.org@EXAMPLE.ORG", c.shown().get(SupervisorConfig.KERBEROS_PRINCIPAL));
        assertEquals("(set)", c.shown().get(SupervisorConfig.STOMP_PASSWORD_FILE), "a file");
        assertEquals("(set)", c.shown().get(SupervisorConfig.KERBEROS_KEYTAB));
        assertEquals("(set)", c.shown().get(SupervisorConfig.S3_SECRET_KEY_FILE), "from the environment");
        assertEquals("(set)", c.shown().get(SupervisorConfig.CATALOGUE_PASSWORD_FILE), "from the environment");
        assertEquals("(not set)", c.shown().get("supervisor.stomp.truststore"));
        String shown = c.shown().toString();
        assertEquals("(set)", c.shown().get(SupervisorConfig.HTTP_ACCESS + "kerberos.keytab"), "the HTTP keytab");
        for (String hidden : List.of(secret.toString(), "sv.keytab", "http.keytab", "s3cret", "rucio-pw",
                "s3-secret")) {
            assertFalse(shown.contains(hidden), hidden + " in " + shown);
        }
    }

    /** A new key whose name says it holds a secret or the path to one must be declared so, or /supervisor shows it. */
    @Test
    void everyKeyWhoseNameLooksLikeASecretIsMarkedSecret() {
        assertEquals(List.of(), SupervisorConfig.KEYS.stream().filter(org.eventindex.config.ConfigKey::unmarkedSecret)
                .map(org.eventindex.config.ConfigKey::name).toList());
        assertTrue(SupervisorConfig.KEYS.stream().filter(k -> k.sensitivity()
                != org.eventindex.config.ConfigKey.Sensitivity.PLAIN).count() >= 8, "the secret keys are marked");
    }

    @Test
    void frameLimitsOutsideTheirRangeAreRefusedNamingTheKey() throws IOException {
        assertEquals(StompFrameLimits.DEFAULT, SupervisorConfig.fromProperties(new Properties(), Map.of())
                .stompSettings().frameLimits());
        for (String[] bad : new String[][] {{SupervisorConfig.STOMP_FRAME_MAX_BYTES, "0"},
                {SupervisorConfig.STOMP_FRAME_MAX_BYTES, "-5"}, {SupervisorConfig.STOMP_FRAME_MAX_BYTES, "1073741825"},
                {SupervisorConfig.STOMP_FRAME_MAX_BYTES, "99999999999"},
                {SupervisorConfig.STOMP_FRAME_MAX_HEADER_BYTES, "1023"},
                {SupervisorConfig.STOMP_FRAME_MAX_HEADER_BYTES, "67108865"}}) {
            Properties p = new Properties();
            p.setProperty(bad[0], bad[1]);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> SupervisorConfig.fromProperties(p, Map.of()));
            assertTrue(e.getMessage().startsWith(bad[0] + " must be in 1024.."), e.getMessage());
        }
    }

    @Test
    void aBackoffCapShorterThanItsFirstWaitIsRefusedNamingBothKeys() {
        for (String[] keys : new String[][] {{SupervisorConfig.SIGNAL_RETRY_INITIAL, SupervisorConfig.SIGNAL_RETRY_MAX},
                {SupervisorConfig.RETRY_INITIAL, SupervisorConfig.RETRY_MAX}}) {
            Properties p = new Properties();
            p.setProperty(keys[0], "10m");
            p.setProperty(keys[1], "1m");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> SupervisorConfig.fromProperties(p, Map.of()));
            assertEquals(keys[1] + " (PT1M) is shorter than " + keys[0] + " (PT10M)", e.getMessage());
        }
    }

    @Test
    void passwordFromTheEnvironmentWhenNoFile() throws IOException {
        SupervisorConfig c = SupervisorConfig.fromProperties(new Properties(),
                Map.of(SupervisorConfig.ENV_STOMP_PASSWORD, " pw "));
        assertEquals("pw", c.stompPassword().value());
    }

    /** The journal is the only durable state: it must not land wherever the daemon happened to be started. */
    @Test
    void theZooKeeperStoreIsRefusedNamingTheKeyItLacks() {
        String[][] cases = {
                {"zookeeper", "", "hdfs://ns1/j", SupervisorConfig.HA_ZOOKEEPER_CONNECT},
                {"zookeeper", "zk1:2181", "", SupervisorConfig.JOURNAL_HDFS_DIR},
                {"zookeeper", "zk1:2181", "s3a://bucket/j", SupervisorConfig.JOURNAL_HDFS_DIR},
                {"zookeeper", "zk1:2181", "relative/j", SupervisorConfig.JOURNAL_HDFS_DIR},
                {"zk", "zk1:2181", "/j", SupervisorConfig.HA_STORE}};
        for (String[] c : cases) {
            Properties p = new Properties();
            p.setProperty(SupervisorConfig.HA_STORE, c[0]);
            p.setProperty(SupervisorConfig.HA_ZOOKEEPER_CONNECT, c[1]);
            p.setProperty(SupervisorConfig.JOURNAL_HDFS_DIR, c[2]);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> SupervisorConfig.fromProperties(p, Map.of()), String.join(" ", c));
            assertTrue(e.getMessage().startsWith(c[3]), e.getMessage());
        }
        Properties ok = new Properties();
        ok.setProperty(SupervisorConfig.HA_STORE, "zookeeper");
        ok.setProperty(SupervisorConfig.HA_ZOOKEEPER_CONNECT, "zk1:2181,zk2:2181/chroot");
        ok.setProperty(SupervisorConfig.JOURNAL_HDFS_DIR, "/eventindex/supervisor/journal");
        assertDoesNotThrow(() -> SupervisorConfig.fromProperties(ok, Map.of()));
    }

    @Test
    void aRelativeJournalDirectoryIsRefusedNamingTheKey() {
        Properties p = new Properties();
        p.setProperty(SupervisorConfig.JOURNAL_DIR, "supervisor-journal");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SupervisorConfig.fromProperties(p, Map.of()));
        assertEquals("supervisor.journal.dir 'supervisor-journal' must be an absolute path", e.getMessage());
        assertTrue(Path.of(SupervisorConfig.KEYS.stream().filter(k -> k.name().equals(SupervisorConfig.JOURNAL_DIR))
                .findFirst().orElseThrow().defaultValue()).isAbsolute());
    }

    @Test
    void errorsNameTheKey() {
        assertKeyError(SupervisorConfig.KUDU_EPOCH, "-1");
        assertKeyError(SupervisorConfig.HTTP_PORT, "http");
        assertKeyError(SupervisorConfig.SIGNAL_RETRY_INITIAL, "soon");
        assertKeyError(SupervisorConfig.QUEUE_CONSUMER, "atlas.consumer");
        assertKeyError(SupervisorConfig.QUEUE_PREFETCH, "0");
        assertKeyError("supervisor.kudu.epohc", "1");
        assertKeyError(SupervisorConfig.QUEUE_CONSUMER, Queues.SUPERVISOR);
        assertKeyError(SupervisorConfig.SIGNAL_LEASE, "0s");
        assertKeyError(SupervisorConfig.KUDU_EPOCH_MAX_EVENTS, "0");
        assertKeyError(SupervisorConfig.CLEANUP_ORPHAN_RETENTION, "1h");
        assertKeyError(SupervisorConfig.CATALOGUE_URL, "https://rucio.example");
        assertKeyError(SupervisorConfig.MESSAGE_MAX_BYTES, "10");
        assertKeyError(SupervisorConfig.S3_ENDPOINT, "rgw.example:7480");
        assertKeyError(SupervisorConfig.S3_ENDPOINT, "http://rgw.example:7480/eventindex");
        assertKeyError(SupervisorConfig.JOURNAL_CHECKPOINT_ENTRIES, "-1");
        assertKeyError(SupervisorConfig.JOURNAL_KEEP_SEGMENTS, "-1");
    }

    private static void assertKeyError(String key, String value) {
        Properties p = new Properties();
        p.setProperty(key, value);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SupervisorConfig.fromProperties(p, Map.of()));
        assertTrue(e.getMessage().contains(key) || e.getMessage().contains(value), e.getMessage());
    }

    @Test
    void standbySettingsAreOffByDefaultAndBadOnesAreRefusedNamingTheKey() throws IOException {
        SupervisorConfig.Ha off = SupervisorConfig.fromProperties(new Properties(), Map.of()).ha();
        assertFalse(off.enabled(), "the only supervisor unless asked");
        assertEquals(SupervisorConfig.Ha.off(), off);
        for (String[] bad : new String[][] {{SupervisorConfig.HA_ENABLED, "yes"}, {SupervisorConfig.HA_ID, "a b"},
                {SupervisorConfig.HA_LEASE, "0s"}, {SupervisorConfig.HA_RENEW_INTERVAL, "6s"}}) {
            Properties p = new Properties();
            p.setProperty(bad[0], bad[1]);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> SupervisorConfig.fromProperties(p, Map.of()), bad[0] + "=" + bad[1]);
            assertTrue(e.getMessage().contains(bad[0]), e.getMessage());
        }
    }

    @Test
    void docsListEveryKeyWithItsDefault() throws IOException {
        Path doc = Path.of("..", "docs", "supervisor.md");
        String text = Files.readString(doc);
        for (org.eventindex.config.ConfigKey k : SupervisorConfig.KEYS) {
            String def = k.defaultValue().isEmpty() ? "(empty)" : "`" + k.defaultValue() + "`";
            String row = "| `" + k.name() + "` | " + def + " |";
            assertTrue(text.contains(row), doc + " lacks the row starting " + row);
        }
    }
}
