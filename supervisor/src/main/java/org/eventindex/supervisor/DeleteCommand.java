package org.eventindex.supervisor;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Operator -> supervisor control queue: forget a dataset for good and have its objects deleted by the cleanup (the
 * first step of {@code supervisor delete-dataset}; the command then deletes its HDFS file and Kudu rows).
 * {@code {"type": "delete", "dataset": "<name>", "reason": "..."}}. Refused with {@code WRONG_STATE} while a consumer
 * may be loading the dataset (SIGNAL_PLANNED, SIGNALLED); a dataset deleted before is answered OK again.
 *
 * @param reason why, for the journal (optional)
 */
public record DeleteCommand(@JsonProperty("type") String type, @JsonProperty("dataset") String dataset,
                            @JsonProperty("reason") String reason) {
    public static final String TYPE = "delete";

    public static DeleteCommand of(String dataset, String reason) {
        return new DeleteCommand(TYPE, dataset, reason);
    }
}
