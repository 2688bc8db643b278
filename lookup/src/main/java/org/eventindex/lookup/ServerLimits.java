package org.eventindex.lookup;

/**
 * Request limits of the lookup HTTP server.
 *
 * @param maxConcurrent requests answered at the same time; one more gets 503 at once (no queue, so a slow Kudu
 *                      cannot pile up waiting requests)
 * @param maxBatch      event lines in one {@code POST /lookup}; more gets 413
 * @param threads       HTTP handler threads (above {@code maxConcurrent}, so that refusals are answered promptly)
 * @param maxUserConcurrent     requests one user may have in progress; one more gets 429
 * @param maxUserEventsPerMinute events one user may look up per minute (at least {@code maxBatch}); more gets 429
 */
public record ServerLimits(int maxConcurrent, int maxBatch, int threads, int maxUserConcurrent,
                           int maxUserEventsPerMinute) {
    /** Requests one user may have in progress unless told otherwise. */
    public static final int DEFAULT_MAX_USER_CONCURRENT = 4;
    /** Events one user may look up per minute unless told otherwise. */
    public static final int DEFAULT_MAX_USER_EVENTS_PER_MINUTE = 60_000;
    /** Events in one {@code POST /lookup} unless told otherwise (the workload system sends 500 to 1,000). */
    public static final int DEFAULT_MAX_BATCH = 1_000;

    public ServerLimits {
        if (maxConcurrent < 1) {
            throw new IllegalArgumentException("maxConcurrent must be at least 1: " + maxConcurrent);
        }
        if (maxBatch < 1 || maxBatch > 1_000_000) {
            throw new IllegalArgumentException("maxBatch must be within 1..1000000: " + maxBatch);
        }
        if (threads <= maxConcurrent) {
            throw new IllegalArgumentException("threads (" + threads + ") must be above maxConcurrent ("
                    + maxConcurrent + ")");
        }
        if (maxUserConcurrent < 1 || maxUserConcurrent > maxConcurrent) {
            throw new IllegalArgumentException("maxUserConcurrent must be within 1..maxConcurrent (" + maxConcurrent
                    + "): " + maxUserConcurrent);
        }
        if (maxUserEventsPerMinute < maxBatch) {
            throw new IllegalArgumentException("maxUserEventsPerMinute (" + maxUserEventsPerMinute
                    + ") must be at least maxBatch (" + maxBatch + "): a full batch could never be answered");
        }
    }

    /** 64 concurrent requests, 1,000 events per batch, 4 requests and 60,000 events a minute per user. */
    public static ServerLimits defaults() {
        return of(64, DEFAULT_MAX_BATCH);
    }

    /** No user limit below the server's own: every request may come from one user. */
    public static ServerLimits of(int maxConcurrent, int maxBatch) {
        return new ServerLimits(maxConcurrent, maxBatch, maxConcurrent + 4, maxConcurrent, Integer.MAX_VALUE);
    }

    /** These limits with {@code maxUserConcurrent} requests and {@code eventsPerMinute} events per user. */
    public ServerLimits perUser(int maxUserConcurrent, int eventsPerMinute) {
        return new ServerLimits(maxConcurrent, maxBatch, threads, maxUserConcurrent, eventsPerMinute);
    }
}
