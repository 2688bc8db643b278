package org.eventindex.ops;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.config.Secret;
import org.eventindex.config.SecretFile;
import org.eventindex.config.TlsSettings;
import org.eventindex.config.TrustStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link CredentialFiles}: each file's age from its modification time at scrape, and the secrets' reload failures. */
class CredentialFilesTest {
    private static final Instant NOW = Instant.parse("2026-12-06T12:00:00Z");

    @TempDir
    Path dir;

    @Test
    void ageFollowsTheFileAndAReplacedFileStartsFromZero() throws IOException {
        Path keytab = Files.writeString(dir.resolve("consumer.keytab"), "k");
        Files.setLastModifiedTime(keytab, FileTime.from(NOW.minusSeconds(86_400)));
        Path pw = SecretFile.write(dir.resolve("pw"), "old");
        Files.setLastModifiedTime(pw, FileTime.from(NOW.minusSeconds(30)));
        Secret password = Secret.fromFile(pw, "consumer.stomp.password.file");
        Path trust = Files.writeString(dir.resolve("trust.p12"), "t");
        Files.setLastModifiedTime(trust, FileTime.from(NOW.minusSeconds(7)));
        PrometheusRegistry registry = new PrometheusRegistry();
        new CredentialFiles().secret(password).secret(Secret.of("from-the-environment")).secret(null)
                .file("consumer.kerberos.keytab", "keytab", keytab).file("consumer.kerberos.keytab", "keytab", null)
                .trustStores(new TlsSettings("consumer.", true, new TrustStore(trust, null), null))
                .register(registry, Clock.fixed(NOW, ZoneOffset.UTC));

        assertEquals(86_400, DaemonMetrics.value(registry, CredentialFiles.AGE, "key", "consumer.kerberos.keytab",
                "kind", "keytab"));
        assertEquals(30, DaemonMetrics.value(registry, CredentialFiles.AGE, "key", "consumer.stomp.password.file",
                "kind", "secret"));
        assertEquals(7, DaemonMetrics.value(registry, CredentialFiles.AGE, "key", "consumer.stomp.truststore",
                "kind", "truststore"));
        assertEquals(3, registry.scrape().stream().filter(s -> s.getMetadata().getPrometheusName()
                .equals("eventindex_credential_file_age_seconds")).findFirst().orElseThrow().getDataPoints().size(),
                "the fixed secret and the unset keytab have no series");

        Files.setLastModifiedTime(keytab, FileTime.from(NOW));
        assertEquals(0, DaemonMetrics.value(registry, CredentialFiles.AGE, "key", "consumer.kerberos.keytab"));
        Files.delete(keytab);
        assertEquals(-1, DaemonMetrics.value(registry, CredentialFiles.AGE, "key", "consumer.kerberos.keytab"));

        assertEquals(0, DaemonMetrics.value(registry, CredentialFiles.RELOAD_FAILURES, "key",
                "consumer.stomp.password.file"));
        Files.setPosixFilePermissions(pw, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        assertEquals("old", password.value(), "a file open to others is not used");
        assertEquals(1, DaemonMetrics.value(registry, CredentialFiles.RELOAD_FAILURES, "key",
                "consumer.stomp.password.file"));
    }

    @Test
    void withoutCredentialFilesThereIsNoSeries() {
        PrometheusRegistry registry = new PrometheusRegistry();
        new CredentialFiles().secret(Secret.of("x")).register(registry, Clock.systemUTC());
        assertTrue(registry.scrape().stream().noneMatch(s -> s.getMetadata().getPrometheusName()
                .startsWith("eventindex_credential_")));
    }
}
