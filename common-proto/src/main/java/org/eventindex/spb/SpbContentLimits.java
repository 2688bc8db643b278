package org.eventindex.spb;

/**
 * Bounds on what the messages of an SPB stream hold, fixed so that the producer's validation and the consumer's reader
 * ({@link SpbReader}, which both use) accept exactly the same files. Each is far above what real data needs and far
 * below what would let a small object take a daemon's memory: a file within them holds at most
 * {@link #DISTINCT_MENU_BYTES} of trigger menus, whatever it repeats, and events of at most a few tens of KiB.
 * A stream over one is refused as {@link SpbFormatException.Problem#OVERSIZE}, naming the message, the field, its
 * size and the limit. Lengths are of the UTF-8 bytes on the wire.
 */
public final class SpbContentLimits {
    /**
     * Names: Header {@code taskID}, {@code jobID}, {@code inputDsName}; BeginGUID {@code AMITag}, {@code trigStream},
     * {@code projName}, {@code guid}; an eitoken's {@code name}. Real ones are under 256 (a dataset name at most 255).
     */
    public static final int NAME_BYTES = 512;
    /** An eitoken's POOL {@code token}: about 150 bytes plus the container name. */
    public static final int TOKEN_BYTES = 1024;
    /** eitoken entries of one event: one per processing stage (RAW, ESD, AOD, ...), a handful in real data. */
    public static final int TOKENS_PER_EVENT = 32;
    /** {@code L1PassedTrigMask}: 1,536 bits, coded in at most 1,536 characters. */
    public static final int L1_MASK_BYTES = 2048;
    /** {@code L2PassedTrigMask}, {@code EFPassedTrigMask}: three 4,096-bit masks and two separators, at most 12,290. */
    public static final int HLT_MASK_BYTES = 16384;
    /** Each menu string of a TriggerMenu ({@code L1Menu}, {@code L2Menu}, {@code EFMenu}, {@code HLTMenu}). */
    public static final int MENU_BYTES = 1 << 20;
    /** TriggerMenu messages within one input file (the experiment's writer adds one when the trigger keys change). */
    public static final int MENUS_PER_FILE = 64;
    /** Serialized bytes of the distinct TriggerMenu messages of one stream (repeats of a menu count once). */
    public static final int DISTINCT_MENU_BYTES = 16 << 20;
    /** Input files (BeginGUID) in one stream; a producer message listing more would exceed its size limit anyway. */
    public static final int FILES = 10_000;

    private SpbContentLimits() {
    }
}
