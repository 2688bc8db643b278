package org.eventindex.lookup;

import org.eventindex.EventIndexFailure;

/**
 * A lookup that could not be answered (Kudu unreachable, a table missing); the message names what was read.
 * {@link Kind#RETRIABLE}: the same lookup may be answered once Kudu answers or the tables exist.
 */
public final class LookupException extends RuntimeException implements EventIndexFailure {
    private static final long serialVersionUID = 1L;

    public LookupException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public Kind kind() {
        return Kind.RETRIABLE;
    }
}
