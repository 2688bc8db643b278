package org.eventindex.supervisor.journal;

import java.io.IOException;

/**
 * The journal cannot be used: a line in the middle is not a valid entry, sequence numbers jump, another process holds
 * the lock, or an append failed (after which the journal refuses further appends until the supervisor restarts and
 * truncates the torn tail). The message names the file, the line and what an operator should do.
 */
public final class JournalException extends IOException {
    private static final long serialVersionUID = 1L;

    public JournalException(String message) {
        super(message);
    }

    public JournalException(String message, Throwable cause) {
        super(message, cause);
    }
}
