package org.eventindex.cluster;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The renewal's arithmetic (the renewal point of a ticket, the pause after a failed renewal) and the checks made
 * before any KDC is asked (the keytab's mode).
 */
class KerberosLoginTest {
    private static final Instant START = Instant.parse("2026-12-06T08:00:00Z");

    @Test
    void aTicketIsDueForRenewalAtEightyPercentOfItsLifetime() {
        assertEquals(Instant.parse("2026-12-06T16:00:00Z"), KerberosLogin.renewalTime(START, START.plus(
                Duration.ofHours(10))));
        assertEquals(START.plusSeconds(480), KerberosLogin.renewalTime(START, START.plusSeconds(600)));
        assertEquals(START.plusSeconds(24), KerberosLogin.renewalTime(START, START.plusSeconds(30)));
        assertEquals(START.plusMillis(800), KerberosLogin.renewalTime(START, START.plusSeconds(1)));
    }

    @Test
    void aFailedRenewalIsTriedAgainAfterATenthOfTheLifetimeBetweenOneSecondAndAMinute() {
        assertEquals(Duration.ofSeconds(60), KerberosLogin.retryPause(Duration.ofHours(10)));
        assertEquals(Duration.ofSeconds(60), KerberosLogin.retryPause(Duration.ofMinutes(10)));
        assertEquals(Duration.ofSeconds(3), KerberosLogin.retryPause(Duration.ofSeconds(30)));
        assertEquals(Duration.ofSeconds(1), KerberosLogin.retryPause(Duration.ofSeconds(5)));
    }

    @Test
    void aKeytabThatGroupOrOthersMayReadIsRefusedWithItsModeAndTheFix(@TempDir Path dir) throws IOException {
        for (String mode : List.of("rw-r--r--", "rw-r-----", "r-----r--")) {
            // not a real keytab: the mode is checked before the file is read or a KDC is asked
            Path keytab = Files.writeString(dir.resolve("open-" + mode.replace('-', '_') + ".keytab"), "x");
            Files.setPosixFilePermissions(keytab, PosixFilePermissions.fromString(mode));
            ClusterSettings settings = ClusterSettings.of(null, "ei/localhost@EXAMPLE.ORG", keytab.toString(),
                    Map.of(), ClusterSettings.Names.keys("consumer."));
            ClusterConfigException e = assertThrows(ClusterConfigException.class,
                    () -> KerberosLogin.login(settings, new Configuration(false), Clock.systemUTC()));
            assertEquals("Kerberos login of principal ei/localhost@EXAMPLE.ORG (consumer.kerberos.principal) with"
                    + " keytab " + keytab + " (consumer.kerberos.keytab) failed: consumer.kerberos.keytab: keytab "
                    + keytab + " has mode " + mode + "; group and others must have no access (run: chmod 600 "
                    + keytab + ")", e.getMessage());
        }
    }
}
