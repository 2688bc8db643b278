package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.SignalObject;
import org.eventindex.retry.Backoff;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SignalDispatcherTest {
    private static final ConsumerSignal SIGNAL = new ConsumerSignal(ConsumerSignal.TYPE, "sig-1", Fixtures.DATASET,
            Fixtures.CONTAINER, 1, 1, List.of(new SignalObject(Fixtures.url("a"), 1, List.of("G1"), 1)), 1, 0);

    @Test
    void retriesUntilTheBrokerAcceptsThenReportsSentOnce() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        List<ConsumerSignal> sent = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        try (SignalDispatcher d = new SignalDispatcher(s -> {
            if (attempts.incrementAndGet() < 3) {
                throw new IOException("no receipt from broker");
            }
        }, s -> {
            sent.add(s);
            done.countDown();
        }, failures::incrementAndGet, Backoff.doubling(Duration.ofMillis(1), Duration.ofMillis(4)))) {
            d.submit(SIGNAL);
            assertTrue(done.await(10, TimeUnit.SECONDS), "signal never reported sent");
            assertEquals(0, d.pending());
        }
        assertEquals(3, attempts.get());
        assertEquals(2, failures.get());
        assertEquals(List.of(SIGNAL), sent);
    }

    @Test
    void signalAlreadyWaitingIsNotQueuedTwice() throws Exception {
        CountDownLatch inSend = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        AtomicInteger sends = new AtomicInteger();
        try (SignalDispatcher d = new SignalDispatcher(s -> {
            sends.incrementAndGet();
            inSend.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, s -> done.countDown(), () -> { }, Backoff.doubling(Duration.ofMillis(1), Duration.ofMillis(1)))) {
            d.submit(SIGNAL);
            assertTrue(inSend.await(10, TimeUnit.SECONDS));
            d.submit(SIGNAL);
            assertEquals(1, d.pending());
            release.countDown();
            assertTrue(done.await(10, TimeUnit.SECONDS));
        }
        assertEquals(1, sends.get());
    }
}
