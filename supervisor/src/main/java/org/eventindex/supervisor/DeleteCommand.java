package org.eventindex.supervisor;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.eventindex.message.FormatVersion;

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
    /**
     * The format version of delete requests this build writes and reads (decision 0055): written as {@code "v"}; one
     * without it is version 1 (release 0.1.0).
     */
    public static final int FORMAT_VERSION = 1;

    /** {@link #FORMAT_VERSION}, the message's {@code "v"} field. */
    @JsonProperty(FormatVersion.FIELD)
    public int formatVersion() {
        return FORMAT_VERSION;
    }


    public static DeleteCommand of(String dataset, String reason) {
        return new DeleteCommand(TYPE, dataset, reason);
    }
}
