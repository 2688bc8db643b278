package org.eventindex.names;

import java.util.BitSet;

/**
 * The experiment's run-length coding of trigger masks: a run of {@code 0} bits is written as its length in base64
 * digits ({@code A-Z a-z 0-9 + /}, most significant first), each {@code 1} bit as {@code !}. Bit i of the mask is
 * character i of the plain bit string; e.g. {@code 0001100001001101010000} codes as {@code D!!E!C!!B!B!E}.
 * <p>
 * L1 ({@code L1PassedTrigMask}) is one 1536-bit mask: TBP, TAP, TAV of 512 bits each, concatenated.
 * HLT ({@code EFPassedTrigMask}) is three 4096-bit masks (passed physics, passed-through, resurrected) each coded
 * on its own and joined by {@code ;}.
 */
public final class TriggerMask {
    public static final int L1_BITS = 512;
    public static final int L1_MASKS = 3;
    public static final int HLT_BITS = 4096;
    public static final int HLT_MASKS = 3;

    private TriggerMask() {
    }

    /** @return the coded form of the first {@code nbits} bits of {@code bits} */
    public static String encode(BitSet bits, int nbits) {
        throw new UnsupportedOperationException("TODO");
    }

    /**
     * @throws IllegalArgumentException naming the input and position when a character is outside the alphabet or
     *                                  the decoded length is not {@code nbits}
     */
    public static BitSet decode(String coded, int nbits) {
        throw new UnsupportedOperationException("TODO");
    }

    /** Decodes an L1 field into its 1536 bits (TBP bits 0..511, TAP 512..1023, TAV 1024..1535). */
    public static BitSet decodeL1(String coded) {
        throw new UnsupportedOperationException("TODO");
    }

    /** Decodes an HLT/EF field ({@code a;b;c}) into three 4096-bit masks. */
    public static BitSet[] decodeHlt(String coded) {
        throw new UnsupportedOperationException("TODO");
    }

    public static String encodeL1(BitSet tbp, BitSet tap, BitSet tav) {
        throw new UnsupportedOperationException("TODO");
    }

    public static String encodeHlt(BitSet physics, BitSet passedThrough, BitSet resurrected) {
        throw new UnsupportedOperationException("TODO");
    }
}
