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
    private final Map<String, Entry> byConsumer = new TreeMap<>();

    void report(ConsumerReport r, long tsMillis) {
        String name = r.consumer() == null || r.consumer().isBlank() ? "(unnamed)" : r.consumer();
        Entry e = byConsumer.computeIfAbsent(name, k -> new Entry());
        if (ConsumerReport.DONE.equals(r.status())) {
            e.done++;
            e.eventsWritten += Math.max(0, r.eventsWritten());
            e.eventsLoaded += Math.max(0, r.eventsLoaded());
            e.objectsRead += Math.max(0, r.objectsRead());
            e.bytesRead += Math.max(0, r.bytesRead());
            e.busyMillis += Math.max(0, r.durationMillis());
        } else {
            e.failed++;
            e.lastFailure = r.reason();
        }
        e.lastDataset = r.dataset();
        e.lastStatus = r.status();
        e.lastReportAt = tsMillis;
    }

    List<ConsumerView> views() {
        List<ConsumerView> out = new ArrayList<>(byConsumer.size());
        byConsumer.forEach((name, e) -> out.add(new ConsumerView(name, e.done, e.failed, e.eventsWritten,
                e.eventsLoaded, e.objectsRead, e.bytesRead, e.busyMillis,
                e.busyMillis > 0 ? e.eventsWritten * 1000.0 / e.busyMillis : 0.0,
                e.lastDataset, e.lastStatus, e.lastFailure, Instant.ofEpochMilli(e.lastReportAt))));
        return out;
    }

    private static final class Entry {
        long done;
        long failed;
        long eventsWritten;
        long eventsLoaded;
        long objectsRead;
        long bytesRead;
        long busyMillis;
        String lastDataset;
        String lastStatus;
        String lastFailure;
        long lastReportAt;
    }
}
