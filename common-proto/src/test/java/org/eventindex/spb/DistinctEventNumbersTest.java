package org.eventindex.spb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Distinct counts as a hash set of every number would give them, in order, out of order and unsigned. */
class DistinctEventNumbersTest {
    @Test
    void countsAsASetDoesWhateverTheOrder() {
        Random r = new Random(66);
        for (int round = 0; round < 200; round++) {
            DistinctEventNumbers d = new DistinctEventNumbers();
            Set<Long> expected = new HashSet<>();
            long next = r.nextBoolean() ? Long.MAX_VALUE - 5_000 : r.nextInt(10);
            int n = r.nextInt(5_000);
            for (int i = 0; i < n; i++) {
                long v;
                int kind = r.nextInt(20);
                if (kind == 0 && !expected.isEmpty()) {
                    v = next - 1 - r.nextInt(50); // a copy or a late event: below the last
                } else if (kind == 1) {
                    v = -1L - r.nextInt(3); // 2^64 - 1 and neighbours: above every signed value
                } else {
                    next += 1 + r.nextInt(7);
                    v = next;
                }
                assertEquals(expected.add(v), d.add(v), "round " + round + ", value " + Long.toUnsignedString(v));
            }
            assertEquals(expected.size(), d.size(), "round " + round);
        }
    }

    @Test
    void manyPagesInOrderWithLateCopiesOfEarlyPages() {
        DistinctEventNumbers d = new DistinctEventNumbers();
        Set<Long> expected = new HashSet<>();
        Random r = new Random(77);
        long next = 0;
        for (int i = 0; i < 5 * DistinctEventNumbers.PAGE + 123; i++) {
            next += 1 + r.nextInt(3);
            assertEquals(expected.add(next), d.add(next));
            if (i % 1000 == 999) {
                long late = r.nextInt((int) next); // in any page so far, seen or not
                assertEquals(expected.add(late), d.add(late), "late " + late);
            }
        }
        assertEquals(expected.size(), d.size());
    }

    @Test
    void descendingAndRepeatedNumbers() {
        DistinctEventNumbers d = new DistinctEventNumbers();
        for (long v = 3_000; v > 0; v--) {
            d.add(v);
            d.add(v);
        }
        d.add(0);
        d.add(0);
        assertEquals(3_001, d.size());
    }
}
