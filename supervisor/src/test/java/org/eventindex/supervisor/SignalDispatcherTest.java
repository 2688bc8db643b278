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
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SignalDispatcherTest {
    private static final ConsumerSignal SIGNAL = new ConsumerSignal(ConsumerSignal.TYPE, "sig-1", Fixtures.DATASET,
            Fixtures.CONTAINER, 1, 1, List.of(new SignalObject(Fixtures.url("a"), 1, List.of("G1"), 1)), 1, 0);

    /** A ledger that holds every signal current (or none) and passes each "sent" on. */
    private static SignalOutbox.Ledger ledger(boolean current, Consumer<ConsumerSignal> sent) {
        return new SignalOutbox.Ledger() {
            @Override
            public boolean isCurrent(ConsumerSignal signal) {
                return current;
            }

            @Override
            public void onSignalSent(ConsumerSignal signal) {
                sent.accept(signal);
            }
        };
    }

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
        }, failures::incrementAndGet, Backoff.doubling(Duration.ofMillis(1), Duration.ofMillis(4)))) {
            d.reportTo(ledger(true, s -> {
                sent.add(s);
                done.countDown();
            }));
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
        }, () -> { }, Backoff.doubling(Duration.ofMillis(1), Duration.ofMillis(1)))) {
            d.reportTo(ledger(true, s -> done.countDown()));
            d.submit(SIGNAL);
            assertTrue(inSend.await(10, TimeUnit.SECONDS));
            d.submit(SIGNAL);
            assertEquals(1, d.pending());
            release.countDown();
            assertTrue(done.await(10, TimeUnit.SECONDS));
        }
        assertEquals(1, sends.get());
    }

    @Test
    void signalSupersededWhileItWaitedIsNotSent() throws Exception {
        AtomicInteger sends = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        try (SignalDispatcher d = new SignalDispatcher(s -> sends.incrementAndGet(), () -> { },
                Backoff.doubling(Duration.ofMillis(1), Duration.ofMillis(1)))) {
            d.reportTo(ledger(false, s -> done.countDown()));
            d.submit(SIGNAL);
            assertTrue(done.await(10, TimeUnit.SECONDS), "the ledger never heard the dispatcher was done");
            assertEquals(0, d.pending());
        }
        assertEquals(0, sends.get(), "a superseded signal goes nowhere");
    }

    @Test
    void refusesSignalsBeforeItHasALedger() {
        try (SignalDispatcher d = new SignalDispatcher(s -> { }, () -> { },
                Backoff.doubling(Duration.ofMillis(1), Duration.ofMillis(1)))) {
            assertThrows(IllegalStateException.class, () -> d.submit(SIGNAL));
            d.reportTo(ledger(true, s -> { }));
            assertThrows(IllegalStateException.class, () -> d.reportTo(ledger(true, s -> { })));
        }
    }
}
