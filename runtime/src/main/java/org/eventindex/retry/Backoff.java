package org.eventindex.retry;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * The project's one capped exponential backoff: how long to wait before retry {@code attempt} (from 0, the retry after
 * the first failure). The wait before jitter is {@code min(max, initial * multiplier^attempt)}; jitter {@code j}
 * draws it from {@code [wait * (1 - j), wait]} so that processes failing together do not retry in lock-step.
 *
 * <p>Pure: no clock, no sleeping, the random number is passed in. Callers decide how to wait (a sleep, a scheduled
 * task, a tick that compares timestamps) and when to stop (a deadline, a number of attempts, never), so tests never
 * wait.
 *
 * @param initial    the wait before the first retry (before jitter); positive
 * @param multiplier growth per attempt, at least 1
 * @param max        cap of a single wait (before jitter), at least {@code initial}
 * @param jitter     fraction of the wait that is random, in [0, 1]; 0 for a deterministic wait
 */
public record Backoff(Duration initial, double multiplier, Duration max, double jitter) {
    private static final Duration LONGEST = Duration.ofNanos(Long.MAX_VALUE);

    public Backoff {
        requireNonNull(initial, "initial is null");
        requireNonNull(max, "max is null");
        if (initial.isNegative() || initial.isZero()) {
            throw new IllegalArgumentException("initial backoff must be positive, got " + initial);
        }
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("max backoff " + max + " is below initial backoff " + initial);
        }
        if (max.compareTo(LONGEST) > 0) {
            throw new IllegalArgumentException("max backoff " + max + " is over " + LONGEST);
        }
        if (!(multiplier >= 1) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("backoff multiplier must be finite and at least 1, got " + multiplier);
        }
        if (!(jitter >= 0 && jitter <= 1)) {
            throw new IllegalArgumentException("backoff jitter must be in [0, 1], got " + jitter);
        }
    }

    /** Doubling from {@code initial} up to {@code max}, no jitter. */
    public static Backoff doubling(Duration initial, Duration max) {
        return new Backoff(initial, 2, max, 0);
    }

    /** The same policy with another jitter. */
    public Backoff withJitter(double newJitter) {
        return new Backoff(initial, multiplier, max, newJitter);
    }

    /**
     * The wait before retry {@code attempt} without jitter: the longest {@link #delay(int, double)} can return. For
     * callers that recompute the wait and must get the same answer each time.
     *
     * @param attempt retries before this one, from 0
     */
    public Duration delay(int attempt) {
        return delay(attempt, 1.0);
    }

    /**
     * @param attempt retries before this one, from 0
     * @param random  a uniform random number in [0, 1]
     */
    public Duration delay(int attempt, double random) {
        if (attempt < 0) {
            throw new IllegalArgumentException("attempt must not be negative, got " + attempt);
        }
        if (!(random >= 0 && random <= 1)) {
            throw new IllegalArgumentException("random must be in [0, 1], got " + random);
        }
        // in double: initial * multiplier^attempt may overflow a long (to infinity, then capped)
        double nanos = Math.min(initial.toNanos() * Math.pow(multiplier, attempt), (double) max.toNanos());
        return Duration.ofNanos(Math.round(nanos * (1 - jitter * (1 - random))));
    }
}
