package org.eventindex.deploy.chaos;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Polls an observable condition until it holds or a deadline passes (the harness never sleeps to synchronise). */
public final class ChaosWait {
    private static final long POLL_NANOS = Duration.ofMillis(100).toNanos();

    private ChaosWait() {
    }

    /** @throws IllegalStateException naming {@code what} when the condition still fails after {@code timeout} */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        Objects.requireNonNull(what, "what is null");
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("timed out after " + timeout + " waiting for " + what);
            }
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /** Parks for {@code d}: used only for fault durations (how long a fault lasts), never to wait for a state. */
    static void hold(Duration d) {
        long end = System.nanoTime() + d.toNanos();
        while (System.nanoTime() - end < 0 && !Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(end - System.nanoTime());
        }
    }
}
