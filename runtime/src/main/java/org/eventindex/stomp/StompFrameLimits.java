package org.eventindex.stomp;

/**
 * The largest STOMP frame a client accepts from its broker, so that a broken or hostile peer cannot exhaust memory.
 * A frame over a limit does not break the connection: its excess is read and dropped, and a MESSAGE arrives with
 * {@link StompMessage#oversize()} saying what was dropped (see {@link StompMessageHandler#onOversize}).
 *
 * @param maxBodyBytes   largest frame body kept ({@value #MIN_BYTES} to {@value #MAX_BODY_BYTES})
 * @param maxHeaderBytes most bytes of header lines kept per frame ({@value #MIN_BYTES} to {@value #MAX_HEADER_BYTES});
 *                       the protocol headers needed to acknowledge a message are kept beyond it
 */
public record StompFrameLimits(int maxBodyBytes, int maxHeaderBytes) {
    /** Smallest accepted limit: the CONNECTED, RECEIPT and ERROR frames of a broker must fit. */
    public static final int MIN_BYTES = 1024;
    /** Largest accepted body limit (1 GiB): a body is held in one array. */
    public static final int MAX_BODY_BYTES = 1 << 30;
    /** Largest accepted header limit (64 MiB). */
    public static final int MAX_HEADER_BYTES = 64 << 20;
    /** 64 MiB of body, 1 MiB of headers. */
    public static final StompFrameLimits DEFAULT = new StompFrameLimits(64 << 20, 1 << 20);

    public StompFrameLimits {
        check("maxBodyBytes", maxBodyBytes, MAX_BODY_BYTES);
        check("maxHeaderBytes", maxHeaderBytes, MAX_HEADER_BYTES);
    }

    private static void check(String name, int value, int max) {
        if (value < MIN_BYTES || value > max) {
            throw new IllegalArgumentException("STOMP frame limit " + name + " must be between " + MIN_BYTES + " and "
                    + max + " bytes, got " + value);
        }
    }
}
