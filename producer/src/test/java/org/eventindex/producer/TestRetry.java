package org.eventindex.producer;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.eventindex.retry.Backoff;

/** Retry policies for tests that never really wait. */
final class TestRetry {
    private TestRetry() {
    }

    /** Backoff 1 s doubling, 2.5 s deadline, on a fake clock that sleeping advances: two attempts per step. */
    static RetryPolicy fast() {
        AtomicLong now = new AtomicLong();
        return new RetryPolicy(Backoff.doubling(Duration.ofSeconds(1), Duration.ofSeconds(1)), Duration.ofMillis(2500),
                d -> now.addAndGet(d.toNanos()), now::get, () -> 1.0);
    }

    /** Real time, short waits (10 ms doubling to 200 ms) within {@code deadline}. */
    static RetryPolicy realTime(Duration deadline) {
        RetryPolicy real = RetryPolicy.DEFAULT;
        return new RetryPolicy(new Backoff(Duration.ofMillis(10), 2, Duration.ofMillis(200), 0.5), deadline,
                real.sleeper(), real.nanoTime(), real.random());
    }
}
