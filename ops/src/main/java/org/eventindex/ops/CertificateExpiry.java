package org.eventindex.ops;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.config.TlsSettings;
import org.eventindex.config.TrustStore;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.X509ExtendedKeyManager;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Supplier;

/**
 * The expiry of a daemon's own TLS material, as {@link #NOT_AFTER} with labels {@code store}, {@code alias} and
 * {@code subject}: each certificate of the trust stores it was configured with ({@code *.stomp.truststore},
 * {@code *.s3.truststore}; {@code store} {@code stomp}, {@code s3}), read once at start (what the daemon trusts until
 * it restarts), and the certificate its HTTPS server serves ({@code *.http.keystore}, {@code store} {@code http}),
 * read at each scrape from the key store in use (a renewed one moved in shows its new date once served). A daemon on
 * the JVM's default trust stores has no {@code stomp}/{@code s3} series: the JVM's CA bundle is the system's to renew.
 */
public final class CertificateExpiry {
    /** Gauge: the certificate's notAfter, in seconds since the epoch. */
    public static final String NOT_AFTER = "eventindex_tls_certificate_not_after_timestamp_seconds";

    /** The certificates of each registry's gauge (one gauge per registry), by store. */
    private static final Map<PrometheusRegistry, Map<String, Supplier<List<Expiry>>>> STORES = new WeakHashMap<>();

    private record Expiry(String alias, String subject, double notAfter) {
    }

    private CertificateExpiry() {
    }

    /** Registers {@link #NOT_AFTER} for the certificates of {@code tls}'s trust stores (nothing without any). */
    public static void register(PrometheusRegistry registry, TlsSettings tls) {
        Objects.requireNonNull(registry, "registry is null");
        Objects.requireNonNull(tls, "tls is null");
        add(registry, "stomp", tls.stompTrust());
        add(registry, "s3", tls.s3Trust());
    }

    /** The certificate served by {@code keys} (its servers' aliases), read at each scrape, as {@code store}. */
    static void served(PrometheusRegistry registry, String store, Supplier<X509ExtendedKeyManager> keys) {
        Objects.requireNonNull(keys, "keys is null");
        add(registry, store, () -> {
            X509ExtendedKeyManager k = keys.get();
            List<Expiry> out = new ArrayList<>();
            for (String type : List.of("EC", "RSA")) {
                String[] aliases = k.getServerAliases(type, null);
                for (String alias : aliases == null ? new String[0] : aliases) {
                    X509Certificate[] chain = k.getCertificateChain(alias);
                    if (chain != null && chain.length > 0) {
                        out.add(expiry(alias, chain[0]));
                    }
                }
            }
            return out;
        });
    }

    private static void add(PrometheusRegistry registry, String name, TrustStore store) {
        if (store == null) {
            return;
        }
        List<Expiry> read = new ArrayList<>();
        try {
            KeyStore ks = KeyStore.getInstance(store.file().toFile(),
                    store.password() == null ? null : store.password().toCharArray());
            for (String alias : Collections.list(ks.aliases())) {
                Certificate c = ks.getCertificate(alias);
                if (c instanceof X509Certificate x) {
                    read.add(expiry(alias, x));
                }
            }
        } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
            // the daemon's TLS setup reads the same store and fails at start with the reason: nothing to export
        }
        List<Expiry> fixed = List.copyOf(read);
        add(registry, name, () -> fixed);
    }

    private static Expiry expiry(String alias, X509Certificate x) {
        return new Expiry(alias, x.getSubjectX500Principal().getName(), x.getNotAfter().getTime() / 1000.0);
    }

    private static void add(PrometheusRegistry registry, String store, Supplier<List<Expiry>> certificates) {
        Objects.requireNonNull(registry, "registry is null");
        synchronized (STORES) {
            STORES.computeIfAbsent(registry, r -> {
                Map<String, Supplier<List<Expiry>>> stores = new ConcurrentSkipListMap<>();
                GaugeWithCallback.builder().name(NOT_AFTER).help("notAfter of each certificate of the daemon's"
                                + " configured trust stores and of the one its HTTPS server serves (seconds since the"
                                + " epoch), by store (stomp, s3, http), alias and subject.")
                        .labelNames("store", "alias", "subject")
                        .callback(cb -> stores.forEach((name, certs) -> certs.get()
                                .forEach(c -> cb.call(c.notAfter(), name, c.alias(), c.subject()))))
                        .register(r);
                return stores;
            }).put(store, certificates);
        }
    }
}
