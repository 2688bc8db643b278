package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code /supervisor}: the daemon itself.
 *
 * @param brokers each broker the supervisor reads (every address of the alias), to each of its queues and whether it
 *                is subscribed there now ({@code eventindex_broker_subscribed})
 * @param configuration every configuration key with its effective value; secrets and the paths of secrets (password
 *                      files, keytabs, key and trust stores) only as {@code (set)} or {@code (not set)}
 *                      ({@link SupervisorConfig#shown()}, decision 0058)
 */
public record SupervisorInfo(@JsonSerialize(using = ToStringSerializer.class) Instant startedAt,
                             @JsonSerialize(using = ToStringSerializer.class) Duration uptime,
                             boolean ready, String notReadyReason, long journalSeq, Checkpoints.Info journal,
                             int initialEpoch,
                             long epochMaxEvents, boolean kuduRangesManaged, boolean catalogueEnabled,
                             boolean cleanupEnabled, int eventSubscribers, ObjectCleaner.Report lastCleanup,
                             Map<String, Map<String, Boolean>> brokers, Map<String, String> configuration) {
    public SupervisorInfo {
        brokers = Collections.unmodifiableMap(new TreeMap<>(brokers)); // sorted by broker in the JSON
    }
}
