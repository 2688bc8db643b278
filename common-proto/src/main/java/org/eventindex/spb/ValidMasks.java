package org.eventindex.spb;

import java.util.Arrays;

/**
 * Trigger mask texts already found valid in this stream, so that a mask seen again is compared instead of decoded:
 * the events of one stream fire a few trigger combinations again and again (decoding them was a seventh of the
 * producer's validation, decision 0066). Direct-mapped by length and a few sampled bytes; a slot holds a copy of one
 * valid mask, and a different mask in its slot replaces it. Only a byte-for-byte equal text is taken as valid.
 * A stream whose masks rarely repeat (fewer than one in {@value #MIN_HIT_SHARE} found over its first
 * {@value #TRIAL} masks) stops being remembered, so that it pays no copies for nothing.
 */
final class ValidMasks {
    private static final int SLOTS = 256;
    /** Longer masks are rare (many chains fired) and not kept. */
    private static final int MAX_BYTES = 512;
    static final int TRIAL = 4096;
    static final int MIN_HIT_SHARE = 8;

    private final byte[][] slots = new byte[SLOTS][];
    private boolean enabled = true;
    private int lookups;
    private int hits;

    /** True when exactly these bytes were {@link #remember remembered}. */
    boolean contains(byte[] b, int off, int len) {
        if (!enabled) {
            return false;
        }
        byte[] kept = slots[slot(b, off, len)];
        boolean hit = kept != null && Arrays.equals(kept, 0, kept.length, b, off, off + len);
        if (lookups < TRIAL) {
            lookups++;
            hits += hit ? 1 : 0;
            if (lookups == TRIAL && hits < TRIAL / MIN_HIT_SHARE) {
                enabled = false;
                Arrays.fill(slots, null);
            }
        }
        return hit;
    }

    /** Keeps a copy of a mask text just found valid. */
    void remember(byte[] b, int off, int len) {
        if (!enabled || len > MAX_BYTES) {
            return;
        }
        int i = slot(b, off, len);
        byte[] kept = slots[i];
        if (kept != null && kept.length == len) {
            System.arraycopy(b, off, kept, 0, len);
        } else {
            slots[i] = Arrays.copyOfRange(b, off, off + len);
        }
    }

    private static int slot(byte[] b, int off, int len) {
        int h = len;
        if (len > 0) {
            h = h * 31 + b[off + len - 1];
            h = h * 31 + b[off + len / 2];
            h = h * 31 + b[off + len / 3];
            h = h * 31 + b[off + (2 * len) / 3];
            h = h * 31 + b[off + len / 5];
        }
        h ^= h >>> 16;
        return (h * 0x9E3779B1 >>> 24) & (SLOTS - 1);
    }
}
