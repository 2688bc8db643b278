package org.eventindex.stomp;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/** Calls a heart-beat writer every half interval on its own daemon thread, so the peer hears from us in time. */
final class StompHeartbeat {
    private final ScheduledExecutorService timer;

    StompHeartbeat(String threadName, long intervalMs, LongConsumer beat) {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
            Thread thread = new Thread(r, threadName);
            thread.setDaemon(true);
            return thread;
        });
        t.setRemoveOnCancelPolicy(true);
        long period = Math.max(1, intervalMs / 2);
        t.scheduleAtFixedRate(() -> beat.accept(intervalMs), period, period, TimeUnit.MILLISECONDS);
        this.timer = t;
    }

    void stop() {
        timer.shutdownNow();
    }
}
