package org.eventindex.names;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The first bad byte is found wherever it sits, inside or after the eight-byte ASCII steps, at any offset. */
class Utf8Test {
    @Test
    void aBadByteIsFoundAtEveryPositionAndOffset() {
        for (int off = 0; off < 9; off++) {
            for (int len = 0; len < 40; len++) {
                byte[] b = new byte[off + len + 3];
                Arrays.fill(b, (byte) 'A');
                b[off + len] = (byte) 0xff; // past the range: never looked at
                assertEquals(-1, Utf8.invalidAt(b, off, len), off + "/" + len);
                for (int bad = 0; bad < len; bad++) {
                    byte[] c = b.clone();
                    c[off + bad] = (byte) 0x80; // a stray continuation byte
                    assertEquals(bad, Utf8.invalidAt(c, off, len), off + "/" + len + "/" + bad);
                }
            }
        }
    }

    @Test
    void wellFormedAndMalformedSequences() {
        assertTrue(Utf8.isValid(bytes("POOLContainer(DataHeader) \u00e9\u20ac\ud83d\ude00 end of a long ascii tail"), 0,
                bytes("POOLContainer(DataHeader) \u00e9\u20ac\ud83d\ude00 end of a long ascii tail").length));
        byte[] overlong = {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', (byte) 0xc0, (byte) 0xaf};
        assertEquals(9, Utf8.invalidAt(overlong, 0, overlong.length));
        byte[] surrogate = {'x', (byte) 0xed, (byte) 0xa0, (byte) 0x80};
        assertFalse(Utf8.isValid(surrogate, 0, surrogate.length));
        byte[] cut = {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', (byte) 0xe2, (byte) 0x82};
        assertEquals(8, Utf8.invalidAt(cut, 0, cut.length));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
