package org.eventindex.supervisor;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.eventindex.message.FormatVersion;

/**
 * Operator -> supervisor control queue: send a dataset's signal again, unchanged (same signalId), e.g. after a
 * consumer reported FAILED and the cause was fixed. {@code {"type": "resignal", "dataset": "<name>"}}.
 */
public record ResignalCommand(@JsonProperty("type") String type, @JsonProperty("dataset") String dataset) {
    public static final String TYPE = "resignal";
    /**
     * The format version of resignal requests this build writes and reads (decision 0055): written as {@code "v"}; one
     * without it is version 1 (release 0.1.0).
     */
    public static final int FORMAT_VERSION = 1;

    /** {@link #FORMAT_VERSION}, the message's {@code "v"} field. */
    @JsonProperty(FormatVersion.FIELD)
    public int formatVersion() {
        return FORMAT_VERSION;
    }


    public static ResignalCommand of(String dataset) {
        return new ResignalCommand(TYPE, dataset);
    }
}
