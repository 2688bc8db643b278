package org.eventindex.ops;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.config.Secret;
import org.eventindex.config.TlsSettings;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The age of each credential file a daemon uses (secret files, keytab, trust stores), read at every scrape: seconds
 * since the file last changed, which is when it was last rotated ({@link #AGE}, labels {@code key} = the configuration
 * key naming the file and {@code kind} = {@code secret}, {@code keytab} or {@code truststore}); and for the secrets
 * read again on change ({@link Secret}) and the HTTPS key and trust stores, the changes that could not be used
 * ({@link #RELOAD_FAILURES}). A keytab's
 * age is the time since its keys (a new kvno) were installed; the alerts compare it with the site's rotation period.
 */
public final class CredentialFiles {
    /** Gauge: seconds since the file's last modification; -1 while it cannot be read. */
    public static final String AGE = "eventindex_credential_file_age_seconds";
    /** Counter: a credential file changed but could not be used; the previous secret stays in use. */
    public static final String RELOAD_FAILURES = "eventindex_credential_reload_failures_total";

    private record Entry(String key, String kind, Path file, Secret secret) {
    }

    /** The files counted in {@link #RELOAD_FAILURES}, by registry (one counter per registry) and key. */
    private static final Map<PrometheusRegistry, Map<String, LongSupplier>> RELOADING = new WeakHashMap<>();
    /** The files of {@link #AGE}, by registry (one gauge per registry) and key. */
    private static final Map<PrometheusRegistry, Map<String, Aged>> AGES = new WeakHashMap<>();

    private record Aged(String kind, Path file) {
    }

    private final List<Entry> entries = new ArrayList<>();

    /** A secret read from a file ({@code kind} {@code secret}); nothing for null or a fixed secret. */
    public CredentialFiles secret(Secret secret) {
        if (secret != null && secret.file().isPresent()) {
            entries.add(new Entry(secret.what(), "secret", secret.file().get(), secret));
        }
        return this;
    }

    /** A credential file read by another part (a keytab, a trust store); nothing for null. */
    public CredentialFiles file(String key, String kind, Path file) {
        Objects.requireNonNull(key, "key is null");
        Objects.requireNonNull(kind, "kind is null");
        if (file != null) {
            entries.add(new Entry(key, kind, file, null));
        }
        return this;
    }

    /** The trust stores of {@code tls} ({@code kind} {@code truststore}). */
    public CredentialFiles trustStores(TlsSettings tls) {
        if (tls.stompTrust() != null) {
            file(tls.prefix() + "stomp.truststore", "truststore", tls.stompTrust().file());
        }
        if (tls.s3Trust() != null) {
            file(tls.prefix() + "s3.truststore", "truststore", tls.s3Trust().file());
        }
        return this;
    }

    /** Registers both metrics (none when no file was added). */
    public void register(PrometheusRegistry registry, Clock clock) {
        Objects.requireNonNull(registry, "registry is null");
        Objects.requireNonNull(clock, "clock is null");
        for (Entry e : entries) {
            age(registry, clock, e.key(), e.kind(), e.file());
            if (e.secret() != null) {
                reloadFailures(registry, e.key(), e.secret()::reloadFailures);
            }
        }
    }

    /**
     * Adds a credential file to {@value #AGE} of {@code registry} (labels {@code key}, {@code kind}): the files of
     * {@link #register}, the HTTP server's key store, trust store and keytab ({@link OpsHttpServer}). The gauge is
     * registered with the first file, against its {@code clock}.
     */
    public static void age(PrometheusRegistry registry, Clock clock, String key, String kind, Path file) {
        Objects.requireNonNull(clock, "clock is null");
        Objects.requireNonNull(kind, "kind is null");
        Objects.requireNonNull(file, "file is null");
        shared(AGES, registry, key, new Aged(kind, file), files -> GaugeWithCallback.builder().name(AGE)
                .help("Seconds since each credential file of the daemon last changed (was rotated), by"
                        + " configuration key and kind (secret, keytab, truststore, keystore); -1 when it cannot be"
                        + " read.")
                .labelNames("key", "kind")
                .callback(cb -> files.forEach((k, f) -> cb.call(age(f.file(), clock), k, f.kind())))
                .register(registry));
    }

    /**
     * Adds a file read again on change to {@value #RELOAD_FAILURES} of {@code registry} (label {@code key}): the
     * secrets of {@link #register}, the HTTPS key and trust stores ({@link OpsHttpServer}). The counter is registered
     * with the first file.
     */
    public static void reloadFailures(PrometheusRegistry registry, String key, LongSupplier failures) {
        Objects.requireNonNull(failures, "failures is null");
        shared(RELOADING, registry, key, failures, files -> CounterWithCallback.builder().name(RELOAD_FAILURES)
                .help("Changes of a credential file that could not be used (missing, empty, open to group or"
                        + " others, not a key store); the previous credential stays in use.")
                .labelNames("key")
                .callback(cb -> files.forEach((k, f) -> cb.call(f.getAsLong(), k)))
                .register(registry));
    }

    /** Puts {@code value} under {@code key} in the registry's map of {@code all}, registering its metric first. */
    private static <V> void shared(Map<PrometheusRegistry, Map<String, V>> all, PrometheusRegistry registry,
                                   String key, V value, Consumer<Map<String, V>> metric) {
        Objects.requireNonNull(registry, "registry is null");
        Objects.requireNonNull(key, "key is null");
        synchronized (all) {
            all.computeIfAbsent(registry, r -> {
                Map<String, V> files = new ConcurrentSkipListMap<>();
                metric.accept(files);
                return files;
            }).put(key, value);
        }
    }

    private static double age(Path file, Clock clock) {
        try {
            return Math.max(0, clock.millis() - Files.getLastModifiedTime(file).toMillis()) / 1000.0;
        } catch (IOException e) {
            return -1;
        }
    }
}
