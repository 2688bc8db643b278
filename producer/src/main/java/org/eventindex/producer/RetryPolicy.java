package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the producer retries a remote step (broker connect, upload, verify, send) after a {@link ExitCode#TRANSIENT}
 * failure: capped exponential backoff with jitter, bounded by a total deadline for the whole run. Other failures
 * (bad input, configuration, authentication) are never retried.
 *
 * <p>The n-th wait is drawn uniformly from [d/2, d] with d = min({@code maxDelay}, {@code initialDelay} * 2^(n-1)),
 * so many jobs failing together do not retry in lock step. A new attempt is only started when its wait ends before
 * the deadline; an attempt already running is bounded by its own timeouts (connect, socket, receipt), so a run may
 * end up to one attempt's timeout after the deadline.
 *
 * @param initialDelay the wait before the second attempt (before jitter)
 * @param maxDelay     cap of a single wait
 * @param deadline     total time after {@link #start()} in which attempts may start
 * @param sleeper      how to wait (tests pass one that advances a fake clock)
 * @param nanoTime     monotonic clock
 * @param random       uniform [0, 1) source for the jitter
 */
public record RetryPolicy(Duration initialDelay, Duration maxDelay, Duration deadline, Sleeper sleeper,
                          LongSupplier nanoTime, DoubleSupplier random) {
    private static final Logger LOG = LoggerFactory.getLogger(RetryPolicy.class);

    /** Default total deadline of a run's retries. */
    public static final Duration DEFAULT_DEADLINE = Duration.ofMinutes(5);
    /** 1 s first wait, doubling up to 30 s, within {@link #DEFAULT_DEADLINE}, real time. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(30),
            DEFAULT_DEADLINE, Sleeper.REAL, System::nanoTime, () -> ThreadLocalRandom.current().nextDouble());
    /** One attempt per step. */
    public static final RetryPolicy NONE = new RetryPolicy(Duration.ZERO, Duration.ZERO, Duration.ZERO,
            Sleeper.REAL, System::nanoTime, () -> 0.0);

    public RetryPolicy {
        requireNonNull(initialDelay, "initialDelay is null");
        requireNonNull(maxDelay, "maxDelay is null");
        requireNonNull(deadline, "deadline is null");
        requireNonNull(sleeper, "sleeper is null");
        requireNonNull(nanoTime, "nanoTime is null");
        requireNonNull(random, "random is null");
        if (initialDelay.isNegative() || maxDelay.isNegative() || deadline.isNegative()) {
            throw new IllegalArgumentException("retry durations must not be negative: initialDelay " + initialDelay
                    + ", maxDelay " + maxDelay + ", deadline " + deadline);
        }
        if (maxDelay.compareTo(initialDelay) < 0) {
            throw new IllegalArgumentException("maxDelay " + maxDelay + " is below initialDelay " + initialDelay);
        }
    }

    /** The same policy with another total deadline. */
    public RetryPolicy withDeadline(Duration newDeadline) {
        return new RetryPolicy(initialDelay, maxDelay, newDeadline, sleeper, nanoTime, random);
    }

    /** Starts the deadline clock of one run; every step of the run shares it. */
    public Budget start() {
        return new Budget(nanoTime.getAsLong() + deadline.toNanos());
    }

    /** The un-jittered wait after {@code failures} failures (1 = before the second attempt). */
    Duration backoff(int failures) {
        Duration d = initialDelay;
        for (int i = 1; i < failures && d.compareTo(maxDelay) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(maxDelay) > 0 ? maxDelay : d;
    }

    /** The retry state of one run: the deadline all its steps share. */
    public final class Budget {
        private final long deadlineNanos;

        private Budget(long deadlineNanos) {
            this.deadlineNanos = deadlineNanos;
        }

        /**
         * Runs {@code step}, retrying transient failures while the deadline allows; the last failure is thrown, its
         * message saying how many attempts were made, with the first failure suppressed.
         */
        public <T> T run(String what, Step<T> step) throws ProducerException {
            requireNonNull(what, "what is null");
            requireNonNull(step, "step is null");
            ProducerException first = null;
            for (int failures = 0; ; ) {
                try {
                    return step.run();
                } catch (ProducerException e) {
                    failures++;
                    if (e.exitCode() != ExitCode.TRANSIENT) {
                        throw e;
                    }
                    if (first == null) {
                        first = e;
                    }
                    Duration base = backoff(failures);
                    long waitNanos = base.toNanos() / 2 + (long) (random.getAsDouble() * (base.toNanos() / 2.0));
                    long now = nanoTime.getAsLong();
                    if (now + waitNanos >= deadlineNanos) {
                        ProducerException out = new ProducerException(ExitCode.TRANSIENT, e.getMessage() + " (gave up "
                                + "after " + failures + (failures == 1 ? " attempt" : " attempts") + "; retry deadline "
                                + deadline.toSeconds() + " s)", e);
                        if (first != e) {
                            out.addSuppressed(first);
                        }
                        throw out;
                    }
                    LOG.warn("{} failed (attempt {}): {}; retrying in {} ms", what, failures, e.getMessage(),
                            waitNanos / 1_000_000);
                    try {
                        sleeper.sleep(Duration.ofNanos(waitNanos));
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        throw new ProducerException(ExitCode.TRANSIENT, what + " interrupted while waiting to retry",
                                e);
                    }
                }
            }
        }
    }

    /** One retryable step. */
    @FunctionalInterface
    public interface Step<T> {
        T run() throws ProducerException;
    }

    /** Waits between attempts. */
    @FunctionalInterface
    public interface Sleeper {
        Sleeper REAL = d -> Thread.sleep(d.toMillis(), (int) (d.toNanos() % 1_000_000));

        void sleep(Duration duration) throws InterruptedException;
    }
}
