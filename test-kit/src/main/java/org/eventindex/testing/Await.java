package org.eventindex.testing;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds or a deadline passes: synchronisation for tests without fixed sleeps. */
public final class Await {
    private static final long POLL_NANOS = Duration.ofMillis(20).toNanos();

    private Await() {
    }

    /** @throws AssertionError naming {@code what} when the condition still fails after {@code timeout} */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        requireNonNull(what, "what is null");
        requireNonNull(condition, "condition is null");
        long deadline = System.nanoTime() + requireNonNull(timeout, "timeout is null").toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting for " + what);
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }
}
