package org.eventindex.lookup;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UserQuotasTest {
    private final AtomicLong now = new AtomicLong();
    private final UserQuotas quotas = new UserQuotas(2, 600, now::get);

    @Test
    void requestsInProgressAreBoundedPerUser() throws Exception {
        UserQuotas.Permit a = quotas.enter("alice");
        quotas.enter("alice");
        UserQuotas.Exceeded e = assertThrows(UserQuotas.Exceeded.class, () -> quotas.enter("alice"));
        assertTrue(e.getMessage().startsWith("user alice has 2 lookup requests in progress, the limit per user"
                + " (--max-user-concurrent 2)"), e.getMessage());
        quotas.enter("bob").close();
        a.close();
        quotas.enter("alice");
    }

    @Test
    void eventsPerMinuteRefillContinuouslyUpToAMinutesWorth() throws Exception {
        quotas.charge("alice", 600);
        UserQuotas.Exceeded e = assertThrows(UserQuotas.Exceeded.class, () -> quotas.charge("alice", 100));
        assertEquals("user alice asked for 100 events with 0 left of its 600 per minute"
                + " (--max-user-events-per-minute); retry in 10 s", e.getMessage());
        assertEquals(10, e.retryAfterSeconds());
        quotas.charge("bob", 1);
        now.addAndGet(10_000_000_000L);
        quotas.charge("alice", 100);
        now.addAndGet(3_600_000_000_000L);
        quotas.charge("alice", 600);
        assertThrows(UserQuotas.Exceeded.class, () -> quotas.charge("alice", 1), "a full minute, no more");
    }
}
