package org.eventindex.stomp;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * Capped exponential backoff with jitter between reconnect attempts: attempt {@code n} (from 0) waits
 * {@code min(max, initial * 2^n)} scaled by a random factor in [0.5, 1), so that workers restarted together do not
 * reconnect in lock-step.
 */
public record StompBackoff(Duration initial, Duration max) {
    /** 0.5 s doubling up to 30 s. */
    public static final StompBackoff DEFAULT = new StompBackoff(Duration.ofMillis(500), Duration.ofSeconds(30));

    public StompBackoff {
        requireNonNull(initial, "initial is null");
        requireNonNull(max, "max is null");
        if (initial.isNegative() || initial.isZero()) {
            throw new IllegalArgumentException("initial backoff must be positive, got " + initial);
        }
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("max backoff " + max + " is below initial backoff " + initial);
        }
    }

    /**
     * @param attempt failed attempts so far, from 0
     * @param random a uniform random number in [0, 1)
     */
    public Duration delay(int attempt, double random) {
        if (attempt < 0) {
            throw new IllegalArgumentException("attempt must not be negative, got " + attempt);
        }
        long capMs = max.toMillis();
        long ms = initial.toMillis();
        for (int i = 0; i < attempt && ms < capMs; i++) {
            ms *= 2;
        }
        ms = Math.min(ms, capMs);
        return Duration.ofMillis(Math.max(1, Math.round(ms * (0.5 + 0.5 * random))));
    }
}
