package org.eventindex.consumer;

import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * K-way merges sorted runs ({@link RunOutput}'s layout, in files or in memory: {@link SortedRun}) by unsigned (run,
 * event); equal keys come in the order of the runs in the list, then in their order within a run. Given the runs of
 * each object in chunk order and the objects in signal order, that is the order of a stable sort of all events in
 * signal order. The runs' read buffers share {@value #MERGE_MEMORY_BYTES} bytes, each between
 * {@value #MIN_READ_BUFFER} and {@value #READ_BUFFER} bytes, so at most {@code fanIn} runs are open at a time
 * ({@link #FAN_IN} unless given): a dataset's runs are merged in one pass up to that many (no intermediate run is
 * written). Beyond it, the fewest consecutive runs needed are first merged into bigger ones (which keeps the tie
 * order), as many passes as needed, so that the last pass has {@code fanIn} runs. Every run given is deleted once
 * merged; so are the intermediate ones, also on failure.
 */
final class RunMerger {
    /** Memory of the read buffers of the runs merged at once. */
    static final long MERGE_MEMORY_BYTES = 32L << 20;
    /** Read buffer of a run when many are merged at once (an event longer than this is read into its own array). */
    static final int MIN_READ_BUFFER = 8 * 1024;
    /** Read buffer of a run when few are merged at once. */
    static final int READ_BUFFER = RunOutput.BLOCK;
    /** Runs open at once in a merge: as many as {@link #MERGE_MEMORY_BYTES} gives the smallest read buffer. */
    static final int FAN_IN = (int) (MERGE_MEMORY_BYTES / MIN_READ_BUFFER);

    /** A run whose file indexes are relative to {@code guidBase} (the object's first input file). */
    record Run(SortedRun run, int guidBase) {
        Run {
            Objects.requireNonNull(run, "run is null");
        }
    }

    /** Receives the merged events: input file index and the event's bytes (valid during the call only). */
    @FunctionalInterface
    interface Sink {
        void accept(int guid, byte[] buf, int off, int len) throws IOException;
    }

    private final Path dir;
    private final String label;
    private final int fanIn;

    /** @param label names the dataset in file names and errors */
    RunMerger(Path dir, String label, int fanIn) {
        this.dir = Objects.requireNonNull(dir, "dir is null");
        this.label = Objects.requireNonNull(label, "label is null");
        if (fanIn < 2) {
            throw new IllegalArgumentException("merge fan-in must be at least 2: " + fanIn);
        }
        this.fanIn = fanIn;
    }

    /** Merges {@code runs} (in tie order) into {@code sink}; deletes them. */
    void merge(List<Run> runs, Sink sink) throws IOException {
        List<Run> level = new ArrayList<>(runs);
        List<SortedRun> intermediate = new ArrayList<>();
        boolean merged = false;
        try {
            while (level.size() > fanIn) {
                level = mergePass(level, intermediate);
            }
            mergeGroup(level, (guid, run, event, buf, off, len) -> sink.accept(guid, buf, off, len));
            merged = true;
        } finally {
            IOException failed = SortedRun.deleteAll(runs.stream().map(Run::run).toList());
            IOException intermediateFailed = SortedRun.deleteAll(intermediate);
            failed = failed != null ? failed : intermediateFailed;
            // after a failure that failure is what the caller hears of
            if (failed != null && merged) {
                throw failed;
            }
        }
    }

    /**
     * Merges consecutive groups of up to {@code fanIn} runs from the start, each into one run whose file indexes are
     * absolute, until the level has {@code fanIn} runs (or as few as one pass can make it); the rest pass as they
     * are.
     */
    private List<Run> mergePass(List<Run> level, List<SortedRun> intermediate) throws IOException {
        List<Run> next = new ArrayList<>();
        int excess = level.size() - fanIn;
        for (int i = 0; i < level.size(); ) {
            // a group of g runs makes the level g - 1 runs shorter
            int g = Math.min(Math.min(fanIn, excess + 1), level.size() - i);
            if (g < 2) {
                next.add(level.get(i++));
                continue;
            }
            List<Run> group = level.subList(i, i + g);
            i += g;
            excess -= g - 1;
            Files.createDirectories(dir);
            Path file = Files.createTempFile(dir, "merge-", ".run");
            SortedRun merged = SortedRun.file(file);
            intermediate.add(merged);
            try (OutputStream out = Files.newOutputStream(file)) {
                RunOutput w = new RunOutput(out);
                mergeGroup(group, w::write);
                w.flush();
            } catch (IOException e) {
                throw new IOException("dataset " + label + ": cannot write merged run " + file + ": "
                        + e.getMessage(), e);
            }
            for (Run r : group) {
                r.run().delete();
            }
            next.add(new Run(merged, 0));
        }
        return next;
    }

    @FunctionalInterface
    private interface KeyedSink {
        void accept(int guid, int run, long event, byte[] buf, int off, int len) throws IOException;
    }

    /**
     * A tournament (loser tree) over the runs: each event costs one comparison per level, ceil(log2 runs), where a
     * binary heap takes up to two.
     */
    private void mergeGroup(List<Run> group, KeyedSink sink) throws IOException {
        int k = group.size();
        if (k == 0) {
            return;
        }
        Reader[] readers = new Reader[k];
        int buffer = readBuffer(k);
        try {
            for (int i = 0; i < k; i++) {
                readers[i] = new Reader(i, group.get(i), buffer);
                readers[i].done = !readers[i].advance();
            }
            // node t (1..k-1) holds the loser of the match below it; leaves are k..2k-1, parent of t is t / 2
            int[] loser = new int[k];
            int[] winner = new int[2 * k];
            for (int i = 0; i < k; i++) {
                winner[k + i] = i;
            }
            for (int t = k - 1; t >= 1; t--) {
                int a = winner[2 * t];
                int b = winner[2 * t + 1];
                boolean aFirst = before(readers[a], readers[b]);
                winner[t] = aFirst ? a : b;
                loser[t] = aFirst ? b : a;
            }
            int w = k == 1 ? 0 : winner[1];
            while (!readers[w].done) {
                Reader r = readers[w];
                r.payload();
                sink.accept(r.run.guidBase() + r.guid, r.runNumber, r.event, r.payloadBuf, r.payloadOff,
                        r.payloadLen);
                r.done = !r.advance();
                for (int t = (w + k) >>> 1; t >= 1; t >>>= 1) {
                    if (before(readers[loser[t]], readers[w])) {
                        int l = loser[t];
                        loser[t] = w;
                        w = l;
                    }
                }
            }
        } finally {
            for (Reader r : readers) {
                if (r != null) {
                    r.in.close();
                }
            }
        }
    }

    /** Bytes of each run's read buffer when {@code k} runs are merged at once: a share of the merge memory. */
    static int readBuffer(int k) {
        long share = MERGE_MEMORY_BYTES / Math.max(1, k);
        // a multiple of 4 KiB, the page size of the reads from the spool
        return (int) Math.max(MIN_READ_BUFFER, Math.min(READ_BUFFER, share & ~4095L));
    }

    /** The merge order: by unsigned (run, event), then by the run's rank; an exhausted run comes after all. */
    private static boolean before(Reader a, Reader b) {
        if (a.done || b.done) {
            return !a.done || (b.done && a.rank < b.rank);
        }
        int c = Integer.compareUnsigned(a.runNumber, b.runNumber);
        if (c == 0) {
            c = Long.compareUnsigned(a.event, b.event);
        }
        return c != 0 ? c < 0 : a.rank < b.rank;
    }

    /** One open run: the head (key, file index, length) of its next event, then its payload. */
    private final class Reader {
        final int rank;
        final Run run;
        final RecordInput in;
        boolean done;
        byte[] large;
        /** Decodes the events whose token strings are coded ({@link RunOutput#CODED}). */
        final TokenPrefixCoder coder = new TokenPrefixCoder();
        int runNumber;
        long event;
        int guid;
        /** Bytes of the current event in the run (coded or not), and whether they are coded. */
        int length;
        boolean coded;
        /** The current event's bytes, decoded: set by {@link #payload}. */
        byte[] payloadBuf;
        int payloadOff;
        int payloadLen;

        Reader(int rank, Run run, int buffer) throws IOException {
            this.rank = rank;
            this.run = run;
            this.in = new RecordInput(run.run().open(), buffer);
        }

        boolean advance() throws IOException {
            int first = in.read();
            if (first < 0) {
                return false;
            }
            try {
                runNumber = first << 24 | in.readByte() << 16 | in.readByte() << 8 | in.readByte();
                event = in.readLong();
                guid = in.readInt();
                length = in.readInt();
            } catch (EOFException e) {
                throw truncated(e);
            }
            coded = (length & RunOutput.CODED) != 0;
            length &= ~RunOutput.CODED;
            if (guid < 0) {
                throw new IOException("dataset " + label + ": run " + run.run() + " is corrupt (length " + length
                        + ", file " + guid + ")");
            }
            return true;
        }

        /** Reads the current event's bytes, decoded: {@link #payloadBuf} at {@link #payloadOff}. */
        void payload() throws IOException {
            byte[] buf;
            int at;
            try {
                if (length <= in.buffer().length) {
                    buf = in.buffer();
                    at = in.take(length);
                } else {
                    if (large == null || large.length < length) {
                        large = new byte[length];
                    }
                    buf = large;
                    at = 0;
                    in.readFully(large, 0, length);
                }
            } catch (EOFException e) {
                throw truncated(e);
            }
            if (!coded) {
                // an event written as it is leaves no tokens for the next one to be coded against
                coder.reset();
                payloadBuf = buf;
                payloadOff = at;
                payloadLen = length;
                return;
            }
            if (!coder.decode(buf, at, length)) {
                throw new IOException("dataset " + label + ": run " + run.run() + " is corrupt (an event's coded"
                        + " token strings do not decode, " + length + " bytes)");
            }
            payloadBuf = coder.output();
            payloadOff = 0;
            payloadLen = coder.length();
        }

        private IOException truncated(EOFException e) {
            return new IOException("dataset " + label + ": run " + run.run() + " is truncated", e);
        }
    }
}
