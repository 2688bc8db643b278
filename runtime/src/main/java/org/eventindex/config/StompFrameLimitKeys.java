package org.eventindex.config;

import static org.eventindex.config.ConfigChecks.requireRange;

import java.util.List;
import org.eventindex.stomp.StompFrameLimits;

/**
 * The two keys of a daemon's client-side STOMP frame limits, the same under every prefix:
 * {@code <prefix>stomp.frame.max.bytes} (body) and {@code <prefix>stomp.frame.max.header.bytes} (header lines).
 */
public final class StompFrameLimitKeys {
    private StompFrameLimitKeys() {
    }

    public static String bodyKey(String prefix) {
        return prefix + "stomp.frame.max.bytes";
    }

    public static String headerKey(String prefix) {
        return prefix + "stomp.frame.max.header.bytes";
    }

    /** The documented keys under {@code prefix} (e.g. {@code "consumer."}). */
    public static List<ConfigKey> keys(String prefix) {
        return List.of(
                new ConfigKey(bodyKey(prefix), Integer.toString(StompFrameLimits.DEFAULT.maxBodyBytes()), null,
                        "Largest STOMP frame body this daemon accepts from the broker (" + StompFrameLimits.MIN_BYTES
                                + " to " + StompFrameLimits.MAX_BODY_BYTES + " bytes). The excess of a bigger frame"
                                + " is read and dropped without breaking the connection, and the message is refused"
                                + " (see docs/security.md)."),
                new ConfigKey(headerKey(prefix), Integer.toString(StompFrameLimits.DEFAULT.maxHeaderBytes()), null,
                        "Most bytes of header lines kept per STOMP frame (" + StompFrameLimits.MIN_BYTES + " to "
                                + StompFrameLimits.MAX_HEADER_BYTES + "); a message with more is refused like an"
                                + " oversize body."));
    }

    /** @throws IllegalArgumentException naming the key when a limit is not a number in its range */
    public static StompFrameLimits read(ConfigReader r, String prefix) {
        long body = r.longValue(bodyKey(prefix));
        long header = r.longValue(headerKey(prefix));
        requireRange(body, StompFrameLimits.MIN_BYTES, StompFrameLimits.MAX_BODY_BYTES, bodyKey(prefix));
        requireRange(header, StompFrameLimits.MIN_BYTES, StompFrameLimits.MAX_HEADER_BYTES, headerKey(prefix));
        return new StompFrameLimits((int) body, (int) header);
    }
}
