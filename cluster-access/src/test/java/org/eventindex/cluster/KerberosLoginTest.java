package org.eventindex.cluster;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The renewal's arithmetic: the renewal point of a ticket and the pause after a failed renewal. */
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
}
