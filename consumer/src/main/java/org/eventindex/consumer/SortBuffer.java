package org.eventindex.consumer;

import org.eventindex.spb.EventScan;
import org.eventindex.spb.SavedScan;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * One fetch thread's in-memory sort of an object's events: each event goes into one arena array as the record a run
 * file holds ({@link RunOutput#putHead head} then payload) and its key into primitive arrays, all reused from object
 * to object, so sorting costs no allocation per event. {@link #writeRun} sorts by unsigned (run, event), ties in the
 * order the events were added, and writes the run file that {@link RunMerger} reads, through {@link RunOutput}
 * (which codes each event's token strings against the event before). Events usually arrive in that order already
 * (those of an input file are in increasing order): then the arena is written in its order, without sorting. Holds at
 * most {@code capacity} bytes (head + payload + {@link #INDEX_BYTES} per
 * event), except that a single event always fits. Not thread-safe.
 */
final class SortBuffer {
    /** Index bytes per event: record offset, record length, run, event, and two sort permutation slots. */
    static final int INDEX_BYTES = 4 + 4 + 4 + 8 + 4 + 4;
    /** Bytes per write to a run file at most: bounds the JDK's temporary direct buffer for a heap array. */
    static final int WRITE_CHUNK = 4 * RunOutput.BLOCK;

    private final long capacity;
    private byte[] data = new byte[0];
    private int used;
    private int[] offsets = new int[0];
    private int[] lengths = new int[0];
    private int[] runs = new int[0];
    private long[] events = new long[0];
    private int[] order = new int[0];
    private int[] scratch = new int[0];
    private int count;
    /** Bytes the coding of token strings may add at most (a prefix length per token: none shared). */
    private long codingSlack;
    /** Whether the events added so far are in sort order (each key at least the one before). */
    private boolean inOrder = true;
    /** Smallest and largest key added so far (unsigned), valid while count > 0. */
    private int minRun;
    private long minEvent;
    private int maxRun;
    private long maxEvent;

    SortBuffer(long capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("sort buffer capacity must not be negative: " + capacity);
        }
        // one array holds the bytes: beyond 1 GiB a share is cut to 1 GiB (a chunk more per object, no more)
        this.capacity = Math.min(capacity, 1L << 30);
    }

    /** True if an event of {@code length} bytes can be added without going over the capacity. */
    boolean fits(int length) {
        return count == 0
                || (long) used + RunOutput.HEAD_BYTES + length + (long) (count + 1) * INDEX_BYTES <= capacity;
    }

    int count() {
        return count;
    }

    /** Adds an event (its bytes are copied, after its run file head); the caller checks {@link #fits} first. */
    void add(int run, long event, int file, byte[] buf, int off, int len) {
        int payload = reserve(run, event, file, len);
        System.arraycopy(buf, off, data, payload, len);
        codingSlack += (long) TokenPrefixCoder.PREFIX_BYTES * Math.max(0, SavedScan.tokenCount(data, payload, len));
    }

    /**
     * Adds a scanned event saved with its fields ({@link SavedScan#write}, of {@link SavedScan#length} bytes: check
     * {@link #fits} with that), so that the merge does not scan it again.
     */
    void add(EventScan e, int file) {
        int len = SavedScan.length(e);
        int payload = reserve(e.runNumber, e.eventNumber, file, len);
        SavedScan.write(e, data, payload);
        codingSlack += (long) TokenPrefixCoder.PREFIX_BYTES * Math.max(0, SavedScan.tokenCount(data, payload, len));
    }

    /** Makes room for a record of {@code len} payload bytes, writes its head and indexes it; the payload's offset. */
    private int reserve(int run, long event, int file, int len) {
        if (count == offsets.length) {
            growIndex();
        }
        int record = RunOutput.HEAD_BYTES + len;
        if ((long) used + record > data.length) {
            growData(record);
        }
        int payload = RunOutput.putHead(data, used, file, run, event, len);
        if (count == 0) {
            minRun = run;
            minEvent = event;
            maxRun = run;
            maxEvent = event;
        } else if (compare(maxRun, maxEvent, run, event) <= 0) {
            maxRun = run;
            maxEvent = event;
        } else {
            // below the largest key so far: below the one before, too
            inOrder = false;
            if (compare(run, event, minRun, minEvent) < 0) {
                minRun = run;
                minEvent = event;
            }
        }
        offsets[count] = used;
        lengths[count] = record;
        runs[count] = run;
        events[count] = event;
        count++;
        used += record;
        return payload;
    }

    /**
     * Sorts what was added and writes it as a run file in {@code dir}, then empties the buffer (keeping its arrays).
     *
     * @return the run file
     */
    Path writeRun(Path dir, String prefix) throws IOException {
        return ((SortedRun.OnDisk) writeRun(dir, prefix, null)).file();
    }

    /**
     * Sorts what was added and writes it as a run, in {@code memory} if it has room for it (and is not null),
     * otherwise as a file in {@code dir}; then empties the buffer (keeping its arrays). The run is written in
     * {@link RunOutput}'s layout (its token strings coded), so its size is known only once written: it is written to
     * {@code memory} when the arena's size (and what the coding could add) fits there, and what it did not use is
     * given back.
     */
    SortedRun writeRun(Path dir, String prefix, RunMemory memory) throws IOException {
        RunMemory.InMemory kept = memory == null ? null : memory.take(used + codingSlack);
        if (kept != null) {
            boolean ok = false;
            try {
                writeRecords(kept.output());
                kept.trim();
                ok = true;
            } finally {
                if (!ok) {
                    kept.delete();
                }
                clear();
            }
            return kept;
        }
        Files.createDirectories(dir);
        Path file = Files.createTempFile(dir, prefix, ".run");
        boolean ok = false;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            writeRecords(new ChannelOutput(ch));
            ok = true;
        } finally {
            if (!ok) {
                Files.deleteIfExists(file);
            }
            clear();
        }
        return SortedRun.file(file);
    }

    /** Writes the records in sort order (the arena's order when they came in order) through {@link RunOutput}. */
    private void writeRecords(OutputStream out) throws IOException {
        RunOutput run = new RunOutput(out);
        if (inOrder) {
            for (int k = 0; k < count; k++) {
                run.writeRecord(data, offsets[k]);
            }
        } else {
            sort();
            for (int k = 0; k < count; k++) {
                run.writeRecord(data, offsets[order[k]]);
            }
        }
        run.flush();
    }

    /**
     * Writes blocks of a heap array to a channel without the stream adapter's locks, at most {@link #WRITE_CHUNK} at
     * a time (bounds the JDK's temporary direct buffer).
     */
    private static final class ChannelOutput extends OutputStream {
        private final FileChannel ch;

        ChannelOutput(FileChannel ch) {
            this.ch = ch;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[]{(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            for (int at = off; at < off + len; ) {
                ByteBuffer chunk = ByteBuffer.wrap(b, at, Math.min(WRITE_CHUNK, off + len - at));
                while (chunk.hasRemaining()) {
                    ch.write(chunk);
                }
                at = chunk.position();
            }
        }
    }

    /**
     * Whether every event added so far sorts at or after the key (unsigned), so that the run they make may follow,
     * in the merge, a run whose last key that is; false when none was added.
     */
    boolean startsAtOrAfter(int run, long event) {
        return count > 0 && compare(run, event, minRun, minEvent) <= 0;
    }

    /** The run number of the largest key added so far (valid when {@link #count} is not 0). */
    int maxRun() {
        return maxRun;
    }

    /** The event number of the largest key added so far (valid when {@link #count} is not 0). */
    long maxEvent() {
        return maxEvent;
    }

    /** Forgets the events added; the arrays stay for the next object. */
    void clear() {
        count = 0;
        used = 0;
        codingSlack = 0;
        inOrder = true;
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
        return compare(runs[x], events[x], runs[y], events[y]);
    }

    private static int compare(int runX, long eventX, int runY, long eventY) {
        int c = Integer.compareUnsigned(runX, runY);
        return c != 0 ? c : Long.compareUnsigned(eventX, eventY);
    }

    private void growIndex() {
        int n = (int) Math.max(count + 1, Math.min(Math.max(1024, offsets.length * 2L), capacity / INDEX_BYTES + 1));
        offsets = Arrays.copyOf(offsets, n);
        lengths = Arrays.copyOf(lengths, n);
        runs = Arrays.copyOf(runs, n);
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
