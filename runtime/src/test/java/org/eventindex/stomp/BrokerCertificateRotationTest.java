package org.eventindex.stomp;

import org.eventindex.config.TrustStore;
import org.eventindex.retry.Backoff;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A broker certificate rotated with a new CA, in the order docs/security.md gives: the new CA added to the clients'
 * trust stores first, then the broker restarted with its new certificate. A daemon's queue worker and sender on that
 * trust store reconnect over TLS to the new certificate and lose no message; a client that trusts only the old one
 * is refused once the broker has switched.
 */
class BrokerCertificateRotationTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Backoff FAST = Backoff.doubling(Duration.ofMillis(50), Duration.ofMillis(500)).withJitter(0.5);

    @TempDir
    Path dir;

    /** A PKCS12 trust store holding the certificates of both. */
    private static Path bothTrusted(Path file, TestCertificates a, TestCertificates b)
            throws IOException, GeneralSecurityException {
        KeyStore both = KeyStore.getInstance("PKCS12");
        both.load(null, null);
        both.setCertificateEntry("ca-old", load(a).getCertificate("server"));
        both.setCertificateEntry("ca-new", load(b).getCertificate("server"));
        try (OutputStream out = Files.newOutputStream(file)) {
            both.store(out, "changeit".toCharArray());
        }
        return file;
    }

    private static KeyStore load(TestCertificates c) throws IOException, GeneralSecurityException {
        return KeyStore.getInstance(c.trustStore().toFile(), c.trustStorePassword().toCharArray());
    }

    @Test
    void clientsTrustingTheNewCaFollowTheBrokerToItsNewCertificate() throws Exception {
        TestCertificates old = TestCertificates.create(dir.resolve("old"));
        TestCertificates next = TestCertificates.create(dir.resolve("next"));
        String queue = "/queue/test.rotation";
        Set<String> received = ConcurrentHashMap.newKeySet();
        try (EmbeddedBroker broker = EmbeddedBroker.startTls(dir.resolve("broker"), old)) {
            StompSettings plain = StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()), null, null);
            StompSettings both = plain.withTls(new TrustStore(bothTrusted(dir.resolve("both.p12"), old, next),
                    "changeit").sslContext("test").getSocketFactory());
            StompSettings oldOnly = plain.withTls(new TrustStore(old.trustStore(), old.trustStorePassword())
                    .sslContext("test").getSocketFactory());
            try (StompQueueWorker worker = new StompQueueWorker("rotation", both, queue, 1,
                    m -> received.add(new String(m.body(), StandardCharsets.UTF_8)), FAST);
                 StompSender sender = new StompSender(both)) {
                worker.start();
                sender.send(queue, "before".getBytes(StandardCharsets.UTF_8), Map.of());
                Await.until("the message sent before the switch", WAIT, () -> received.contains("before"));

                broker.restart(next);
                sender.send(queue, "after".getBytes(StandardCharsets.UTF_8), Map.of());
                Await.until("the message sent after the switch", WAIT, () -> received.contains("after"));
                assertEquals(Set.of("before", "after"), received);
            }
            assertThrows(StompException.class, () -> StompConnection.connect(oldOnly).close(),
                    "a client trusting only the old certificate is refused by the new one");
        }
    }
}
