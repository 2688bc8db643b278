package org.eventindex.consumer;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.SignalObject;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.spb.SpbLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.eventindex.consumer.TestSpb.CONTAINER;
import static org.eventindex.consumer.TestSpb.DATASET;
import static org.eventindex.consumer.TestSpb.Guid;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Parquet path in which each fetch thread sorts its object and writes sorted runs: tie order across objects
 * and chunks, the retry and checksum rules, and that no run file outlives a dataset, failed or not.
 */
class SortedRunsConsolidationTest {
    /** Runs merged at once here: small, so that a few hundred chunks take intermediate merge passes. */
    private static final int FAN_IN = 16;

    @TempDir
    Path spoolDir;

    private final MemoryObjectFetcher store = new MemoryObjectFetcher();

    private static SignalObject so(String key, long events, String... guids) {
        return new SignalObject(MemoryObjectFetcher.url(key).toString(), 100, List.of(guids), events);
    }

    private static ValidSignal signal(SignalObject... objects) throws ConsumeException {
        long total = Stream.of(objects).mapToLong(SignalObject::expectedEvents).sum();
        return new SignalValidator("s3.test", 7480, "eventindex").validate(new ConsumerSignal(ConsumerSignal.TYPE,
                "sig-runs", DATASET, CONTAINER, 7, 1, List.of(objects), total, 1L));
    }

    private record Written(byte[] bytes, ObservedWriter writer) {
    }

    /** The format of the last {@link #parquet} call (its run memory). */
    private ParquetConsolidatedFormat format;

    private Written parquet(ValidSignal s, long sortMemory, int threads) throws Exception {
        return parquet(s, sortMemory, threads, 0);
    }

    private Written parquet(ValidSignal s, long sortMemory, int threads, long runMemory) throws Exception {
        Consolidator c = new Consolidator(store, SpbLimits.DEFAULT, threads, 3,
                new ConsumerMetrics(new PrometheusRegistry()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ObservedWriter w;
        format = new ParquetConsolidatedFormat(spoolDir, sortMemory, 2, runMemory,
                ParquetConsolidatedFormat.OWN_ENCODERS, FAN_IN, n -> { });
        try (ConsolidatedWriter inner = format.open(out)) {
            w = ObservedWriter.recordingRuns(inner);
            c.consolidate(s, w);
        }
        return new Written(out.toByteArray(), w);
    }

    /**
     * {@code n} objects named {@code prefix + i}, each of one input file (GUID upper-cased prefix + i) of
     * {@code events} events numbered from {@code 1000 - i * step}; the signal selecting them all.
     */
    private ValidSignal oneFileObjects(String prefix, int n, long step, int events) throws ConsumeException {
        List<SignalObject> objects = new ArrayList<>();
        String guid = prefix.toUpperCase(java.util.Locale.ROOT);
        for (int o = 0; o < n; o++) {
            store.put(prefix + o, TestSpb.object(prefix + o, 1000, Guid.of(guid + o, 1000 - o * step, events)));
            objects.add(so(prefix + o, events, guid + o));
        }
        return signal(objects.toArray(SignalObject[]::new));
    }

    private List<Path> leftFiles() throws IOException {
        try (Stream<Path> s = Files.list(spoolDir)) {
            return s.toList();
        }
    }

    /**
     * Four objects whose events share the same (run, event) numbers, two input files each with the same numbers
     * again, through buffers far smaller than an object: equal keys must come in signal order, then file order,
     * across chunk boundaries, with a file that is byte for byte that of one run per object.
     */
    @Test
    void equalKeysKeepSignalThenFileOrderAcrossObjectsAndChunks() throws Exception {
        List<SignalObject> objects = new ArrayList<>();
        List<String> guidOrder = new ArrayList<>();
        for (String o : List.of("p", "q", "r", "s")) {
            store.put(o, TestSpb.object(o, 1000, Guid.of(o + "1", 100, 40), Guid.of(o + "2", 100, 40)));
            objects.add(so(o, 80, o + "1", o + "2"));
            guidOrder.add(o + "1");
            guidOrder.add(o + "2");
        }
        ValidSignal s = signal(objects.toArray(SignalObject[]::new));
        // ~45 B per event + index: a 1 KiB share per thread holds ~13 events, so each object is 4 or more chunks
        Written chunked = parquet(s, 4 * 1024, 4);
        assertTrue(chunked.writer().chunks().size() >= 16, "chunks: " + chunked.writer().chunks().size());
        for (List<SortedRun> runs : chunked.writer().runFiles) {
            // the chunks of each file follow one another (a chain), but the second file starts below the first's end
            // (and a chunk holding the end of one and the start of the other is a run of its own)
            assertTrue(runs.size() == 2 || runs.size() == 3, "merge inputs of an object: " + runs);
        }
        TestSpb.Consolidated file = TestSpb.parquet(chunked.bytes());
        assertEquals(320, file.rows().size());
        for (int i = 0; i < 320; i++) {
            var row = file.rows().get(i);
            assertEquals(100 + i / 8, row.event().getEventNumber(), "row " + i);
            assertEquals(guidOrder.get(i % 8), row.guid(), "row " + i + ": ties in signal order, then file order");
        }
        Written whole = parquet(s, 1L << 30, 4);
        assertEquals(4, whole.writer().runCount());
        assertArrayEquals(whole.bytes(), chunked.bytes());
        assertEquals(List.of(), leftFiles());
    }

    /**
     * Runs kept in memory (all of them, or as many as fit, the others on disk) give the file that runs on disk give;
     * afterwards no file is left and all the memory is free again, also when the dataset fails.
     */
    @Test
    void runsInMemoryGiveTheSameFileAsRunsOnDisk() throws Exception {
        ValidSignal s = oneFileObjects("m", 8, 11, 600);
        // 16 KiB of sort memory for 4 threads: runs of ~3.5 KB, one block of run memory each; ~170 of them
        byte[] onDisk = parquet(s, 16 * 1024, 4).bytes();
        for (long blocks : new long[]{40, 1_000}) {
            Written w = parquet(s, 16 * 1024, 4, blocks * RunMemory.BLOCK);
            assertArrayEquals(onDisk, w.bytes(), "run memory of " + blocks + " blocks");
            long runs = w.writer().chunks().size();
            long inMemory = w.writer().chunks().stream().filter(r -> r instanceof RunMemory.InMemory).count();
            if (blocks == 40) {
                assertTrue(inMemory > 0 && inMemory < runs, inMemory + " of " + runs + " runs in memory");
            } else {
                assertEquals(runs, inMemory, "every run in memory");
            }
            assertEquals(0, format.runMemoryInUse(), "memory given back");
            assertEquals(List.of(), leftFiles());
        }
        // the last object is one event short: the dataset fails after the others' runs were kept
        store.put("m7", TestSpb.object("m7", 1000, Guid.of("M7", 1000 - 7 * 11L, 599)));
        assertThrows(ConsumeException.class, () -> parquet(s, 16 * 1024, 4, 40L * RunMemory.BLOCK));
        assertEquals(0, format.runMemoryInUse(), "memory given back after a failure");
        assertEquals(List.of(), leftFiles());
    }

    @Test
    void chunksInOrderAcrossTheirBoundariesAreMergedAsOneRun() throws Exception {
        // 6 overlapping objects of one input file each, events in increasing order within a file
        ValidSignal s = oneFileObjects("c", 6, 7, 500);
        Written roomy = parquet(s, 1L << 20, 2);
        assertEquals(6, roomy.writer().chunks().size(), "one chunk per object");
        // through 16 KiB each object is cut into several chunks, each following the one before: one chain each
        Written tight = parquet(s, 16 * 1024, 2);
        assertEquals(6, tight.writer().runCount(), "one merge input per object");
        assertTrue(tight.writer().runFiles.stream().flatMap(List::stream).allMatch(r -> r instanceof SortedRun.Chain),
                tight.writer().runFiles.toString());
        assertTrue(tight.writer().chunks().size() >= 12, "chunks: " + tight.writer().chunks().size());
        assertArrayEquals(roomy.bytes(), tight.bytes(), "chained chunks must not change the output");
        assertEquals(List.of(), leftFiles());
    }

    @Test
    void aDatasetLargerThanTheSortMemoryCompletesAndLeavesNoFiles() throws Exception {
        ValidSignal s = oneFileObjects("o", 30, 7, 500);
        // 15,000 events of ~45 B (~1.2 MB with the index) through 16 KiB: 5 chunks per object, each object's chunks
        // in order (one chain), 30 chains: more than the fan-in, so an intermediate pass first
        Written w = parquet(s, 16 * 1024, 2);
        assertTrue(w.writer().runCount() > FAN_IN, "runs: " + w.writer().runCount());
        assertTrue(w.writer().chunks().size() > w.writer().runCount(), "chunks: " + w.writer().chunks().size());
        TestSpb.Consolidated file = TestSpb.parquet(w.bytes());
        List<Long> numbers = file.eventNumbers();
        assertEquals(15_000, numbers.size());
        for (int i = 1; i < numbers.size(); i++) {
            assertTrue(numbers.get(i - 1) <= numbers.get(i), "sorted at row " + i);
        }
        assertEquals(List.of(), leftFiles(), "no run file after a successful dataset");
    }

    @Test
    void aFailedDatasetRemovesEveryRunFileAlreadyWrittenOrRegistered() throws Exception {
        for (String o : List.of("a", "b", "c")) {
            store.put(o, TestSpb.object(o, 1000, Guid.of("G" + o, 100, 200)));
        }
        // "c" fails after "a" and "b" were sorted, written and (at least "a") handed to the writer
        ValidSignal s = signal(so("a", 200, "Ga"), so("b", 200, "Gb"), so("c", 201, "Gc"));
        ConsumeException e = assertThrows(ConsumeException.class, () -> parquet(s, 4096, 3));
        assertTrue(e.getMessage().contains("object " + MemoryObjectFetcher.url("c") + ": took 200 events of GUID(s)"
                + " [Gc] but the signal expects 201"), e.getMessage());
        assertEquals(List.of(), leftFiles());

        ValidSignal missing = signal(so("a", 200, "Ga"), so("gone", 1, "G7"));
        e = assertThrows(ConsumeException.class, () -> parquet(missing, 4096, 2));
        assertTrue(e.getMessage().contains("object " + MemoryObjectFetcher.url("gone") + " does not exist"),
                e.getMessage());
        assertEquals(List.of(), leftFiles());
    }

    /** Writing the Parquet file fails after the runs were merged (in two passes): every run file goes all the same. */
    @Test
    void aWriteFailureOfTheFileRemovesEveryRunFile() throws Exception {
        List<SignalObject> objects = new ArrayList<>();
        for (int o = 0; o < 10; o++) {
            store.put("w" + o, TestSpb.object("w" + o, 1000, Guid.of("G" + o, o * 100L, 3000)));
            objects.add(so("w" + o, 3000, "G" + o));
        }
        ValidSignal s = signal(objects.toArray(SignalObject[]::new));
        Consolidator c = new Consolidator(store, SpbLimits.DEFAULT, 2, 3,
                new ConsumerMetrics(new PrometheusRegistry()));
        java.io.OutputStream failing = new java.io.OutputStream() {
            private long written;

            @Override
            public void write(int b) throws IOException {
                write(new byte[]{(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                written += len;
                // past the magic number: the first row group
                if (written > 16) {
                    throw new IOException("disk full (injected)");
                }
            }
        };
        // 30,000 events through 8 KiB: hundreds of runs, an intermediate merge pass, then the failure
        IOException e = assertThrows(IOException.class, () -> {
            try (ConsolidatedWriter w = new ParquetConsolidatedFormat(spoolDir, 8 * 1024, 2, 0).open(failing)) {
                c.consolidate(s, w);
            }
        });
        Throwable cause = e;
        while (cause.getCause() != null && !"disk full (injected)".equals(cause.getMessage())) {
            cause = cause.getCause();
        }
        assertEquals("disk full (injected)", cause.getMessage(), "the failure of the output is what is thrown");
        assertEquals(List.of(), leftFiles());
    }

    @Test
    void runsOfAFailedAttemptAreDeletedAndOnlyAVerifiedAttemptCounts() throws Exception {
        store.put("a", TestSpb.object("a", 1000, Guid.of("G1", 100, 300)));
        store.put("b", TestSpb.object("b", 1000, Guid.of("G2", 100, 300)));
        ValidSignal s = signal(so("a", 300, "G1"), so("b", 300, "G2"));
        // The first read of "a" breaks near its end, after some of its chunks were written; the second succeeds.
        int length = TestSpb.object("a", 1000, Guid.of("G1", 100, 300)).length;
        store.breakFirstReadAfter("a", length - 30);
        Written retried = parquet(s, 4096, 1);
        assertEquals(2, store.opens("a"));
        assertEquals(List.of(), leftFiles());
        byte[] clean = parquet(s, 4096, 1).bytes();
        assertArrayEquals(clean, retried.bytes(), "the broken attempt's runs are not in the file");

        // A checksum that never matches: every attempt writes runs, none of them may remain.
        store.sha256("b", "0".repeat(64));
        int before = store.opens("b");
        ConsumeException e = assertThrows(ConsumeException.class, () -> parquet(s, 4096, 1));
        assertTrue(e.getMessage().contains("SHA-256") && e.getMessage().contains(MemoryObjectFetcher.url("b")
                .toString()), e.getMessage());
        assertEquals(2, store.opens("b") - before, "read again once: the same wrong digest twice is permanent");
        assertEquals(List.of(), leftFiles());
    }

    @Test
    void aMalformedObjectFailsWithTheReadersError() throws Exception {
        byte[] good = TestSpb.object("cut", 1000, Guid.of("G1", 100, 300));
        store.put("cut", java.util.Arrays.copyOf(good, good.length - 12));
        ConsumeException e = assertThrows(ConsumeException.class, () -> parquet(signal(so("cut", 300, "G1")),
                4096, 1));
        assertTrue(e.getMessage().startsWith(MemoryObjectFetcher.url("cut").toString())
                && e.getMessage().contains("malformed SPB"), e.getMessage());
        assertEquals(List.of(), leftFiles());
    }
}
