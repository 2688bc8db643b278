package org.eventindex.consolidated;

import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.spb.EventScan;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Writes the rows of one consolidated file, already sorted by (run, event), to a stream (the HDFS temp file), then
 * the footer with the caller's metadata. Output bytes depend only on the rows and the metadata (no clock, no host):
 * a redelivered signal rewrites the same bytes. The stream is flushed, never closed.
 * <p>
 * The rows go straight into our own page encoders for this schema ({@link EventColumns}), which buffer a row group's
 * compressed pages; parquet-mr's {@link ParquetFileWriter} lays out the file (page headers and checksums, column and
 * offset indexes, footer). This class starts a new row group once the buffered data reaches
 * {@link ConsolidatedSchema#ROW_GROUP_BYTES} and writes the footer.
 */
public final class ConsolidatedFileWriter implements Closeable {
    /** Rows between two checks of the buffered row group size (a row is ~0.2-0.5 KB). */
    private static final int SIZE_CHECK_ROWS = 512;
    /** The writer name parquet-mr's record writer records in the footer; kept for readers that show it. */
    static final String WRITER_MODEL_KEY = "writer.model.name";
    static final String WRITER_MODEL = "eventindex";
    private static final AtomicInteger ENCODERS = new AtomicInteger();

    private final long rowGroupBytes;
    private final ParquetFileWriter file;
    /**
     * The row group being encoded, and with two threads a second one: while one row group's column chunks go out
     * to the stream on {@link #flusher}, the rows of the next are encoded into the other.
     */
    private final Columns[] sets;
    private int current;
    /** The write of each set's last row group, or null: the set is reused only once it has been written. */
    private final Future<?>[] flushes;
    private final EventScan ownScan = new EventScan();
    private final StageRefs ownRefs = new StageRefs();
    private final StageRefs.Resolver resolver = new StageRefs.Resolver();
    private final RowDigest digest = new RowDigest();
    /** Encodes the second half of the columns of a batch while the calling thread encodes the first; or null. */
    private final WorkerThread encoder;
    /**
     * The second half of the last segment, which may still be running on {@link #encoder} after {@link #write}
     * returned (the caller keeps that batch unchanged until the next call); or null.
     */
    private Future<?> pending;
    /** Whether the row group's size is to be checked once {@link #pending} is done. */
    private boolean sizeCheckDue;
    /** Writes full row groups to the stream, in order, while the next is encoded (with two threads); or null. */
    private final WorkerThread flusher;
    /** Set by the first failed row group write: the file is broken, later row groups are not written. */
    private volatile Throwable flushFailure;
    private long groupRows;
    private long events;
    private boolean closed;

    public ConsolidatedFileWriter(OutputStream out) throws IOException {
        this(out, false);
    }

    /**
     * @param twoThreads encode the columns of {@link #write(RowBatch)} on two threads (this one and a thread of the
     *                   writer's own); the file is the same either way
     */
    public ConsolidatedFileWriter(OutputStream out, boolean twoThreads) throws IOException {
        this(out, twoThreads, ConsolidatedSchema.ROW_GROUP_BYTES);
    }

    /** With the given row group size (tests use small ones to get many row groups). */
    public ConsolidatedFileWriter(OutputStream out, boolean twoThreads, long rowGroupBytes) throws IOException {
        this(out, twoThreads, rowGroupBytes, () -> new EventColumns(new PageCompressor(), new PageCompressor()));
    }

    /**
     * With other column encoders than the writer's own (the consumer benchmark compares them with parquet-mr's
     * column writers in the same run; decision 0022).
     *
     * @param columns makes the encoders of one row group (two with two threads, used in turn)
     */
    public ConsolidatedFileWriter(OutputStream out, boolean twoThreads, long rowGroupBytes,
                                  Supplier<? extends Columns> columns) throws IOException {
        Objects.requireNonNull(columns, "columns is null");
        this.rowGroupBytes = rowGroupBytes;
        // the defaults that matter here: page CRCs on, column index min/max truncated to 64 bytes
        ParquetProperties props = ParquetProperties.builder().build();
        this.file = new ParquetFileWriter(new StreamOutputFile(Objects.requireNonNull(out, "out is null")),
                ConsolidatedSchema.SCHEMA, ParquetFileWriter.Mode.OVERWRITE, rowGroupBytes,
                0, null, props);
        int sets = twoThreads ? 2 : 1;
        this.sets = new Columns[sets];
        for (int i = 0; i < sets; i++) {
            // each set has its own page buffers: the flusher finishes a set's last pages while the next is encoded
            this.sets[i] = columns.get();
        }
        this.flushes = new Future<?>[sets];
        // what must be released comes after the last step that can fail without releasing it
        int n = ENCODERS.incrementAndGet();
        this.encoder = twoThreads ? new WorkerThread("parquet-encode-" + n) : null;
        this.flusher = twoThreads ? new WorkerThread("parquet-flush-" + n) : null;
        boolean ok = false;
        try {
            file.start();
            startRowGroup();
            ok = true;
        } finally {
            if (!ok) {
                release();
            }
        }
    }

    /** Appends one row; rows must come in (run, event) order. */
    public void write(EIEvent_p1 event, String guid) throws IOException {
        checkOpen();
        // the last row's second half may still read the scan reused here
        settle();
        byte[] bytes = event.toByteArray();
        try {
            // canonical already, unless the message carries unknown fields (dropped, as the columns have no place)
            ownScan.scanCanonical(bytes, 0, bytes.length);
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new IllegalStateException("protobuf does not parse its own serialization of event "
                    + event.getEventNumber(), e);
        }
        // a malformed token fails here, before any column of the row is written
        resolver.resolve(ownScan, guid, ownRefs);
        write(new RowBatch() {
            @Override
            public int size() {
                return 1;
            }

            @Override
            public EventScan event(int i) {
                return ownScan;
            }

            @Override
            public String guid(int i) {
                return guid;
            }

            @Override
            public StageRefs refs(int i) {
                return ownRefs;
            }
        });
    }

    /**
     * The column encoders of one row group of {@link ConsolidatedSchema#SCHEMA}, in two halves that share nothing,
     * so that two threads fill them: {@link #writeFirst} the event's own fields, {@link #writeSecond} the tokens,
     * the file GUID and the stage GUIDs. The writer's own are {@link EventColumns}.
     */
    public interface Columns {
        /** The event's own fields (the first half's columns), ending the row there. */
        void writeFirst(EventScan e);

        /** Tokens, file GUID and stage references (the second half's columns), ending the row there. */
        void writeSecond(EventScan e, String fileGuid, StageRefs refs);

        /** Bytes buffered for the row group, both halves (called with no half being written). */
        long bufferedBytes();

        /** Writes the row group's column chunks in schema order, then forgets them. */
        void writeTo(ParquetFileWriter file) throws IOException;

        /** Drops the buffered row group. */
        void reset();
    }

    /** Rows handed over together: scanned events, their file GUIDs and their stage references (all given). */
    public interface RowBatch {
        int size();

        EventScan event(int i);

        String guid(int i);

        StageRefs refs(int i);
    }

    /**
     * Appends the rows of {@code batch}, in order (the scanned bytes are each event's canonical serialization,
     * which the row checksum covers; the stage references come from a {@link StageRefs.Resolver}). With two
     * threads, the second half of the columns is encoded on the writer's thread while this one encodes the first,
     * and the last segment's second half may still be running when this returns: <em>the caller must leave the
     * batch unchanged until its next call of {@link #write}, {@link #finishDigest}, {@link #finish} or
     * {@link #close}</em> (and so can prepare the next batch meanwhile in another one). Callers with two threads
     * should hand over batches of hundreds of rows.
     */
    public void write(RowBatch batch) throws IOException {
        checkOpen();
        int n = batch.size();
        // in segments ending where single rows would check the row group size, so the file does not depend on how
        // the rows were batched; a segment's check is made once both of its halves are done
        for (int from = 0; from < n; ) {
            settle();
            int to = (int) Math.min(n, from + SIZE_CHECK_ROWS - groupRows % SIZE_CHECK_ROWS);
            writeSegment(batch, from, to);
            events += to - from;
            groupRows += to - from;
            sizeCheckDue = groupRows % SIZE_CHECK_ROWS == 0;
            from = to;
        }
        if (encoder == null) {
            settle();
        }
    }

    private void writeSegment(RowBatch batch, int from, int to) throws IOException {
        if (encoder == null) {
            writeFirstHalf(batch, from, to);
            writeSecondHalf(batch, from, to);
            return;
        }
        pending = encoder.submit(() -> {
            writeSecondHalf(batch, from, to);
            return null;
        });
        boolean ok = false;
        try {
            writeFirstHalf(batch, from, to);
            ok = true;
        } finally {
            if (!ok) {
                // the second half uses the batch: it must be done before the failure reaches the caller
                awaitPending();
            }
        }
    }

    /** Waits for the last segment's second half, then makes the row group size check that segment was due. */
    private void settle() throws IOException {
        awaitPending();
        if (sizeCheckDue) {
            sizeCheckDue = false;
            checkRowGroupSize();
        }
    }

    private void writeFirstHalf(RowBatch batch, int from, int to) {
        Columns columns = sets[current];
        for (int i = from; i < to; i++) {
            columns.writeFirst(batch.event(i));
        }
    }

    /** The second half of the columns and the row checksum (which balances the two threads' work). */
    private void writeSecondHalf(RowBatch batch, int from, int to) {
        // the calling thread changes sets only between segments, after this one is done
        Columns columns = sets[current];
        for (int i = from; i < to; i++) {
            EventScan e = batch.event(i);
            String guid = batch.guid(i);
            columns.writeSecond(e, guid, batch.refs(i));
            digest.add(e.buf(), e.offset(), e.length(), guid);
        }
    }

    /** Waits for the last segment's second half, if any; it is forgotten whether it succeeded or not. */
    private void awaitPending() throws IOException {
        Future<?> other = pending;
        if (other != null) {
            pending = null;
            // the second half still uses the batch: wait for it even when interrupted, then pass the interrupt on
            WorkerThread.await(other, "encoding the second half of the columns", false);
        }
    }

    /**
     * Waits for a row group write handed to the flusher; an interrupt ends the wait (whoever gives up on the file
     * closes the writer, which stops the flusher).
     */
    private static void awaitFlush(Future<?> flush) throws IOException {
        WorkerThread.await(flush, "writing a row group", true);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("consolidated file writer is closed");
        }
    }

    private void checkRowGroupSize() throws IOException {
        if (sets[current].bufferedBytes() >= rowGroupBytes) {
            flushRowGroup();
            startRowGroup();
        }
    }

    public long events() {
        return events;
    }

    /**
     * Writes the footer with {@code metadata} (built by the caller, typically with {@link #events()} and the rows'
     * checksum from {@link #finishDigest()}), then flushes the stream.
     */
    public void finish(Map<String, String> metadata) throws IOException {
        checkOpen();
        closed = true;
        try {
            settle();
            flushRowGroup();
            awaitFlushes();
            Map<String, String> footer = new HashMap<>(metadata);
            footer.put(WRITER_MODEL_KEY, WRITER_MODEL);
            file.end(footer);
        } finally {
            release();
        }
    }

    /** Completes and returns the row checksum; call once, after the last row. */
    public String finishDigest() throws IOException {
        checkOpen();
        // the last rows' checksum is added by the second half
        settle();
        return digest.hex();
    }

    /** Abandons the file: nothing more is written (the caller discards the stream's content). */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            release();
        }
    }

    private void startRowGroup() {
        groupRows = 0;
    }

    /**
     * Writes the buffered rows as a row group (none: nothing). With two threads the write goes to the flusher and
     * the next rows go to the other set, once its previous row group is written; a failed write is reported here
     * or by {@link #finish}. The set is empty after its write either way.
     */
    private void flushRowGroup() throws IOException {
        Columns set = sets[current];
        long rows = groupRows;
        if (flusher == null) {
            writeRowGroup(set, rows);
            return;
        }
        flushes[current] = flusher.submit(() -> {
            if (flushFailure != null) {
                // an earlier row group failed: the file is broken, write nothing more to it
                set.reset();
                return null;
            }
            try {
                writeRowGroup(set, rows);
            } catch (IOException | RuntimeException | Error e) {
                flushFailure = e;
                throw e;
            }
            return null;
        });
        current = (current + 1) % sets.length;
        Future<?> previous = flushes[current];
        if (previous != null) {
            flushes[current] = null;
            awaitFlush(previous);
        }
    }

    private void writeRowGroup(Columns set, long rows) throws IOException {
        try {
            if (rows > 0) {
                file.startBlock(rows);
                // the halves' columns in schema order: the first half's, then the second's
                set.writeTo(file);
                file.endBlock();
            }
        } finally {
            set.reset();
        }
    }

    /** Waits until every row group handed to the flusher is written; the first failure is thrown. */
    private void awaitFlushes() throws IOException {
        for (int i = 0; i < flushes.length; i++) {
            // in the order they were handed over: the set after the current one holds the older row group
            int s = (current + i) % flushes.length;
            Future<?> f = flushes[s];
            if (f != null) {
                flushes[s] = null;
                awaitFlush(f);
            }
        }
    }

    private void release() {
        // a second half still uses its set and the caller's batch: let it end before anything is dropped
        try {
            awaitPending();
        } catch (IOException | RuntimeException e) {
            // the file is abandoned or has failed already, and that failure is what the caller reports
        }
        try {
            // a row group still being written uses its set: stop the flusher and wait before the sets are dropped
            if (flusher == null || flusher.stop()) {
                for (Columns set : sets) {
                    set.reset();
                }
            }
        } finally {
            if (encoder != null) {
                // idle here: every segment handed to it was waited for
                encoder.stop();
            }
        }
    }
}
