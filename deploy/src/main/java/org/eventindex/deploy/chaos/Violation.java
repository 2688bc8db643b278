package org.eventindex.deploy.chaos;

import java.util.Objects;

/**
 * One broken promise found by {@link ChaosChecker}.
 *
 * @param kind    what is broken
 * @param dataset the dataset concerned (empty for system-wide findings)
 * @param detail  what exactly, with examples
 */
record Violation(Kind kind, String dataset, String detail) {
    enum Kind {
        /** The supervisor does not have the dataset DONE after the drain. */
        INCOMPLETE,
        /** No DATASETS row in state LOADED. */
        NOT_LOADED,
        /** Expected events missing from EVENTS/MCEVENTS. */
        LOST,
        /** Rows in EVENTS/MCEVENTS that are not expected events of the dataset. */
        UNEXPECTED,
        /** DUPLICATEDEVENTS does not hold exactly the expected repeated occurrences. */
        DUPLICATES_MISMATCH,
        /** Not exactly one consolidated HDFS file for the dataset. */
        HDFS_FILES,
        /** A temporary file left in the dataset's HDFS directory. */
        LEFTOVER_TEMP,
        /** A producer gave up (a message that was never delivered). */
        PRODUCER_FAILED,
        /** A message the broker acknowledged to a producer that the supervisor has no record of. */
        UNACCOUNTED_MESSAGE,
        /** A daemon that exited by itself. */
        DAEMON_DIED,
        /** A broker still holds a message of the flow after the drain: stored and never read. */
        UNREAD_ON_BROKER
    }

    Violation {
        Objects.requireNonNull(kind, "kind is null");
        Objects.requireNonNull(dataset, "dataset is null");
        Objects.requireNonNull(detail, "detail is null");
    }

    @Override
    public String toString() {
        return kind + (dataset.isEmpty() ? "" : " " + dataset) + ": " + detail;
    }
}
