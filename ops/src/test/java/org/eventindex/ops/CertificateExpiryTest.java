package org.eventindex.ops;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.config.TlsSettings;
import org.eventindex.config.TrustStore;
import org.eventindex.testing.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link CertificateExpiry} on a real PKCS12 trust store made by keytool (a certificate valid for 2 days). */
class CertificateExpiryTest {
    @TempDir
    Path dir;

    @Test
    void eachCertificateOfTheConfiguredTrustStoresHasItsNotAfter() {
        TestCertificates certs = TestCertificates.create(dir.resolve("certs"));
        TrustStore trust = new TrustStore(certs.trustStore(), certs.trustStorePassword());
        PrometheusRegistry registry = new PrometheusRegistry();
        CertificateExpiry.register(registry, new TlsSettings("consumer.", true, trust, trust));

        double stomp = DaemonMetrics.value(registry, CertificateExpiry.NOT_AFTER, "store", "stomp", "alias", "server",
                "subject", "CN=127.0.0.1");
        double inTwoDays = Instant.now().plus(Duration.ofDays(2)).getEpochSecond();
        assertTrue(Math.abs(stomp - inTwoDays) < 600, "notAfter " + stomp + " vs now + 2 days " + inTwoDays);
        assertEquals(stomp, DaemonMetrics.value(registry, CertificateExpiry.NOT_AFTER, "store", "s3"));
    }

    @Test
    void withoutTrustStoresThereIsNoSeries() {
        PrometheusRegistry registry = new PrometheusRegistry();
        CertificateExpiry.register(registry, new TlsSettings("consumer.", false, null, null));
        assertTrue(registry.scrape().stream().noneMatch(s -> s.getMetadata().getPrometheusName()
                .startsWith("eventindex_tls_")));
    }
}
