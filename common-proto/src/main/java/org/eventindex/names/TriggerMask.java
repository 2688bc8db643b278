package org.eventindex.names;

import java.util.BitSet;

import static java.util.Objects.requireNonNull;

/**
 * The experiment's run-length coding of trigger masks: a run of {@code 0} bits is written as its length in base64
 * digits ({@code A-Z a-z 0-9 + /}, most significant first), each {@code 1} bit as {@code !}. Bit i of the mask is
 * character i of the plain bit string; e.g. {@code 0001100001001101010000} codes as {@code D!!E!C!!B!B!E}.
 * <p>
 * L1 ({@code L1PassedTrigMask}) is one 1536-bit mask: TBP, TAP, TAV of 512 bits each, concatenated.
 * HLT ({@code EFPassedTrigMask}) is three 4096-bit masks (passed physics, passed-through, resurrected) each coded
 * on its own and joined by {@code ;}.
 * <p>
 * Decoding is strict: every character must be in the alphabet and the runs must add up to exactly the mask width.
 * A leading zero digit ({@code A}) is accepted because it does not change the value.
 */
public final class TriggerMask {
    public static final int L1_BITS = 512;
    public static final int L1_MASKS = 3;
    public static final int HLT_BITS = 4096;
    public static final int HLT_MASKS = 3;

    private static final char ONE = '!';
    private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    private static final char[] DIGITS = ALPHABET.toCharArray();
    private static final byte[] VALUES = new byte[128];

    static {
        java.util.Arrays.fill(VALUES, (byte) -1);
        for (int i = 0; i < DIGITS.length; i++) {
            VALUES[DIGITS[i]] = (byte) i;
        }
    }

    private TriggerMask() {
    }

    /** @return the coded form of the first {@code nbits} bits of {@code bits} */
    public static String encode(BitSet bits, int nbits) {
        requireNonNull(bits, "bits is null");
        if (nbits < 0) {
            throw new IllegalArgumentException("mask width must not be negative: " + nbits);
        }
        StringBuilder out = new StringBuilder(capacity(bits.cardinality()));
        appendEncoded(out, bits, 0, nbits);
        return out.toString();
    }

    /**
     * @throws IllegalArgumentException naming the input and position when a character is outside the alphabet or
     *                                  the decoded length is not {@code nbits}
     */
    public static BitSet decode(String coded, int nbits) {
        requireNonNull(coded, "coded is null");
        if (nbits < 0) {
            throw new IllegalArgumentException("mask width must not be negative: " + nbits);
        }
        BitSet bits = new BitSet(nbits);
        decodeInto(coded, 0, coded.length(), nbits, bits);
        return bits;
    }

    /** Decodes an L1 field into its 1536 bits (TBP bits 0..511, TAP 512..1023, TAV 1024..1535). */
    public static BitSet decodeL1(String coded) {
        return decode(coded, L1_BITS * L1_MASKS);
    }

    /** Decodes an HLT/EF field ({@code a;b;c}) into three 4096-bit masks. */
    public static BitSet[] decodeHlt(String coded) {
        requireNonNull(coded, "coded is null");
        BitSet[] masks = new BitSet[HLT_MASKS];
        int start = 0;
        for (int m = 0; m < HLT_MASKS; m++) {
            int end = coded.indexOf(';', start);
            if (m == HLT_MASKS - 1) {
                if (end >= 0) {
                    throw new IllegalArgumentException("HLT trigger mask '" + abbreviate(coded) + "' has more than "
                            + HLT_MASKS + " ';'-separated masks (extra ';' at position " + end + ")");
                }
                end = coded.length();
            } else if (end < 0) {
                throw new IllegalArgumentException("HLT trigger mask '" + abbreviate(coded) + "' has " + (m + 1)
                        + " ';'-separated masks, expected " + HLT_MASKS);
            }
            masks[m] = new BitSet(HLT_BITS);
            decodeInto(coded, start, end, HLT_BITS, masks[m]);
            start = end + 1;
        }
        return masks;
    }

    public static String encodeL1(BitSet tbp, BitSet tap, BitSet tav) {
        BitSet[] masks = {
            requireNonNull(tbp, "tbp is null"),
            requireNonNull(tap, "tap is null"),
            requireNonNull(tav, "tav is null")};
        String[] names = {"TBP", "TAP", "TAV"};
        int ones = 0;
        for (int m = 0; m < L1_MASKS; m++) {
            checkWidth(masks[m], L1_BITS, names[m]);
            ones += masks[m].cardinality();
        }
        // One mask of 1536 bits: a run of zeros may continue from one part into the next.
        StringBuilder out = new StringBuilder(capacity(ones));
        int zeros = 0;
        for (BitSet mask : masks) {
            int last = -1;
            for (int i = mask.nextSetBit(0); i >= 0; i = mask.nextSetBit(i + 1)) {
                appendCount(out, zeros + i - last - 1);
                out.append(ONE);
                zeros = 0;
                last = i;
            }
            zeros += L1_BITS - last - 1;
        }
        appendCount(out, zeros);
        return out.toString();
    }

    public static String encodeHlt(BitSet physics, BitSet passedThrough, BitSet resurrected) {
        BitSet[] masks = {
            requireNonNull(physics, "physics is null"),
            requireNonNull(passedThrough, "passedThrough is null"),
            requireNonNull(resurrected, "resurrected is null")};
        String[] names = {"physics", "passed-through", "resurrected"};
        StringBuilder out = new StringBuilder(capacity(physics.cardinality() + passedThrough.cardinality()
                + resurrected.cardinality()) + 8);
        for (int m = 0; m < HLT_MASKS; m++) {
            checkWidth(masks[m], HLT_BITS, names[m]);
            if (m > 0) {
                out.append(';');
            }
            appendEncoded(out, masks[m], 0, HLT_BITS);
        }
        return out.toString();
    }

    /** Room for a mask with this many ones: each costs '!' plus at most two count digits in practice. */
    private static int capacity(int ones) {
        return 4 + 3 * Math.min(ones, 4096);
    }

    private static void appendEncoded(StringBuilder out, BitSet bits, int from, int nbits) {
        int end = from + nbits;
        int i = from;
        while (i < end) {
            int one = bits.nextSetBit(i);
            if (one < 0 || one >= end) {
                appendCount(out, end - i);
                return;
            }
            appendCount(out, one - i);
            out.append(ONE);
            i = one + 1;
        }
    }

    private static void appendCount(StringBuilder out, int zeros) {
        if (zeros == 0) {
            return;
        }
        int shift = 0;
        while ((zeros >>> shift) >= 64) {
            shift += 6;
        }
        for (; shift >= 0; shift -= 6) {
            out.append(DIGITS[(zeros >>> shift) & 63]);
        }
    }

    /** Decodes {@code coded[start, end)} into {@code nbits} bits; positions in errors are within {@code coded}. */
    private static void decodeInto(String coded, int start, int end, int nbits, BitSet into) {
        int bit = 0;
        long zeros = 0;
        boolean inCount = false;
        for (int p = start; p < end; p++) {
            char c = coded.charAt(p);
            if (c == ONE) {
                bit += (int) zeros;
                if (bit >= nbits) {
                    throw tooLong(coded, p, nbits);
                }
                into.set(bit);
                bit++;
                zeros = 0;
                inCount = false;
                continue;
            }
            int v = c < 128 ? VALUES[c] : -1;
            if (v < 0) {
                throw new IllegalArgumentException("trigger mask '" + abbreviate(coded) + "': character '"
                        + Printable.of(c) + "' at position " + p + " is neither '!' nor a base64 digit");
            }
            zeros = (zeros << 6) | v;
            inCount = true;
            // Checked per digit so a long run of digits cannot overflow before the check.
            if (bit + zeros > nbits) {
                throw tooLong(coded, p, nbits);
            }
        }
        if (inCount) {
            bit += (int) zeros;
        }
        if (bit != nbits) {
            throw new IllegalArgumentException("trigger mask '" + abbreviate(coded) + "' decodes to " + bit
                    + " bits at position " + end + ", expected " + nbits);
        }
    }

    private static IllegalArgumentException tooLong(String whole, int position, int nbits) {
        return new IllegalArgumentException("trigger mask '" + abbreviate(whole) + "' exceeds " + nbits
                + " bits at position " + position);
    }

    private static void checkWidth(BitSet bits, int width, String name) {
        if (bits.length() > width) {
            throw new IllegalArgumentException(name + " trigger mask has bit " + (bits.length() - 1)
                    + " set, beyond its " + width + " bits");
        }
    }

    private static String abbreviate(String s) {
        return Printable.of(s, 80);
    }
}
