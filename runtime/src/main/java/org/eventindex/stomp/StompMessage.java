package org.eventindex.stomp;

import java.util.Map;

/**
 * A MESSAGE frame received on a subscription.
 *
 * @param ackId    the value to acknowledge ({@code ack} header in STOMP 1.2)
 * @param oversize null for a complete message; when the frame was over the connection's {@link StompFrameLimits},
 *                 what was dropped (the body then holds only its first bytes, and headers may be missing)
 */
public record StompMessage(String destination, String messageId, String ackId, Map<String, String> headers,
                           byte[] body, String oversize) {

    /** A complete message. */
    public StompMessage(String destination, String messageId, String ackId, Map<String, String> headers,
                        byte[] body) {
        this(destination, messageId, ackId, headers, body, null);
    }

    /** True when the broker says this message was delivered before and not acknowledged. */
    public boolean redelivered() {
        return "true".equals(headers.get("redelivered"));
    }
}
