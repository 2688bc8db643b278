package org.eventindex.stomp;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Map;
import org.eventindex.EventIndexFailure;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A long-lived sender for daemons: a lazily (re)opened {@link StompConnection}; a failed send closes the connection
 * and is retried once on a fresh one before the error is thrown. Thread-safe (sends are serialised).
 *
 * <p>A send whose receipt was lost may have reached the queue anyway, so the retry can duplicate a message:
 * receivers must tolerate duplicates (messages carry an id for that).
 */
public final class StompSender implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StompSender.class);

    private final StompSettings settings;
    private StompConnection connection;
    private boolean closed;

    public StompSender(StompSettings settings) {
        this.settings = requireNonNull(settings, "settings is null");
    }

    /** Persistent send (unless {@code headers} say {@code persistent:false}); returns after the broker's receipt. */
    public synchronized void send(String destination, byte[] body, Map<String, String> headers) throws IOException {
        requireNonNull(destination, "destination is null");
        requireNonNull(body, "body is null");
        requireNonNull(headers, "headers is null");
        if (closed) {
            throw new IOException("STOMP sender for " + destination + " is closed");
        }
        try {
            connection().send(destination, body, headers);
            return;
        } catch (IOException first) {
            dropConnection();
            if (first instanceof InterruptedIOException
                    || first instanceof EventIndexFailure f && !f.retriable()) {
                throw first;
            }
            // DEBUG: when the second try fails too, the caller logs the failure (with both causes)
            LOG.debug("send to {} failed ({}); retrying once on a fresh connection", destination, first.getMessage());
            try {
                connection().send(destination, body, headers);
            } catch (IOException second) {
                dropConnection();
                second.addSuppressed(first);
                throw second;
            }
        }
    }

    /** Closes the connection; later sends fail. Idempotent. */
    @Override
    public synchronized void close() {
        closed = true;
        dropConnection();
    }

    private StompConnection connection() throws IOException {
        if (connection == null || !connection.isOpen()) {
            dropConnection();
            connection = StompConnection.connect(settings);
        }
        return connection;
    }

    private void dropConnection() {
        if (connection != null) {
            connection.close();
            connection = null;
        }
    }
}
