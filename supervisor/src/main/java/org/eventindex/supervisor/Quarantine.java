package org.eventindex.supervisor;

import java.io.IOException;

/** Copies a rejected message somewhere an operator can inspect and re-drive it. Best effort: failures are logged. */
@FunctionalInterface
interface Quarantine {
    /** Does nothing (the journal and the log still record every rejection). */
    Quarantine NONE = (queue, rejection, body) -> { };

    void copy(String sourceQueue, Rejection rejection, byte[] body) throws IOException;
}
