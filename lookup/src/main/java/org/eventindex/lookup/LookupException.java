package org.eventindex.lookup;

/** A lookup that could not be answered (Kudu unreachable, a table missing); the message names what was read. */
public final class LookupException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LookupException(String message, Throwable cause) {
        super(message, cause);
    }
}
