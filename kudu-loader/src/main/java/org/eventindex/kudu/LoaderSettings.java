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
 * @param loadThreads        Kudu sessions, each on its own thread, writing one dataset's rows (1: on the loading
 *                           thread, as before; the rows written are the same for any value)
 */
public record LoaderSettings(int mutationBufferOps, Duration flushInterval, Duration operationTimeout,
                             int progressEvery, boolean verifyCounts, SpbLimits spbLimits, int loadThreads) {

    /** Most Kudu sessions writing one dataset. */
    public static final int MAX_LOAD_THREADS = 64;

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
        if (loadThreads < 1 || loadThreads > MAX_LOAD_THREADS) {
            throw new IllegalArgumentException("loadThreads must be between 1 and " + MAX_LOAD_THREADS + ": "
                    + loadThreads);
        }
    }

    /** The settings with {@link #defaultLoadThreads()} sessions. */
    public LoaderSettings(int mutationBufferOps, Duration flushInterval, Duration operationTimeout,
                          int progressEvery, boolean verifyCounts, SpbLimits spbLimits) {
        this(mutationBufferOps, flushInterval, operationTimeout, progressEvery, verifyCounts, spbLimits,
                defaultLoadThreads());
    }

    /** These settings with {@code threads} Kudu sessions per load. */
    public LoaderSettings withLoadThreads(int threads) {
        return new LoaderSettings(mutationBufferOps, flushInterval, operationTimeout, progressEvery, verifyCounts,
                spbLimits, threads);
    }

    /** The cores of this machine, at most 4: one session per core, the tablet servers being the limit beyond. */
    public static int defaultLoadThreads() {
        return Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
    }

    public static LoaderSettings defaults() {
        return new LoaderSettings(10_000, Duration.ofSeconds(1), Duration.ofSeconds(60), 100_000, true,
                SpbLimits.DEFAULT);
    }
}
