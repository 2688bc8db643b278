package org.eventindex.consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link SortBuffer} runs merged by {@link RunMerger}: the order of a stable sort, whatever the fan-in. */
class RunMergerTest {
    @TempDir
    Path dir;

    /** An event: key, absolute file index, and its position in the input (carried in its bytes). */
    private record E(int run, long event, int guid, int seq) {
        byte[] bytes(int size) {
            ByteBuffer b = ByteBuffer.allocate(Math.max(4, size));
            b.putInt(seq);
            return b.array();
        }
    }

    /**
     * "Objects" of random events (equal keys within and across objects, unsigned extremes), each sorted in a buffer
     * too small for it, so it becomes several chunks; the merged order must be that of a stable sort of all events in
     * input order, with any fan-in (3 forces several intermediate passes over ~100 runs).
     */
    @Test
    void mergedOrderIsAStableSortOfTheInputWhateverTheFanIn() throws Exception {
        Random r = new Random(11);
        List<E> input = new ArrayList<>();
        List<List<E>> objects = new ArrayList<>();
        int guidBase = 0;
        for (int o = 0; o < 12; o++) {
            List<E> object = new ArrayList<>();
            int files = 1 + r.nextInt(3);
            for (int i = 0; i < 300; i++) {
                int run = r.nextInt(5) == 0 ? 0x8000_0001 : 327636 + r.nextInt(2);
                long event = r.nextInt(10) == 0 ? Long.MIN_VALUE + r.nextInt(5) : r.nextInt(60);
                E e = new E(run, event, guidBase + r.nextInt(files), input.size());
                object.add(e);
                input.add(e);
            }
            objects.add(object);
            guidBase += files;
        }
        List<E> expected = new ArrayList<>(input);
        expected.sort(Comparator.<E, Long>comparing(e -> Integer.toUnsignedLong(e.run()))
                .thenComparing((a, b) -> Long.compareUnsigned(a.event(), b.event())));
        for (int fanIn : new int[]{3, 7, RunMerger.FAN_IN}) {
            List<RunMerger.Run> runs = write(objects, 2_000);
            assertTrue(runs.size() > 7 * 3, "runs: " + runs.size());
            List<E> out = new ArrayList<>();
            new RunMerger(dir, "ds", fanIn).merge(runs, (guid, buf, off, len) -> {
                E e = input.get(ByteBuffer.wrap(buf, off, len).getInt());
                assertEquals(e.guid(), guid, "file index of event " + e.seq());
                out.add(e);
            });
            assertEquals(expected, out, "fan-in " + fanIn);
            assertEquals(List.of(), files(), "runs and intermediate runs deleted, fan-in " + fanIn);
        }
    }

    /**
     * Runs kept in memory and runs on disk, mixed (the memory holds about half of them), merge into the same order,
     * also through intermediate passes; every run is deleted and every block given back after the merge.
     */
    @Test
    void runsInMemoryAndOnDiskMergeAlike() throws Exception {
        Random r = new Random(12);
        List<E> input = new ArrayList<>();
        List<List<E>> objects = new ArrayList<>();
        for (int o = 0; o < 12; o++) {
            List<E> object = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                E e = new E(327636, r.nextInt(80), o, input.size());
                object.add(e);
                input.add(e);
            }
            objects.add(object);
        }
        List<E> expected = new ArrayList<>(input);
        expected.sort(Comparator.comparing(E::event));
        // chunks of ~2,000 B, each a run of one block: 12 objects of ~20 KB make ~170, memory for 60 of them
        RunMemory memory = new RunMemory(60L * RunMemory.BLOCK);
        for (int fanIn : new int[]{3, RunMerger.FAN_IN}) {
            List<RunMerger.Run> runs = write(objects, 2_000, memory);
            long inMemory = runs.stream().filter(x -> x.run() instanceof RunMemory.InMemory).count();
            assertTrue(inMemory > 0 && inMemory < runs.size(), inMemory + " of " + runs.size() + " runs in memory");
            List<E> out = new ArrayList<>();
            new RunMerger(dir, "ds", fanIn).merge(runs, (guid, buf, off, len) -> {
                out.add(input.get(ByteBuffer.wrap(buf, off, len).getInt()));
            });
            assertEquals(expected, out, "fan-in " + fanIn);
            assertEquals(0, memory.bytesInUse(), "blocks given back, fan-in " + fanIn);
            assertEquals(List.of(), files(), "run files deleted, fan-in " + fanIn);
        }
    }

    @Test
    void aBufferHoldsItsCapacityButAlwaysOneEvent() throws Exception {
        SortBuffer b = new SortBuffer(1_000);
        assertTrue(b.fits(5_000), "an empty buffer takes any one event");
        b.add(1, 1, 0, new byte[5_000], 0, 5_000);
        assertTrue(!b.fits(1), "a full buffer takes no more");
        Path run = b.writeRun(dir, "t-");
        assertEquals(0, b.count());
        assertEquals(RunOutput.HEAD_BYTES + 5_000, Files.size(run));
        int n = 0;
        while (b.fits(100)) {
            b.add(1, n, 0, new byte[100], 0, 100);
            n++;
        }
        assertEquals(1_000 / (RunOutput.HEAD_BYTES + 100 + SortBuffer.INDEX_BYTES), n);
    }

    @Test
    void aTruncatedRunFailsNamingTheDatasetAndFile() throws Exception {
        SortBuffer b = new SortBuffer(1 << 20);
        b.add(1, 1, 0, new byte[300], 0, 300);
        Path run = b.writeRun(dir, "t-");
        byte[] bytes = Files.readAllBytes(run);
        Files.write(run, java.util.Arrays.copyOf(bytes, bytes.length - 10));
        IOException e = assertThrows(IOException.class, () -> new RunMerger(dir, "ds1", 4)
                .merge(List.of(new RunMerger.Run(SortedRun.file(run), 0)), (guid, buf, off, len) -> {
                }));
        assertTrue(e.getMessage().contains("dataset ds1") && e.getMessage().contains(run.toString())
                && e.getMessage().contains("truncated"), e.getMessage());
        assertEquals(List.of(), files(), "the run is deleted even so");
    }

    /** Each object through one buffer of {@code capacity} bytes: its chunks in order, file indexes relative. */
    private List<RunMerger.Run> write(List<List<E>> objects, long capacity) throws IOException {
        return write(objects, capacity, null);
    }

    /** As {@link #write(List, long)}, the runs kept in {@code memory} while it has room. */
    private List<RunMerger.Run> write(List<List<E>> objects, long capacity, RunMemory memory) throws IOException {
        SortBuffer buffer = new SortBuffer(capacity);
        List<RunMerger.Run> runs = new ArrayList<>();
        for (List<E> object : objects) {
            int base = object.stream().mapToInt(E::guid).min().orElseThrow();
            for (E e : object) {
                byte[] bytes = e.bytes(4 + e.seq() % 90);
                if (!buffer.fits(bytes.length)) {
                    runs.add(new RunMerger.Run(buffer.writeRun(dir, "obj-", memory), base));
                }
                buffer.add(e.run(), e.event(), e.guid() - base, bytes, 0, bytes.length);
            }
            runs.add(new RunMerger.Run(buffer.writeRun(dir, "obj-", memory), base));
        }
        return runs;
    }

    private List<Path> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        }
    }
}
