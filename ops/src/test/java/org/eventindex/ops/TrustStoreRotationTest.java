package org.eventindex.ops;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.testing.Await;
import org.eventindex.testing.TestPki;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A daemon's client trust store ({@code *.http.truststore}) changed in place while clients keep asking: a CA added
 * for the clients' certificates (a new store, same password, moved over the file in one step) is trusted from the
 * next TLS handshake without a restart, no request of the clients already trusted fails meanwhile, and a broken file
 * moved in after it keeps the CAs in use and is counted in {@value CredentialFiles#RELOAD_FAILURES}. Real
 * certificates (openssl), a real HTTPS server requiring client certificates, a new TLS session per request.
 */
class TrustStoreRotationTest {
    @TempDir
    Path dir;

    @Test
    void aCaAddedToTheTrustStoreIsTrustedFromTheNextConnectionAndABrokenFileIsCounted() throws Exception {
        TestPki site = TestPki.create(dir, "site");
        TestPki grid = TestPki.create(dir, "grid");
        TestPki.Issued server = site.server("localhost");
        TestPki.Issued alice = site.client("alice");
        TestPki.Issued carol = grid.client("carol");
        Path serving = Files.copy(site.trustStore(), dir.resolve("clients.p12"));
        HttpAccess access = HttpAccess.load(Files.writeString(dir.resolve("ops.properties"), "lookup.http.tls=true\n"
                + "lookup.http.keystore=" + server.keyStore() + "\n"
                + "lookup.http.keystore.password.file=" + site.passwordFile() + "\n"
                + "lookup.http.auth=certificate\n"
                + "lookup.http.truststore=" + serving + "\n"
                + "lookup.http.truststore.password.file=" + site.passwordFile() + "\n"), "lookup.");
        PrometheusRegistry registry = new PrometheusRegistry();
        OpsHttpServer httpd = new OpsHttpServer(new InetSocketAddress("127.0.0.1", 0), 2, registry,
                OpsHttpServer.Readiness::ok, OpsHttpServer.Readiness::ok, access);
        httpd.start();
        URI health = URI.create("https://127.0.0.1:" + httpd.port() + "/health");
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger answered = new AtomicInteger();
        List<String> failures = new CopyOnWriteArrayList<>();
        Thread clients = new Thread(() -> {
            while (running.get()) {
                try {
                    assertEquals(200, get(health, alice, site));
                    answered.incrementAndGet();
                } catch (IOException | GeneralSecurityException | RuntimeException | Error e) {
                    failures.add(e.toString());
                }
            }
        }, "https-clients");
        String key = "lookup.http.truststore";
        try {
            clients.start();
            Await.until("alice's requests answered", Duration.ofSeconds(30), () -> answered.get() >= 3);
            assertThrows(IOException.class, () -> get(health, carol, site), "the grid CA is not trusted yet");
            assertEquals(0, DaemonMetrics.value(registry, CredentialFiles.RELOAD_FAILURES, "key", key));
            assertTrue(DaemonMetrics.value(registry, CredentialFiles.AGE, "key", key, "kind", "truststore") >= 0,
                    "the trust store's age exported");

            // the site's store plus the grid CA, same password, moved over the served file
            Path next = Files.copy(site.trustStore(), dir.resolve("clients-next.p12"));
            KeyStore store = KeyStore.getInstance(next.toFile(), site.password().toCharArray());
            try (var in = Files.newInputStream(grid.caPem())) {
                store.setCertificateEntry("ca-grid", CertificateFactory.getInstance("X.509").generateCertificate(in));
            }
            try (var out = Files.newOutputStream(next)) {
                store.store(out, site.password().toCharArray());
            }
            KeyStoreRotationTest.install(next, serving);
            assertEquals(200, get(health, carol, site), "the grid CA is trusted from the next connection");

            KeyStoreRotationTest.install(Files.writeString(dir.resolve("broken.p12"), "not a trust store"), serving);
            int before = answered.get();
            Await.until("alice's requests after the broken file", Duration.ofSeconds(30),
                    () -> answered.get() >= before + 3);
            assertEquals(200, get(health, carol, site), "the CAs in use stay after a broken file");
            assertEquals(1, DaemonMetrics.value(registry, CredentialFiles.RELOAD_FAILURES, "key", key),
                    "the broken file counted once");
            assertEquals(0, DaemonMetrics.value(registry, CredentialFiles.RELOAD_FAILURES, "key",
                    "lookup.http.keystore"));
        } finally {
            running.set(false);
            clients.join();
            httpd.close();
        }
        assertEquals(List.of(), failures, "every request of alice answered during the change");
    }

    /** One request with {@code client}'s certificate on a new TLS session, trusting {@code ca}'s server certificate. */
    private static int get(URI uri, TestPki.Issued client, TestPki ca) throws IOException, GeneralSecurityException {
        char[] password = Files.readString(client.passwordFile()).strip().toCharArray();
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(KeyStore.getInstance(client.keyStore().toFile(), password), password);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(KeyStore.getInstance(ca.trustStore().toFile(), ca.password().toCharArray()));
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        HttpsURLConnection c = (HttpsURLConnection) uri.toURL().openConnection();
        c.setSSLSocketFactory(context.getSocketFactory());
        c.setRequestProperty("Connection", "close");
        try {
            int code = c.getResponseCode();
            c.getInputStream().readAllBytes();
            return code;
        } finally {
            c.disconnect();
        }
    }
}
