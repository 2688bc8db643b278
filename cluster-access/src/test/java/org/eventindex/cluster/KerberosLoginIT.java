package org.eventindex.cluster;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.hadoop.conf.Configuration;
import org.eventindex.cluster.testing.MitKdc;
import org.eventindex.cluster.testing.MovableClock;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.testing.Await;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import javax.security.auth.kerberos.KerberosKey;
import javax.security.auth.kerberos.KerberosPrincipal;
import javax.security.auth.kerberos.KerberosTicket;
import javax.security.auth.kerberos.KeyTab;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The keytab login against a real MIT KDC with ordinary 10-minute tickets, its renewal decided against a
 * {@link MovableClock} that the tests move past the renewal point instead of waiting for it: each renewal is a new
 * ticket-granting ticket from the KDC (a new AS exchange in the KDC's log, a ticket with another session key in the
 * subject), a failed renewal is counted and tried again after its pause, and one clear error names principal and keytab
 * for each way the login can be wrong. Runs in a JVM of its own (failsafe, reuseForks=false): the JVM reads this KDC's
 * krb5.conf once.
 */
class KerberosLoginIT {
    private static final Duration LIFETIME = Duration.ofMinutes(10);
    private static final Duration KDC_LOG = Duration.ofSeconds(10);
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

    private static ClusterSettings settings(String principal, Path keytab) {
        return ClusterSettings.of(null, principal, keytab.toString(), Map.of(),
                ClusterSettings.Names.keys("consumer."));
    }

    /** Hadoop's defaults: its 60 s between re-logins does not hold back a renewal this login decided on. */
    private static ClusterAccess open(String principal, Path keytab, PrometheusRegistry registry, MovableClock clock) {
        return ClusterAccess.open(settings(principal, keytab), new Configuration(), registry, clock);
    }

    @Test
    void renewsWithANewTicketFromTheKdcOnceTheClockPassesEightyPercentOfTheLifetime() {
        MovableClock clock = new MovableClock();
        PrometheusRegistry registry = new PrometheusRegistry();
        long logins = kdc.ticketsIssued(principal);
        try (ClusterAccess access = open(principal, keytab, registry, clock)) {
            KerberosLogin login = access.login().orElseThrow();
            Await.until("the login's ticket in the KDC's log", KDC_LOG,
                    () -> kdc.ticketsIssued(principal) == logins + 1);
            KerberosTicket first = login.ticket().orElseThrow();
            Instant firstAuth = first.getAuthTime().toInstant();
            Instant start = first.getStartTime().toInstant();
            Instant end = first.getEndTime().toInstant();
            assertTrue(Duration.between(start, end).compareTo(LIFETIME) <= 0
                    && Duration.between(start, end).compareTo(LIFETIME.minusSeconds(5)) >= 0,
                    "the KDC's lifetime applies: " + start + " to " + end);
            assertEquals(start.plus(LIFETIME.multipliedBy(4).dividedBy(5)).getEpochSecond(),
                    login.renewalTime().orElseThrow().getEpochSecond(), "renewed at 80% of the lifetime");
            assertEquals(end.toEpochMilli() / 1000.0, DaemonMetrics.value(registry, KerberosLogin.TICKET_END), 0.001);

            clock.moveTo(login.renewalTime().orElseThrow().minusMillis(1));
            assertFalse(login.checkAndRenew(), "not renewed before the renewal point");
            assertSame(first, login.ticket().orElseThrow());

            KerberosTicket previous = first;
            for (int renewal = 1; renewal <= 3; renewal++) {
                byte[] previousTicket = previous.getEncoded();
                Instant due = login.renewalTime().orElseThrow();
                clock.moveTo(due);
                boolean renewed = login.checkAndRenew();
                KerberosTicket now = login.ticket().orElseThrow();
                clock.moveBack();
                // the background thread checks every second too: whichever of the two renewed, it is one renewal
                assertTrue(renewed || now != previous, "renewal " + renewal + " at " + due);
                assertNotSame(previous, now);
                assertFalse(Arrays.equals(previousTicket, now.getEncoded()), "another ticket, not the same one again");
                assertFalse(now.getAuthTime().toInstant().isBefore(firstAuth), "not an earlier authentication");
                assertEquals(1, access.login().orElseThrow().subject()
                        .getPrivateCredentials(KerberosTicket.class).stream()
                        .filter(t -> t.getServer().getName().startsWith("krbtgt/")).count(),
                        "the renewed ticket replaced the old one in the same subject");
                long expected = logins + 1 + renewal;
                Await.until("renewal " + renewal + "'s AS exchange in the KDC's log", KDC_LOG,
                        () -> kdc.ticketsIssued(principal) >= expected);
                assertEquals(now.getEndTime().toInstant().toEpochMilli() / 1000.0,
                        DaemonMetrics.value(registry, KerberosLogin.TICKET_END), 0.001);
                previous = now;
            }
            assertEquals(0, DaemonMetrics.value(registry, KerberosLogin.LOGIN_FAILURES));
            assertTrue(login.lastRenewal().isPresent());
        }
    }

    @Test
    void theRenewalThreadRenewsOnItsOwnOnceTheClockIsPastTheRenewalPoint() {
        MovableClock clock = new MovableClock();
        try (ClusterAccess access = open(principal, keytab, new PrometheusRegistry(), clock)) {
            KerberosLogin login = access.login().orElseThrow();
            KerberosTicket first = login.ticket().orElseThrow();
            Instant due = login.renewalTime().orElseThrow();
            clock.moveTo(due);
            Await.until("the kerberos-renewal thread's renewal (it checks every "
                    + KerberosLogin.CHECK_EVERY.toMillis() + " ms)", Duration.ofSeconds(15),
                    // the new ticket is in the subject a moment before the renewal is recorded: wait for both
                    () -> login.ticket().filter(t -> t != first).isPresent() && login.lastRenewal().isPresent());
            clock.moveBack();
            assertTrue(login.lastRenewal().filter(at -> !at.isBefore(due)).isPresent(),
                    "the renewal happened at the login's clock: " + login.lastRenewal());
            assertEquals(0, login.failures());
        }
    }

    @Test
    void aFailedRenewalIsCountedTriedAgainAfterItsPauseAndWorksOnceTheKeytabIsFixed() throws Exception {
        String rotated = MitKdc.inRealm("rotating/localhost");
        Path rotatingKeytab = kdc.keytab("rotating/localhost", dir.resolve("rotating.keytab"));
        MovableClock clock = new MovableClock();
        PrometheusRegistry registry = new PrometheusRegistry();
        try (ClusterAccess access = open(rotated, rotatingKeytab, registry, clock)) {
            KerberosLogin login = access.login().orElseThrow();
            KerberosTicket first = login.ticket().orElseThrow();
            Instant due = login.renewalTime().orElseThrow();
            Duration pause = KerberosLogin.retryPause(LIFETIME);
            assertEquals(Duration.ofSeconds(60), pause, "a tenth of the lifetime, at most 60 s");
            kdc.kadmin("cpw -randkey " + rotated); // the keytab's keys are old now: renewals fail

            clock.moveTo(due);
            assertFalse(login.checkAndRenew());
            assertEquals(1, login.failures(), "the failed renewal is counted");
            assertEquals(1, DaemonMetrics.value(registry, KerberosLogin.LOGIN_FAILURES));
            assertFalse(login.checkAndRenew(), "no new attempt within the pause");
            clock.moveTo(due.plus(pause).minusMillis(1));
            assertFalse(login.checkAndRenew());
            assertEquals(1, login.failures(), "no new attempt within the pause");

            // the pause runs from the failed attempt, a little after the clock was moved
            clock.moveTo(due.plus(pause).plusSeconds(1));
            assertFalse(login.checkAndRenew());
            assertEquals(2, login.failures(), "tried again after the pause, and failed again");

            kdc.kadmin("ktadd -k " + rotatingKeytab + " -norandkey " + rotated); // the operator adds the new keys
            clock.moveTo(due.plus(pause.multipliedBy(2)).plusSeconds(2));
            boolean renewed = login.checkAndRenew();
            KerberosTicket now = login.ticket().orElseThrow();
            clock.moveBack();
            assertTrue(renewed || now != first, "renewed with the new keys");
            assertNotSame(first, now);
            assertEquals(2, login.failures());
            assertEquals(now.getEndTime().toInstant().toEpochMilli() / 1000.0,
                    DaemonMetrics.value(registry, KerberosLogin.TICKET_END), 0.001);
        }
    }

    /**
     * A keytab rotated as docs/security.md describes it, with no failed renewal: new keys (a new kvno) while the KDC
     * keeps the old ones ({@code cpw -randkey -keepold}), the keytab of both exported and moved over the daemon's,
     * the next renewal on it; then the old keys purged at the KDC ({@code purgekeys}): the renewal after that works
     * too, while a copy of the old keytab is refused.
     */
    @Test
    void aKeytabRotatedWithANewKvnoIsUsedByTheNextRenewalWithoutAFailure() throws Exception {
        String user = MitKdc.inRealm("rotation/localhost");
        Path live = kdc.keytab("rotation/localhost", dir.resolve("rotation.keytab"));
        Path before = Files.copy(live, dir.resolve("rotation-before.keytab"));
        int oldKvno = kvno(live, user);
        MovableClock clock = new MovableClock();
        PrometheusRegistry registry = new PrometheusRegistry();
        try (ClusterAccess access = open(user, live, registry, clock)) {
            KerberosLogin login = access.login().orElseThrow();
            KerberosTicket first = login.ticket().orElseThrow();

            kdc.kadmin("cpw -randkey -keepold " + user);
            Path exported = dir.resolve("rotation.keytab.new");
            kdc.kadmin("ktadd -k " + exported + " -norandkey " + user);
            Files.setPosixFilePermissions(exported, PosixFilePermissions.fromString("rw-------"));
            Files.move(exported, live, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            int newKvno = kvno(live, user);
            assertTrue(newKvno > oldKvno, "a new kvno: " + oldKvno + " -> " + newKvno);

            KerberosTicket second = renew(login, clock);
            assertNotSame(first, second);
            kdc.kadmin("purgekeys -keepkvno " + newKvno + " " + user);
            KerberosTicket third = renew(login, clock);
            assertNotSame(second, third);
            assertEquals(0, login.failures(), "no renewal failed during the rotation");
            assertEquals(0, DaemonMetrics.value(registry, KerberosLogin.LOGIN_FAILURES));
        }
        ClusterConfigException e = assertThrows(ClusterConfigException.class,
                () -> ClusterAccess.open(settings(user, before), new Configuration(), null));
        assertTrue(e.getMessage().contains("the KDC refused the keytab's key"), e.getMessage());
    }

    /** Moves the clock to the renewal point and renews (or sees the renewal thread's renewal). */
    static KerberosTicket renew(KerberosLogin login, MovableClock clock) {
        KerberosTicket previous = login.ticket().orElseThrow();
        clock.moveTo(login.renewalTime().orElseThrow());
        boolean renewed = login.checkAndRenew();
        KerberosTicket now = login.ticket().orElseThrow();
        clock.moveBack();
        assertTrue(renewed || now != previous, "renewed from the keytab");
        return now;
    }

    static int kvno(Path keytab, String principal) {
        return Arrays.stream(KeyTab.getInstance(keytab.toFile()).getKeys(new KerberosPrincipal(principal)))
                .mapToInt(KerberosKey::getVersionNumber).max().orElseThrow();
    }

    @Test
    void principalNotInTheKeytabIsOneErrorNamingBoth() throws Exception {
        String stranger = MitKdc.inRealm("nobody/localhost");
        ClusterConfigException e = assertThrows(ClusterConfigException.class,
                () -> ClusterAccess.open(settings(stranger, keytab), new Configuration(), null));
        assertNamesBoth(e, stranger, keytab);
        assertTrue(e.getMessage().contains("the keytab holds no key of this principal"), e.getMessage());
    }

    @Test
    void principalTheKdcDoesNotKnowIsOneErrorNamingBoth() throws Exception {
        String gone = MitKdc.inRealm("gone/localhost");
        Path goneKeytab = kdc.keytab("gone/localhost", dir.resolve("gone.keytab"));
        kdc.kadmin("delprinc -force " + gone);
        ClusterConfigException e = assertThrows(ClusterConfigException.class,
                () -> ClusterAccess.open(settings(gone, goneKeytab), new Configuration(), null));
        assertNamesBoth(e, gone, goneKeytab);
        assertTrue(e.getMessage().contains("the KDC does not know this principal"), e.getMessage());
    }

    @Test
    void keytabOfOldKeysIsRefusedByTheKdc() throws Exception {
        String user = MitKdc.inRealm("rotated/localhost");
        Path rotated = kdc.keytab("rotated/localhost", dir.resolve("rotated-old.keytab"));
        kdc.kadmin("cpw -randkey " + user); // the KDC's keys change, the keytab keeps the old ones
        ClusterConfigException e = assertThrows(ClusterConfigException.class,
                () -> ClusterAccess.open(settings(user, rotated), new Configuration(), null));
        assertNamesBoth(e, user, rotated);
        assertTrue(e.getMessage().contains("the KDC refused the keytab's key"), e.getMessage());
    }

    @Test
    void missingAndUnreadableKeytabsAreNamed() throws Exception {
        Path missing = dir.resolve("missing.keytab");
        ClusterConfigException e = assertThrows(ClusterConfigException.class,
                () -> ClusterAccess.open(settings(principal, missing), new Configuration(), null));
        assertNamesBoth(e, principal, missing);
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());

        Path unreadable = Files.copy(keytab, dir.resolve("unreadable.keytab"));
        Files.setPosixFilePermissions(unreadable, PosixFilePermissions.fromString("---------"));
        if (!Files.isReadable(unreadable)) { // root reads everything
            ClusterConfigException u = assertThrows(ClusterConfigException.class,
                    () -> ClusterAccess.open(settings(principal, unreadable), new Configuration(), null));
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
