package org.eventindex.stomp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Whether one broker lets a login do what a daemon does there: connect, send to some queues, subscribe to others.
 * Nothing reaches a consumer of those queues: the probe message is transient and already expired when it arrives (the
 * broker checks the right to send, then drops it; a non-persistent expired message does not go to the dead-letter
 * queue), and the subscription selects no message and ends with the connection.
 */
public final class BrokerRights {
    /** The header the probe message and the subscription's selector carry. */
    public static final String PROBE_HEADER = "eventindex_check";

    private BrokerRights() {
    }

    /**
     * Connects to {@code broker} alone with the login of {@code settings}, sends the probe to each queue of
     * {@code sendTo} and subscribes to each of {@code subscribeTo}, every step confirmed by a receipt.
     *
     * @throws StompException naming the broker and the step that failed (the login, a SEND, a SUBSCRIBE)
     */
    public static void probe(StompSettings settings, StompBroker broker, List<String> sendTo,
                             List<String> subscribeTo) throws IOException {
        Objects.requireNonNull(settings, "settings is null");
        Objects.requireNonNull(broker, "broker is null");
        try (StompConnection c = StompConnection.connect(settings.pinnedTo(broker))) {
            for (String queue : sendTo) {
                c.send(queue, "{}".getBytes(StandardCharsets.UTF_8), Map.of("persistent", "false", "expires", "1",
                        PROBE_HEADER, "probe"));
            }
            for (String queue : subscribeTo) {
                c.subscribe(queue, 1, Map.of("selector", PROBE_HEADER + " = 'never'"), message -> {
                });
            }
        }
    }
}
