package org.eventindex.kudu;

import org.eventindex.spb.SpbLimits;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * Tuning of {@link DatasetLoader}.
 *
 * @param mutationBufferOps  rows buffered per Kudu session before a background flush (INFRA: 10,000 gave 58k rows/s
 *                           on one tablet server against 43k with 1,000)
 * @param flushInterval      background flush period of the session
 * @param operationTimeout   timeout of one Kudu write or flush
 * @param progressEvery      events between two progress callbacks (and row-error checks)
 * @param verifyCounts       count the dataset's rows after writing and refuse LOADED on any difference
 * @param spbLimits          bounds applied while reading the file
 */
public record LoaderSettings(int mutationBufferOps, Duration flushInterval, Duration operationTimeout,
                             int progressEvery, boolean verifyCounts, SpbLimits spbLimits) {

    public LoaderSettings {
        requireNonNull(flushInterval, "flushInterval is null");
        requireNonNull(operationTimeout, "operationTimeout is null");
        requireNonNull(spbLimits, "spbLimits is null");
        if (mutationBufferOps < 100) {
            throw new IllegalArgumentException("mutationBufferOps must be at least 100: " + mutationBufferOps);
        }
        if (flushInterval.isNegative() || flushInterval.isZero() || flushInterval.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("flushInterval must be positive: " + flushInterval);
        }
        if (operationTimeout.isNegative() || operationTimeout.isZero()) {
            throw new IllegalArgumentException("operationTimeout must be positive: " + operationTimeout);
        }
        if (progressEvery < 1) {
            throw new IllegalArgumentException("progressEvery must be positive: " + progressEvery);
        }
    }

    public static LoaderSettings defaults() {
        return new LoaderSettings(10_000, Duration.ofSeconds(1), Duration.ofSeconds(60), 100_000, true,
                SpbLimits.DEFAULT);
    }
}
