package org.eventindex.stomp;

import java.io.IOException;
import org.eventindex.EventIndexFailure;

/**
 * A broker refused or failed a STOMP operation, or none could be reached. {@link #isAuthentication()} separates
 * security refusals (bad login or passcode, or no permission for a destination), which retrying cannot fix: they are
 * {@link Kind#FATAL}, every other STOMP failure is {@link Kind#RETRIABLE}.
 * Messages name the broker endpoint and, for sends, the destination; they never contain the passcode.
 */
public final class StompException extends IOException implements EventIndexFailure {
    private static final long serialVersionUID = 1L;
    private final boolean authentication;

    public StompException(String message, boolean authentication, Throwable cause) {
        super(message, cause);
        this.authentication = authentication;
    }

    public StompException(String message, boolean authentication) {
        this(message, authentication, null);
    }

    /** True when the broker refused the credentials or the permission (an operator must fix the configuration). */
    public boolean isAuthentication() {
        return authentication;
    }

    @Override
    public Kind kind() {
        return authentication ? Kind.FATAL : Kind.RETRIABLE;
    }
}
