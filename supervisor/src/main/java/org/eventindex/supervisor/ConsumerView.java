package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;

import java.time.Instant;

/**
 * One consumer as its reports describe it (served in {@code /consumers}).
 *
 * @param eventsPerSecond events written per second of consumer work (sum of the reports' durations)
 */
public record ConsumerView(String consumer, long datasetsDone, long datasetsFailed, long eventsWritten,
                           long eventsLoaded, long objectsRead, long bytesRead, long busyMillis,
                           double eventsPerSecond, String lastDataset, String lastStatus, String lastFailure,
                           @JsonSerialize(using = ToStringSerializer.class) Instant lastReportAt) {
}
