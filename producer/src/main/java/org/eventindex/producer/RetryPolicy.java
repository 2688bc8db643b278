package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import org.eventindex.retry.Backoff;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the producer retries a remote step (broker connect, upload, verify, send) after a {@link ExitCode#TRANSIENT}
 * failure: waits from the {@link Backoff} (by default 1 s doubling up to 30 s, each drawn uniformly from [d/2, d] so
 * many jobs failing together do not retry in lock step), bounded by a total deadline for the whole run. Other
 * failures (bad input, configuration, authentication) are never retried.
 *
 * <p>A new attempt is only started when its wait ends before the deadline; an attempt already running is bounded by
 * its own timeouts (connect, socket, receipt), so a run may end up to one attempt's timeout after the deadline.
 *
 * @param backoff  the wait before each retry
 * @param deadline total time after {@link #start()} in which attempts may start
 * @param sleeper  how to wait (tests pass one that advances a fake clock)
 * @param nanoTime monotonic clock
 * @param random   uniform [0, 1) source for the jitter
 */
public record RetryPolicy(Backoff backoff, Duration deadline, Sleeper sleeper, LongSupplier nanoTime,
                          DoubleSupplier random) {
    private static final Logger LOG = LoggerFactory.getLogger(RetryPolicy.class);

    /** Default total deadline of a run's retries. */
    public static final Duration DEFAULT_DEADLINE = Duration.ofMinutes(5);
    /** Default waits: 1 s doubling up to 30 s, each drawn from [d/2, d]. */
    public static final Backoff DEFAULT_BACKOFF = new Backoff(Duration.ofSeconds(1), 2, Duration.ofSeconds(30), 0.5);
    /** {@link #DEFAULT_BACKOFF} within {@link #DEFAULT_DEADLINE}, real time. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(DEFAULT_BACKOFF, DEFAULT_DEADLINE, Sleeper.REAL,
            System::nanoTime, () -> ThreadLocalRandom.current().nextDouble());
    /** One attempt per step: no wait fits in a zero deadline. */
    public static final RetryPolicy NONE = DEFAULT.withDeadline(Duration.ZERO);

    public RetryPolicy {
        requireNonNull(backoff, "backoff is null");
        requireNonNull(deadline, "deadline is null");
        requireNonNull(sleeper, "sleeper is null");
        requireNonNull(nanoTime, "nanoTime is null");
        requireNonNull(random, "random is null");
        if (deadline.isNegative()) {
            throw new IllegalArgumentException("retry deadline must not be negative, got " + deadline);
        }
    }

    /** The same policy with another total deadline. */
    public RetryPolicy withDeadline(Duration newDeadline) {
        return new RetryPolicy(backoff, newDeadline, sleeper, nanoTime, random);
    }

    /** Starts the deadline clock of one run; every step of the run shares it. */
    public Budget start() {
        return new Budget(nanoTime.getAsLong() + deadline.toNanos());
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
                    if (!e.retriable()) {
                        throw e;
                    }
                    if (first == null) {
                        first = e;
                    }
                    long waitNanos = backoff.delay(failures - 1, random.getAsDouble()).toNanos();
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
