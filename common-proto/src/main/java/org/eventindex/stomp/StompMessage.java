package org.eventindex.stomp;

import java.util.Map;

/**
 * A MESSAGE frame received on a subscription.
 *
 * @param ackId the value to acknowledge ({@code ack} header in STOMP 1.2)
 */
public record StompMessage(String destination, String messageId, String ackId, Map<String, String> headers,
                           byte[] body) {

    /** True when the broker says this message was delivered before and not acknowledged. */
    public boolean redelivered() {
        return "true".equals(headers.get("redelivered"));
    }
}
