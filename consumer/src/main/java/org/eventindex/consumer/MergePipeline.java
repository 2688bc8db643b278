package org.eventindex.consumer;

import org.eventindex.consolidated.StageRefs;
import org.eventindex.spb.EventScan;
import org.eventindex.spb.SavedScan;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Runs the k-way merge of sorted events (a {@link Source}: {@link RunMerger}) on the calling
 * thread, reads each event's fields and stage references, and hands the rows to a sink (the Parquet writer) in
 * batches. Two batches take turns: while the sink's second encoding thread still encodes one batch (the writer may
 * keep using a batch until its next call), the next one is merged here. Merging and both halves of the encoding then
 * share two cores with two busy threads, and no queue stands between them. Order is preserved.
 * <p>
 * The events' fields are restored from the scan saved with each event ({@link SavedScan}: the runs of
 * {@link SortBuffer}, whose events were scanned on the fetch threads), not scanned again.
 */
final class MergePipeline {
    private static final int BATCH = 512;

    /**
     * A sorted row: the scanned event (a copy of its serialization, in an array the row keeps), its file index and
     * its stage references. Reused.
     */
    static final class Row {
        final EventScan event = new EventScan();
        final StageRefs refs = new StageRefs();
        int guid;
        private byte[] bytes = new byte[1024];
    }

    /** The sorted events: feeds them, in order, to a sink. */
    @FunctionalInterface
    interface Source {
        void merge(RunMerger.Sink sink) throws IOException;
    }

    /**
     * Receives the rows in order, a batch at a time. A batch is left unchanged until the call after next (or the end
     * of {@link #run}), so the sink may still read it, on another thread, after the call returns and during the next
     * one.
     */
    @FunctionalInterface
    interface RowSink {
        void accept(List<Row> rows) throws IOException;
    }

    /** A sink's failure, carried through the source's merge unchanged (it is not a failure of the merge). */
    private static final class SinkFailure extends RuntimeException {
        SinkFailure(IOException cause) {
            super(cause);
        }

        @Override
        public synchronized IOException getCause() {
            return (IOException) super.getCause();
        }
    }

    private MergePipeline() {
    }

    /**
     * Merges {@code source}, whose events are saved scans ({@link SavedScan}), into {@code sink}; {@code label} names
     * the dataset in errors.
     */
    static void run(Source source, String label, IntFunction<String> guidName, RowSink sink) throws IOException {
        Rows rows = new Rows(guidName, sink);
        try {
            source.merge(rows);
        } catch (SinkFailure f) {
            throw f.getCause();
        } catch (IOException e) {
            throw new IOException("dataset " + label + ": merging sorted events failed: " + e.getMessage(), e);
        }
        rows.end();
    }

    /** Turns merged events into rows, filling the two batches in turn. */
    private static final class Rows implements RunMerger.Sink {
        private final IntFunction<String> guidName;
        private final RowSink sink;
        private final StageRefs.Resolver resolver = new StageRefs.Resolver();
        private final List<Row> first = newBatch();
        private final List<Row> second = newBatch();
        private List<Row> filling = first;
        private int n;

        Rows(IntFunction<String> guidName, RowSink sink) {
            this.guidName = guidName;
            this.sink = sink;
        }

        @Override
        public void accept(int guid, byte[] buf, int off, int len) throws IOException {
            Row row = filling.get(n++);
            if (row.bytes.length < len) {
                row.bytes = new byte[Math.max(len, 2 * row.bytes.length)];
            }
            System.arraycopy(buf, off, row.bytes, 0, len);
            if (!SavedScan.restore(row.bytes, 0, len, row.event)) {
                throw new IOException("a sorted event of file " + guidName.apply(guid) + " is not a saved event scan");
            }
            row.guid = guid;
            resolver.resolve(row.event, guid, guidName.apply(guid), row.refs);
            if (n == BATCH) {
                try {
                    sink.accept(filling);
                } catch (IOException e) {
                    throw new SinkFailure(e);
                }
                filling = filling == first ? second : first;
                n = 0;
            }
        }

        /** Hands over the last, partial batch. */
        void end() throws IOException {
            if (n > 0) {
                sink.accept(filling.subList(0, n));
            }
        }
    }

    private static List<Row> newBatch() {
        List<Row> b = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            b.add(new Row());
        }
        return b;
    }
}
