package org.eventindex.stomp;

/**
 * Handles one message of a {@link StompQueueWorker}. Returning normally acknowledges the message; throwing leaves
 * it to the broker's redelivery / dead-letter policy (it is never silently dropped).
 */
@FunctionalInterface
public interface StompMessageHandler {
    /** A complete message. */
    void onMessage(StompMessage message) throws Exception;

    /**
     * A message whose frame was over the connection's {@link StompFrameLimits} ({@link StompMessage#oversize()} is
     * set; the body holds only its first bytes). By default it is refused: the worker logs the limit and NACKs it,
     * and the broker moves the whole message to its dead-letter queue. Daemons override this to record it their way.
     */
    default void onOversize(StompMessage message) throws Exception {
        throw new StompException("message " + message.messageId() + " on " + message.destination()
                + " is over this client's STOMP frame limits: " + message.oversize(), false);
    }
}
