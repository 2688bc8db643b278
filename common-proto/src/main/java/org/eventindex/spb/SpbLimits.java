package org.eventindex.spb;

/**
 * Bounds applied while reading untrusted SPB streams. Each is checked before the work it bounds is done, so a hostile
 * object costs at most the limit, never the size it declares.
 *
 * @param maxMessageBytes   largest single protobuf message accepted (a declared length above it is refused before
 *                          allocating anything)
 * @param maxInflatedBytes  most uncompressed bytes read from one stream; a gzip bomb stops here with
 *                          {@link SpbFormatException.Problem#OVERSIZE}
 * @param maxEventsPerFile  most events between one BeginGUID and its EndGUID (one input file)
 */
public record SpbLimits(int maxMessageBytes, long maxInflatedBytes, long maxEventsPerFile) {
    /** 16 MiB messages, 64 GiB uncompressed per object, 100 million events per input file. */
    public static final SpbLimits DEFAULT = new SpbLimits(16 * 1024 * 1024, 64L << 30, 100_000_000L);

    public SpbLimits {
        if (maxMessageBytes <= 0) {
            throw new IllegalArgumentException("maxMessageBytes must be positive: " + maxMessageBytes);
        }
        if (maxInflatedBytes <= 0) {
            throw new IllegalArgumentException("maxInflatedBytes must be positive: " + maxInflatedBytes);
        }
        if (maxEventsPerFile <= 0) {
            throw new IllegalArgumentException("maxEventsPerFile must be positive: " + maxEventsPerFile);
        }
    }

    /** Only a message size bound; the other limits take their defaults. */
    public SpbLimits(int maxMessageBytes) {
        this(maxMessageBytes, DEFAULT.maxInflatedBytes, DEFAULT.maxEventsPerFile);
    }
}
