package org.eventindex.names;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import java.util.BitSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzz targets for {@link TriggerMask}. Contract: decoding returns bits only inside the mask width, re-encoding gives
 * back the input unless a count had a leading zero digit ({@code A}), and anything else throws
 * {@link IllegalArgumentException} naming the mask; encode then decode gives back the bits.
 */
class TriggerMaskFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void decode(FuzzedDataProvider data) {
        int nbits = data.consumeInt(0, 2 * TriggerMask.HLT_BITS);
        String coded = data.consumeRemainingAsString();
        BitSet bits;
        try {
            bits = TriggerMask.decode(coded, nbits);
        } catch (IllegalArgumentException e) {
            checkRejection(e);
            return;
        }
        assertTrue(bits.length() <= nbits, "bit " + (bits.length() - 1) + " beyond the width " + nbits);
        String again = TriggerMask.encode(bits, nbits);
        if (!hasLeadingZeroDigit(coded)) {
            assertEquals(coded, again, "re-encoded mask of width " + nbits);
        }
        assertEquals(bits, TriggerMask.decode(again, nbits), "decode(encode(bits))");
    }

    @FuzzTest(maxDuration = "30s")
    void decodeL1AndHlt(byte[] bytes) {
        // the check of a field in place (one pass first, the decoder when it refuses) gives the decoders' verdict
        assertEquals(TriggerMaskTest.message(() -> TriggerMask.decodeL1Words(bytes, new long[24])),
                TriggerMaskTest.message(() -> TriggerMask.checkL1(bytes, 0, bytes.length)), "L1 check against decode");
        assertEquals(TriggerMaskTest.message(() -> TriggerMask.decodeHltWords(bytes, new long[192])),
                TriggerMaskTest.message(() -> TriggerMask.checkHlt(bytes, 0, bytes.length)), "HLT check against decode");
        String coded = DatasetNameFuzzTest.text(bytes);
        if (coded == null) {
            return; // masks come from protobuf string fields, never null; null is refused by requireNonNull
        }
        try {
            BitSet l1 = TriggerMask.decodeL1(coded);
            int w = TriggerMask.L1_BITS;
            String again = TriggerMask.encodeL1(l1.get(0, w), l1.get(w, 2 * w), l1.get(2 * w, 3 * w));
            assertEquals(l1, TriggerMask.decodeL1(again), "L1 decode(encode(bits))");
            if (!hasLeadingZeroDigit(coded)) {
                assertEquals(coded, again, "re-encoded L1 mask");
            }
        } catch (IllegalArgumentException e) {
            checkRejection(e);
        }
        try {
            BitSet[] hlt = TriggerMask.decodeHlt(coded);
            assertEquals(TriggerMask.HLT_MASKS, hlt.length, "HLT masks");
            for (BitSet m : hlt) {
                assertTrue(m.length() <= TriggerMask.HLT_BITS, "HLT bit beyond 4096");
            }
            String again = TriggerMask.encodeHlt(hlt[0], hlt[1], hlt[2]);
            if (!hasLeadingZeroDigit(coded)) {
                assertEquals(coded, again, "re-encoded HLT mask");
            }
        } catch (IllegalArgumentException e) {
            checkRejection(e);
        }
    }

    @FuzzTest(maxDuration = "30s")
    void roundTrip(FuzzedDataProvider data) {
        int nbits = data.consumeInt(0, TriggerMask.HLT_BITS);
        BitSet bits = new BitSet();
        int ones = data.consumeInt(0, 64);
        for (int i = 0; i < ones && nbits > 0; i++) {
            bits.set(data.consumeInt(0, nbits - 1));
        }
        String coded = TriggerMask.encode(bits, nbits);
        assertEquals(bits, TriggerMask.decode(coded, nbits), "decode(encode()) of " + coded);
        assertEquals(bits.cardinality(), count(coded, '!'), "one '!' per set bit in " + coded);
    }

    /** True when some run count starts with the zero digit 'A', which decodes fine but never encodes. */
    static boolean hasLeadingZeroDigit(String coded) {
        for (int i = 0; i < coded.length(); i++) {
            boolean countStart = i == 0 || coded.charAt(i - 1) == '!' || coded.charAt(i - 1) == ';';
            if (countStart && coded.charAt(i) == 'A') {
                return true;
            }
        }
        return false;
    }

    private static int count(String s, char c) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            n += s.charAt(i) == c ? 1 : 0;
        }
        return n;
    }

    private static void checkRejection(IllegalArgumentException e) {
        String m = e.getMessage();
        assertTrue(m != null && (m.startsWith("trigger mask '") || m.startsWith("HLT trigger mask '")
                || m.startsWith("mask width")), "rejection message: " + m);
    }
}
