package org.eventindex.stomp;

import java.time.Duration;

/**
 * A daemon's consumer of one queue: keeps a connection (reconnecting with capped exponential backoff through every
 * endpoint), subscribes with the given prefetch and calls the handler for each message one at a time. A handler that
 * returns normally gets its message acknowledged; one that throws gets it NACKed (the broker dead-letters it), and
 * the failure is logged with the message id. Stopping waits for the message in progress.
 */
public final class StompQueueWorker implements AutoCloseable {

    public StompQueueWorker(String name, StompSettings settings, String destination, int prefetch,
                            StompMessageHandler handler) {
        throw new UnsupportedOperationException("TODO");
    }

    public void start() {
        throw new UnsupportedOperationException("TODO");
    }

    /** True while subscribed to a live connection. */
    public boolean isConnected() {
        throw new UnsupportedOperationException("TODO");
    }

    /** Messages handled (acknowledged) since start. */
    public long handled() {
        throw new UnsupportedOperationException("TODO");
    }

    /** Idempotent; waits up to {@code grace} for the message in progress. */
    public void stop(Duration grace) {
        throw new UnsupportedOperationException("TODO");
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(30));
    }
}
