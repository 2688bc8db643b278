package org.eventindex.supervisor;

import java.io.IOException;

/**
 * Makes sure the Kudu range of an epoch exists. Called before a signal naming the epoch is sent, so no consumer ever
 * writes into a range that is not there. Idempotent; cheap after the first call per epoch.
 */
interface EpochRanges extends AutoCloseable {
    /** Ranges are managed elsewhere (tests without Kudu, or an operator). */
    EpochRanges NONE = epoch -> { };

    void ensure(int epoch) throws IOException;

    @Override
    default void close() {
    }
}
