package org.eventindex.supervisor;

/** Where a dataset is in its life at the supervisor. */
public enum CollectionState {
    /** Objects and/or the manifest are arriving; not every expected file has a valid object yet. */
    COLLECTING,
    /** Attempts disagree on a file's event count and nothing arbitrates; waits for an operator (reason shown). */
    HELD,
    /** Complete; the signal (with dspid and epoch) is journalled and is being sent. */
    SIGNAL_PLANNED,
    /** The broker accepted the signal; a consumer will pick it up. */
    SIGNALLED,
    /** A consumer reported the dataset consolidated and loaded. */
    DONE,
    /**
     * A consumer reported failure; a transient one is retried automatically with backoff, then left to an operator, a
     * permanent one is left to an operator at once.
     */
    FAILED_CONSUMER
}
