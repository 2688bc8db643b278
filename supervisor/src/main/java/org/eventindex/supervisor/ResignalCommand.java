package org.eventindex.supervisor;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Operator -> supervisor control queue: send a dataset's signal again, unchanged (same signalId), e.g. after a
 * consumer reported FAILED and the cause was fixed. {@code {"type": "resignal", "dataset": "<name>"}}.
 */
public record ResignalCommand(@JsonProperty("type") String type, @JsonProperty("dataset") String dataset) {
    public static final String TYPE = "resignal";

    public static ResignalCommand of(String dataset) {
        return new ResignalCommand(TYPE, dataset);
    }
}
