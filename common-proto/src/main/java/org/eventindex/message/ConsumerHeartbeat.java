package org.eventindex.message;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Consumer -> supervisor control queue, every {@code consumer.heartbeat.interval}: the consumer is alive and says
 * what it is doing. Transient: sent non-persistent with an expiry, never journalled by the supervisor, which lists the
 * consumer in {@code /consumers} with its last-seen time and marks it missing after a number of intervals without one.
 *
 * @param type           {@link #TYPE}
 * @param consumer       the consumer's id ({@code consumer.id}), as in its reports
 * @param state          {@link #IDLE} or {@link #BUSY}
 * @param dataset        BUSY: the dataset in flight; null when idle
 * @param signalId       BUSY: its signal; null when idle
 * @param objects        BUSY: objects the signal names; 0 when idle
 * @param objectsRead    BUSY: objects read so far, -1 when not known; 0 when idle
 * @param progress       BUSY: units of work done on the signal so far (objects read, events written to the
 *                       consolidated file, events loaded into Kudu, steps without events), never lower in a later heartbeat of the same
 *                       signal: it advances in every phase, so the supervisor extends the signal's lease while it
 *                       grows; null when idle, and from consumers older than the field (their signals keep the lease
 *                       counted from the send)
 * @param busySince      BUSY: when the consumer took the signal (epoch ms); 0 when idle
 * @param version        the consumer's version
 * @param intervalMillis time until the next heartbeat (the supervisor's "missing" counts in these)
 * @param ts             when it was sent (epoch ms, the consumer's clock)
 */
public record ConsumerHeartbeat(
        @JsonProperty("type") String type,
        @JsonProperty("consumer") String consumer,
        @JsonProperty("state") String state,
        @JsonProperty("dataset") String dataset,
        @JsonProperty("signalId") String signalId,
        @JsonProperty("objects") int objects,
        @JsonProperty("objectsRead") long objectsRead,
        @JsonProperty("progress") Long progress,
        @JsonProperty("busySince") long busySince,
        @JsonProperty("version") String version,
        @JsonProperty("intervalMillis") long intervalMillis,
        @JsonProperty("ts") long ts) {

    public static final String TYPE = "heartbeat";
    /**
     * The format version of heartbeats this build writes and reads (decision 0055): written as {@code "v"}; one
     * without it is version 1 (release 0.1.0).
     */
    public static final int FORMAT_VERSION = 1;

    /** {@link #FORMAT_VERSION}, the message's {@code "v"} field. */
    @JsonProperty(FormatVersion.FIELD)
    public int formatVersion() {
        return FORMAT_VERSION;
    }

    public static final String IDLE = "idle";
    public static final String BUSY = "busy";
    /** Shortest and longest interval a heartbeat may announce (and {@code consumer.heartbeat.interval} may be). */
    public static final long MIN_INTERVAL_MILLIS = 1_000;
    public static final long MAX_INTERVAL_MILLIS = 3_600_000;
    /** Longest consumer id accepted (ids are host names or short names). */
    public static final int MAX_CONSUMER_LENGTH = 255;

    /** An idle consumer's heartbeat. */
    public static ConsumerHeartbeat idle(String consumer, String version, long intervalMillis, long ts) {
        return new ConsumerHeartbeat(TYPE, consumer, IDLE, null, null, 0, 0, null, 0, version, intervalMillis, ts);
    }

    /** A busy consumer's heartbeat. */
    public static ConsumerHeartbeat busy(String consumer, String dataset, String signalId, int objects,
                                         long objectsRead, long progress, long busySince, String version,
                                         long intervalMillis, long ts) {
        return new ConsumerHeartbeat(TYPE, consumer, BUSY, dataset, signalId, objects, objectsRead, progress,
                busySince, version, intervalMillis, ts);
    }
}
