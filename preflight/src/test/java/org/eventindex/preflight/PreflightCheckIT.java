package org.eventindex.preflight;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.eventindex.consumer.ConsumerConfig;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.message.Queues;
import org.eventindex.producer.ProducerArgs;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.spb.SpbWriter;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.testing.BrokerAccess;
import org.eventindex.testing.ChildJvm;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.EmbeddedKudu;
import org.eventindex.testing.EmbeddedS3;
import org.eventindex.testing.ZooKeeperEnsemble;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code eventindex check} against real services started here, shared by every case: a secured ActiveMQ broker (one
 * login per role, the deployment's access rules), S3Proxy, a MiniDFSCluster, Kudu and a ZooKeeper server. Green for
 * the consumer's and the supervisor's configuration and the producer's options, with nothing left behind (no message
 * on a queue or in the dead-letter queue, no probe object, no probe file); then each dependency broken in turn, and
 * its check must name it.
 */
class PreflightCheckIT {
    private static final String BUCKET = "eventindex";
    private static final String PREFIX = "pf_";
    private static final String ROOT = "/eventindex/datasets";
    private static final String JOURNAL = "/eventindex/journal";
    private static final Map<String, String> PASSWORDS = Map.of(BrokerAccess.CONSUMERS, "consumer-pw",
            BrokerAccess.SUPERVISORS, "supervisor-pw", BrokerAccess.PRODUCERS, "producer-pw");

    @TempDir
    static java.nio.file.Path tmp;
    static EmbeddedBroker broker;
    static EmbeddedS3 s3;
    static EmbeddedHdfs hdfs;
    static EmbeddedKudu kudu;
    static ZooKeeperEnsemble zk;
    static KuduTables tables;

    @BeforeAll
    static void start() throws Exception {
        broker = EmbeddedBroker.startSecured(tmp.resolve("broker"), EmbeddedBroker.Security.onePerGroup(PASSWORDS));
        s3 = EmbeddedS3.start(tmp.resolve("s3"), "check-access", "check-secret");
        s3.createBucket(BUCKET);
        hdfs = EmbeddedHdfs.start(tmp.resolve("hdfs"));
        hdfs.fs().mkdirs(new Path(ROOT));
        hdfs.fs().mkdirs(new Path(JOURNAL));
        kudu = EmbeddedKudu.start(tmp.resolve("kudu"), 1);
        tables = new KuduTables(kudu.client(), new KuduTablesConfig(PREFIX, 2, 1));
        tables.createOrVerify(1);
        zk = ZooKeeperEnsemble.start(tmp.resolve("zk"), 1);
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[]{zk, kudu, hdfs, s3, broker}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    // keep closing the others; the temp folder goes anyway
                }
            }
        }
    }

    /** The output and exit status of one run. */
    record Run(int status, String out, String err) {
        List<String> failed() {
            return out.lines().filter(l -> l.startsWith("FAIL ")).toList();
        }

        String failedLine(String check) {
            return failed().stream().filter(l -> l.startsWith("FAIL " + check + " ")).findFirst()
                    .orElseThrow(() -> new AssertionError("no FAIL line for " + check + " in:\n" + out + err));
        }
    }

    private static Run check(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = CheckMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env);
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static Properties consumer() {
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.BROKERS, broker.stompEndpoints());
        p.setProperty(ConsumerConfig.STOMP_USER, BrokerAccess.CONSUMERS);
        p.setProperty(ConsumerConfig.S3_ENDPOINT, s3.endpoint().toString());
        p.setProperty(ConsumerConfig.S3_BUCKET, BUCKET);
        p.setProperty(ConsumerConfig.S3_ACCESS_KEY, s3.accessKey());
        p.setProperty(ConsumerConfig.HDFS_URI, hdfs.uri().toString());
        p.setProperty(ConsumerConfig.HDFS_ROOT, ROOT);
        p.setProperty(ConsumerConfig.KUDU_MASTERS, kudu.masterAddresses());
        p.setProperty(ConsumerConfig.KUDU_TABLE_PREFIX, PREFIX);
        p.setProperty(ConsumerConfig.SPOOL_DIR, tmp.resolve("spool").toString());
        return p;
    }

    private static Map<String, String> secrets(String stompPassword, String s3Secret) {
        Map<String, String> env = new HashMap<>();
        env.put(ConsumerConfig.ENV_STOMP_PASSWORD, stompPassword);
        env.put(ConsumerConfig.ENV_S3_SECRET_KEY, s3Secret);
        return env;
    }

    private static Map<String, String> consumerSecrets() {
        return secrets(PASSWORDS.get(BrokerAccess.CONSUMERS), s3.secretKey());
    }

    private static java.nio.file.Path file(String name, Properties p) throws IOException {
        java.nio.file.Path f = Files.createDirectories(tmp.resolve("conf")).resolve(name);
        try (var out = Files.newBufferedWriter(f)) {
            p.store(out, null);
        }
        return f;
    }

    private static Run consumerCheck(Properties p, Map<String, String> env, String... more) throws IOException {
        List<String> args = new ArrayList<>(List.of("consumer", "--config", file("consumer-" + System.nanoTime()
                + ".properties", p).toString(), "--timeout", "5"));
        args.addAll(List.of(more));
        return check(env, args.toArray(String[]::new));
    }

    @Test
    void consumerIsGreenAndLeavesNothingBehind() throws Exception {
        Run run = consumerCheck(consumer(), consumerSecrets());
        assertEquals(0, run.status(), run.out() + run.err());
        for (String name : List.of("cluster.login", "broker", "s3.read", "hdfs.nameservice", "hdfs.root",
                "kudu.masters", "kudu.tables", "kudu.read", "kudu.write")) {
            assertTrue(run.out().lines().anyMatch(l -> l.startsWith("OK   " + name + " ")), name + " in\n" + run.out());
        }
        assertTrue(run.out().contains("all 9 checks passed"), run.out());
        assertEquals(0, broker.queueSize(Queues.SUPERVISOR_CONTROL), "probe message left on the report queue");
        assertEquals(0, broker.queueSize(Queues.SUPERVISOR_HEARTBEAT), "probe message left on the heartbeat queue");
        assertEquals(0, broker.queueSize(EmbeddedBroker.DLQ), "probe message in the dead-letter queue");
        assertEquals(List.of(), s3.keys(BUCKET));
        FileStatus[] left = hdfs.fs().listStatus(new Path(ROOT));
        assertEquals(0, left.length, "probe file left in " + ROOT);
    }

    @Test
    void wrongBrokerPasswordIsTheBrokerLine() throws Exception {
        Run run = consumerCheck(consumer(), secrets("not-the-password", s3.secretKey()));
        assertEquals(CheckMain.FAILED, run.status());
        assertEquals(1, run.failed().size(), run.out());
        String line = run.failedLine("broker");
        assertTrue(line.contains(broker.stompEndpoints()) && line.contains("as consumers"), line);
        assertTrue(line.contains("fix: check that the broker runs, then " + ConsumerConfig.STOMP_USER), line);
    }

    @Test
    void loginWithoutTheRoleRightsNamesTheQueue() throws Exception {
        Properties p = consumer();
        p.setProperty(ConsumerConfig.STOMP_USER, BrokerAccess.PRODUCERS);
        Run run = consumerCheck(p, secrets(PASSWORDS.get(BrokerAccess.PRODUCERS), s3.secretKey()));
        assertEquals(CheckMain.FAILED, run.status());
        String line = run.failedLine("broker");
        assertTrue(line.contains("atlas.eventindex.supervisor.control"), line);
        assertEquals(0, broker.queueSize(Queues.SUPERVISOR_CONTROL));
    }

    @Test
    void missingBucketAndWrongSecretAreTheS3Line() throws Exception {
        Properties p = consumer();
        p.setProperty(ConsumerConfig.S3_BUCKET, "no-such-bucket");
        String missing = consumerCheck(p, consumerSecrets()).failedLine("s3.read");
        assertTrue(missing.contains("no-such-bucket") && missing.contains("NoSuchBucket"), missing);

        Run wrongKey = consumerCheck(consumer(), secrets(PASSWORDS.get(BrokerAccess.CONSUMERS), "not-the-secret"));
        assertEquals(1, wrongKey.failed().size(), wrongKey.out());
        String line = wrongKey.failedLine("s3.read");
        assertTrue(line.contains("HTTP 403"), line);
    }

    @Test
    void hdfsRootOwnedBySomeoneElseIsTheHdfsLine() throws Exception {
        String other = "/eventindex/others";
        hdfs.fs().mkdirs(new Path(other));
        hdfs.fs().setOwner(new Path(other), "alice", "physics");
        Properties p = consumer();
        p.setProperty(ConsumerConfig.HDFS_ROOT, other);
        Run run = consumerCheck(p, consumerSecrets());
        assertEquals(1, run.failed().size(), run.out());
        String line = run.failedLine("hdfs.root");
        assertTrue(line.contains(other) && line.contains("owned by alice:physics"), line);
        assertTrue(line.contains("hdfs dfs -chown"), line);

        // not there yet, in a parent the daemon's user may write: it creates it at its first start (a parent it may
        // not write cannot be tried here: the test runs as the MiniDFSCluster's superuser)
        p.setProperty(ConsumerConfig.HDFS_ROOT, "/eventindex/later/datasets");
        Run later = consumerCheck(p, consumerSecrets());
        assertEquals(0, later.status(), later.out());
        assertFalse(hdfs.fs().exists(new Path("/eventindex/later")), "the check created the folder");
    }

    @Test
    void missingKuduTableIsTheTablesLine() throws Exception {
        String table = PREFIX + "TRIGGERCOUNT";
        kudu.client().deleteTable(table);
        try {
            Run run = consumerCheck(consumer(), consumerSecrets(), "--json");
            assertEquals(CheckMain.FAILED, run.status());
            JsonNode doc = new ObjectMapper().readTree(run.out());
            assertFalse(doc.get("ok").asBoolean());
            List<String> failed = new ArrayList<>();
            doc.get("checks").forEach(c -> {
                if (!c.get("ok").asBoolean()) {
                    failed.add(c.get("name").asText() + ": " + c.get("reason").asText() + " / " + c.get("fix").asText());
                }
            });
            assertEquals(1, failed.size(), failed.toString());
            assertTrue(failed.get(0).startsWith("kudu.tables: Kudu masters " + kudu.masterAddresses()
                    + " answer but table(s) " + table + " do not exist"), failed.get(0));
            assertTrue(failed.get(0).contains("kudu-loader create-tables"), failed.get(0));
        } finally {
            tables.createOrVerify(1);
        }
    }

    @Test
    void aBrokerThatDoesNotAnswerFailsAfterTheTimeout() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            List<Socket> accepted = new ArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept()); // holds the connection, never answers
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            Properties p = consumer();
            p.setProperty(ConsumerConfig.BROKERS, "127.0.0.1:" + silent.getLocalPort());
            long start = System.nanoTime();
            Run run = check(consumerSecrets(), "consumer", "--config", file("silent.properties", p).toString(),
                    "--timeout", "2");
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            String line = run.failedLine("broker");
            assertTrue(line.contains("127.0.0.1:" + silent.getLocalPort()) && line.contains("no answer within 2 s"),
                    line);
            assertEquals(1, run.failed().size(), run.out());
            assertTrue(seconds < 15, "took " + seconds + " s");
        }
    }

    private static Properties supervisor(String zooKeeper) {
        Properties p = new Properties();
        p.setProperty(SupervisorConfig.BROKERS, broker.stompEndpoints());
        p.setProperty(SupervisorConfig.STOMP_USER, BrokerAccess.SUPERVISORS);
        p.setProperty(SupervisorConfig.JOURNAL_DIR, tmp.resolve("journal").toString());
        p.setProperty(SupervisorConfig.S3_BUCKET, BUCKET);
        p.setProperty(SupervisorConfig.S3_ENDPOINT, s3.endpoint().toString());
        p.setProperty(SupervisorConfig.S3_ACCESS_KEY, s3.accessKey());
        p.setProperty(SupervisorConfig.KUDU_MASTERS, kudu.masterAddresses());
        p.setProperty(SupervisorConfig.KUDU_TABLE_PREFIX, PREFIX);
        p.setProperty(SupervisorConfig.HA_ENABLED, "true");
        p.setProperty(SupervisorConfig.HA_STORE, "zookeeper");
        p.setProperty(SupervisorConfig.HA_ZOOKEEPER_CONNECT, zooKeeper);
        p.setProperty(SupervisorConfig.JOURNAL_HDFS_DIR, hdfs.uri() + JOURNAL);
        return p;
    }

    private static Run supervisorCheck(Properties p) throws IOException {
        Map<String, String> env = Map.of(SupervisorConfig.ENV_STOMP_PASSWORD, PASSWORDS.get(BrokerAccess.SUPERVISORS),
                SupervisorConfig.ENV_S3_SECRET_KEY, s3.secretKey());
        return check(env, "supervisor", "--config", file("supervisor-" + System.nanoTime() + ".properties", p)
                .toString(), "--timeout", "3");
    }

    @Test
    void supervisorWithZooKeeperIsGreenThenNamesTheQuorumThatIsDown() throws Exception {
        Run green = supervisorCheck(supervisor(zk.connectString()));
        assertEquals(0, green.status(), green.out() + green.err());
        for (String name : List.of("cluster.login", "broker", "s3.delete", "kudu.masters", "kudu.tables", "kudu.read",
                "zookeeper", "hdfs.nameservice", "hdfs.root")) {
            assertTrue(green.out().lines().anyMatch(l -> l.startsWith("OK   " + name + " ")), name + " in\n"
                    + green.out());
        }
        assertEquals(0, broker.queueSize(Queues.CONSUMER), "probe message left on the consumers' queue");
        assertEquals(0, broker.queueSize(EmbeddedBroker.DLQ));

        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        Run down = supervisorCheck(supervisor("127.0.0.1:" + closed));
        assertEquals(CheckMain.FAILED, down.status());
        assertEquals(1, down.failed().size(), down.out());
        String line = down.failedLine("zookeeper");
        assertTrue(line.contains("no ZooKeeper server of 127.0.0.1:" + closed + " answered within 2250 ms")
                && line.contains(SupervisorConfig.HA_ZOOKEEPER_CONNECT), line);
    }

    @Test
    void supervisorWithAMissingBucketIsTheS3DeleteLine() throws Exception {
        Properties p = supervisor(zk.connectString());
        p.setProperty(SupervisorConfig.S3_BUCKET, "no-such-bucket");
        Run run = supervisorCheck(p);
        assertEquals(CheckMain.FAILED, run.status());
        assertEquals(1, run.failed().size(), run.out());
        // a DELETE alone passes here (S3Proxy answers 204 on a missing bucket): the LIST before it does not
        String line = run.failedLine("s3.delete");
        assertTrue(line.contains("S3 refused the LIST of eventindex-check/ in bucket no-such-bucket: HTTP 404"
                + " NoSuchBucket"), line);
    }

    /** A grid job's SPB file of task 4242.G: the producer would store it under panda/4242/. */
    private static java.nio.file.Path spbFile() throws IOException {
        java.nio.file.Path f = tmp.resolve("4242.G_7.ei.spb");
        if (!Files.exists(f)) {
            try (var out = Files.newOutputStream(f); SpbWriter w = new SpbWriter(out)) {
                w.header(Header_p1.newBuilder().setStartProcTime(1_600_000_000_000L).setTaskID("4242.G").setJobID("7")
                        .setInputDsName("data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824")
                        .setProvenanceRef(true).setTriggerInfo(false).build());
                w.beginGuid(BeginGUID_p1.newBuilder().setStartProcTime(1_600_000_000_100L).setAMITag("f838_m1824")
                        .setTrigStream("physics_Main").setProjName("data17_13TeV")
                        .setGuid("0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F0").build());
                w.event(EIEvent_p1.newBuilder().setRunNumber(327636).setEventNumber(1).setLumiBlock(10)
                        .setTimeStamp(1_600_000_000).setTimeStampNSOffset(0).setBcid(1).setIsSimulation(false)
                        .setIsCalibration(false).setIsTestBeam(false).build());
                w.endGuid(1_600_000_000_200L);
                w.finish(1_600_000_000_300L);
            }
        }
        return f;
    }

    /** {@code check producer} with the producer's own options, its secrets from the environment as a job has them. */
    private static Run producerCheck(String stompPassword, String bucket) throws IOException {
        Map<String, String> env = Map.of(ProducerArgs.ENV_STOMP_PASSWORD, stompPassword,
                ProducerArgs.ENV_S3_SECRET_KEY, s3.secretKey());
        return check(env, "producer", spbFile().toString(), "--brokers", broker.stompEndpoints(), "--user",
                BrokerAccess.PRODUCERS, "--s3-endpoint", s3.endpoint().toString(), "--bucket", bucket,
                "--access-key", s3.accessKey(), "--timeout", "5");
    }

    @Test
    void producerIsGreenAndLeavesNothingBehind() throws Exception {
        Run run = producerCheck(PASSWORDS.get(BrokerAccess.PRODUCERS), BUCKET);
        assertEquals(0, run.status(), run.out() + run.err());
        assertTrue(run.out().lines().anyMatch(l -> l.startsWith("OK   broker ") && l.contains("as producers (send to "
                + Queues.SUPERVISOR + ")")), run.out());
        assertTrue(run.out().lines().anyMatch(l -> l.startsWith("OK   s3.write ") && l.contains("S3 bucket " + BUCKET
                + " at " + s3.endpoint() + " written under panda/4242/ by " + s3.accessKey())), run.out());
        assertTrue(run.out().contains("all 2 checks passed"), run.out());
        assertEquals(0, broker.queueSize(Queues.SUPERVISOR), "probe message left on the producers' queue");
        assertEquals(0, broker.queueSize(EmbeddedBroker.DLQ), "probe message in the dead-letter queue");
        assertEquals(List.of(), s3.keys(BUCKET));
    }

    @Test
    void producerWithAWrongBrokerPasswordIsTheBrokerLine() throws Exception {
        Run run = producerCheck("not-the-password", BUCKET);
        assertEquals(CheckMain.FAILED, run.status());
        assertEquals(1, run.failed().size(), run.out());
        String line = run.failedLine("broker");
        assertTrue(line.contains(broker.stompEndpoints()) && line.contains("as producers"), line);
        assertTrue(line.contains("fix: check that the broker runs, then --user and its password file"), line);
    }

    @Test
    void producerWithAMissingBucketIsTheS3Line() throws Exception {
        Run run = producerCheck(PASSWORDS.get(BrokerAccess.PRODUCERS), "no-such-bucket");
        assertEquals(CheckMain.FAILED, run.status());
        assertEquals(1, run.failed().size(), run.out());
        String line = run.failedLine("s3.write");
        assertTrue(line.contains("S3 refused the CreateMultipartUpload of panda/4242/eventindex-check-")
                && line.contains("in bucket no-such-bucket: HTTP 404 NoSuchBucket"), line);
        assertTrue(line.contains("s3:AbortMultipartUpload"), line);
    }

    @Test
    void aConfigurationTheDaemonRefusesStopsBeforeAnyCheck() throws Exception {
        Properties p = consumer();
        p.setProperty("consumer.hdfs.rot", "/x");
        Run run = consumerCheck(p, consumerSecrets());
        assertEquals(2, run.status());
        assertEquals("", run.out());
        assertTrue(run.err().contains("consumer.hdfs.rot") && run.err().contains(ConsumerConfig.HDFS_ROOT), run.err());

        Run zero = check(consumerSecrets(), "consumer", "--config", file("zero.properties", consumer()).toString(),
                "--timeout", "0");
        assertEquals(2, zero.status());
        assertTrue(zero.err().contains("--timeout must be at least 1 second"), zero.err());
    }

    @Test
    void aKeytabThatDoesNotLogInIsTheLoginLine() throws Exception {
        java.nio.file.Path keytab = tmp.resolve("broken.keytab");
        Files.write(keytab, new byte[]{5, 2, 0, 0, 0, 1});
        Files.setPosixFilePermissions(keytab, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        java.nio.file.Path log = tmp.resolve("keytab-check.log");
        Process p = ChildJvm.main(CheckMain.class).quickStart().heap("256m")
                .args("kudu-loader", "--masters", kudu.masterAddresses(), "--prefix", PREFIX,
                        "--kerberos-principal", "eventindex/localhost@EXAMPLE.ORG", "--kerberos-keytab",
                        keytab.toString(), "--timeout", "10").start(log);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "check did not end");
        String out = Files.readString(log);
        assertEquals(CheckMain.FAILED, p.exitValue(), out);
        String line = out.lines().filter(l -> l.startsWith("FAIL cluster.login ")).findFirst()
                .orElseThrow(() -> new AssertionError(out));
        assertTrue(line.contains("the keytab holds no key of this principal"), line);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("FAIL kudu.masters ")
                && l.endsWith(": not tried: cluster.login failed; fix: fix cluster.login first")), out);
    }
}
