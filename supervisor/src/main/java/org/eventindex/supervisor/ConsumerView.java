package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;

import java.time.Instant;

/**
 * One consumer as its reports (journalled) and its heartbeats (transient) describe it, served in {@code /consumers}.
 *
 * @param eventsPerSecond events written per second of consumer work (sum of the reports' durations)
 * @param lastReportAt    null for a consumer known only by its heartbeats
 * @param heartbeat       its last heartbeat, its age and whether it is missing; null when it sent none since the
 *                        supervisor started
 */
public record ConsumerView(String consumer, long datasetsDone, long datasetsFailed, long eventsWritten,
                           long eventsLoaded, long objectsRead, long bytesRead, long busyMillis,
                           double eventsPerSecond, String lastDataset, String lastStatus, String lastFailure,
                           @JsonSerialize(using = ToStringSerializer.class) Instant lastReportAt,
                           ConsumerLiveness heartbeat) {

    /** A consumer heard by heartbeat that has not reported since the journal began. */
    static ConsumerView heardOnly(String consumer) {
        return new ConsumerView(consumer, 0, 0, 0, 0, 0, 0, 0, 0.0, null, null, null, null, null);
    }

    ConsumerView withLiveness(ConsumerLiveness liveness) {
        return new ConsumerView(consumer, datasetsDone, datasetsFailed, eventsWritten, eventsLoaded, objectsRead,
                bytesRead, busyMillis, eventsPerSecond, lastDataset, lastStatus, lastFailure, lastReportAt, liveness);
    }
}
