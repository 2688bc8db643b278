package org.eventindex.stomp;

import java.io.IOException;
import java.util.Map;

/**
 * A long-lived sender for daemons: a lazily (re)opened {@link StompConnection}; a failed send closes the connection
 * and is retried once on a fresh one before the error is thrown. Thread-safe.
 */
public final class StompSender implements AutoCloseable {

    public StompSender(StompSettings settings) {
        throw new UnsupportedOperationException("TODO");
    }

    /** Persistent send that returns after the broker's receipt. */
    public void send(String destination, byte[] body, Map<String, String> headers) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    @Override
    public void close() {
        throw new UnsupportedOperationException("TODO");
    }
}
