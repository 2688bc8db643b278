package org.eventindex.cluster;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.hadoop.conf.Configuration;
import org.eventindex.cluster.testing.MitKdc;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.testing.Await;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The keytab login against a real MIT KDC with 20-second tickets: a login, renewals before each ticket ends, and
 * one clear error naming principal and keytab for each way the login can be wrong. Runs in a JVM of its own
 * (failsafe, reuseForks=false): the JVM reads this KDC's krb5.conf once.
 */
class KerberosLoginIT {
    private static final Duration LIFETIME = Duration.ofSeconds(20);
    @TempDir
    static Path dir;
    static MitKdc kdc;
    static Path keytab;
    static String principal;

    @BeforeAll
    static void startKdc() throws Exception {
        kdc = MitKdc.startForThisJvm(dir.resolve("kdc"), LIFETIME);
        principal = MitKdc.inRealm("eventindex/localhost");
        keytab = kdc.keytab("eventindex/localhost", dir.resolve("eventindex.keytab"));
    }

    @AfterAll
    static void stopKdc() {
        if (kdc != null) {
            kdc.close();
        }
    }

    private static Configuration renewQuickly() {
        Configuration conf = new Configuration();
        // Hadoop waits 60 s between logins by default; the tickets here last 20 s
        conf.set("hadoop.kerberos.min.seconds.before.relogin", "1");
        return conf;
    }

    private static ClusterSettings settings(String principal, Path keytab) {
        return ClusterSettings.of(null, principal, keytab.toString(), Map.of(),
                ClusterSettings.Names.keys("consumer."));
    }

    @Test
    void logsInAndRenewsBeforeEachTicketEnds() {
        PrometheusRegistry registry = new PrometheusRegistry();
        try (ClusterAccess access = ClusterAccess.open(settings(principal, keytab), renewQuickly(), registry)) {
            KerberosLogin login = access.login().orElseThrow();
            Instant firstEnd = login.ticketEnd().orElseThrow();
            assertTrue(Duration.between(Instant.now(), firstEnd).compareTo(LIFETIME.plusSeconds(2)) <= 0,
                    "the KDC's short lifetime applies: the ticket ends at " + firstEnd);
            assertEquals(firstEnd.toEpochMilli() / 1000.0, DaemonMetrics.value(registry, KerberosLogin.TICKET_END),
                    0.001);
            Instant end = firstEnd;
            for (int lifetime = 1; lifetime <= 3; lifetime++) {
                Instant previous = end;
                Await.until("renewal " + lifetime + " of the Kerberos login", LIFETIME.multipliedBy(2),
                        () -> login.ticketEnd().orElseThrow().isAfter(previous));
                end = login.ticketEnd().orElseThrow();
                assertTrue(previous.isAfter(Instant.now().minusSeconds(1)),
                        "renewed before the old ticket ended at " + previous);
            }
            assertEquals(0, DaemonMetrics.value(registry, KerberosLogin.LOGIN_FAILURES));
        }
    }

    @Test
    void aFailedRenewalIsCountedAndTheNextOneWorksOnceTheKeytabIsFixed() throws Exception {
        String rotated = MitKdc.inRealm("rotating/localhost");
        Path rotatingKeytab = kdc.keytab("rotating/localhost", dir.resolve("rotating.keytab"));
        PrometheusRegistry registry = new PrometheusRegistry();
        try (ClusterAccess access = ClusterAccess.open(settings(rotated, rotatingKeytab), renewQuickly(), registry)) {
            KerberosLogin login = access.login().orElseThrow();
            Instant firstEnd = login.ticketEnd().orElseThrow();
            kdc.kadmin("cpw -randkey " + rotated); // the keytab's keys are old now: renewals fail
            Await.until("a failed renewal counted", LIFETIME.multipliedBy(2),
                    () -> DaemonMetrics.value(registry, KerberosLogin.LOGIN_FAILURES) >= 1);
            kdc.kadmin("ktadd -k " + rotatingKeytab + " -norandkey " + rotated); // the operator adds the new keys
            Await.until("a renewal with the new keys", LIFETIME.multipliedBy(2),
                    () -> login.ticketEnd().filter(end -> end.isAfter(firstEnd)).isPresent());
            assertTrue(login.failures() >= 1);
        }
    }

    @Test
    void principalNotInTheKeytabIsOneErrorNamingBoth() throws Exception {
        String stranger = MitKdc.inRealm("nobody/localhost");
        ClusterConfigException e = assertThrows(ClusterConfigException.class,
                () -> ClusterAccess.open(settings(stranger, keytab), renewQuickly(), null));
        assertNamesBoth(e, stranger, keytab);
        assertTrue(e.getMessage().contains("the keytab holds no key of this principal"), e.getMessage());
    }

    @Test
    void principalTheKdcDoesNotKnowIsOneErrorNamingBoth() throws Exception {
        String gone = MitKdc.inRealm("gone/localhost");
        Path goneKeytab = kdc.keytab("gone/localhost", dir.resolve("gone.keytab"));
        kdc.kadmin("delprinc -force " + gone);
        ClusterConfigException e = assertThrows(ClusterConfigException.class,
                () -> ClusterAccess.open(settings(gone, goneKeytab), renewQuickly(), null));
        assertNamesBoth(e, gone, goneKeytab);
        assertTrue(e.getMessage().contains("the KDC does not know this principal"), e.getMessage());
    }

    @Test
    void keytabOfOldKeysIsRefusedByTheKdc() throws Exception {
        String user = MitKdc.inRealm("rotated/localhost");
        Path rotated = kdc.keytab("rotated/localhost", dir.resolve("rotated-old.keytab"));
        kdc.kadmin("cpw -randkey " + user); // the KDC's keys change, the keytab keeps the old ones
        ClusterConfigException e = assertThrows(ClusterConfigException.class,
                () -> ClusterAccess.open(settings(user, rotated), renewQuickly(), null));
        assertNamesBoth(e, user, rotated);
        assertTrue(e.getMessage().contains("the KDC refused the keytab's key"), e.getMessage());
    }

    @Test
    void missingAndUnreadableKeytabsAreNamed() throws Exception {
        Path missing = dir.resolve("missing.keytab");
        ClusterConfigException e = assertThrows(ClusterConfigException.class,
                () -> ClusterAccess.open(settings(principal, missing), renewQuickly(), null));
        assertNamesBoth(e, principal, missing);
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());

        Path unreadable = Files.copy(keytab, dir.resolve("unreadable.keytab"));
        Files.setPosixFilePermissions(unreadable, PosixFilePermissions.fromString("---------"));
        if (!Files.isReadable(unreadable)) { // root reads everything
            ClusterConfigException u = assertThrows(ClusterConfigException.class,
                    () -> ClusterAccess.open(settings(principal, unreadable), renewQuickly(), null));
            assertNamesBoth(u, principal, unreadable);
        }
    }

    private static void assertNamesBoth(ClusterConfigException e, String principal, Path keytab) {
        LoggerFactory.getLogger(KerberosLoginIT.class).info("refused as expected: {}", e.getMessage());
        assertTrue(e.getMessage().contains(principal) && e.getMessage().contains(keytab.toString())
                        && e.getMessage().contains("consumer.kerberos.principal")
                        && e.getMessage().contains("consumer.kerberos.keytab"),
                "names principal, keytab and their keys: " + e.getMessage());
    }
}
