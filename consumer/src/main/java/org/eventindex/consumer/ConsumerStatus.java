package org.eventindex.consumer;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.message.ConsumerHeartbeat;
import org.eventindex.message.ConsumerReport;
import org.eventindex.ops.DaemonMetrics;

import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/** What the consumer is doing now and its last results, served as JSON at {@code /status}. Thread-safe. */
public final class ConsumerStatus {
    private final String consumerId;
    private final Clock clock;
    private final int keep;
    private final LongSupplier objectsRead;
    private final LongSupplier workDone;
    private final Deque<ConsumerReport> last = new ArrayDeque<>();
    private InFlight inFlight;
    private long objectsReadBefore;
    private long workDoneBefore;
    /** The work counter when last sampled in flight, and when it last changed (for the stall gauge). */
    private long workSeen;
    private long workSeenAt;

    public ConsumerStatus(String consumerId, Clock clock, int keep) {
        this(consumerId, clock, keep, () -> -1, () -> 0);
    }

    /**
     * @param objectsRead objects read so far by the consumer (a counter), from which the objects read of the dataset
     *                    in flight are derived; -1 when not counted
     * @param workDone    units of work the consumer did so far, in every phase (a counter,
     *                    {@link ConsumerMetrics#WORK_DONE}), from which the progress of the dataset in flight is
     *                    derived
     */
    public ConsumerStatus(String consumerId, Clock clock, int keep, LongSupplier objectsRead, LongSupplier workDone) {
        this.consumerId = Objects.requireNonNull(consumerId, "consumerId is null");
        this.objectsRead = Objects.requireNonNull(objectsRead, "objectsRead is null");
        this.workDone = Objects.requireNonNull(workDone, "workDone is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        if (keep < 1) {
            throw new IllegalArgumentException("keep must be positive: " + keep);
        }
        this.keep = keep;
    }

    /**
     * The dataset being consolidated.
     *
     * @param objectsRead objects of the dataset read so far, -1 when not known
     * @param progress    units of work done on it so far (objects read, events written, events loaded, steps):
     *                    grows in every phase, and extends the signal's lease at the supervisor while it does
     */
    public record InFlight(@JsonProperty("signalId") String signalId, @JsonProperty("dataset") String dataset,
                           @JsonProperty("objects") int objects, @JsonProperty("since") long since,
                           @JsonProperty("objectsRead") long objectsRead, @JsonProperty("progress") long progress) {
    }

    /** The {@code /status} document; {@code last} is newest first. */
    public record Snapshot(@JsonProperty("consumer") String consumer, @JsonProperty("inFlight") InFlight inFlight,
                           @JsonProperty("last") List<ConsumerReport> last) {
    }

    synchronized void started(String signalId, String dataset, int objects) {
        objectsReadBefore = objectsRead.getAsLong();
        workDoneBefore = workDone.getAsLong();
        inFlight = new InFlight(signalId, dataset, objects, clock.millis(), 0, 0);
        workSeen = workDoneBefore;
        workSeenAt = inFlight.since();
    }

    /**
     * Registers the gauges of the dataset in flight: {@link ConsumerMetrics#IN_FLIGHT_AGE},
     * {@link ConsumerMetrics#IN_FLIGHT_PROGRESS} and {@link ConsumerMetrics#IN_FLIGHT_STALLED}.
     */
    void registerGauges(PrometheusRegistry registry) {
        DaemonMetrics.gauge(registry, ConsumerMetrics.IN_FLIGHT_AGE, "Seconds since the consumer took the signal"
                + " it works on; 0 when idle.", () -> inFlightSeconds(false));
        DaemonMetrics.gauge(registry, ConsumerMetrics.IN_FLIGHT_PROGRESS, "Units of work done on the dataset in"
                + " flight (the progress its busy heartbeats carry); 0 when idle.", () -> {
                    InFlight f = progressNow();
                    return f == null ? 0 : f.progress();
                });
        DaemonMetrics.gauge(registry, ConsumerMetrics.IN_FLIGHT_STALLED, "Seconds the dataset in flight has gone"
                + " without progress (sampled at each scrape and heartbeat); 0 when idle.",
                () -> inFlightSeconds(true));
    }

    private synchronized double inFlightSeconds(boolean sinceProgress) {
        InFlight f = progress();
        if (f == null) {
            return 0;
        }
        return Math.max(0, clock.millis() - (sinceProgress ? workSeenAt : f.since())) / 1000.0;
    }

    private synchronized InFlight progressNow() {
        return progress();
    }

    synchronized void finished(ConsumerReport report) {
        inFlight = null;
        last.addFirst(report);
        while (last.size() > keep) {
            last.removeLast();
        }
    }

    public synchronized Snapshot snapshot() {
        return new Snapshot(consumerId, progress(), List.copyOf(new ArrayList<>(last)));
    }

    /** The heartbeat saying what the consumer does now. */
    public synchronized ConsumerHeartbeat heartbeat(String version, long intervalMillis) {
        InFlight f = progress();
        long now = clock.millis();
        return f == null ? ConsumerHeartbeat.idle(consumerId, version, intervalMillis, now)
                : ConsumerHeartbeat.busy(consumerId, f.dataset(), f.signalId(), f.objects(), f.objectsRead(),
                        f.progress(), f.since(), version, intervalMillis, now);
    }

    private InFlight progress() {
        if (inFlight == null) {
            return null;
        }
        long read = objectsRead.getAsLong();
        long done = read < 0 || objectsReadBefore < 0 ? -1 : read - objectsReadBefore;
        long work = workDone.getAsLong();
        if (work != workSeen) {
            workSeen = work;
            workSeenAt = clock.millis();
        }
        return new InFlight(inFlight.signalId(), inFlight.dataset(), inFlight.objects(), inFlight.since(), done,
                Math.max(0, work - workDoneBefore));
    }
}
