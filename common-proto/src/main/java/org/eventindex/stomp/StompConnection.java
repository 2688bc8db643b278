package org.eventindex.stomp;

import java.io.Closeable;
import java.io.IOException;
import java.util.Map;

/**
 * A STOMP 1.2 connection to one broker of {@link StompSettings#endpoints()} (the first that accepts), with
 * heart-beats. Sends are persistent and wait for the broker's RECEIPT. Subscriptions use
 * {@code ack:client-individual}. Thread-safe for sends and acks.
 */
public final class StompConnection implements Closeable {

    /** @throws StompException when no endpoint accepts (authentication refusals are reported as such) */
    public static StompConnection connect(StompSettings settings) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    /** The endpoint this connection reached. */
    public StompEndpoint endpoint() {
        throw new UnsupportedOperationException("TODO");
    }

    /** Persistent SEND; returns once the broker's RECEIPT arrived (or throws on timeout / ERROR frame). */
    public void send(String destination, byte[] body, Map<String, String> headers) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    /**
     * Subscribes with {@code ack:client-individual} and {@code activemq.prefetchSize:prefetch}; messages are passed
     * to {@code handler} on this connection's dispatch thread. The handler must call {@link #ack} or {@link #nack}.
     */
    public void subscribe(String destination, int prefetch, Listener handler) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    public void ack(StompMessage message) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    public void nack(StompMessage message) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    /** False once the socket failed, an ERROR frame arrived, heart-beats stopped, or close was called. */
    public boolean isOpen() {
        throw new UnsupportedOperationException("TODO");
    }

    @Override
    public void close() {
        throw new UnsupportedOperationException("TODO");
    }

    /** Receives MESSAGE frames of a subscription, and the connection's failure. */
    public interface Listener {
        void onMessage(StompMessage message);

        default void onError(IOException cause) {
        }
    }
}
