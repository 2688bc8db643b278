package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;

import java.time.Duration;
import java.time.Instant;

/** {@code /supervisor}: the daemon itself. */
public record SupervisorInfo(@JsonSerialize(using = ToStringSerializer.class) Instant startedAt,
                             @JsonSerialize(using = ToStringSerializer.class) Duration uptime,
                             boolean ready, String notReadyReason, long journalSeq, Checkpoints.Info journal,
                             int initialEpoch,
                             long epochMaxEvents, boolean kuduRangesManaged, boolean catalogueEnabled,
                             boolean cleanupEnabled, int eventSubscribers, ObjectCleaner.Report lastCleanup,
                             String configuration) {
}
