package org.eventindex.lookup;

/**
 * Request limits of the lookup HTTP server.
 *
 * @param maxConcurrent requests answered at the same time; one more gets 503 at once (no queue, so a slow Kudu
 *                      cannot pile up waiting requests)
 * @param maxBatch      event lines in one {@code POST /lookup}; more gets 413
 * @param threads       HTTP handler threads (above {@code maxConcurrent}, so that refusals are answered promptly)
 */
public record ServerLimits(int maxConcurrent, int maxBatch, int threads) {
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
    }

    /** 64 concurrent requests, 10,000 events per batch. */
    public static ServerLimits defaults() {
        return of(64, 10_000);
    }

    public static ServerLimits of(int maxConcurrent, int maxBatch) {
        return new ServerLimits(maxConcurrent, maxBatch, maxConcurrent + 4);
    }
}
