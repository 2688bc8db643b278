package org.eventindex.spb;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Only a byte-for-byte equal text is taken as already valid. */
class ValidMasksTest {
    @Test
    void onlyTheSameBytesAreKnown() {
        ValidMasks m = new ValidMasks();
        byte[] a = "xxD!!E!C!!B!B!Eyy".getBytes(StandardCharsets.US_ASCII);
        assertFalse(m.contains(a, 2, 13));
        m.remember(a, 2, 13);
        assertTrue(m.contains(a, 2, 13));
        assertTrue(m.contains("D!!E!C!!B!B!E".getBytes(StandardCharsets.US_ASCII), 0, 13));
        assertFalse(m.contains("D!!E!C!!B!B!F".getBytes(StandardCharsets.US_ASCII), 0, 13));
        assertFalse(m.contains("D!!E!C!!B!B!".getBytes(StandardCharsets.US_ASCII), 0, 12));
        assertFalse(m.contains("D!!E!C!!B!B!E!".getBytes(StandardCharsets.US_ASCII), 0, 14));
        assertFalse(m.contains(new byte[0], 0, 0));
    }

    @Test
    void aDifferentMaskInTheSameSlotReplacesIt() {
        ValidMasks m = new ValidMasks();
        byte[] first = "A!B".getBytes(StandardCharsets.US_ASCII);
        m.remember(first, 0, 3);
        // 300 other masks: 256 slots, so some land on the first one's
        for (int i = 0; i < 300; i++) {
            byte[] other = ("A!" + i + "!B").getBytes(StandardCharsets.US_ASCII);
            m.remember(other, 0, other.length);
            assertTrue(m.contains(other, 0, other.length));
        }
        byte[] last = ("A!" + 299 + "!B").getBytes(StandardCharsets.US_ASCII);
        assertTrue(m.contains(last, 0, last.length));
    }
}
