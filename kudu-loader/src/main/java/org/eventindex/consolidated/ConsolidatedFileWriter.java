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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

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
    private final EventColumns columns = new EventColumns(new PageCompressor(), new PageCompressor());
    private final EventScan ownScan = new EventScan();
    private final StageRefs ownRefs = new StageRefs();
    private final StageRefs.Resolver resolver = new StageRefs.Resolver();
    private final RowDigest digest = new RowDigest();
    /** Encodes the second half of the columns of a batch while the calling thread encodes the first; or null. */
    private final ExecutorService encoder;
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
    ConsolidatedFileWriter(OutputStream out, boolean twoThreads, long rowGroupBytes) throws IOException {
        this.rowGroupBytes = rowGroupBytes;
        // the defaults that matter here: page CRCs on, column index min/max truncated to 64 bytes
        ParquetProperties props = ParquetProperties.builder().build();
        this.file = new ParquetFileWriter(new StreamOutputFile(Objects.requireNonNull(out, "out is null")),
                ConsolidatedSchema.SCHEMA, ParquetFileWriter.Mode.OVERWRITE, rowGroupBytes,
                0, null, props);
        // what must be released comes after the last step that can fail without releasing it
        this.encoder = twoThreads ? Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "parquet-encode-" + ENCODERS.incrementAndGet());
            t.setDaemon(true);
            return t;
        }) : null;
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

    /** Rows handed over together: scanned events, their file GUIDs and their stage references (all given). */
    public interface RowBatch {
        int size();

        EventScan event(int i);

        String guid(int i);

        StageRefs refs(int i);
    }

    /**
     * Appends the rows of {@code batch}, in order (the scanned bytes are each event's canonical serialization,
     * which the row checksum covers; the stage references come from a {@link StageRefs.Resolver}, typically run on
     * another thread); with two threads, the second half of the columns is encoded on the writer's thread
     * meanwhile, so callers with two threads should hand over batches of hundreds of rows.
     */
    public void write(RowBatch batch) throws IOException {
        checkOpen();
        int n = batch.size();
        // in segments ending where single rows would check the row group size, so the file does not depend on how
        // the rows were batched
        for (int from = 0; from < n; ) {
            int to = (int) Math.min(n, from + SIZE_CHECK_ROWS - groupRows % SIZE_CHECK_ROWS);
            writeSegment(batch, from, to);
            events += to - from;
            groupRows += to - from;
            if (groupRows % SIZE_CHECK_ROWS == 0) {
                checkRowGroupSize();
            }
            from = to;
        }
    }

    private void writeSegment(RowBatch batch, int from, int to) throws IOException {
        if (encoder == null) {
            writeFirstHalf(batch, from, to);
            writeSecondHalf(batch, from, to);
            return;
        }
        Future<?> other = encoder.submit(() -> writeSecondHalf(batch, from, to));
        try {
            writeFirstHalf(batch, from, to);
        } finally {
            // the second half uses the batch: it must be done before the caller reuses it
            awaitSecondHalf(other);
        }
    }

    private void writeFirstHalf(RowBatch batch, int from, int to) {
        for (int i = from; i < to; i++) {
            columns.writeFirst(batch.event(i));
        }
    }

    /** The second half of the columns and the row checksum (which balances the two threads' work). */
    private void writeSecondHalf(RowBatch batch, int from, int to) {
        for (int i = from; i < to; i++) {
            EventScan e = batch.event(i);
            String guid = batch.guid(i);
            columns.writeSecond(e, guid, batch.refs(i));
            digest.add(e.buf(), e.offset(), e.length(), guid);
        }
    }

    private static void awaitSecondHalf(Future<?> other) throws IOException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    other.get();
                    return;
                } catch (InterruptedException e) {
                    // the second half still uses the batch: wait for it, then pass the interrupt on
                    interrupted = true;
                }
            }
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException re) {
                throw re;
            }
            if (c instanceof Error err) {
                throw err;
            }
            throw new IOException("encoding the second half of the columns failed: " + c, c);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("consolidated file writer is closed");
        }
    }

    private void checkRowGroupSize() throws IOException {
        if (columns.bufferedBytes() >= rowGroupBytes) {
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
            flushRowGroup();
            Map<String, String> footer = new HashMap<>(metadata);
            footer.put(WRITER_MODEL_KEY, WRITER_MODEL);
            file.end(footer);
        } finally {
            release();
        }
    }

    /** Completes and returns the row checksum; call once, after the last row. */
    public String finishDigest() {
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

    /** Writes the buffered rows as a row group (none: nothing); the encoders are empty afterwards either way. */
    private void flushRowGroup() throws IOException {
        try {
            if (groupRows > 0) {
                file.startBlock(groupRows);
                // the halves' columns in schema order: the first half's, then the second's
                columns.writeTo(file);
                file.endBlock();
            }
        } finally {
            columns.reset();
        }
    }

    private void release() {
        try {
            columns.reset();
        } finally {
            if (encoder != null) {
                encoder.shutdownNow();
            }
        }
    }
}
