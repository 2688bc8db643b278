package org.eventindex.message;

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
        @JsonProperty("permanent") boolean permanent) {

    public static final String TYPE = "report";
    public static final String DONE = "DONE";
    public static final String FAILED = "FAILED";
}
