package org.eventindex.supervisor.journal;

import org.eventindex.EventIndexFailure;

import java.io.IOException;
import java.util.Objects;

/**
 * The journal cannot be used: a line in the middle is not a valid entry, sequence numbers jump, another process holds
 * the lock, or an append failed (after which the journal refuses further appends until the supervisor restarts and
 * truncates the torn tail). The message names the file, the line and what an operator should do. {@link Kind#FATAL}
 * when the journal cannot go on without an operator or a restart (the supervisor then stops consuming);
 * {@link Kind#RETRIABLE} when only a checkpoint failed and the journal goes on in the same file.
 */
public final class JournalException extends IOException implements EventIndexFailure {
    private static final long serialVersionUID = 1L;
    private final Kind kind;

    public JournalException(Kind kind, String message) {
        this(kind, message, null);
    }

    public JournalException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = Objects.requireNonNull(kind, "kind is null");
    }

    @Override
    public Kind kind() {
        return kind;
    }
}
