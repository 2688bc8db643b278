package org.eventindex.ops;

import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.config.TlsSettings;
import org.eventindex.config.TrustStore;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.Objects;

/**
 * The expiry of a daemon's own TLS material: each certificate of the trust stores it was configured with
 * ({@code *.stomp.truststore}, {@code *.s3.truststore}), as {@link #NOT_AFTER} with labels {@code store}
 * ({@code stomp}, {@code s3}), {@code alias} and {@code subject}, read once at start (what the daemon trusts until it
 * restarts). A daemon on the JVM's default trust stores has none of these series: the JVM's CA bundle is the
 * system's to renew.
 */
public final class CertificateExpiry {
    /** Gauge: the certificate's notAfter, in seconds since the epoch. */
    public static final String NOT_AFTER = "eventindex_tls_certificate_not_after_timestamp_seconds";

    private CertificateExpiry() {
    }

    /** Registers {@link #NOT_AFTER} for the certificates of {@code tls}'s trust stores (nothing without any). */
    public static void register(PrometheusRegistry registry, TlsSettings tls) {
        Objects.requireNonNull(registry, "registry is null");
        Objects.requireNonNull(tls, "tls is null");
        if (tls.stompTrust() == null && tls.s3Trust() == null) {
            return;
        }
        Gauge gauge = Gauge.builder().name(NOT_AFTER).help("notAfter of each certificate of the daemon's configured"
                + " trust stores (seconds since the epoch), by store (stomp, s3), alias and subject.")
                .labelNames("store", "alias", "subject").register(registry);
        add(gauge, "stomp", tls.stompTrust());
        add(gauge, "s3", tls.s3Trust());
    }

    private static void add(Gauge gauge, String name, TrustStore store) {
        if (store == null) {
            return;
        }
        try {
            KeyStore ks = KeyStore.getInstance(store.file().toFile(),
                    store.password() == null ? null : store.password().toCharArray());
            for (String alias : Collections.list(ks.aliases())) {
                Certificate c = ks.getCertificate(alias);
                if (c instanceof X509Certificate x) {
                    gauge.labelValues(name, alias, x.getSubjectX500Principal().getName())
                            .set(x.getNotAfter().getTime() / 1000.0);
                }
            }
        } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
            // the daemon's TLS setup reads the same store and fails at start with the reason: nothing to export
        }
    }
}
