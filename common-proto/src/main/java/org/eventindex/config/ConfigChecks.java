package org.eventindex.config;

import java.time.Duration;
import java.util.Objects;

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

    /** A STOMP queue destination, {@code /queue/<name>}. */
    public static void requireQueue(String value, String key) {
        requireText(value, key);
        if (!value.startsWith("/queue/")) {
            throw new IllegalArgumentException(key + " '" + value + "' must be a queue destination (/queue/...)");
        }
    }
}
