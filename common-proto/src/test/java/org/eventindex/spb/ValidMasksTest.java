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
    void masksThatRarelyRepeatStopBeingRemembered() {
        ValidMasks m = new ValidMasks();
        for (int i = 0; i < ValidMasks.TRIAL; i++) {
            byte[] unique = ("A!" + i + "!B").getBytes(StandardCharsets.US_ASCII);
            assertFalse(m.contains(unique, 0, unique.length));
            m.remember(unique, 0, unique.length);
        }
        byte[] again = "A!7!B".getBytes(StandardCharsets.US_ASCII);
        m.remember(again, 0, again.length);
        assertFalse(m.contains(again, 0, again.length), "remembering stopped after the trial");
    }

    @Test
    void masksThatRepeatKeepBeingRemembered() {
        ValidMasks m = new ValidMasks();
        byte[] same = "D!!E!C!!B!B!E".getBytes(StandardCharsets.US_ASCII);
        m.remember(same, 0, same.length);
        for (int i = 0; i < 2 * ValidMasks.TRIAL; i++) {
            assertTrue(m.contains(same, 0, same.length));
        }
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
