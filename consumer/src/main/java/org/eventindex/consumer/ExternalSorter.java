package org.eventindex.consumer;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
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
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 256 * 1024)) {
            // one write per head and one per payload (DataOutputStream writes an int as four locked calls)
            byte[] head = new byte[20];
            for (Entry e : buffer) {
                putInt(head, 0, e.run);
                putInt(head, 4, (int) (e.event >>> 32));
                putInt(head, 8, (int) e.event);
                putInt(head, 12, e.guid);
                putInt(head, 16, e.payload.length);
                out.write(head, 0, head.length);
                out.write(e.payload);
            }
        } catch (IOException e) {
            throw new IOException("dataset " + label + ": cannot write sort run " + file + ": " + e.getMessage(), e);
        }
        buffer = new ArrayList<>();
        buffered = 0;
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
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
        final RecordInput in;
        final Path file;
        Entry head;

        RunReader(int index, Path file) throws IOException {
            this.index = index;
            this.file = file;
            this.in = new RecordInput(Files.newInputStream(file), 64 * 1024);
        }

        boolean advance() throws IOException {
            int first = in.read();
            if (first < 0) {
                head = null;
                return false;
            }
            try {
                int run = first << 24 | in.readByte() << 16 | in.readByte() << 8 | in.readByte();
                long event = in.readLong();
                int guid = in.readInt();
                int length = in.readInt();
                if (length < 0) {
                    throw new IOException("dataset " + label + ": sort run " + file + " is corrupt (length "
                            + length + ")");
                }
                byte[] payload = new byte[length];
                in.readFully(payload, 0, length);
                head = new Entry(run, event, guid, payload);
                return true;
            } catch (EOFException e) {
                throw new IOException("dataset " + label + ": sort run " + file + " is truncated", e);
            }
        }
    }
}
