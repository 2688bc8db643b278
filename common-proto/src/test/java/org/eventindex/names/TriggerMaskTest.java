package org.eventindex.names;

import org.junit.jupiter.api.Test;

import java.util.BitSet;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TriggerMaskTest {

    private static BitSet bits(String plain) {
        BitSet b = new BitSet();
        for (int i = 0; i < plain.length(); i++) {
            if (plain.charAt(i) == '1') {
                b.set(i);
            }
        }
        return b;
    }

    @Test
    void specExample() {
        String plain = "0001100001001101010000";
        assertEquals("D!!E!C!!B!B!E", TriggerMask.encode(bits(plain), plain.length()));
        assertEquals(bits(plain), TriggerMask.decode("D!!E!C!!B!B!E", plain.length()));
    }

    @Test
    void multiDigitCountsMostSignificantFirst() {
        assertEquals("BA", TriggerMask.encode(new BitSet(), 64));
        assertEquals("IA", TriggerMask.encode(new BitSet(), 512));
        assertEquals("BAA", TriggerMask.encode(new BitSet(), 4096));
        BitSet b = new BitSet();
        b.set(63);
        assertEquals("/!", TriggerMask.encode(b, 64));
        b.set(64 + 65);
        assertEquals("/!BB!", TriggerMask.encode(b, 64 + 66));
    }

    @Test
    void allOnesAndEmpty() {
        BitSet ones = new BitSet();
        ones.set(0, 5);
        assertEquals("!!!!!", TriggerMask.encode(ones, 5));
        assertEquals("", TriggerMask.encode(new BitSet(), 0));
        assertEquals(new BitSet(), TriggerMask.decode("", 0));
    }

    @Test
    void bitsBeyondWidthAreIgnoredWhenEncoding() {
        BitSet b = bits("0100");
        assertEquals("B!C", TriggerMask.encode(b, 4));
        assertEquals("B", TriggerMask.encode(b, 1));
    }

    @Test
    void leadingZeroDigitIsAccepted() {
        assertEquals(bits("0001"), TriggerMask.decode("AD!", 4));
    }

    @Test
    void randomRoundTrips() {
        Random random = new Random(7);
        for (int n = 0; n < 200; n++) {
            BitSet b = new BitSet();
            int width = 1 + random.nextInt(5000);
            int ones = random.nextInt(40);
            for (int i = 0; i < ones; i++) {
                b.set(random.nextInt(width));
            }
            assertEquals(b, TriggerMask.decode(TriggerMask.encode(b, width), width));
        }
    }

    @Test
    void l1RoundTrip() {
        BitSet tbp = bits("101");
        BitSet tap = new BitSet();
        tap.set(511);
        BitSet tav = new BitSet();
        tav.set(0);
        String coded = TriggerMask.encodeL1(tbp, tap, tav);
        BitSet all = TriggerMask.decodeL1(coded);
        assertEquals(4, all.cardinality());
        assertTrue(all.get(0) && all.get(2) && all.get(1023) && all.get(1024));
        assertEquals(TriggerMask.L1_BITS * TriggerMask.L1_MASKS, TriggerMask.L1_BITS * 3);
    }

    @Test
    void hltRoundTrip() {
        BitSet physics = bits("00001");
        BitSet empty = new BitSet();
        BitSet resurrected = new BitSet();
        resurrected.set(4095);
        String coded = TriggerMask.encodeHlt(physics, empty, resurrected);
        assertEquals("E!/7;BAA;//!", coded);
        assertArrayEquals(new BitSet[] {physics, empty, resurrected}, TriggerMask.decodeHlt(coded));
    }

    @Test
    void rejectsCharacterOutsideAlphabet() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TriggerMask.decode("D!?E", 10));
        assertTrue(e.getMessage().contains("position 2"), e.getMessage());
        assertTrue(e.getMessage().contains("'?'"), e.getMessage());
    }

    @Test
    void rejectsControlCharactersAndEscapesThem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TriggerMask.decode("B\n!", 3));
        assertTrue(e.getMessage().contains("\\u000a"), e.getMessage());
    }

    @Test
    void rejectsWrongLength() {
        IllegalArgumentException shortMask = assertThrows(IllegalArgumentException.class,
                () -> TriggerMask.decode("C!", 10));
        assertTrue(shortMask.getMessage().contains("decodes to 3 bits"), shortMask.getMessage());
        IllegalArgumentException longMask = assertThrows(IllegalArgumentException.class,
                () -> TriggerMask.decode("K!", 10));
        assertTrue(longMask.getMessage().contains("position 1"), longMask.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TriggerMask.decode("", 10));
    }

    @Test
    void hugeCountCannotOverflow() {
        assertThrows(IllegalArgumentException.class, () -> TriggerMask.decode("//////////////////!", 100));
    }

    @Test
    void rejectsWrongHltMaskCount() {
        assertThrows(IllegalArgumentException.class, () -> TriggerMask.decodeHlt("BAA;BAA"));
        assertThrows(IllegalArgumentException.class, () -> TriggerMask.decodeHlt("BAA;BAA;BAA;BAA"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TriggerMask.decodeHlt("BAA;BAB;BAA"));
        assertTrue(e.getMessage().contains("position"), e.getMessage());
    }

    @Test
    void rejectsL1OfWrongWidth() {
        assertThrows(IllegalArgumentException.class, () -> TriggerMask.decodeL1("IA"));
    }

    @Test
    void rejectsMasksWiderThanTheirField() {
        BitSet wide = new BitSet();
        wide.set(512);
        assertThrows(IllegalArgumentException.class,
                () -> TriggerMask.encodeL1(wide, new BitSet(), new BitSet()));
        BitSet wideHlt = new BitSet();
        wideHlt.set(4096);
        assertThrows(IllegalArgumentException.class,
                () -> TriggerMask.encodeHlt(new BitSet(), wideHlt, new BitSet()));
    }

    @Test
    void rejectsNegativeWidthAndNull() {
        assertThrows(IllegalArgumentException.class, () -> TriggerMask.encode(new BitSet(), -1));
        assertThrows(NullPointerException.class, () -> TriggerMask.decode(null, 1));
    }

    /** The loader decodes the coded bytes straight into 64-bit words: the same bits as the BitSet API. */
    @Test
    void wordDecodingOfBytesMatchesTheBitSets() {
        Random random = new Random(17);
        long[] l1 = new long[24];
        long[] hlt = new long[192];
        java.util.Arrays.fill(l1, -1L);
        java.util.Arrays.fill(hlt, -1L);
        for (int n = 0; n < 300; n++) {
            BitSet[] l1Parts = {randomBits(random, 512), randomBits(random, 512), randomBits(random, 512)};
            BitSet[] hltParts = {randomBits(random, 4096), randomBits(random, 4096), randomBits(random, 4096)};
            String l1Coded = TriggerMask.encodeL1(l1Parts[0], l1Parts[1], l1Parts[2]);
            String hltCoded = TriggerMask.encodeHlt(hltParts[0], hltParts[1], hltParts[2]);
            // words left over from the previous mask must be cleared
            TriggerMask.decodeL1Words(l1Coded.getBytes(java.nio.charset.StandardCharsets.US_ASCII), l1);
            TriggerMask.decodeHltWords(hltCoded.getBytes(java.nio.charset.StandardCharsets.US_ASCII), hlt);
            assertEquals(TriggerMask.decodeL1(l1Coded), BitSet.valueOf(l1));
            BitSet[] masks = TriggerMask.decodeHlt(hltCoded);
            assertArrayEquals(hltParts, masks);
            for (int m = 0; m < 3; m++) {
                assertEquals(masks[m], BitSet.valueOf(java.util.Arrays.copyOfRange(hlt, 64 * m, 64 * (m + 1))));
            }
        }
    }

    /**
     * Words back to the coded text (how a reader of the Kudu word columns gets the text the file holds): the same
     * string for canonically coded masks, the spec's example and the empty and full masks included.
     */
    @Test
    void codedTextRoundTripsThroughWords() {
        Random random = new Random(23);
        long[] l1 = new long[24];
        long[] hlt = new long[192];
        java.util.List<String[]> fields = new java.util.ArrayList<>();
        BitSet full = new BitSet();
        full.set(0, 4096);
        fields.add(new String[] {TriggerMask.encodeL1(new BitSet(), new BitSet(), new BitSet()),
            TriggerMask.encodeHlt(new BitSet(), new BitSet(), new BitSet())});
        fields.add(new String[] {TriggerMask.encodeL1(full.get(0, 512), full.get(0, 512), full.get(0, 512)),
            TriggerMask.encodeHlt(full, full, full)});
        // the spec's example as the first 22 bits of each mask
        BitSet spec = bits("0001100001001101010000");
        fields.add(new String[] {TriggerMask.encodeL1(spec, spec, spec), TriggerMask.encodeHlt(spec, spec, spec)});
        for (int n = 0; n < 300; n++) {
            fields.add(new String[] {
                TriggerMask.encodeL1(randomBits(random, 512), randomBits(random, 512), randomBits(random, 512)),
                TriggerMask.encodeHlt(randomBits(random, 4096), randomBits(random, 4096), randomBits(random, 4096))});
        }
        for (String[] f : fields) {
            TriggerMask.decodeL1Words(f[0].getBytes(java.nio.charset.StandardCharsets.US_ASCII), l1);
            TriggerMask.decodeHltWords(f[1].getBytes(java.nio.charset.StandardCharsets.US_ASCII), hlt);
            assertEquals(f[0], TriggerMask.encodeL1Words(l1));
            assertEquals(f[1], TriggerMask.encodeHltWords(hlt));
        }
        assertTrue(fields.get(2)[0].startsWith("D!!E!C!!B!B!"), fields.get(2)[0]);
        // a non-canonical text (leading zero digit) comes back canonical, with the same bits
        TriggerMask.decodeL1Words("AD!X8".getBytes(java.nio.charset.StandardCharsets.US_ASCII), l1);
        assertEquals("D!X8", TriggerMask.encodeL1Words(l1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TriggerMask.encodeL1Words(new long[23]));
        assertTrue(e.getMessage().contains("L1 trigger mask needs 24 64-bit words, got 23"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TriggerMask.encodeHltWords(new long[24]));
    }

    @Test
    void wordDecodingRejectsWhatTheStringApiRejects() {
        long[] l1 = new long[24];
        long[] hlt = new long[192];
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TriggerMask.decodeL1Words("D!?E".getBytes(java.nio.charset.StandardCharsets.US_ASCII), l1));
        assertTrue(e.getMessage().contains("'?' at position 2"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> TriggerMask.decodeL1Words("IA".getBytes(java.nio.charset.StandardCharsets.US_ASCII), l1));
        IllegalArgumentException two = assertThrows(IllegalArgumentException.class,
                () -> TriggerMask.decodeHltWords("BAA;BAA".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                        hlt));
        assertTrue(two.getMessage().contains("has 2 ';'-separated masks"), two.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TriggerMask.decodeHltWords(
                "BAA;BAA;BAA;BAA".getBytes(java.nio.charset.StandardCharsets.US_ASCII), hlt));
        IllegalArgumentException wide = assertThrows(IllegalArgumentException.class,
                () -> TriggerMask.decode("\u20ac!", 3));
        assertTrue(wide.getMessage().contains("position 0"), wide.getMessage());
    }

    private static BitSet randomBits(Random random, int width) {
        BitSet b = new BitSet(width);
        int n = random.nextInt(4) == 0 ? 0 : random.nextInt(40);
        for (int k = 0; k < n; k++) {
            b.set(random.nextInt(width));
        }
        return b;
    }

    /** The check of a field in place is the decoders' own code: the same verdict and message, for any text. */
    @Test
    void checkingAFieldInPlaceAgreesWithDecodingIt() {
        java.util.Random r = new java.util.Random(9);
        String alphabet = "AB/!;#Y";
        for (int i = 0; i < 3000; i++) {
            StringBuilder t = new StringBuilder();
            for (int n = r.nextInt(12); n > 0; n--) {
                t.append(alphabet.charAt(r.nextInt(alphabet.length())));
            }
            String text = r.nextBoolean() ? t.toString() : (r.nextBoolean() ? "YA" : "BAA;BAA;BAA") + t;
            byte[] b = ("<<" + text + ">>").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            byte[] alone = text.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            String decoded = message(() -> TriggerMask.decodeL1Words(alone, new long[24]));
            assertEquals(decoded, message(() -> TriggerMask.checkL1(b, 2, alone.length)), text);
            String hlt = message(() -> TriggerMask.decodeHltWords(alone, new long[192]));
            assertEquals(hlt, message(() -> TriggerMask.checkHlt(b, 2, alone.length)), text);
        }
    }

    /**
     * Coded masks as jobs write them (up to hundreds of ones, runs of one to three digits, leading 'A' digits) and
     * mutations of them (a byte replaced, inserted or removed, a separator moved): the check's one-pass verdict is the
     * decoders', and so is its message when it refuses.
     */
    @Test
    void checkingRealisticMasksAgreesWithDecodingThem() {
        Random r = new Random(41);
        String mutations = "!;A/B+9a#\u00e9";
        int accepted = 0;
        for (int i = 0; i < 20_000; i++) {
            boolean l1 = r.nextBoolean();
            String text;
            if (l1) {
                int w = TriggerMask.L1_BITS;
                text = TriggerMask.encodeL1(manyBits(r, w), manyBits(r, w), manyBits(r, w));
            } else {
                int w = TriggerMask.HLT_BITS;
                text = TriggerMask.encodeHlt(manyBits(r, w), manyBits(r, w), manyBits(r, w));
            }
            StringBuilder t = new StringBuilder(text);
            int edits = r.nextInt(3);
            for (int e = 0; e < edits && t.length() > 0; e++) {
                int at = r.nextInt(t.length());
                char c = mutations.charAt(r.nextInt(mutations.length()));
                switch (r.nextInt(3)) {
                    case 0 -> t.setCharAt(at, c);
                    case 1 -> t.insert(at, c);
                    default -> t.deleteCharAt(at);
                }
            }
            byte[] alone = t.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            byte[] b = new byte[alone.length + 4];
            System.arraycopy(alone, 0, b, 3, alone.length);
            String decoded = message(() -> TriggerMask.decodeL1Words(alone, new long[24]));
            assertEquals(decoded, message(() -> TriggerMask.checkL1(b, 3, alone.length)), t.toString());
            String hlt = message(() -> TriggerMask.decodeHltWords(alone, new long[192]));
            assertEquals(hlt, message(() -> TriggerMask.checkHlt(b, 3, alone.length)), t.toString());
            accepted += (decoded == null ? 1 : 0) + (hlt == null ? 1 : 0);
        }
        assertTrue(accepted > 5_000, "only " + accepted + " masks were valid");
    }

    private static BitSet manyBits(Random random, int width) {
        BitSet b = new BitSet(width);
        int n = random.nextInt(3) == 0 ? random.nextInt(300) : random.nextInt(20);
        for (int k = 0; k < n; k++) {
            b.set(random.nextInt(width));
        }
        return b;
    }

    /** Null when {@code r} runs, else the message of the IllegalArgumentException it throws. */
    static String message(Runnable r) {
        try {
            r.run();
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }
}
