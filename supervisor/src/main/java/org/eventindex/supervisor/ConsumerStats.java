package org.eventindex.supervisor;

import org.eventindex.message.ConsumerReport;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Per consumer, what its reports say: datasets done and failed, events and bytes, time spent and so throughput.
 * Part of the journal fold (reports are journalled), so it survives restarts. Not thread-safe: read under the
 * engine's lock.
 */
final class ConsumerStats {
    private static final Totals NONE = new Totals(0, 0, 0, 0, 0, 0, 0, null, null, null, 0);

    private final Map<String, Totals> byConsumer = new TreeMap<>();

    /** One consumer's counters, as {@link #views()} shows them and checkpoints keep them. */
    record Totals(long done, long failed, long eventsWritten, long eventsLoaded, long objectsRead, long bytesRead,
                  long busyMillis, String lastDataset, String lastStatus, String lastFailure, long lastReportAt) {
    }

    void report(ConsumerReport r, long tsMillis) {
        String name = r.consumer() == null || r.consumer().isBlank() ? "(unnamed)" : r.consumer();
        Totals t = byConsumer.getOrDefault(name, NONE);
        boolean done = ConsumerReport.DONE.equals(r.status());
        byConsumer.put(name, done
                ? new Totals(t.done() + 1, t.failed(), t.eventsWritten() + Math.max(0, r.eventsWritten()),
                        t.eventsLoaded() + Math.max(0, r.eventsLoaded()),
                        t.objectsRead() + Math.max(0, r.objectsRead()), t.bytesRead() + Math.max(0, r.bytesRead()),
                        t.busyMillis() + Math.max(0, r.durationMillis()),
                        r.dataset(), r.status(), t.lastFailure(), tsMillis)
                : new Totals(t.done(), t.failed() + 1, t.eventsWritten(), t.eventsLoaded(), t.objectsRead(),
                        t.bytesRead(), t.busyMillis(), r.dataset(), r.status(), r.reason(), tsMillis));
    }

    List<ConsumerView> views() {
        List<ConsumerView> out = new ArrayList<>(byConsumer.size());
        byConsumer.forEach((name, t) -> out.add(new ConsumerView(name, t.done(), t.failed(), t.eventsWritten(),
                t.eventsLoaded(), t.objectsRead(), t.bytesRead(), t.busyMillis(),
                t.busyMillis() > 0 ? t.eventsWritten() * 1000.0 / t.busyMillis() : 0.0,
                t.lastDataset(), t.lastStatus(), t.lastFailure(), Instant.ofEpochMilli(t.lastReportAt()), null)));
        return out;
    }

    /** Every consumer's counters, by name (for a checkpoint). */
    Map<String, Totals> totals() {
        return new TreeMap<>(byConsumer);
    }

    /** Replaces every consumer's counters (from a checkpoint). */
    void restore(Map<String, Totals> totals) {
        byConsumer.clear();
        byConsumer.putAll(totals);
    }
}
