package org.eventindex.spb;

/**
 * Bounds applied while reading untrusted SPB streams. Each is checked before the work it bounds is done, so a hostile
 * object costs at most the limit, never the size it declares. The bounds on what the messages hold (string lengths,
 * repeated fields, menus, files) are fixed, the same for every reader: {@link SpbContentLimits}.
 *
 * @param maxMessageBytes   largest single protobuf message accepted (a declared length above it is refused before
 *                          allocating anything)
 * @param maxInflatedBytes  most uncompressed bytes read from one stream; a gzip bomb stops here with
 *                          {@link SpbFormatException.Problem#OVERSIZE}
 * @param maxEventsPerFile  most events between one BeginGUID and its EndGUID (one input file)
 * @param maxInflationRatio most uncompressed bytes per compressed byte read so far, past the first
 *                          {@link #RATIO_FREE_BYTES}: real SPB objects inflate about 3 to 15 times, a gzip bomb up to
 *                          1,032 times; checked on every read, so a bomb stops early whatever its total
 */
public record SpbLimits(int maxMessageBytes, long maxInflatedBytes, long maxEventsPerFile, int maxInflationRatio) {
    /** Uncompressed bytes any stream may inflate to before {@link #maxInflationRatio()} applies. */
    public static final long RATIO_FREE_BYTES = 1 << 20;
    /** The default of {@link #maxInflationRatio()}. */
    public static final int DEFAULT_INFLATION_RATIO = 100;
    /** 16 MiB messages, 64 GiB uncompressed per object, 100 million events per input file, 100:1 at most. */
    public static final SpbLimits DEFAULT = new SpbLimits(16 * 1024 * 1024, 64L << 30, 100_000_000L,
            DEFAULT_INFLATION_RATIO);

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
        if (maxInflationRatio <= 0) {
            throw new IllegalArgumentException("maxInflationRatio must be positive: " + maxInflationRatio);
        }
    }

    /** The default inflation ratio. */
    public SpbLimits(int maxMessageBytes, long maxInflatedBytes, long maxEventsPerFile) {
        this(maxMessageBytes, maxInflatedBytes, maxEventsPerFile, DEFAULT_INFLATION_RATIO);
    }

    /** Only a message size bound; the other limits take their defaults. */
    public SpbLimits(int maxMessageBytes) {
        this(maxMessageBytes, DEFAULT.maxInflatedBytes, DEFAULT.maxEventsPerFile);
    }

    /**
     * These limits for one stream whose producer declared it inflates to {@code declaredBytes} (its {@code usize}):
     * the stream may not inflate beyond that, nor beyond {@link #maxInflatedBytes()}. A declared size of 0 or less
     * (not known) leaves the limits as they are.
     */
    public SpbLimits forDeclaredSize(long declaredBytes) {
        if (declaredBytes <= 0 || declaredBytes >= maxInflatedBytes) {
            return this;
        }
        return new SpbLimits(maxMessageBytes, declaredBytes, maxEventsPerFile, maxInflationRatio);
    }
}
