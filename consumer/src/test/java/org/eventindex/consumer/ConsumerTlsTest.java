package org.eventindex.consumer;

import org.eventindex.config.TlsSettings;
import org.eventindex.message.S3ObjectUrl;
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
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The consumer's clients over TLS to real servers: ActiveMQ with only a {@code stomp+ssl} connector and S3Proxy with
 * only an HTTPS endpoint, both with a certificate made in the test and trusted only through the configured trust
 * stores.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsumerTlsTest {
    private static final String BUCKET = "eventindex";
    private static final String KEY = "X/12345678/tls.ei.spb";
    private static final byte[] OBJECT = "object over https".getBytes(StandardCharsets.UTF_8);

    @TempDir
    static Path tmp;
    private TestCertificates certs;
    private EmbeddedBroker broker;
    private EmbeddedS3 s3;

    @BeforeAll
    @SuppressWarnings("deprecation") // the same (deprecated) Apache client as the consumer's
    void start() throws IOException {
        certs = TestCertificates.create(tmp.resolve("certs"));
        broker = EmbeddedBroker.startTls(tmp.resolve("broker"), certs);
        s3 = EmbeddedS3.startHttps(tmp.resolve("s3"), "tls-access", "tls-secret", certs);
        s3.createBucket(BUCKET);
        ConsumerConfig c = config(true, true);
        try (S3Client client = S3Client.builder().endpointOverride(s3.endpoint()).region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(),
                        s3.secretKey())))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(ApacheHttpClient.builder()
                        .tlsTrustManagersProvider(() -> c.tls().s3TrustManagers())).build()) {
            client.putObject(PutObjectRequest.builder().bucket(BUCKET).key(KEY).build(), RequestBody.fromBytes(OBJECT));
        }
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

    private ConsumerConfig config(boolean stompTrust, boolean s3Trust) throws IOException {
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.BROKERS, broker.stompEndpoints());
        p.setProperty(ConsumerConfig.S3_ENDPOINT, s3.endpoint().toString());
        p.setProperty(ConsumerConfig.S3_BUCKET, BUCKET);
        p.setProperty("consumer.stomp.tls", "true");
        if (stompTrust) {
            p.setProperty("consumer.stomp.truststore", certs.trustStore().toString());
            p.setProperty("consumer.stomp.truststore.password.file", certs.trustStorePasswordFile().toString());
        }
        if (s3Trust) {
            p.setProperty("consumer.s3.truststore", certs.trustStore().toString());
        }
        // The S3 trust store password comes from the environment, the STOMP one from its 0600 file.
        return ConsumerConfig.fromProperties(p, Map.of(TlsSettings.ENV_S3_TRUSTSTORE_PASSWORD,
                certs.trustStorePassword()));
    }

    @Test
    void stompOverTlsWithTheConfiguredTrustStore() throws Exception {
        LinkedBlockingQueue<StompMessage> got = new LinkedBlockingQueue<>();
        try (StompConnection c = StompConnection.connect(Consumer.stompSettings(config(true, true)))) {
            c.subscribe("/queue/tls.test", 1, got::add);
            c.send("/queue/tls.test", "{}".getBytes(StandardCharsets.UTF_8), Map.of());
            StompMessage m = got.poll(30, TimeUnit.SECONDS);
            assertNotNull(m, "no message over the TLS connection");
            assertEquals("{}", new String(m.body(), StandardCharsets.UTF_8), "the body sent over TLS");
            c.ack(m);
        }
    }

    @Test
    void withoutTheTrustStoreTheBrokerCertificateIsRefused() {
        IOException e = assertThrows(IOException.class,
                () -> StompConnection.connect(Consumer.stompSettings(config(false, true))).close());
        assertFalse(e.toString().contains(certs.trustStorePassword()), e.toString());
    }

    @Test
    void objectsAreFetchedOverHttpsWithTheConfiguredTrustStore() throws IOException {
        ConsumerConfig c = config(true, true);
        S3ObjectUrl url = new S3ObjectUrl("127.0.0.1", s3.endpoint().getPort(), BUCKET, KEY);
        try (S3ObjectFetcher fetcher = S3ObjectFetcher.connect(c.s3Endpoint(), s3.accessKey(), s3.secretKey(), 2,
                c.tls().s3TrustManagers()); InputStream in = fetcher.open(url)) {
            assertArrayEquals(OBJECT, in.readAllBytes());
        }
    }

    @Test
    void withoutTheTrustStoreTheS3CertificateIsRefused() throws IOException {
        ConsumerConfig c = config(true, false);
        S3ObjectUrl url = new S3ObjectUrl("127.0.0.1", s3.endpoint().getPort(), BUCKET, KEY);
        try (S3ObjectFetcher fetcher = S3ObjectFetcher.connect(c.s3Endpoint(), s3.accessKey(), s3.secretKey(), 2,
                c.tls().s3TrustManagers())) {
            IOException e = assertThrows(IOException.class, () -> fetcher.open(url).close());
            assertTrue(e.getMessage().contains("cannot reach S3"), e.getMessage());
            assertFalse(e.getMessage().contains(s3.secretKey()), e.getMessage());
        }
    }

    @Test
    void trustStorePasswordsAreNotInTheConfigDump() throws IOException {
        String dump = config(true, true).toString();
        assertTrue(dump.contains("password=***"), dump);
        assertFalse(dump.contains(certs.trustStorePassword()), dump);
    }
}
