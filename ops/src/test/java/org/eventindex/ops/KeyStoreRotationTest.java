package org.eventindex.ops;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.config.TrustStore;
import org.eventindex.testing.Await;
import org.eventindex.testing.TestPki;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A daemon's HTTPS key store renewed in place while clients keep asking (the rotation of docs/security.md): the
 * renewed certificate, from the same CA, moved over the key store file in one step, is served from the next
 * connection without a restart; no request fails meanwhile; a broken file moved in after it keeps the certificate in
 * use and is counted in {@value CredentialFiles#RELOAD_FAILURES}. Real certificates (openssl), a real HTTPS server,
 * new TLS sessions per request.
 */
class KeyStoreRotationTest {
    @TempDir
    Path dir;

    @Test
    void aRenewedCertificateMovedInIsServedFromTheNextConnectionAndNoRequestFails() throws Exception {
        TestPki site = TestPki.create(dir, "site");
        TestPki.Issued first = site.server("localhost");
        TestPki.Issued renewed = site.server("127.0.0.1");
        Path serving = dir.resolve("http.p12");
        Files.copy(first.keyStore(), serving);
        HttpAccess access = HttpAccess.load(Files.writeString(dir.resolve("ops.properties"), "lookup.http.tls=true\n"
                + "lookup.http.keystore=" + serving + "\n"
                + "lookup.http.keystore.password.file=" + site.passwordFile() + "\n"), "lookup.");
        PrometheusRegistry registry = new PrometheusRegistry();
        OpsHttpServer server = new OpsHttpServer(new InetSocketAddress("127.0.0.1", 0), 2, registry,
                OpsHttpServer.Readiness::ok, OpsHttpServer.Readiness::ok, access);
        server.start();
        TrustStore trust = new TrustStore(site.trustStore(), site.password());
        URI health = URI.create("https://127.0.0.1:" + server.port() + "/health");
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger answered = new AtomicInteger();
        List<String> failures = new CopyOnWriteArrayList<>();
        List<String> served = new CopyOnWriteArrayList<>();
        Thread clients = new Thread(() -> {
            while (running.get()) {
                try {
                    served.add(subject(trust, health));
                    answered.incrementAndGet();
                } catch (IOException | RuntimeException e) {
                    failures.add(e.toString());
                }
            }
        }, "https-clients");
        try {
            clients.start();
            Await.until("requests answered with the first certificate", Duration.ofSeconds(30),
                    () -> answered.get() >= 3);
            assertTrue(served.get(0).contains("CN=localhost"), served.get(0));

            double firstNotAfter = DaemonMetrics.value(registry, CertificateExpiry.NOT_AFTER, "store", "http",
                    "subject", "CN=localhost,O=EventIndex Test");
            assertTrue(firstNotAfter > System.currentTimeMillis() / 1000.0, "the served certificate's expiry");
            install(renewed.keyStore(), serving);
            Await.until("the renewed certificate served", Duration.ofSeconds(30),
                    () -> served.get(served.size() - 1).contains("CN=127.0.0.1"));
            assertTrue(DaemonMetrics.value(registry, CertificateExpiry.NOT_AFTER, "store", "http",
                    "subject", "CN=127.0.0.1,O=EventIndex Test") >= firstNotAfter, "the renewed one's expiry");
            int before = answered.get();
            Await.until("more requests", Duration.ofSeconds(30), () -> answered.get() >= before + 3);

            // a broken file in its place: the renewed certificate stays in use
            Path broken = Files.writeString(dir.resolve("broken.p12"), "not a key store");
            install(broken, serving);
            int after = answered.get();
            Await.until("requests after the broken file", Duration.ofSeconds(30), () -> answered.get() >= after + 3);
            assertTrue(served.get(served.size() - 1).contains("CN=127.0.0.1"), served.toString());
            assertEquals(1, DaemonMetrics.value(registry, CredentialFiles.RELOAD_FAILURES, "key",
                    "lookup.http.keystore"), "the broken file counted once, the renewed one not");
        } finally {
            running.set(false);
            clients.join();
            server.close();
        }
        assertEquals(List.of(), failures, "every request answered during the rotation");
    }

    /** What a site does: the new file copied next to the old one, then moved over it in one step. */
    static void install(Path from, Path serving) throws IOException {
        Path staged = serving.resolveSibling(serving.getFileName() + ".new");
        Files.copy(from, staged, StandardCopyOption.REPLACE_EXISTING);
        Files.move(staged, serving, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** One request on a new TLS session (a fresh context: no resumption); returns the server certificate's subject. */
    private static String subject(TrustStore trust, URI uri) throws IOException {
        SSLContext context = trust.sslContext("test");
        HttpsURLConnection c = (HttpsURLConnection) uri.toURL().openConnection();
        c.setSSLSocketFactory(context.getSocketFactory());
        c.setRequestProperty("Connection", "close");
        try {
            assertEquals(200, c.getResponseCode());
            c.getInputStream().readAllBytes();
            return ((X509Certificate) c.getServerCertificates()[0]).getSubjectX500Principal().getName();
        } finally {
            c.disconnect();
        }
    }
}
