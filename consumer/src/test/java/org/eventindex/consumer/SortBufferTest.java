package org.eventindex.consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The run file {@link SortBuffer#writeRun} writes, byte for byte, against the records of a stable sort written one by
 * one with {@link RunOutput#write}: whether the events came in order (the arena is written as it is) or not (the
 * records are gathered in sort order), with events bigger than a block and arenas bigger than a write chunk.
 */
class SortBufferTest {
    @TempDir
    Path dir;

    private record E(int run, long event, int file, byte[] bytes) {
    }

    @Test
    void eventsInOrderAreWrittenAsTheArenaHoldsThemAcrossSeveralWriteChunks() throws Exception {
        List<E> events = new ArrayList<>();
        Random r = new Random(3);
        long event = 0;
        // ~1.2 MiB: several write chunks; equal keys (ties) and an unsigned run above 2^31 in order
        for (int i = 0; i < 3_000; i++) {
            int run = i < 2_000 ? 327636 : 0x8000_0001;
            event = i == 2_000 ? 0 : event + r.nextInt(2);
            events.add(new E(run, event, r.nextInt(3), randomBytes(r, 1 + r.nextInt(800))));
        }
        assertTrue(events.stream().mapToInt(e -> e.bytes().length).sum() > 2 * SortBuffer.WRITE_CHUNK);
        assertRunIsAStableSort(events);
    }

    @Test
    void eventsOutOfOrderAreSortedStably() throws Exception {
        Random r = new Random(5);
        List<E> events = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            int run = r.nextInt(4) == 0 ? 0x8000_0001 : 327636 + r.nextInt(2);
            long event = r.nextInt(8) == 0 ? Long.MIN_VALUE + r.nextInt(3) : r.nextInt(100);
            events.add(new E(run, event, r.nextInt(4), randomBytes(r, 1 + r.nextInt(300))));
        }
        assertRunIsAStableSort(events);
    }

    @Test
    void onlyTheLastEventOutOfOrderStillSortsTheRun() throws Exception {
        Random r = new Random(7);
        List<E> events = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            events.add(new E(1, i, 0, randomBytes(r, 10)));
        }
        events.add(new E(1, 50, 1, randomBytes(r, 10)));
        assertRunIsAStableSort(events);
    }

    @Test
    void eventsBiggerThanABlockGoThroughBothPaths() throws Exception {
        Random r = new Random(9);
        List<E> inOrder = List.of(new E(1, 1, 0, randomBytes(r, 5)),
                new E(1, 2, 0, randomBytes(r, RunOutput.BLOCK + 100)),
                new E(1, 3, 0, randomBytes(r, RunOutput.BLOCK - RunOutput.HEAD_BYTES)),
                new E(1, 4, 0, randomBytes(r, 7)));
        assertRunIsAStableSort(inOrder);
        List<E> reversed = new ArrayList<>(inOrder);
        java.util.Collections.reverse(reversed);
        assertRunIsAStableSort(reversed);
    }

    @Test
    void anEmptyBufferWritesAnEmptyRunAndTheOrderIsForgottenBetweenRuns() throws Exception {
        SortBuffer b = new SortBuffer(1 << 20);
        assertEquals(0, Files.size(b.writeRun(dir, "t-")));
        b.add(1, 9, 0, new byte[3], 0, 3);
        b.add(1, 8, 0, new byte[3], 0, 3);
        b.writeRun(dir, "t-");
        // the next run is in order again: it must come out as added, not as the previous run's sort left it
        List<E> next = List.of(new E(2, 1, 0, new byte[]{1}), new E(2, 2, 0, new byte[]{2}));
        assertRunIsAStableSort(next, b);
    }

    @Test
    void theSmallestAndLargestKeysDecideWhetherARunMayFollowAnother() throws Exception {
        SortBuffer b = new SortBuffer(1 << 20);
        assertFalse(b.startsAtOrAfter(0, 0), "an empty buffer follows nothing");
        // unsigned: run 0x8000_0000 sorts after run 5, event -1 after event 7
        b.add(5, 7, 0, new byte[1], 0, 1);
        b.add(0x8000_0000, 2, 0, new byte[1], 0, 1);
        b.add(5, -1L, 0, new byte[1], 0, 1);
        b.add(5, 6, 0, new byte[1], 0, 1);
        assertEquals(0x8000_0000, b.maxRun());
        assertEquals(2, b.maxEvent());
        assertTrue(b.startsAtOrAfter(5, 6), "an equal first key may follow: ties keep the run order");
        assertTrue(b.startsAtOrAfter(4, -1L));
        assertFalse(b.startsAtOrAfter(5, 7), "the smallest key (5, 6) came after (5, 7) was added");
        b.writeRun(dir, "t-");
        b.add(3, 1, 0, new byte[1], 0, 1);
        assertEquals(3, b.maxRun(), "the keys are forgotten between runs");
        assertTrue(b.startsAtOrAfter(3, 1));
        assertFalse(b.startsAtOrAfter(3, 2));
    }

    @Test
    void theHeadIsRunEventFileAndLengthBigEndian() {
        byte[] head = new byte[RunOutput.HEAD_BYTES + 2];
        assertEquals(RunOutput.HEAD_BYTES + 1, RunOutput.putHead(head, 1, 0x0102_0304, 0x8000_0001,
                0x1122_3344_5566_7788L, 5));
        assertArrayEquals(new byte[]{0, (byte) 0x80, 0, 0, 1, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, (byte) 0x88,
                1, 2, 3, 4, 0, 0, 0, 5, 0}, head);
    }

    private void assertRunIsAStableSort(List<E> events) throws IOException {
        assertRunIsAStableSort(events, new SortBuffer(1L << 30));
    }

    private void assertRunIsAStableSort(List<E> events, SortBuffer b) throws IOException {
        for (E e : events) {
            assertTrue(b.fits(e.bytes().length));
            b.add(e.run(), e.event(), e.file(), e.bytes(), 0, e.bytes().length);
        }
        byte[] actual = Files.readAllBytes(b.writeRun(dir, "t-"));
        assertEquals(0, b.count());
        List<E> sorted = new ArrayList<>(events);
        sorted.sort(Comparator.<E, Long>comparing(e -> Integer.toUnsignedLong(e.run()))
                .thenComparing((x, y) -> Long.compareUnsigned(x.event(), y.event())));
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        RunOutput out = new RunOutput(expected);
        for (E e : sorted) {
            out.write(e.file(), e.run(), e.event(), e.bytes(), 0, e.bytes().length);
        }
        out.flush();
        assertEquals(expected.size(), actual.length);
        assertArrayEquals(expected.toByteArray(), actual, "run file bytes");
    }

    private static byte[] randomBytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }
}
