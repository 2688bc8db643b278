package org.eventindex.deploy;

import org.eventindex.config.SecretFile;
import org.eventindex.config.TlsSettings;
import org.eventindex.consumer.ConsumerConfig;
import org.eventindex.consumer.ConsumerMain;
import org.eventindex.consumer.ConsumerMetrics;
import org.eventindex.gen.DatasetGenerator;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.stomp.StompSender;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.supervisor.SupervisorMain;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.EmbeddedKudu;
import org.eventindex.testing.EmbeddedS3;
import org.eventindex.testing.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.eventindex.testing.Ports;
import org.eventindex.testing.ChildJvm;

import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No secret leaks from the daemons: the supervisor and consumers run as processes (as in production) with every log
 * at DEBUG (slf4j-simple, the daemons' logging backend, for every logger: ours and the HDFS, Kudu, AWS and HTTP
 * clients'), their secrets from mode-0600 files and from the environment (broker passwords, S3 secret keys, trust
 * store passwords). They consolidate a dataset, then fail on purpose: a consumer with a wrong S3 secret key (access
 * denied), one with a wrong broker password (login refused), a wrong trust store password and bad configuration
 * values. Every line they print, every {@code /status}, {@code /metrics} and dataset view, and the producers' output
 * are then searched for every secret value.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class SecretLeakIT {
    private static final Logger LOG = LoggerFactory.getLogger(SecretLeakIT.class);
    private static final String BUCKET = "eventindex";
    private static final String ACCESS_KEY = "eventindex-leak-test";
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    /** Kept after the run (under target/), so that a leak can be looked at in the logs. */
    private Path work;

    private final BrokerLogins logins = BrokerLogins.random();
    private final String s3Secret = secret("s3");
    private final String wrongS3Secret = secret("wrong-s3");
    private final String wrongStompPassword = secret("wrong-stomp");
    private final String wrongTrustPassword = secret("wrong-trust");
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<AutoCloseable> started = new ArrayList<>();
    private final List<Process> processes = new ArrayList<>();
    /** Everything to search: name to text. */
    private final Map<String, String> captured = new LinkedHashMap<>();
    private EmbeddedBroker broker;
    private EmbeddedS3 s3;
    private EmbeddedHdfs hdfs;
    private EmbeddedKudu kudu;
    private TestCertificates certificates;
    private KuduTablesConfig tables;
    private Path secrets;

    @BeforeAll
    void startServices() throws IOException {
        work = Files.createDirectories(Path.of("target", "secret-leak-it-" + System.currentTimeMillis())
                .toAbsolutePath());
        secrets = work.resolve("secrets");
        logins.writeTo(secrets);
        SecretFile.write(secrets.resolve("s3-secret"), s3Secret);
        SecretFile.write(secrets.resolve("wrong-s3-secret"), wrongS3Secret);
        SecretFile.write(secrets.resolve("wrong-trust"), wrongTrustPassword);
        certificates = TestCertificates.create(work.resolve("tls"));
        broker = track(EmbeddedBroker.startSecured(work.resolve("broker"), logins.security()));
        s3 = track(EmbeddedS3.start(work.resolve("s3"), ACCESS_KEY, s3Secret));
        s3.createBucket(BUCKET);
        hdfs = track(EmbeddedHdfs.start(work.resolve("hdfs")));
        kudu = track(EmbeddedKudu.start(work.resolve("kudu"), 1));
        tables = new KuduTablesConfig("leak_", 2, 1);
        new KuduTables(kudu.client(), tables).createOrVerify(1);
    }

    @AfterAll
    void stopAll() {
        processes.forEach(SecretLeakIT::stop);
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                LOG.warn("stopping {} failed", started.get(i), e);
            }
        }
    }

    @Test
    void noSecretInLogsOperationsPagesOrErrorsThroughADatasetAndFailures() throws Exception {
        int supervisorPort = Ports.free();
        start("supervisor", SupervisorMain.class, supervisorConfig(supervisorPort),
                Map.of(SupervisorConfig.ENV_S3_SECRET_KEY, s3Secret,
                        TlsSettings.ENV_S3_TRUSTSTORE_PASSWORD, certificates.trustStorePassword()));
        awaitReady("supervisor", supervisorPort);

        // A normal dataset, through a consumer whose secrets come from files and the environment.
        int goodPort = Ports.free();
        Map<String, String> goodConfig = consumerConfig("good", goodPort, secrets.resolve("s3-secret"),
                certificates.trustStorePasswordFile());
        Process good = start("consumer-good", ConsumerMain.class, goodConfig,
                Map.of(ConsumerConfig.ENV_STOMP_PASSWORD, logins.password(BrokerLogins.CONSUMER)));
        awaitReady("consumer-good", goodPort);
        GeneratedDataset first = publish(1);
        awaitState(supervisorPort, first.datasetName(), "DONE");
        capturePages("consumer-good", goodPort);
        stop(good);

        // A wrong S3 secret key: the object store denies access, the dataset attempt fails (and is retried later).
        int badS3Port = Ports.free();
        Process badS3 = start("consumer-bad-s3", ConsumerMain.class,
                consumerConfig("bad-s3", badS3Port, secrets.resolve("wrong-s3-secret"),
                        certificates.trustStorePasswordFile()),
                Map.of(ConsumerConfig.ENV_STOMP_PASSWORD, logins.password(BrokerLogins.CONSUMER)));
        awaitReady("consumer-bad-s3", badS3Port);
        GeneratedDataset second = publish(2);
        Await.until("the consumer with a wrong S3 secret failing a dataset", TIMEOUT,
                () -> get(badS3Port, "/metrics").contains(ConsumerMetrics.SIGNALS_FAILED + " 1"));
        capturePages("consumer-bad-s3", badS3Port);
        captured.put("supervisor /datasets/" + second.datasetName(), get(supervisorPort, "/datasets/"
                + URLEncoder.encode(second.datasetName(), StandardCharsets.UTF_8)));
        stop(badS3);

        // A wrong broker password: the login is refused and the consumer keeps trying (it does not die of it).
        int badLoginPort = Ports.free();
        Process badLogin = start("consumer-bad-login", ConsumerMain.class,
                consumerConfig("bad-login", badLoginPort, secrets.resolve("s3-secret"),
                        certificates.trustStorePasswordFile()),
                Map.of(ConsumerConfig.ENV_STOMP_PASSWORD, wrongStompPassword));
        Await.until("the consumer with a wrong broker password retrying its login", TIMEOUT,
                () -> read(log("consumer-bad-login")).contains("; retry 2 in "));
        assertTrue(badLogin.isAlive(), "a refused login killed the consumer; see " + log("consumer-bad-login"));
        capturePages("consumer-bad-login", badLoginPort);
        stop(badLogin);

        // A wrong trust store password, and bad values next to good secrets: refused at start, naming the key.
        Map<String, String> badTrust = new TreeMap<>(goodConfig);
        badTrust.put("consumer.s3.truststore.password.file", secrets.resolve("wrong-trust").toString());
        assertEquals(1, runToExit("consumer-bad-trust", ConsumerMain.class, badTrust,
                Map.of(ConsumerConfig.ENV_STOMP_PASSWORD, logins.password(BrokerLogins.CONSUMER))));
        Map<String, String> badValue = new TreeMap<>(goodConfig);
        badValue.put(ConsumerConfig.FETCH_THREADS, "many");
        assertEquals(2, runToExit("consumer-bad-value", ConsumerMain.class, badValue,
                Map.of(ConsumerConfig.ENV_STOMP_PASSWORD, logins.password(BrokerLogins.CONSUMER))));
        Map<String, String> badSupervisor = new TreeMap<>(supervisorConfig(Ports.free()));
        badSupervisor.put(SupervisorConfig.RETRY_MAX, "soon");
        assertEquals(2, runToExit("supervisor-bad-value", SupervisorMain.class, badSupervisor,
                Map.of(SupervisorConfig.ENV_S3_SECRET_KEY, s3Secret)));
        capturePages("supervisor", supervisorPort);
        captured.put("supervisor /datasets/" + first.datasetName(), get(supervisorPort, "/datasets/"
                + URLEncoder.encode(first.datasetName(), StandardCharsets.UTF_8)));
        captured.put("supervisor.log", read(log("supervisor")));

        // The failures did happen, for the reasons intended, and the logs are at DEBUG.
        // S3 answers a request signed with a wrong secret key with 403 SignatureDoesNotMatch.
        assertTrue(captured.get("consumer-bad-s3.log").contains("S3 refused the GET: HTTP 403"),
                "no access-denied error in the log");
        assertTrue(captured.get("consumer-bad-login.log").contains("password is invalid"),
                "no refused login in the log");
        assertTrue(captured.get("consumer-bad-trust.log").contains("consumer.s3.truststore"),
                captured.get("consumer-bad-trust.log"));
        assertTrue(captured.get("consumer-bad-value.log").contains(ConsumerConfig.FETCH_THREADS),
                captured.get("consumer-bad-value.log"));
        assertTrue(captured.get("supervisor-bad-value.log").contains(SupervisorConfig.RETRY_MAX),
                captured.get("supervisor-bad-value.log"));
        for (String name : List.of("supervisor.log", "consumer-good.log", "consumer-bad-s3.log")) {
            assertTrue(captured.get(name).contains(" DEBUG "), name + " has no DEBUG line");
        }

        Map<String, String> secretValues = new LinkedHashMap<>();
        for (String login : List.of(BrokerLogins.PRODUCER, BrokerLogins.SUPERVISOR, BrokerLogins.CONSUMER,
                BrokerLogins.OPERATOR, BrokerLogins.ADMIN)) {
            secretValues.put(login + " broker password", logins.password(login));
        }
        secretValues.put("S3 secret key", s3Secret);
        secretValues.put("wrong S3 secret key", wrongS3Secret);
        secretValues.put("wrong broker password", wrongStompPassword);
        secretValues.put("trust store password", certificates.trustStorePassword());
        secretValues.put("wrong trust store password", wrongTrustPassword);
        List<String> leaks = new ArrayList<>();
        captured.forEach((where, text) -> secretValues.forEach((what, value) -> {
            int at = text.indexOf(value);
            if (at >= 0) {
                int lineStart = text.lastIndexOf('\n', at) + 1;
                int lineEnd = text.indexOf('\n', at);
                leaks.add(what + " in " + where + ": " + text.substring(lineStart, lineEnd < 0 ? text.length()
                        : lineEnd).replace(value, "<" + what + ">"));
            }
        }));
        assertEquals(List.of(), leaks);
        assertTrue(captured.size() >= 15, "captured " + captured.keySet());
    }

    /** Generates dataset {@code n}, registers its manifest as the operator and runs its producers (producer login). */
    private GeneratedDataset publish(int n) throws Exception {
        GeneratedDataset ds = new DatasetGenerator(new GeneratorSpec(String.format(
                "data17_13TeV.%08d.physics_Main.merge.AOD.f838_m1824", 420000 + n), 3, 120, 1, 1, 0, 2, false, n))
                .generate(work.resolve("spb-" + n));
        try (StompSender sender = new StompSender(logins.settings(broker.stompEndpoints(), BrokerLogins.OPERATOR))) {
            sender.send(Queues.SUPERVISOR_CONTROL, Json.write(ds.manifestMessage()), Map.of());
        }
        ProducerLauncher producers = new ProducerLauncher(Path.of(System.getProperty("ei.producer.jar")),
                new ProducerLauncher.ProducerEndpoints(broker.stompEndpoints(), BrokerLogins.PRODUCER,
                        logins.password(BrokerLogins.PRODUCER), s3.endpoint().toString(), BUCKET, ACCESS_KEY,
                        s3Secret), 2);
        List<Path> files = ds.jobs(GeneratedJob.Outcome.REPORTED).stream().map(GeneratedJob::spbFile).toList();
        for (ProducerLauncher.Run run : producers.runAll(files, r -> { })) {
            captured.put("producer " + run.spbFile().getFileName(), run.output());
            assertEquals(0, run.exitCode(), run.output());
        }
        return ds;
    }

    private Map<String, String> supervisorConfig(int httpPort) {
        Map<String, String> p = new TreeMap<>();
        p.put(SupervisorConfig.BROKERS, broker.stompEndpoints());
        p.put(SupervisorConfig.STOMP_USER, BrokerLogins.SUPERVISOR);
        p.put(SupervisorConfig.STOMP_PASSWORD_FILE,
                BrokerLogins.passwordFile(secrets, BrokerLogins.SUPERVISOR).toString());
        p.put(SupervisorConfig.JOURNAL_DIR, work.resolve("journal").toString());
        p.put(SupervisorConfig.S3_BUCKET, BUCKET);
        p.put(SupervisorConfig.S3_ENDPOINT, s3.endpoint().toString());
        p.put(SupervisorConfig.S3_ACCESS_KEY, ACCESS_KEY);
        p.put("supervisor.s3.truststore", certificates.trustStore().toString());
        p.put(SupervisorConfig.HTTP_HOST, "127.0.0.1");
        p.put(SupervisorConfig.HTTP_PORT, Integer.toString(httpPort));
        p.put(SupervisorConfig.RETRY_INITIAL, "1s");
        p.put(SupervisorConfig.KUDU_MASTERS, kudu.masterAddresses());
        p.put(SupervisorConfig.KUDU_TABLE_PREFIX, tables.prefix());
        p.put(SupervisorConfig.KUDU_BUCKETS, Integer.toString(tables.hashBuckets()));
        p.put(SupervisorConfig.KUDU_REPLICAS, "1");
        return p;
    }

    private Map<String, String> consumerConfig(String id, int httpPort, Path s3SecretFile, Path trustPasswordFile) {
        Map<String, String> p = new TreeMap<>();
        p.put(ConsumerConfig.ID, "consumer-" + id);
        p.put(ConsumerConfig.BROKERS, broker.stompEndpoints());
        p.put(ConsumerConfig.STOMP_USER, BrokerLogins.CONSUMER);
        p.put(ConsumerConfig.S3_ENDPOINT, s3.endpoint().toString());
        p.put(ConsumerConfig.S3_BUCKET, BUCKET);
        p.put(ConsumerConfig.S3_ACCESS_KEY, ACCESS_KEY);
        p.put(ConsumerConfig.S3_SECRET_KEY_FILE, s3SecretFile.toString());
        p.put("consumer.s3.truststore", certificates.trustStore().toString());
        p.put("consumer.s3.truststore.password.file", trustPasswordFile.toString());
        p.put(ConsumerConfig.HDFS_URI, hdfs.uri().toString());
        p.put(ConsumerConfig.HDFS_ROOT, "/eventindex/datasets");
        p.put(ConsumerConfig.KUDU_MASTERS, kudu.masterAddresses());
        p.put(ConsumerConfig.KUDU_TABLE_PREFIX, tables.prefix());
        p.put(ConsumerConfig.KUDU_BUCKETS, Integer.toString(tables.hashBuckets()));
        p.put(ConsumerConfig.KUDU_REPLICAS, "1");
        p.put(ConsumerConfig.SPOOL_DIR, work.resolve("spool-" + id).toString());
        p.put(ConsumerConfig.HTTP_PORT, Integer.toString(httpPort));
        return p;
    }

    /**
     * Starts {@code main run --config FILE} as a process with every logger at DEBUG, only {@code env} as its EI_
     * environment, and all its output in {@code <work>/logs/<name>.log}.
     */
    private Process start(String name, Class<?> main, Map<String, String> config, Map<String, String> env)
            throws IOException {
        Path file = DaemonProcesses.writeConfig(work.resolve(name + ".properties"), config);
        Files.createDirectories(log(name).getParent());
        ProcessBuilder pb = ChildJvm.main(main).heap("256m").quickStart()
                .options("-Dorg.slf4j.simpleLogger.defaultLogLevel=debug",
                        "-Dorg.slf4j.simpleLogger.log.org.eventindex=debug",
                        "-Dorg.slf4j.simpleLogger.log.org.apache.hadoop.hdfs.server.datanode.DataNode=debug",
                        "-Djava.io.tmpdir=" + Files.createDirectories(work.resolve("tmp-" + name)))
                .args("run", "--config", file.toString()).builder()
                .redirectErrorStream(true).redirectOutput(log(name).toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("EI_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        processes.add(p);
        return p;
    }

    /** Runs a daemon that must refuse to start; returns its exit status and captures its output. */
    private int runToExit(String name, Class<?> main, Map<String, String> config, Map<String, String> env)
            throws Exception {
        Process p = start(name, main, config, env);
        assertTrue(p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS), name + " did not exit");
        captured.put(name + ".log", read(log(name)));
        return p.exitValue();
    }

    private Path log(String name) {
        return work.resolve("logs").resolve(name + ".log");
    }

    private void awaitReady(String name, int port) {
        Await.until(name + " ready (log " + log(name) + ")", TIMEOUT,
                () -> fetch(port, "/ready").map(r -> r.statusCode() == 200).orElse(false));
    }

    private void awaitState(int supervisorPort, String dataset, String state) {
        Await.until(dataset + " " + state, TIMEOUT, () -> get(supervisorPort, "/datasets/"
                + URLEncoder.encode(dataset, StandardCharsets.UTF_8)).contains("\"state\":\"" + state + "\""));
    }

    private void capturePages(String name, int port) throws IOException {
        for (String page : List.of("/status", "/metrics", "/health", "/ready")) {
            captured.put(name + " " + page, get(port, page));
        }
        captured.put(name + ".log", read(log(name)));
    }

    /** The body of a GET on a daemon's operations port; empty when it does not answer. */
    private String get(int port, String path) {
        return fetch(port, path).map(HttpResponse::body).orElse("");
    }

    private Optional<HttpResponse<String>> fetch(int port, String path) {
        return DaemonProcesses.get(http, port, path);
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.ISO_8859_1) : "";
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void stop(Process p) {
        p.destroy();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private <T extends AutoCloseable> T track(T c) {
        started.add(c);
        return c;
    }

    private static String secret(String what) {
        byte[] b = new byte[12];
        new SecureRandom().nextBytes(b);
        return what + "-" + HexFormat.of().formatHex(b);
    }
}
