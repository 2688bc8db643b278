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
    /** {@link #fits}'s codes per byte: a digit's value, {@link #ONE_CODE}, {@link #SEPARATOR_CODE} or -1. */
    private static final byte[] CODES = new byte[256];
    private static final int ONE_CODE = 64;
    private static final int SEPARATOR_CODE = 65;

    static {
        java.util.Arrays.fill(VALUES, (byte) -1);
        java.util.Arrays.fill(CODES, (byte) -1);
        for (int i = 0; i < DIGITS.length; i++) {
            VALUES[DIGITS[i]] = (byte) i;
            CODES[DIGITS[i]] = (byte) i;
        }
        CODES[ONE] = ONE_CODE;
        CODES[';'] = SEPARATOR_CODE;
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
        long[] words = new long[(nbits + 63) / 64];
        decodeInto(latin1(coded), 0, coded.length(), nbits, words, 0, coded, 0);
        return BitSet.valueOf(words);
    }

    /** Decodes an L1 field into its 1536 bits (TBP bits 0..511, TAP 512..1023, TAV 1024..1535). */
    public static BitSet decodeL1(String coded) {
        return decode(coded, L1_BITS * L1_MASKS);
    }

    /** Decodes an HLT/EF field ({@code a;b;c}) into three 4096-bit masks. */
    public static BitSet[] decodeHlt(String coded) {
        requireNonNull(coded, "coded is null");
        long[] words = new long[HLT_MASKS * HLT_BITS / 64];
        decodeHlt(latin1(coded), 0, coded.length(), words, coded);
        BitSet[] masks = new BitSet[HLT_MASKS];
        int perMask = HLT_BITS / 64;
        for (int m = 0; m < HLT_MASKS; m++) {
            masks[m] = BitSet.valueOf(java.util.Arrays.copyOfRange(words, m * perMask, (m + 1) * perMask));
        }
        return masks;
    }

    /**
     * Decodes a coded L1 field given as its (ASCII) bytes into 24 words: bit {@code b} of the mask is bit
     * {@code b % 64} of {@code words[b / 64]}. No allocation unless the mask is malformed.
     *
     * @throws IllegalArgumentException as {@link #decodeL1(String)}
     */
    public static void decodeL1Words(byte[] coded, long[] words) {
        requireNonNull(coded, "coded is null");
        decodeInto(coded, 0, coded.length, L1_BITS * L1_MASKS, words, 0, coded, 0);
    }

    /**
     * Decodes a coded HLT/EF field given as its (ASCII) bytes into 3 x 64 words (physics words 0..63,
     * passed-through 64..127, resurrected 128..191), bit numbering as {@link #decodeL1Words}.
     *
     * @throws IllegalArgumentException as {@link #decodeHlt(String)}
     */
    public static void decodeHltWords(byte[] coded, long[] words) {
        requireNonNull(coded, "coded is null");
        decodeHlt(coded, 0, coded.length, words, coded);
    }

    /**
     * As {@link #decodeL1Words(byte[], long[])} for the coded field {@code coded[off, off + len)} (e.g. in place in a
     * scanned event); positions in errors are within the field. No allocation unless the mask is malformed.
     */
    public static void decodeL1Words(byte[] coded, int off, int len, long[] words) {
        requireNonNull(coded, "coded is null");
        decodeInto(coded, off, off + len, L1_BITS * L1_MASKS, words, 0, new Field(coded, off, len), off);
    }

    /** As {@link #decodeHltWords(byte[], long[])} for the coded field {@code coded[off, off + len)}. */
    public static void decodeHltWords(byte[] coded, int off, int len, long[] words) {
        requireNonNull(coded, "coded is null");
        decodeHlt(coded, off, off + len, words, new Field(coded, off, len));
    }

    /**
     * Checks the coded L1 field {@code coded[off, off + len)} exactly as {@link #decodeL1Words(byte[], int, int,
     * long[])} decodes it (the same code, writing no words): for validation, where the bits are not needed.
     *
     * @throws IllegalArgumentException as {@link #decodeL1(String)}
     */
    public static void checkL1(byte[] coded, int off, int len) {
        requireNonNull(coded, "coded is null");
        if (fits(coded, off, off + len, L1_BITS * L1_MASKS, 1)) {
            return;
        }
        decodeInto(coded, off, off + len, L1_BITS * L1_MASKS, null, 0, new Field(coded, off, len), off);
    }

    /** As {@link #checkL1} for a coded HLT/EF field, checked as {@link #decodeHltWords(byte[], int, int, long[])}. */
    public static void checkHlt(byte[] coded, int off, int len) {
        requireNonNull(coded, "coded is null");
        if (fits(coded, off, off + len, HLT_BITS, HLT_MASKS)) {
            return;
        }
        decodeHlt(coded, off, off + len, null, new Field(coded, off, len));
    }

    /**
     * Whether {@code coded[start, end)} is {@code parts} masks of {@code nbits} bits joined by ';': the decoders'
     * verdict in one pass over the bytes, one table lookup each, without their messages (a field it refuses goes
     * through the decoder, which says why; an accepted one is valid). The decoders refuse a run or a '!' that goes
     * past the width as it comes; the bits counted only grow, so a mask whose count ends at exactly the width has
     * gone past it nowhere, and a count of zeros above the width is refused before it can overflow.
     */
    private static boolean fits(byte[] coded, int start, int end, int nbits, int parts) {
        long bits = 0;
        long zeros = 0;
        int part = 1;
        for (int p = start; p < end; p++) {
            int v = CODES[coded[p] & 0xff];
            if (v < ONE_CODE) {
                zeros = zeros << 6 | v;
                if (v < 0 || zeros > nbits) {
                    return false;
                }
            } else if (v == ONE_CODE) {
                bits += zeros + 1;
                zeros = 0;
            } else if (bits + zeros != nbits || ++part > parts) {
                return false;
            } else {
                bits = 0;
                zeros = 0;
            }
        }
        return part == parts && bits + zeros == nbits;
    }

    /** A coded field inside a larger array: its text is made for a message only when the field is refused. */
    private record Field(byte[] bytes, int off, int len) {
    }

    private static void decodeHlt(byte[] coded, int from, int length, long[] words, Object original) {
        int start = from;
        for (int m = 0; m < HLT_MASKS; m++) {
            int end = indexOf(coded, (byte) ';', start, length);
            if (m == HLT_MASKS - 1) {
                if (end >= 0) {
                    throw new IllegalArgumentException("HLT trigger mask '" + abbreviate(text(original))
                            + "' has more than " + HLT_MASKS + " ';'-separated masks (extra ';' at position " + (end - from)
                            + ")");
                }
                end = length;
            } else if (end < 0) {
                throw new IllegalArgumentException("HLT trigger mask '" + abbreviate(text(original)) + "' has "
                        + (m + 1) + " ';'-separated masks, expected " + HLT_MASKS);
            }
            decodeInto(coded, start, end, HLT_BITS, words, m * (HLT_BITS / 64), original, from);
            start = end + 1;
        }
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

    /**
     * Codes an L1 field from its 24 words, the inverse of {@link #decodeL1Words}: bit {@code b} of the mask is bit
     * {@code b % 64} of {@code words[b / 64]}. For a canonically coded field (no leading {@code A} digit, as every
     * coder writes) {@code encodeL1Words(decodeL1Words(s))} is {@code s} again.
     *
     * @throws IllegalArgumentException when {@code words} does not hold exactly 24 words
     */
    public static String encodeL1Words(long[] words) {
        checkWords(words, L1_BITS * L1_MASKS / 64, "L1");
        BitSet bits = BitSet.valueOf(words);
        StringBuilder out = new StringBuilder(capacity(bits.cardinality()));
        appendEncoded(out, bits, 0, L1_BITS * L1_MASKS);
        return out.toString();
    }

    /**
     * Codes an HLT/EF field from its 3 x 64 words (physics 0..63, passed-through 64..127, resurrected 128..191), the
     * inverse of {@link #decodeHltWords}, with the same round-trip property as {@link #encodeL1Words}.
     *
     * @throws IllegalArgumentException when {@code words} does not hold exactly 192 words
     */
    public static String encodeHltWords(long[] words) {
        int perMask = HLT_BITS / 64;
        checkWords(words, HLT_MASKS * perMask, "HLT");
        BitSet[] masks = new BitSet[HLT_MASKS];
        for (int m = 0; m < HLT_MASKS; m++) {
            masks[m] = BitSet.valueOf(java.util.Arrays.copyOfRange(words, m * perMask, (m + 1) * perMask));
        }
        return encodeHlt(masks[0], masks[1], masks[2]);
    }

    private static void checkWords(long[] words, int expected, String name) {
        requireNonNull(words, "words is null");
        if (words.length != expected) {
            throw new IllegalArgumentException(name + " trigger mask needs " + expected + " 64-bit words, got "
                    + words.length);
        }
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

    /**
     * Decodes {@code coded[start, end)} into {@code nbits} bits, written to the {@code (nbits + 63) / 64} words of
     * {@code words} from {@code wordOffset} (cleared first; null: only checked, nothing written). {@code original} is
     * the caller's input (String, byte[] or {@link Field}), for messages; positions in errors are from {@code base}.
     */
    private static void decodeInto(byte[] coded, int start, int end, int nbits, long[] words, int wordOffset,
                                   Object original, int base) {
        if (words != null) {
            java.util.Arrays.fill(words, wordOffset, wordOffset + (nbits + 63) / 64, 0L);
        }
        int bit = 0;
        long zeros = 0;
        boolean inCount = false;
        for (int p = start; p < end; p++) {
            int c = coded[p] & 0xff;
            if (c == ONE) {
                bit += (int) zeros;
                if (bit >= nbits) {
                    throw tooLong(text(original), p - base, nbits);
                }
                if (words != null) {
                    words[wordOffset + (bit >>> 6)] |= 1L << bit;
                }
                bit++;
                zeros = 0;
                inCount = false;
                continue;
            }
            int v = c < 128 ? VALUES[c] : -1;
            if (v < 0) {
                char shown = original instanceof String str ? str.charAt(p) : (char) c;
                // a byte of a multi-byte character shows as itself: the field is refused either way
                throw new IllegalArgumentException("trigger mask '" + abbreviate(text(original)) + "': character '"
                        + Printable.of(shown) + "' at position " + (p - base) + " is neither '!' nor a base64 digit");
            }
            zeros = (zeros << 6) | v;
            inCount = true;
            // Checked per digit so a long run of digits cannot overflow before the check.
            if (bit + zeros > nbits) {
                throw tooLong(text(original), p - base, nbits);
            }
        }
        if (inCount) {
            bit += (int) zeros;
        }
        if (bit != nbits) {
            throw new IllegalArgumentException("trigger mask '" + abbreviate(text(original)) + "' decodes to " + bit
                    + " bits at position " + (end - base) + ", expected " + nbits);
        }
    }

    /** One byte per char; chars above U+00FF become '?', which is rejected with the original char in the message. */
    private static byte[] latin1(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    private static String text(Object original) {
        if (original instanceof Field f) {
            return new String(f.bytes(), f.off(), f.len(), java.nio.charset.StandardCharsets.ISO_8859_1);
        }
        return original instanceof String s ? s
                : new String((byte[]) original, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    private static int indexOf(byte[] b, byte value, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] == value) {
                return i;
            }
        }
        return -1;
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
