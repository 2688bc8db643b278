package org.eventindex.message;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/**
 * Supervisor -> consumer queue: a dataset is complete; consolidate it from exactly these objects.
 * The content is a pure function of the supervisor's selection, so a re-sent signal (same {@code signalId})
 * yields the same HDFS file and the same Kudu rows.
 *
 * @param signalId       unique per selection; a redelivery or re-signal of the same selection keeps it
 * @param dataset        full dataset name (may carry a {@code _tid}/{@code _sub} suffix)
 * @param container      container name; the HDFS directory
 * @param dspid          dataset id in Kudu, assigned by the supervisor
 * @param epoch          Kudu range (rgid) the dataset's events go to
 * @param objects        objects to read, in a deterministic order (this order is the file's order)
 * @param expectedEvents total events the consumer must find (sum over objects)
 */
public record ConsumerSignal(
        @JsonProperty("type") String type,
        @JsonProperty("signalId") String signalId,
        @JsonProperty("dataset") String dataset,
        @JsonProperty("container") String container,
        @JsonProperty("dspid") int dspid,
        @JsonProperty("epoch") int epoch,
        @JsonProperty("objects") List<SignalObject> objects,
        @JsonProperty("expectedEvents") long expectedEvents,
        @JsonProperty("ts") long ts) {

    public static final String TYPE = "consolidate";
    /**
     * The format version of signals this build writes and reads (decision 0055): written as {@code "v"}; one
     * without it is version 1 (release 0.1.0).
     */
    public static final int FORMAT_VERSION = 1;

    /** {@link #FORMAT_VERSION}, the message's {@code "v"} field. */
    @JsonProperty(FormatVersion.FIELD)
    public int formatVersion() {
        return FORMAT_VERSION;
    }

    /**
     * STOMP header of a signal sent by a supervisor with a standby: its fencing token, which strictly increases at
     * every takeover. A consumer refuses a signal with a lower token than the highest it has seen (a deposed
     * supervisor's).
     */
    public static final String TOKEN_HEADER = "eventindex-supervisor-token";
}
