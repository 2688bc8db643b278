package org.eventindex.config;

import java.time.Duration;
import java.util.Objects;
import org.eventindex.retry.Backoff;

/** Validation of configuration values in record constructors; every message names the key. */
public final class ConfigChecks {
    private ConfigChecks() {
    }

    public static void requireText(String value, String key) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(key + " must not be empty");
        }
    }

    public static void requireRange(long value, long min, long max, String key) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(key + " must be in " + min + ".." + max + ": " + value);
        }
    }

    public static void requirePositive(Duration d, String key) {
        Objects.requireNonNull(d, key + " is null");
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(key + " must be positive: " + d);
        }
    }

    /**
     * A doubling backoff read from two keys: both positive, the cap not below the first wait, the cap small enough
     * for {@link Backoff}.
     */
    public static Backoff doublingBackoff(Duration initial, String initialKey, Duration max, String maxKey) {
        requirePositive(initial, initialKey);
        requirePositive(max, maxKey);
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException(maxKey + " (" + max + ") is shorter than " + initialKey + " ("
                    + initial + ")");
        }
        try {
            return Backoff.doubling(initial, max);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(maxKey + ": " + e.getMessage(), e);
        }
    }

    /** A STOMP queue destination, {@code /queue/<name>}. */
    public static void requireQueue(String value, String key) {
        requireText(value, key);
        if (!value.startsWith("/queue/")) {
            throw new IllegalArgumentException(key + " '" + value + "' must be a queue destination (/queue/...)");
        }
    }
}
