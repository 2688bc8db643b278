package org.eventindex.supervisor;


/** Why a message was refused; each has its own counter {@code eventindex_supervisor_rejected_<reason>_total}. */
public enum RejectReason {
    /** The body is not a JSON object, or a field has the wrong JSON type. */
    BAD_JSON,
    /** The {@code type} field names a message this queue does not take. */
    WRONG_TYPE,
    /** A required field is absent or empty. */
    MISSING_FIELD,
    /** A field is present but out of range (negative count, unknown status...). */
    INVALID_VALUE,
    /** The dataset name does not follow {@code project.run.stream.prodStep.dataType.version[_tid/_sub]}. */
    INVALID_DATASET_NAME,
    /** The object URL is not {@code s3://host:port/bucket/key}. */
    BAD_URL,
    /** The object URL names a bucket other than the configured one. */
    WRONG_BUCKET,
    /** The object URL names a host:port other than the configured S3 endpoint ({@code supervisor.s3.endpoint}). */
    WRONG_ENDPOINT,
    /**
     * The object key is not {@code {flavor}/{taskNumber}/{taskID}_{jobID}_{uuid}.ei.spb} of the message's own
     * taskID, jobID and uuid (a reference to another task's or job's object).
     */
    WRONG_KEY,
    /** A GUID is listed twice in one message. */
    DUPLICATE_GUID,
    /**
     * A producer message whose {@code id} was already recorded with a different object (another URL, dataset, size
     * or input files); the same id with the same object is a re-delivery, acknowledged silently.
     */
    MESSAGE_ID_CONFLICT,
    /** A different manifest for a dataset whose objects were already deleted by the cleanup. */
    MANIFEST_CONFLICT,
    /**
     * The body is larger than {@code supervisor.message.max.bytes}, or the STOMP frame was over
     * {@code supervisor.stomp.frame.max.bytes} / {@code supervisor.stomp.frame.max.header.bytes}.
     */
    OVERSIZE,
    /** An {@code invalidate} command names an object the dataset does not have. */
    UNKNOWN_OBJECT,
    /** An operator command names a dataset the supervisor does not know. */
    UNKNOWN_DATASET,
    /** An operator command does not apply to the dataset's current state. */
    WRONG_STATE,
    /**
     * The message names a dataset that is finished for good (DONE, every object deleted by the cleanup, only its
     * summary kept): a late producer's object, a manifest, {@code resignal} or {@code invalidate}.
     */
    DATASET_RETIRED,
    /**
     * The message names a dataset an operator deleted ({@code supervisor delete-dataset}): a late producer's object, a
     * manifest, {@code resignal} or {@code invalidate}. Produce it again under a new task to have it again.
     */
    DATASET_DELETED,
    /**
     * The message carries a format version ({@code "v"}) above the one this supervisor reads for its type: a newer
     * release's consumer or operator command (decision 0055). The detail names both versions; upgrade the supervisor.
     */
    NEWER_FORMAT;
}
