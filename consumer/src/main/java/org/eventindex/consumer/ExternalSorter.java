package org.eventindex.consumer;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;

/**
 * Sorts a dataset's events by (run, event) in bounded memory: events are buffered up to {@code memoryBytes}, then the
 * buffer is sorted and written to a run file in {@code dir}; {@link #merge} k-way merges the runs (and what is still
 * in memory). The sort is stable (equal keys keep their arrival order), so the output is a pure function of the
 * input order. Run files are deleted on close.
 */
final class ExternalSorter implements Closeable {
    /** Per-event overhead of the in-memory buffer beyond the payload (entry object, array, references). */
    static final long ENTRY_OVERHEAD = 64;

    /** Receives the events in order. */
    @FunctionalInterface
    interface Sink {
        void accept(int guid, byte[] payload) throws IOException;
    }

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

    /** Feeds every event to {@code sink} in (run, event) order; call once. */
    void merge(Sink sink) throws IOException {
        buffer.sort(ORDER);
        if (runs.isEmpty()) {
            for (Entry e : buffer) {
                sink.accept(e.guid, e.payload);
            }
            return;
        }
        if (!buffer.isEmpty()) {
            spill();
        }
        List<RunReader> readers = new ArrayList<>();
        try {
            PriorityQueue<RunReader> queue = new PriorityQueue<>((a, b) -> {
                int c = ORDER.compare(a.head, b.head);
                return c != 0 ? c : Integer.compare(a.index, b.index);
            });
            for (int i = 0; i < runs.size(); i++) {
                RunReader r = new RunReader(i, runs.get(i));
                readers.add(r);
                if (r.advance()) {
                    queue.add(r);
                }
            }
            while (!queue.isEmpty()) {
                RunReader r = queue.poll();
                sink.accept(r.head.guid, r.head.payload);
                if (r.advance()) {
                    queue.add(r);
                }
            }
        } finally {
            for (RunReader r : readers) {
                r.in.close();
            }
        }
    }

    private void spill() throws IOException {
        buffer.sort(ORDER);
        Files.createDirectories(dir);
        Path file = Files.createTempFile(dir, "sort-", ".run");
        runs.add(file);
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file),
                256 * 1024))) {
            for (Entry e : buffer) {
                out.writeInt(e.run);
                out.writeLong(e.event);
                out.writeInt(e.guid);
                out.writeInt(e.payload.length);
                out.write(e.payload);
            }
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

    private final class RunReader {
        final int index;
        final DataInputStream in;
        final Path file;
        Entry head;

        RunReader(int index, Path file) throws IOException {
            this.index = index;
            this.file = file;
            this.in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 64 * 1024));
        }

        boolean advance() throws IOException {
            int run;
            try {
                run = in.readInt();
            } catch (EOFException end) {
                head = null;
                return false;
            }
            try {
                long event = in.readLong();
                int guid = in.readInt();
                byte[] payload = new byte[in.readInt()];
                in.readFully(payload);
                head = new Entry(run, event, guid, payload);
                return true;
            } catch (EOFException e) {
                throw new IOException("dataset " + label + ": sort run " + file + " is truncated", e);
            }
        }
    }
}
