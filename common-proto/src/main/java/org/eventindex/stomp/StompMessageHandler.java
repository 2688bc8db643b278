package org.eventindex.stomp;

/**
 * Handles one message of a {@link StompQueueWorker}. Returning normally acknowledges the message; throwing leaves
 * it to the broker's redelivery / dead-letter policy (it is never silently dropped).
 */
@FunctionalInterface
public interface StompMessageHandler {
    void onMessage(StompMessage message) throws Exception;
}
