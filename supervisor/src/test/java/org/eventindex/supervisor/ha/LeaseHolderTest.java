package org.eventindex.supervisor.ha;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.supervisor.journal.JournalFiles;
import org.eventindex.testing.Await;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The lease holder's threads: its watchdog runs whatever its renewals wait on. */
class LeaseHolderTest {
    private static final SupervisorConfig.Ha HA = new SupervisorConfig.Ha(true, "", Duration.ofMillis(600),
            Duration.ofMillis(50));

    @Test
    void theWatchdogRunsWhileTheRenewalAndAConfirmationAreBlocked() throws InterruptedException {
        CountDownLatch never = new CountDownLatch(1);
        CountDownLatch blocked = new CountDownLatch(2);
        AtomicInteger watched = new AtomicInteger();
        Holder h = new Holder();
        try {
            h.startRenewing(() -> block(blocked, never), watched::incrementAndGet);
            // a confirmation asked for on a reconnection, blocked in the store as the periodic renewal is (a
            // ZooKeeper without its quorum): the two renewal threads are taken
            h.onLeaseThread(() -> block(blocked, never));
            assertTrue(blocked.await(20, TimeUnit.SECONDS), "the renewal and the confirmation both blocked");
            int before = watched.get();
            Await.until("the watchdog running while both renewal threads are blocked", Duration.ofSeconds(20),
                    () -> watched.get() >= before + 3);
        } finally {
            never.countDown();
            h.stopRenewing();
        }
    }

    private static void block(CountDownLatch blocked, CountDownLatch latch) {
        blocked.countDown();
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A holder with nothing behind it but the threads {@link LeaseHolder} gives it. */
    private static final class Holder extends LeaseHolder {
        Holder() {
            super(HA, "t", new PrometheusRegistry(), why -> { });
        }

        @Override
        double leaseAgeSeconds() {
            return 0;
        }

        @Override
        String journalLocation() {
            return "";
        }

        @Override
        public Optional<JournalFiles> awaitActive() {
            return Optional.empty();
        }

        @Override
        public void check() {
        }

        @Override
        public void release() {
        }

        @Override
        public String standbyReason() {
            return "";
        }
    }
}
