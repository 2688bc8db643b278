package org.eventindex.consumer;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Sorts a dataset's events by (run, event) in bounded memory: events are buffered up to {@code memoryBytes}, then the
 * buffer is sorted and written to a run file in {@code dir}; {@link #merge} k-way merges the runs (and what is still
 * in memory) with a {@link RunMerger}. The sort is stable (equal keys keep their arrival order), so the output is a
 * pure function of the input order. Run files are deleted on close.
 */
final class ExternalSorter implements Closeable {
    /** Per-event overhead of the in-memory buffer beyond the payload (entry object, array, references). */
    static final long ENTRY_OVERHEAD = 64;

    private record Entry(int run, long event, int guid, byte[] payload) {
    }

    private static final Comparator<Entry> ORDER = (a, b) -> {
        int c = Integer.compareUnsigned(a.run, b.run);
        return c != 0 ? c : Long.compareUnsigned(a.event, b.event);
    };

    private final Path dir;
    private final long memoryBytes;
    private final String label;
    private final List<Path> runs = new ArrayList<>();
    private List<Entry> buffer = new ArrayList<>();
    private long buffered;

    /** @param label names the dataset in file names and errors */
    ExternalSorter(Path dir, long memoryBytes, String label) {
        this.dir = Objects.requireNonNull(dir, "dir is null");
        this.memoryBytes = memoryBytes;
        this.label = Objects.requireNonNull(label, "label is null");
    }

    void add(int run, long event, int guid, byte[] payload) throws IOException {
        buffer.add(new Entry(run, event, guid, payload));
        buffered += payload.length + ENTRY_OVERHEAD;
        if (buffered > memoryBytes) {
            spill();
        }
    }

    /** Sorted run files written so far. */
    int spilledRuns() {
        return runs.size();
    }

    /**
     * Feeds every event to {@code sink} in (run, event) order, through {@link RunMerger} once runs were spilled
     * (which deletes them); call once.
     */
    void merge(RunMerger.Sink sink) throws IOException {
        buffer.sort(ORDER);
        if (runs.isEmpty()) {
            for (Entry e : buffer) {
                sink.accept(e.guid, e.payload, 0, e.payload.length);
            }
            return;
        }
        if (!buffer.isEmpty()) {
            spill();
        }
        List<RunMerger.Run> sorted = new ArrayList<>();
        for (Path run : runs) {
            sorted.add(new RunMerger.Run(SortedRun.file(run), 0));
        }
        new RunMerger(dir, label, RunMerger.FAN_IN).merge(sorted, sink);
    }

    private void spill() throws IOException {
        buffer.sort(ORDER);
        Files.createDirectories(dir);
        Path file = Files.createTempFile(dir, "sort-", ".run");
        runs.add(file);
        try (OutputStream out = Files.newOutputStream(file)) {
            RunOutput run = new RunOutput(out);
            for (Entry e : buffer) {
                run.write(e.guid, e.run, e.event, e.payload, 0, e.payload.length);
            }
            run.flush();
        } catch (IOException e) {
            throw new IOException("dataset " + label + ": cannot write sort run " + file + ": " + e.getMessage(), e);
        }
        buffer = new ArrayList<>();
        buffered = 0;
    }

    @Override
    public void close() throws IOException {
        buffer = new ArrayList<>();
        for (Path run : runs) {
            Files.deleteIfExists(run);
        }
        runs.clear();
    }
}
