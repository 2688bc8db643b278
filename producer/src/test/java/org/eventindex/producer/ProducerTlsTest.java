package org.eventindex.producer;

import org.eventindex.config.SecretFile;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.broker.SslContext;
import org.apache.activemq.broker.region.Destination;
import org.apache.activemq.command.ActiveMQQueue;
import org.eventindex.testing.EmbeddedS3;
import org.eventindex.testing.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stomp+ssl} to a real ActiveMQ TLS connector whose certificate (for 127.0.0.1, made with {@code keytool} here)
 * is trusted only through the producer's {@code --trust-store}.
 */
class ProducerTlsTest {
    private static final String STORE_PASSWORD = "broker-store-pw";
    private static final String TRUST_PASSWORD = "trust-store-pw";
    private static final String QUEUE = "/queue/producer.tls";

    @TempDir
    static Path shared;
    private static BrokerService broker;
    private static int port;
    private static EmbeddedS3 s3;
    private static EmbeddedS3 s3Https;
    private static Path trustStore;
    private static Path trustPasswordFile;

    @TempDir
    Path dir;
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

    @BeforeAll
    static void start() throws Exception {
        Path keyStore = shared.resolve("broker.p12");
        Path cert = shared.resolve("broker.pem");
        trustStore = shared.resolve("trust.p12");
        keytool("-genkeypair", "-alias", "broker", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-storetype", "PKCS12",
                "-keystore", keyStore.toString(), "-storepass", STORE_PASSWORD);
        keytool("-exportcert", "-rfc", "-alias", "broker", "-keystore", keyStore.toString(), "-storepass",
                STORE_PASSWORD, "-file", cert.toString());
        keytool("-importcert", "-noprompt", "-alias", "broker", "-file", cert.toString(), "-storetype", "PKCS12",
                "-keystore", trustStore.toString(), "-storepass", TRUST_PASSWORD);
        trustPasswordFile = SecretFile.write(shared.resolve("trust.pw"), TRUST_PASSWORD + "\n");

        KeyStore ks = KeyStore.getInstance(keyStore.toFile(), STORE_PASSWORD.toCharArray());
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, STORE_PASSWORD.toCharArray());
        broker = new BrokerService();
        broker.setBrokerName("ei-tls-test");
        broker.setUseJmx(false);
        broker.setUseShutdownHook(false);
        broker.setPersistent(false);
        broker.setAdvisorySupport(false);
        broker.setSslContext(new SslContext(kmf.getKeyManagers(), null, null));
        broker.addConnector("stomp+ssl://127.0.0.1:0");
        broker.start();
        broker.waitUntilStarted();
        URI bound = broker.getTransportConnectors().get(0).getConnectUri();
        port = bound.getPort();
        s3 = EmbeddedS3.start(shared.resolve("s3"), "ak", "sk");
        s3.createBucket("eventindex");
        s3Https = EmbeddedS3.startHttps(shared.resolve("s3-https"), "ak", "sk",
                new TestCertificates(keyStore, STORE_PASSWORD, trustStore, TRUST_PASSWORD, trustPasswordFile));
        s3Https.createBucket("eventindex");
    }

    @AfterAll
    static void stop() throws Exception {
        if (s3 != null) {
            s3.close();
        }
        if (s3Https != null) {
            s3Https.close();
        }
        if (broker != null) {
            broker.stop();
            broker.waitUntilStopped();
        }
    }

    private int run(Map<String, String> env, String... extra) throws IOException {
        return runWith(s3, env, extra);
    }

    private int runWith(EmbeddedS3 store, Map<String, String> env, String... extra) throws IOException {
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "12345678.G", "1.1", 3);
        List<String> args = new ArrayList<>(List.of(file.toString(), "--brokers",
                ProducerArgs.TLS_SCHEME + "127.0.0.1:" + port, "--queue", QUEUE, "--s3-endpoint",
                store.endpoint().toString(), "--bucket", "eventindex", "--retry-deadline", "1"));
        args.addAll(List.of(extra));
        Map<String, String> all = new HashMap<>(env);
        all.put(ProducerArgs.ENV_S3_ACCESS_KEY, "ak");
        all.put(ProducerArgs.ENV_S3_SECRET_KEY, "sk");
        return new ProducerCli(all, new PrintStream(stdout, true, StandardCharsets.UTF_8),
                new PrintStream(stderr, true, StandardCharsets.UTF_8), TestRetry.fast(), Clock.systemUTC()).run(args);
    }

    @Test
    void sendsOverTlsWithTheTrustStore() throws Exception {
        long before = queueSize();
        int keys = s3.keys("eventindex").size();
        assertEquals(0, run(Map.of(), "--trust-store", trustStore.toString(), "--trust-store-password-file",
                trustPasswordFile.toString()), stderr.toString(StandardCharsets.UTF_8));
        assertEquals(before + 1, queueSize());
        assertEquals(keys + 1, s3.keys("eventindex").size());
    }

    @Test
    void uploadsOverHttpsWithTheSameTrustStore() throws Exception {
        long before = queueSize();
        assertEquals(0, runWith(s3Https, Map.of(), "--trust-store", trustStore.toString(),
                "--trust-store-password-file", trustPasswordFile.toString()), stderr.toString(StandardCharsets.UTF_8));
        assertEquals(before + 1, queueSize());
        assertEquals(1, s3Https.keys("eventindex").size());
    }

    @Test
    void trustStorePasswordMayComeFromTheEnvironment() throws Exception {
        long before = queueSize();
        assertEquals(0, run(Map.of(ProducerArgs.ENV_TRUST_STORE_PASSWORD, TRUST_PASSWORD), "--trust-store",
                trustStore.toString()), stderr.toString(StandardCharsets.UTF_8));
        assertEquals(before + 1, queueSize());
    }

    @Test
    void untrustedBrokerCertificateIsAConfigurationErrorAndNothingIsUploaded() throws Exception {
        int keys = s3.keys("eventindex").size();
        int code = run(Map.of()); // the JVM's default trust store does not know the test certificate
        String err = stderr.toString(StandardCharsets.UTF_8);
        assertEquals(ExitCode.CONFIGURATION.code(), code, err);
        assertTrue(err.contains("TLS handshake failed") && err.contains("trust store"), err);
        assertEquals(keys, s3.keys("eventindex").size());
    }

    @Test
    void wrongTrustStorePasswordIsAConfigurationErrorWithoutThePassword() throws Exception {
        Path wrong = SecretFile.write(dir.resolve("wrong.pw"), "not-the-password");
        int code = run(Map.of(), "--trust-store", trustStore.toString(), "--trust-store-password-file",
                wrong.toString());
        String err = stderr.toString(StandardCharsets.UTF_8);
        assertEquals(ExitCode.CONFIGURATION.code(), code, err);
        assertTrue(err.contains("cannot use trust store " + trustStore), err);
        assertFalse(err.contains("not-the-password"), err);
    }

    private static long queueSize() throws Exception {
        Destination d = broker.getRegionBroker().getDestinationMap().get(new ActiveMQQueue("producer.tls"));
        return d == null ? 0 : d.getDestinationStatistics().getMessages().getCount();
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError("keytool " + args[0] + " failed: " + output);
        }
    }
}
