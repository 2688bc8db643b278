package org.eventindex.kudu;

import java.io.PrintStream;
import java.util.function.LongSupplier;

/**
 * A one-line progress bar on a terminal stream: {@code [#####.....] 1,200,000 / 2,400,000 events  48,000 events/s}.
 * Without a known total it shows the count and rate. Redraws in place with a carriage return.
 */
final class ProgressBar {
    private static final int WIDTH = 30;
    private final PrintStream out;
    private final LongSupplier nanoTime;
    private final long total;
    private final long t0;
    private boolean drawn;

    /** @param total expected events, or -1 when unknown */
    ProgressBar(PrintStream out, LongSupplier nanoTime, long total) {
        this.out = out;
        this.nanoTime = nanoTime;
        this.total = total;
        this.t0 = nanoTime.getAsLong();
    }

    void update(String dataset, long events) {
        out.print("\r" + line(dataset, events, nanoTime.getAsLong() - t0));
        out.flush();
        drawn = true;
    }

    void done() {
        if (drawn) {
            out.println();
        }
    }

    String line(String dataset, long events, long elapsedNanos) {
        double rate = events / Math.max(1e-3, elapsedNanos / 1e9);
        StringBuilder b = new StringBuilder(dataset).append(' ');
        if (total > 0) {
            int filled = (int) Math.min(WIDTH, WIDTH * events / total);
            b.append('[').append("#".repeat(filled)).append(".".repeat(WIDTH - filled)).append("] ")
                    .append(String.format("%,d / %,d events", events, total));
        } else {
            b.append(String.format("%,d events", events));
        }
        return b.append(String.format("  %,.0f events/s", rate)).toString();
    }
}
