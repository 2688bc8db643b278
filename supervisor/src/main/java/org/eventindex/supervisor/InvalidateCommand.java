package org.eventindex.supervisor;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.eventindex.message.FormatVersion;

/**
 * Consumer or operator -> supervisor control queue: an object must not be used again.
 * {@code {"type": "invalidate", "dataset": "<name>", "url": "s3://...", "reason": "...", "source": "consumer-1"}}.
 * <p>
 * A consumer sends it when a selected object proves unreadable (missing, truncated, corrupt) or inconsistent with
 * the signal (event counts differ), then reports its signal FAILED. An operator sends it to settle a HELD dataset
 * (attempts that disagree). The supervisor selects another candidate for the object's files and signals the dataset
 * again with a new {@code signalId}; if there is none, the dataset waits for a new producer.
 *
 * @param source who says so (consumer name, or {@code operator} when absent)
 */
public record InvalidateCommand(@JsonProperty("type") String type, @JsonProperty("dataset") String dataset,
                                @JsonProperty("url") String url, @JsonProperty("reason") String reason,
                                @JsonProperty("source") String source) {
    public static final String TYPE = "invalidate";
    /**
     * The format version of invalidate requests this build writes and reads (decision 0055): written as {@code "v"}; one
     * without it is version 1 (release 0.1.0).
     */
    public static final int FORMAT_VERSION = 1;

    /** {@link #FORMAT_VERSION}, the message's {@code "v"} field. */
    @JsonProperty(FormatVersion.FIELD)
    public int formatVersion() {
        return FORMAT_VERSION;
    }


    public static InvalidateCommand of(String dataset, String url, String reason, String source) {
        return new InvalidateCommand(TYPE, dataset, url, reason, source);
    }
}
