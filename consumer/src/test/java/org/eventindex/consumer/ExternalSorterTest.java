package org.eventindex.consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ExternalSorterTest {
    @TempDir
    Path dir;

    private record E(int run, long event, int seq) {
    }

    @Test
    void sortsMoreThanItsMemoryBudgetStablyThroughManySpilledRuns() throws Exception {
        Random r = new Random(3);
        List<E> input = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            // unsigned order: a run and event numbers with the top bit set sort last
            int run = r.nextInt(4) == 0 ? 0x8000_0001 : 327636 + r.nextInt(3);
            long event = r.nextInt(10) == 0 ? Long.MIN_VALUE + r.nextInt(50) : r.nextInt(800);
            input.add(new E(run, event, i));
        }
        List<E> out = new ArrayList<>();
        int runs;
        // 5,000 x (4 + 64) B = 340 KB through a 16 KiB budget
        try (ExternalSorter sorter = new ExternalSorter(dir, 16 * 1024, "ds")) {
            for (E e : input) {
                sorter.add(e.run(), e.event(), e.seq(), new byte[]{(byte) e.seq(), 1, 2, 3});
            }
            runs = sorter.spilledRuns();
            sorter.merge((guid, buf, off, len) -> out.add(input.get(guid)));
        }
        assertTrue(runs > 10, "spilled runs: " + runs);
        List<E> expected = new ArrayList<>(input);
        expected.sort(Comparator.<E, Long>comparing(e -> Integer.toUnsignedLong(e.run()))
                .thenComparing((a, b) -> Long.compareUnsigned(a.event(), b.event())));
        assertEquals(expected, out, "sorted by unsigned (run, event), equal keys in arrival order");
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(0, left.count(), "run files deleted on close");
        }
    }
}
