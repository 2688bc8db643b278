package org.eventindex.stomp;

import java.io.IOException;

/** A broker refused or failed a STOMP operation; {@link #isAuthentication()} separates bad credentials. */
public final class StompException extends IOException {
    private static final long serialVersionUID = 1L;
    private final boolean authentication;

    public StompException(String message, boolean authentication, Throwable cause) {
        super(message, cause);
        this.authentication = authentication;
    }

    public StompException(String message, boolean authentication) {
        this(message, authentication, null);
    }

    public boolean isAuthentication() {
        return authentication;
    }
}
