package org.eventindex.kudu;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * Tuning of {@link DatasetLoader}.
 *
 * @param mutationBufferOps  rows buffered per Kudu session before a background flush, at most; a session holds up
 *                           to twice that (the buffer being filled and the one being flushed)
 *                           ({@link #DEFAULT_BUFFER_ROWS}: decision 0040)
 * @param flushInterval      background flush period of the session
 * @param operationTimeout   timeout of one Kudu write or flush
 * @param progressEvery      events between two progress callbacks (and row-error checks)
 * @param verifyCounts       count the dataset's rows after writing and refuse LOADED on any difference
 * @param loadThreads        Kudu sessions, each on its own thread, writing one dataset's rows (1: on the loading
 *                           thread, as before; the rows written are the same for any value)
 * @param bufferBudgetRows   rows one load holds for Kudu, at most (decisions 0072, 0078): with one session, its
 *                           two buffers of {@link #sessionBufferRows} rows; with several, the rows decided and
 *                           waiting in compact form for their tablet's batch of {@link #tabletBatchRows} rows
 */
public record LoaderSettings(int mutationBufferOps, Duration flushInterval, Duration operationTimeout,
                             int progressEvery, boolean verifyCounts, int loadThreads, int bufferBudgetRows) {

    /**
     * Rows buffered per session by default (decisions 0017, 0040): the fastest load measured on one tablet server, also
     * in a 1 GiB consumer heap; fewer rows cost the loader less GC but the tablet server more, smaller, write batches.
     */
    public static final int DEFAULT_BUFFER_ROWS = 10_000;
    /** Fewest rows buffered per session. */
    public static final int MIN_BUFFER_ROWS = 100;
    /** Most rows buffered per session (twice this in flight: ~1.3 GB of EVENTS rows). */
    public static final int MAX_BUFFER_ROWS = 100_000;

    /**
     * Rows one load holds for Kudu by default (decisions 0072, 0078): one session's two buffers of
     * {@link #DEFAULT_BUFFER_ROWS}; with several sessions, shared by the tablets, the batch each tablet got from one
     * session's flush.
     */
    public static final int DEFAULT_BUDGET_ROWS = 2 * DEFAULT_BUFFER_ROWS;
    /** Fewest and most rows of the budget. */
    public static final int MIN_BUDGET_ROWS = 2 * MIN_BUFFER_ROWS;
    public static final int MAX_BUDGET_ROWS = 2 * MAX_BUFFER_ROWS;

    /** Most Kudu sessions writing one dataset. */
    public static final int MAX_LOAD_THREADS = 64;

    public LoaderSettings {
        requireNonNull(flushInterval, "flushInterval is null");
        requireNonNull(operationTimeout, "operationTimeout is null");
        if (mutationBufferOps < MIN_BUFFER_ROWS || mutationBufferOps > MAX_BUFFER_ROWS) {
            throw new IllegalArgumentException("mutationBufferOps must be between " + MIN_BUFFER_ROWS + " and "
                    + MAX_BUFFER_ROWS + ": " + mutationBufferOps);
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
        if (bufferBudgetRows < MIN_BUDGET_ROWS || bufferBudgetRows > MAX_BUDGET_ROWS) {
            throw new IllegalArgumentException("bufferBudgetRows must be between " + MIN_BUDGET_ROWS + " and "
                    + MAX_BUDGET_ROWS + ": " + bufferBudgetRows);
        }
    }

    /**
     * Rows the single session of a load ({@code loadThreads} 1) buffers before a background flush: half the budget
     * (it holds twice its buffer), at most {@link #mutationBufferOps()}, at least one.
     */
    public int sessionBufferRows() {
        return Math.max(1, Math.min(mutationBufferOps, bufferBudgetRows / 2));
    }

    /**
     * Most rows of one tablet's write batch with several sessions: the Kudu client encodes a batch's rows at the
     * schema's full width (~2.1 KB each), and 200 keep that array below half of a 1 MiB G1 region, so that it is not
     * a humongous allocation in the consumer's 1 GiB heap (decision 0040).
     */
    public static final int MAX_TABLET_BATCH_ROWS = 200;

    /**
     * Rows one tablet gets per write batch when several sessions route the rows by tablet (decision 0078): the
     * budget shared by the {@code tablets} the load writes to (EVENTS or MCEVENTS and DUPLICATEDEVENTS), at most
     * {@link #MAX_TABLET_BATCH_ROWS} and {@link #mutationBufferOps()}, at least one. The default budget over 2 x 64
     * buckets gives 156 rows, the batch each tablet got from a session's flush before.
     */
    public int tabletBatchRows(int tablets) {
        if (tablets < 1) {
            throw new IllegalArgumentException("tablets must be positive: " + tablets);
        }
        return Math.max(1, Math.min(Math.min(MAX_TABLET_BATCH_ROWS, mutationBufferOps), bufferBudgetRows / tablets));
    }

    /** These settings with {@code threads} Kudu sessions per load. */
    public LoaderSettings withLoadThreads(int threads) {
        return new LoaderSettings(mutationBufferOps, flushInterval, operationTimeout, progressEvery, verifyCounts,
                threads, bufferBudgetRows);
    }

    /** These settings with {@code rows} buffered per Kudu session. */
    public LoaderSettings withBufferRows(int rows) {
        return new LoaderSettings(rows, flushInterval, operationTimeout, progressEvery, verifyCounts, loadThreads,
                bufferBudgetRows);
    }

    /** These settings with at most {@code rows} buffered by one load's sessions together. */
    public LoaderSettings withBufferBudgetRows(int rows) {
        return new LoaderSettings(mutationBufferOps, flushInterval, operationTimeout, progressEvery, verifyCounts,
                loadThreads, rows);
    }

    /** The cores of this machine, at most 4: one session per core, the tablet servers being the limit beyond. */
    public static int defaultLoadThreads() {
        return Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
    }

    public static LoaderSettings defaults() {
        return new LoaderSettings(DEFAULT_BUFFER_ROWS, Duration.ofSeconds(1), Duration.ofSeconds(60), 100_000, true,
                defaultLoadThreads(), DEFAULT_BUDGET_ROWS);
    }
}
