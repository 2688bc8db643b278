package org.eventindex.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eventindex.config.TlsSettings;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompMessage;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedS3;
import org.eventindex.testing.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The supervisor's clients over TLS to real servers: STOMP to an ActiveMQ {@code stomp+ssl} connector, and the object
 * cleanup's S3 client to an HTTPS-only S3Proxy, each trusting the test certificate only through its trust store.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SupervisorTlsTest {
    private static final String BUCKET = "eventindex";

    @TempDir
    static Path tmp;
    private TestCertificates certs;
    private EmbeddedBroker broker;
    private EmbeddedS3 s3;

    @BeforeAll
    void start() {
        certs = TestCertificates.create(tmp.resolve("certs"));
        broker = EmbeddedBroker.startTls(tmp.resolve("broker"), certs);
        s3 = EmbeddedS3.startHttps(tmp.resolve("s3"), "sup-access", "sup-secret", certs);
        s3.createBucket(BUCKET);
    }

    @AfterAll
    void stop() {
        if (s3 != null) {
            s3.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private SupervisorConfig config(boolean trust) throws IOException {
        Properties p = new Properties();
        p.setProperty(SupervisorConfig.BROKERS, broker.stompEndpoints());
        p.setProperty(SupervisorConfig.JOURNAL_DIR, tmp.resolve("journal").toString());
        p.setProperty(SupervisorConfig.S3_ENDPOINT, s3.endpoint().toString());
        p.setProperty(SupervisorConfig.S3_ACCESS_KEY, s3.accessKey());
        p.setProperty("supervisor.stomp.tls", "true");
        if (trust) {
            p.setProperty("supervisor.stomp.truststore", certs.trustStore().toString());
            p.setProperty("supervisor.stomp.truststore.password.file", certs.trustStorePasswordFile().toString());
            p.setProperty("supervisor.s3.truststore", certs.trustStore().toString());
        }
        return SupervisorConfig.fromProperties(p, Map.of(SupervisorConfig.ENV_S3_SECRET_KEY, s3.secretKey(),
                TlsSettings.ENV_S3_TRUSTSTORE_PASSWORD, certs.trustStorePassword()));
    }

    @Test
    void stompOverTlsWithTheConfiguredTrustStore() throws Exception {
        LinkedBlockingQueue<StompMessage> got = new LinkedBlockingQueue<>();
        try (StompConnection c = StompConnection.connect(config(true).stompSettings())) {
            c.subscribe("/queue/sup.tls", 1, got::add);
            c.send("/queue/sup.tls", "{}".getBytes(StandardCharsets.UTF_8), Map.of());
            StompMessage m = got.poll(30, TimeUnit.SECONDS);
            assertNotNull(m, "no message over the TLS connection");
            c.ack(m);
        }
        assertThrows(IOException.class, () -> StompConnection.connect(config(false).stompSettings()).close(),
                "without the trust store the broker's certificate must be refused");
    }

    @Test
    void cleanupListsObjectsOverHttpsWithTheConfiguredTrustStore() throws IOException {
        SupervisorConfig c = config(true);
        try (S3CleanupStore store = S3CleanupStore.create(c.cleanup(), c.tls().s3TrustManagers())) {
            assertEquals(List.of(), store.list(BUCKET));
        }
        SupervisorConfig untrusted = config(false);
        try (S3CleanupStore store = S3CleanupStore.create(untrusted.cleanup(), untrusted.tls().s3TrustManagers())) {
            IOException e = assertThrows(IOException.class, () -> store.list(BUCKET));
            assertFalse(e.getMessage().contains(s3.secretKey()), e.getMessage());
        }
    }

    @Test
    void aTrustStoreWithoutTlsIsRefusedAndPasswordsStayOutOfTheDump() throws IOException {
        Properties p = new Properties();
        p.setProperty("supervisor.stomp.truststore", certs.trustStore().toString());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SupervisorConfig.fromProperties(p, Map.of()));
        assertTrue(e.getMessage().contains("supervisor.stomp.tls is false"), e.getMessage());
        String dump = config(true).toString();
        assertFalse(dump.contains(certs.trustStorePassword()), dump);
        assertFalse(dump.contains(s3.secretKey()), dump);
    }
}
