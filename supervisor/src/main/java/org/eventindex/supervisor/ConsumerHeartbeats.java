package org.eventindex.supervisor;

import org.eventindex.message.ConsumerHeartbeat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The last heartbeat of each consumer and when the supervisor received it. Transient by design: heartbeats are never
 * journalled (they say nothing about datasets, and one per consumer every 30 s would grow the journal for nothing), so
 * after a restart the supervisor lists a consumer again from its next heartbeat, within one interval; until then it is
 * listed from its journalled reports only, without a heartbeat. Thread-safe (the heartbeat queue's worker writes, the
 * information service and the metrics read).
 */
final class ConsumerHeartbeats {
    /** A heartbeat and the supervisor's time of receipt (epoch ms). */
    private record Seen(ConsumerHeartbeat heartbeat, long receivedAt) {
    }

    private final Map<String, Seen> byConsumer = new ConcurrentHashMap<>();

    /**
     * Records a heartbeat received at {@code now}; one sent before the consumer's last recorded one (delivered out of
     * order) is ignored.
     */
    void record(ConsumerHeartbeat h, long now) {
        byConsumer.merge(h.consumer(), new Seen(h, now),
                (before, next) -> before.heartbeat().ts() > next.heartbeat().ts() ? before : next);
    }

    /** Seconds since each consumer's last heartbeat, by consumer. */
    Map<String, Double> ages(long now) {
        Map<String, Double> out = new TreeMap<>();
        byConsumer.forEach((name, seen) -> out.put(name, Math.max(0, now - seen.receivedAt()) / 1000.0));
        return out;
    }

    /** How many consumers are missing ({@code missingAfter} of their intervals without a heartbeat) at {@code now}. */
    long missing(long now, int missingAfter) {
        return byConsumer.values().stream().filter(s -> isMissing(s, now, missingAfter)).count();
    }

    /**
     * The consumers of {@code fromReports} and those heard only by heartbeat, by name, each with its liveness (null
     * for a consumer that sent no heartbeat since the supervisor started).
     */
    List<ConsumerView> merge(List<ConsumerView> fromReports, long now, int missingAfter) {
        Map<String, ConsumerView> all = new TreeMap<>();
        fromReports.forEach(v -> all.put(v.consumer(), v));
        byConsumer.keySet().forEach(name -> all.computeIfAbsent(name, ConsumerView::heardOnly));
        List<ConsumerView> out = new ArrayList<>(all.size());
        all.forEach((name, v) -> {
            Seen s = byConsumer.get(name);
            out.add(s == null ? v : v.withLiveness(liveness(s, now, missingAfter)));
        });
        return out;
    }

    private static boolean isMissing(Seen s, long now, int missingAfter) {
        return now - s.receivedAt() > missingAfter * s.heartbeat().intervalMillis();
    }

    private static ConsumerLiveness liveness(Seen s, long now, int missingAfter) {
        ConsumerHeartbeat h = s.heartbeat();
        boolean missing = isMissing(s, now, missingAfter);
        boolean busy = ConsumerHeartbeat.BUSY.equals(h.state());
        return new ConsumerLiveness(missing ? "missing" : h.state(), Instant.ofEpochMilli(s.receivedAt()),
                Math.max(0, now - s.receivedAt()) / 1000.0, missing, h.intervalMillis(), h.version(),
                busy ? h.dataset() : null, busy ? h.signalId() : null, busy ? h.objects() : 0,
                busy ? h.objectsRead() : 0, busy ? h.progress() : null,
                busy && h.busySince() > 0 ? Instant.ofEpochMilli(h.busySince()) : null);
    }
}
