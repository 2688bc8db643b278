package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How often the producer retries one step (broker connect, upload, send) after a {@link ExitCode#TRANSIENT}
 * failure, with doubling delays. Other failures are never retried. Deliberately small: the job wrapper retries whole
 * jobs; this only rides out short blips.
 *
 * @param maxAttempts  attempts per step, at least 1
 * @param initialDelay wait before the second attempt; doubles after each further failure
 * @param sleeper      how to wait (tests pass one that does not sleep)
 */
public record RetryPolicy(int maxAttempts, Duration initialDelay, Sleeper sleeper) {
    private static final Logger LOG = LoggerFactory.getLogger(RetryPolicy.class);

    /** Three attempts, 1 s then 2 s apart. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(3, Duration.ofSeconds(1), Sleeper.REAL);
    /** One attempt. */
    public static final RetryPolicy NONE = new RetryPolicy(1, Duration.ZERO, Sleeper.REAL);

    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
        }
        requireNonNull(initialDelay, "initialDelay is null");
        requireNonNull(sleeper, "sleeper is null");
        if (initialDelay.isNegative()) {
            throw new IllegalArgumentException("initialDelay must not be negative, got " + initialDelay);
        }
    }

    /** Runs {@code step}, retrying transient failures; the last failure is thrown with the earlier ones suppressed. */
    public <T> T run(String what, Step<T> step) throws ProducerException {
        requireNonNull(what, "what is null");
        requireNonNull(step, "step is null");
        Duration delay = initialDelay;
        ProducerException first = null;
        for (int attempt = 1; ; attempt++) {
            try {
                return step.run();
            } catch (ProducerException e) {
                if (first != null && first != e) {
                    e.addSuppressed(first);
                }
                if (e.exitCode() != ExitCode.TRANSIENT || attempt >= maxAttempts) {
                    throw e;
                }
                first = e;
                LOG.warn("{} failed (attempt {} of {}): {}; retrying in {} ms", what, attempt, maxAttempts,
                        e.getMessage(), delay.toMillis());
                try {
                    sleeper.sleep(delay);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new ProducerException(ExitCode.TRANSIENT, what + " interrupted while waiting to retry", e);
                }
                delay = delay.multipliedBy(2);
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
        Sleeper REAL = d -> Thread.sleep(d.toMillis());

        void sleep(Duration duration) throws InterruptedException;
    }
}
