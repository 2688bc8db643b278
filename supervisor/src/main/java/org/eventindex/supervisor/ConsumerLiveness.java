package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;

import java.time.Instant;

/**
 * A consumer's liveness from its last heartbeat, as {@code /consumers} shows it ({@link ConsumerHeartbeats}).
 *
 * @param state          {@code idle}, {@code busy}, or {@code missing} after
 *                       {@code supervisor.consumer.missing.heartbeats} of its intervals without a heartbeat (the
 *                       dataset fields then are those of its last heartbeat)
 * @param lastSeenAt     when the supervisor received its last heartbeat
 * @param ageSeconds     seconds since then
 * @param intervalMillis the consumer's heartbeat interval, as its heartbeat says
 * @param dataset        busy: the dataset in flight (null when idle), likewise {@code signalId}, {@code objects}
 * @param objectsRead    busy: objects of the dataset read so far, -1 when unknown
 * @param progress       busy: the work done on it so far (what extends the signal's lease); null from a consumer
 *                       older than the field, and when idle
 * @param busySince      busy: when the consumer took the dataset's signal
 */
public record ConsumerLiveness(String state, @JsonSerialize(using = ToStringSerializer.class) Instant lastSeenAt,
                               double ageSeconds, boolean missing, long intervalMillis, String version,
                               String dataset, String signalId, int objects, long objectsRead, Long progress,
                               @JsonSerialize(using = ToStringSerializer.class) Instant busySince) {
}
