package org.eventindex.spb;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LongHashSetTest {

    @Test
    void zeroAndNegativeValues() {
        LongHashSet s = new LongHashSet();
        assertTrue(s.isEmpty());
        assertTrue(s.add(0));
        assertFalse(s.add(0));
        assertTrue(s.add(-1));
        assertTrue(s.add(Long.MIN_VALUE));
        assertTrue(s.contains(0));
        assertTrue(s.contains(-1));
        assertFalse(s.contains(1));
        assertEquals(3, s.size());
        s.clear();
        assertFalse(s.contains(0));
        assertEquals(0, s.size());
    }

    @Test
    void agreesWithHashSetWhileGrowing() {
        LongHashSet s = new LongHashSet(2);
        Set<Long> reference = new HashSet<>();
        Random random = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            // Mix sequential values (like event numbers) and repeats.
            long v = random.nextInt(3) == 0 ? random.nextInt(5_000) : i;
            assertEquals(reference.add(v), s.add(v), "add " + v);
        }
        assertEquals(reference.size(), s.size());
        for (long v = -10; v < 25_000; v++) {
            assertEquals(reference.contains(v), s.contains(v), "contains " + v);
        }
    }

    @Test
    void rejectsNegativeExpectedSize() {
        assertThrows(IllegalArgumentException.class, () -> new LongHashSet(-1));
    }
}
