package org.eventindex.spb;

/** Where an {@link SpbReader} inflates its gzip stream. */
public enum Inflation {
    /** On the reading thread, as it needs the bytes: no other thread (the consumer reads many objects at once). */
    INLINE,
    /**
     * On a thread of its own, a few chunks ahead of the reading thread ({@link AheadInflater}, 2 MiB of buffers): the
     * inflate runs beside the checks on a second core. For one large stream read alone (the producer's validation).
     */
    AHEAD
}
