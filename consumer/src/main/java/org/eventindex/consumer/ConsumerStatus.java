package org.eventindex.consumer;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.eventindex.message.ConsumerReport;

import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;

/** What the consumer is doing now and its last results, served as JSON at {@code /status}. Thread-safe. */
public final class ConsumerStatus {
    private final String consumerId;
    private final Clock clock;
    private final int keep;
    private final Deque<ConsumerReport> last = new ArrayDeque<>();
    private InFlight inFlight;

    public ConsumerStatus(String consumerId, Clock clock, int keep) {
        this.consumerId = Objects.requireNonNull(consumerId, "consumerId is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        if (keep < 1) {
            throw new IllegalArgumentException("keep must be positive: " + keep);
        }
        this.keep = keep;
    }

    /** The dataset being consolidated. */
    public record InFlight(@JsonProperty("signalId") String signalId, @JsonProperty("dataset") String dataset,
                           @JsonProperty("objects") int objects, @JsonProperty("since") long since) {
    }

    /** The {@code /status} document; {@code last} is newest first. */
    public record Snapshot(@JsonProperty("consumer") String consumer, @JsonProperty("inFlight") InFlight inFlight,
                           @JsonProperty("last") List<ConsumerReport> last) {
    }

    synchronized void started(String signalId, String dataset, int objects) {
        inFlight = new InFlight(signalId, dataset, objects, clock.millis());
    }

    synchronized void finished(ConsumerReport report) {
        inFlight = null;
        last.addFirst(report);
        while (last.size() > keep) {
            last.removeLast();
        }
    }

    public synchronized Snapshot snapshot() {
        return new Snapshot(consumerId, inFlight, List.copyOf(new ArrayList<>(last)));
    }
}
