package org.eventindex.consumer;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * One fetch thread's in-memory sort of an object's events: their bytes go into one arena array and their keys into
 * primitive arrays, all reused from object to object, so sorting costs no allocation per event. {@link #writeRun}
 * sorts by unsigned (run, event), ties in the order the events were added, and writes the run file that
 * {@link RunMerger} reads ({@link RunOutput}). Holds at most {@code capacity} bytes (payload + {@link #INDEX_BYTES}
 * per event), except that a single event always fits. Not thread-safe.
 */
final class SortBuffer {
    /** Index bytes per event: offset, length, run, file, event, and two sort permutation slots. */
    static final int INDEX_BYTES = 4 + 4 + 4 + 4 + 8 + 4 + 4;

    private final long capacity;
    private byte[] data = new byte[0];
    private int used;
    private int[] offsets = new int[0];
    private int[] lengths = new int[0];
    private int[] runs = new int[0];
    private int[] files = new int[0];
    private long[] events = new long[0];
    private int[] order = new int[0];
    private int[] scratch = new int[0];
    private int count;

    SortBuffer(long capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("sort buffer capacity must not be negative: " + capacity);
        }
        // one array holds the bytes: beyond 1 GiB a share is cut to 1 GiB (a chunk more per object, no more)
        this.capacity = Math.min(capacity, 1L << 30);
    }

    /** True if an event of {@code length} bytes can be added without going over the capacity. */
    boolean fits(int length) {
        return count == 0 || (long) used + length + (long) (count + 1) * INDEX_BYTES <= capacity;
    }

    int count() {
        return count;
    }

    /** Adds an event (its bytes are copied); the caller checks {@link #fits} first. */
    void add(int run, long event, int file, byte[] buf, int off, int len) {
        if (count == offsets.length) {
            growIndex();
        }
        if (used + len > data.length) {
            growData(len);
        }
        System.arraycopy(buf, off, data, used, len);
        offsets[count] = used;
        lengths[count] = len;
        runs[count] = run;
        files[count] = file;
        events[count] = event;
        count++;
        used += len;
    }

    /**
     * Sorts what was added and writes it as a run file in {@code dir}, then empties the buffer (keeping its arrays).
     *
     * @return the run file
     */
    Path writeRun(Path dir, String prefix) throws IOException {
        sort();
        Files.createDirectories(dir);
        Path file = Files.createTempFile(dir, prefix, ".run");
        boolean ok = false;
        try (OutputStream out = Files.newOutputStream(file)) {
            RunOutput run = new RunOutput(out);
            for (int k = 0; k < count; k++) {
                int i = order[k];
                run.write(files[i], runs[i], events[i], data, offsets[i], lengths[i]);
            }
            run.flush();
            ok = true;
        } finally {
            if (!ok) {
                Files.deleteIfExists(file);
            }
            clear();
        }
        return file;
    }

    /** Forgets the events added; the arrays stay for the next object. */
    void clear() {
        count = 0;
        used = 0;
    }

    /**
     * A merge sort of the event indexes, stable by construction; a merge whose halves are already in order is
     * skipped, which makes the common case (events of each input file in increasing order) close to linear.
     */
    private void sort() {
        for (int i = 0; i < count; i++) {
            order[i] = i;
        }
        mergeSort(order, scratch, 0, count);
    }

    private void mergeSort(int[] a, int[] tmp, int from, int to) {
        if (to - from < 2) {
            return;
        }
        if (to - from <= 12) {
            for (int i = from + 1; i < to; i++) {
                int v = a[i];
                int j = i - 1;
                while (j >= from && compare(a[j], v) > 0) {
                    a[j + 1] = a[j];
                    j--;
                }
                a[j + 1] = v;
            }
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(a, tmp, from, mid);
        mergeSort(a, tmp, mid, to);
        if (compare(a[mid - 1], a[mid]) <= 0) {
            return;
        }
        System.arraycopy(a, from, tmp, from, to - from);
        int i = from;
        int j = mid;
        for (int k = from; k < to; k++) {
            // "<= 0" takes the left element on ties: the earlier one stays first
            if (j >= to || (i < mid && compare(tmp[i], tmp[j]) <= 0)) {
                a[k] = tmp[i++];
            } else {
                a[k] = tmp[j++];
            }
        }
    }

    private int compare(int x, int y) {
        int c = Integer.compareUnsigned(runs[x], runs[y]);
        return c != 0 ? c : Long.compareUnsigned(events[x], events[y]);
    }

    private void growIndex() {
        int n = (int) Math.max(count + 1, Math.min(Math.max(1024, offsets.length * 2L), capacity / INDEX_BYTES + 1));
        offsets = Arrays.copyOf(offsets, n);
        lengths = Arrays.copyOf(lengths, n);
        runs = Arrays.copyOf(runs, n);
        files = Arrays.copyOf(files, n);
        events = Arrays.copyOf(events, n);
        order = new int[n];
        scratch = new int[n];
    }

    private void growData(int len) {
        long need = (long) used + len;
        long n = Math.max(need, Math.min(Math.max(64 * 1024, 2L * data.length), capacity));
        if (n > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("sort buffer would exceed 2 GiB");
        }
        data = Arrays.copyOf(data, (int) n);
    }
}
