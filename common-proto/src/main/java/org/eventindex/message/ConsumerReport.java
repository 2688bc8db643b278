package org.eventindex.message;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Consumer -> supervisor control queue: the outcome of one signal.
 *
 * @param status          {@link #DONE} or {@link #FAILED}
 * @param hdfsPath        the consolidated file (DONE only)
 * @param eventsWritten   events in the consolidated file
 * @param eventsLoaded    rows in EVENTS (or MCEVENTS) for the dataset after the load
 * @param duplicateEvents rows written to DUPLICATEDEVENTS
 * @param objectsRead     objects fetched from S3
 * @param bytesRead       bytes fetched from S3
 * @param reason          why it failed (FAILED only), naming the object or file
 * @param permanent       FAILED only: the failure can never succeed with the same signal (an object missing or
 *                        malformed, an invalid signal, contents that contradict it), so the supervisor does not
 *                        retry it by itself. Absent (older consumers) means false: a transient failure, retried
 * @param cause           FAILED only: {@link #CAUSE_INPUT} (the signal, an object or its content is wrong:
 *                        permanent), {@link #CAUSE_TRANSIENT} (HDFS, Kudu, S3 or the broker failed, or the consumer
 *                        stopped: retried) or {@link #CAUSE_INTERNAL} (an unexpected exception, a bug: permanent, so
 *                        that it is not retried at full cost, held for an operator who re-runs it once the bug is
 *                        fixed; the objects are kept). Null from older consumers: read {@code permanent}
 */
public record ConsumerReport(
        @JsonProperty("type") String type,
        @JsonProperty("signalId") String signalId,
        @JsonProperty("dataset") String dataset,
        @JsonProperty("consumer") String consumer,
        @JsonProperty("status") String status,
        @JsonProperty("hdfsPath") String hdfsPath,
        @JsonProperty("eventsWritten") long eventsWritten,
        @JsonProperty("eventsLoaded") long eventsLoaded,
        @JsonProperty("duplicateEvents") long duplicateEvents,
        @JsonProperty("objectsRead") int objectsRead,
        @JsonProperty("bytesRead") long bytesRead,
        @JsonProperty("durationMillis") long durationMillis,
        @JsonProperty("reason") String reason,
        @JsonProperty("ts") long ts,
        @JsonProperty("permanent") boolean permanent,
        @JsonProperty("cause") String cause) {

    public static final String TYPE = "report";
    /**
     * The format version of reports this build writes and reads (decision 0055): written as {@code "v"}; one
     * without it is version 1 (release 0.1.0).
     */
    public static final int FORMAT_VERSION = 1;

    /** {@link #FORMAT_VERSION}, the message's {@code "v"} field. */
    @JsonProperty(FormatVersion.FIELD)
    public int formatVersion() {
        return FORMAT_VERSION;
    }

    public static final String CAUSE_INPUT = "input";
    public static final String CAUSE_TRANSIENT = "transient";
    public static final String CAUSE_INTERNAL = "internal";

    /** A report without a cause (a DONE report, or one of an older consumer). */
    public ConsumerReport(String type, String signalId, String dataset, String consumer, String status,
                          String hdfsPath, long eventsWritten, long eventsLoaded, long duplicateEvents,
                          int objectsRead, long bytesRead, long durationMillis, String reason, long ts,
                          boolean permanent) {
        this(type, signalId, dataset, consumer, status, hdfsPath, eventsWritten, eventsLoaded, duplicateEvents,
                objectsRead, bytesRead, durationMillis, reason, ts, permanent, null);
    }

    /** Whether this FAILED report is an internal error of the consumer (a bug), not a fault of its input. */
    @JsonIgnore
    public boolean internal() {
        return CAUSE_INTERNAL.equals(cause);
    }
    public static final String DONE = "DONE";
    public static final String FAILED = "FAILED";
}
