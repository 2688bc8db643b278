package org.eventindex.consumer;

import org.eventindex.spb.EventScan;
import org.eventindex.spb.SavedScan;
import org.eventindex.spb.SpbRecord;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * One object's selection for a writer that takes {@link ConsolidatedWriter.SortedRuns}: the fetch thread sorts the
 * object's events in a {@link SortBuffer} borrowed from the dataset's {@link Buffers} and writes them as one sorted
 * run, or as several (chunks, in order) when they do not fit in the buffer: kept in the consumer's {@link RunMemory}
 * while it has room, otherwise as files; the GUID records (BeginGUID, TriggerMenu, EndGUID) and the counts stay in
 * memory. The handler's thread then registers the runs with the writer and replays the GUID records. Closing deletes
 * the runs the writer has not taken.
 */
final class SortedObject implements SelectedRecords {
    private final String source;
    private final Path dir;
    private final Buffers buffers;
    private SortBuffer buffer;
    /** Scans events given as messages (a reader not in raw-event mode); made on first use. */
    private EventScan ownScan;
    private final List<SpbRecord> guidRecords = new ArrayList<>();
    private final List<SortedRun> files = new ArrayList<>();
    /** Per run in {@link #files}: whether it follows the one before in sort order (the merge reads both as one). */
    private final List<Boolean> follows = new ArrayList<>();
    /** The largest key of the last run written. */
    private int lastMaxRun;
    private long lastMaxEvent;
    private long[] fileEvents = new long[4];
    private int file = -1;
    private final Set<Long> runNumbers = new HashSet<>();
    private int lastRun;
    private long simulation;
    private boolean sealed;

    /** @param source the object's URL, for errors */
    SortedObject(String source, Path dir, Buffers buffers) {
        this.source = Objects.requireNonNull(source, "source is null");
        this.dir = Objects.requireNonNull(dir, "dir is null");
        this.buffers = Objects.requireNonNull(buffers, "buffers is null");
    }

    @Override
    public void append(SpbRecord record) throws IOException {
        if (sealed) {
            throw new IllegalStateException("selection of " + source + " is sealed");
        }
        if (record instanceof SpbRecord.RawEvent r) {
            add(r.event());
        } else if (record instanceof SpbRecord.Event r) {
            byte[] bytes = r.message().toByteArray();
            if (ownScan == null) {
                ownScan = new EventScan();
            }
            ownScan.scanCanonical(bytes, 0, bytes.length);
            add(ownScan);
        } else if (record instanceof SpbRecord.BeginGuid) {
            file++;
            if (file == fileEvents.length) {
                fileEvents = Arrays.copyOf(fileEvents, file * 2);
            }
            guidRecords.add(record);
        } else if (record instanceof SpbRecord.TriggerMenu || record instanceof SpbRecord.EndGuid) {
            guidRecords.add(record);
        } else {
            throw new IllegalArgumentException("a selection holds only GUID records, not " + record);
        }
    }

    /** Adds a scanned event, saved with its fields (the merge restores them instead of scanning it again). */
    private void add(EventScan e) throws IOException {
        if (file < 0) {
            throw new IllegalStateException("object " + source + ": an event before any BeginGUID was selected");
        }
        if (buffer == null) {
            buffer = buffers.take();
        } else if (!buffer.fits(SavedScan.length(e))) {
            flush();
        }
        buffer.add(e, file);
        fileEvents[file]++;
        int run = e.runNumber;
        if (run != lastRun || runNumbers.isEmpty()) {
            runNumbers.add(Integer.toUnsignedLong(run));
            lastRun = run;
        }
        if (e.isSimulation) {
            simulation++;
        }
    }

    private void flush() throws IOException {
        boolean inOrder = !files.isEmpty() && buffer.startsAtOrAfter(lastMaxRun, lastMaxEvent);
        lastMaxRun = buffer.maxRun();
        lastMaxEvent = buffer.maxEvent();
        try {
            files.add(buffer.writeRun(dir, "obj-", buffers.runMemory));
            follows.add(inOrder);
        } catch (IOException e) {
            throw new IOException("object " + source + ": cannot write its sorted events to " + dir + ": "
                    + e.getMessage(), e);
        }
    }

    /** Writes the last chunk and gives the buffer back for the next object. */
    @Override
    public void seal() throws IOException {
        if (buffer != null && buffer.count() > 0) {
            flush();
        }
        releaseBuffer();
        sealed = true;
    }

    /** Runs written so far (chunks of this object, in order). */
    List<SortedRun> files() {
        return List.copyOf(files);
    }

    /**
     * The runs as the merge reads them: consecutive chunks that are in sort order across their boundaries joined
     * into one {@link SortedRun.Chain} (the usual case: events of an input file come in increasing order), which
     * keeps the merge's tie order (a chunk's events before the next chunk's) with fewer inputs.
     */
    private List<SortedRun> mergeInputs() {
        List<SortedRun> inputs = new ArrayList<>();
        for (int i = 0; i < files.size(); ) {
            int end = i + 1;
            while (end < files.size() && follows.get(end)) {
                end++;
            }
            inputs.add(end - i == 1 ? files.get(i) : new SortedRun.Chain(files.subList(i, end)));
            i = end;
        }
        return inputs;
    }

    @Override
    public void writeTo(ConsolidatedWriter writer) throws IOException {
        if (!sealed) {
            throw new IllegalStateException("selection of " + source + " is still being written");
        }
        ConsolidatedWriter.SortedRuns sink = writer.sortedRuns();
        if (sink == null) {
            throw new IllegalStateException("the consolidated writer does not take sorted runs");
        }
        ConsolidatedWriter.ObjectRuns runs = new ConsolidatedWriter.ObjectRuns(mergeInputs(),
                Arrays.copyOf(fileEvents, file + 1), runNumbers, simulation);
        sink.objectRuns(runs);
        // the writer owns the files now (had it failed, both would delete them, which is harmless)
        files.clear();
        follows.clear();
        for (SpbRecord r : guidRecords) {
            if (r instanceof SpbRecord.BeginGuid b) {
                writer.beginGuid(b.message());
            } else if (r instanceof SpbRecord.TriggerMenu m) {
                writer.triggerMenu(m.message());
            } else if (r instanceof SpbRecord.EndGuid e) {
                writer.endGuid(e.message());
            }
        }
    }

    @Override
    public void close() throws IOException {
        releaseBuffer();
        IOException failed = SortedRun.deleteAll(files);
        files.clear();
        follows.clear();
        if (failed != null) {
            throw failed;
        }
    }

    private void releaseBuffer() {
        if (buffer != null) {
            buffer.clear();
            buffers.give(buffer);
            buffer = null;
        }
    }

    /**
     * The sort buffers of one dataset: one per fetch thread, each {@code memoryBytes / threads}, reused from object
     * to object. An object takes one for as long as it is being read.
     */
    static final class Buffers {
        private final BlockingQueue<SortBuffer> free;
        /** Where sorted runs are kept while it has room, or null: all go to files. */
        private final RunMemory runMemory;

        Buffers(long memoryBytes, int threads, RunMemory runMemory) {
            this.runMemory = runMemory;
            if (threads < 1) {
                throw new IllegalArgumentException("threads must be at least 1: " + threads);
            }
            if (memoryBytes < 0) {
                throw new IllegalArgumentException("sort memory must not be negative: " + memoryBytes);
            }
            free = new ArrayBlockingQueue<>(threads);
            for (int i = 0; i < threads; i++) {
                free.add(new SortBuffer(memoryBytes / threads));
            }
        }

        SortBuffer take() {
            SortBuffer b = free.poll();
            if (b == null) {
                // more objects being read at once than fetch threads: a bug, not a reason to wait
                throw new IllegalStateException("no free sort buffer: more objects in flight than fetch threads");
            }
            return b;
        }

        void give(SortBuffer b) {
            free.add(b);
        }

        /** Drops the buffers (their arrays are collected); only once no object is being read any more. */
        void release() {
            free.clear();
        }
    }
}
