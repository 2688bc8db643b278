package org.eventindex.spb;

/**
 * Bounds applied while reading untrusted SPB streams.
 *
 * @param maxMessageBytes largest single protobuf message accepted (a declared length above it is refused before
 *                        allocating anything)
 */
public record SpbLimits(int maxMessageBytes) {
    public static final SpbLimits DEFAULT = new SpbLimits(16 * 1024 * 1024);

    public SpbLimits {
        if (maxMessageBytes <= 0) {
            throw new IllegalArgumentException("maxMessageBytes must be positive: " + maxMessageBytes);
        }
    }
}
