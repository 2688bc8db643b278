package org.eventindex.consolidated;

import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.schema.MessageType;
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
 * The rows go straight into parquet-mr's column writers ({@link EventColumns}); this class does the part of
 * parquet-mr's record writer that remains: one page store and column store per row group, a new row group once the
 * buffered data reaches {@link ConsolidatedSchema#ROW_GROUP_BYTES}, the footer.
 */
public final class ConsolidatedFileWriter implements Closeable {
    private static final String TOKEN_PATH = ConsolidatedSchema.EITOKEN + "." + ConsolidatedSchema.LIST + "."
            + ConsolidatedSchema.ELEMENT + "." + ConsolidatedSchema.TOKEN;
    private static final long POOL_BYTES = 64L << 20;
    /** Rows between two checks of the buffered row group size (a row is ~0.2-0.5 KB). */
    private static final int SIZE_CHECK_ROWS = 512;
    /** The writer name parquet-mr's record writer records in the footer; kept for readers that show it. */
    static final String WRITER_MODEL_KEY = "writer.model.name";
    static final String WRITER_MODEL = "eventindex";
    private static final AtomicInteger ENCODERS = new AtomicInteger();

    private final ParquetProperties props;
    private final long rowGroupBytes;
    private final ByteBufferAllocator allocator;
    private final ParquetFileWriter file;
    private final EventColumns columns = new EventColumns();
    private final EventScan ownScan = new EventScan();
    private final StageRefs ownRefs = new StageRefs();
    private final StageRefs.Resolver resolver = new StageRefs.Resolver();
    private final RowDigest digest = new RowDigest();
    private final Half first;
    private final Half second;
    /** Encodes the second half of the columns of a batch while the calling thread encodes the first; or null. */
    private final ExecutorService encoder;
    private int rowGroups;
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
        this(out, new RecyclingAllocator(POOL_BYTES), twoThreads, ConsolidatedSchema.ROW_GROUP_BYTES);
    }

    /**
     * With the given page buffer allocator (tests compare the recycling one with plain heap buffers) and row group
     * size (tests use small ones to get many row groups).
     */
    ConsolidatedFileWriter(OutputStream out, ByteBufferAllocator allocator, boolean twoThreads, long rowGroupBytes)
            throws IOException {
        this.rowGroupBytes = rowGroupBytes;
        this.allocator = Objects.requireNonNull(allocator, "allocator is null");
        this.props = ParquetProperties.builder()
                .withPageSize(ConsolidatedSchema.PAGE_BYTES)
                .withDictionaryPageSize(ConsolidatedSchema.PAGE_BYTES * 4)
                .withDictionaryEncoding(true)
                // page buffers are recycled instead of allocated again for every page (bounded)
                .withAllocator(allocator)
                // Lookups select by (run, event), file GUID or stage GUID: those keep min/max statistics (and the
                // page index). Tokens and masks are nearly unique per event: statistics and dictionaries on them
                // cost CPU and footer space for no pruning.
                .withStatisticsEnabled(ConsolidatedSchema.L1_PASSED_TRIG_MASK, false)
                .withStatisticsEnabled(ConsolidatedSchema.L2_PASSED_TRIG_MASK, false)
                .withStatisticsEnabled(ConsolidatedSchema.EF_PASSED_TRIG_MASK, false)
                .withStatisticsEnabled(TOKEN_PATH, false)
                .withDictionaryEncoding(TOKEN_PATH, false)
                .withStatisticsEnabled(ConsolidatedSchema.TK_RAW, false)
                .withStatisticsEnabled(ConsolidatedSchema.TK_ESD, false)
                .withStatisticsEnabled(ConsolidatedSchema.TK_AOD, false)
                .withStatisticsEnabled(ConsolidatedSchema.TK, false)
                .withDictionaryEncoding(ConsolidatedSchema.TK_RAW, false)
                .withDictionaryEncoding(ConsolidatedSchema.TK_ESD, false)
                .withDictionaryEncoding(ConsolidatedSchema.TK_AOD, false)
                .withDictionaryEncoding(ConsolidatedSchema.TK, false)
                // Unique per event by construction (event number, nanosecond offset, extended L1 ID): a dictionary
                // never pays, and parquet-mr would fill one per row group (64k entries) before falling back.
                .withDictionaryEncoding(ConsolidatedSchema.EVENT_NUMBER, false)
                .withDictionaryEncoding(ConsolidatedSchema.TIME_STAMP_NS_OFFSET, false)
                .withDictionaryEncoding(ConsolidatedSchema.EXTENDED_LEVEL1_ID, false)
                .build();
        this.file = new ParquetFileWriter(new StreamOutputFile(Objects.requireNonNull(out, "out is null")),
                ConsolidatedSchema.SCHEMA, ParquetFileWriter.Mode.OVERWRITE, rowGroupBytes,
                0, null, props);
        // what must be released comes after the last step that can fail without releasing it
        this.first = new Half(EventColumns.FIRST);
        this.second = new Half(EventColumns.SECOND);
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
        if (first.store.getBufferedSize() + second.store.getBufferedSize() >= rowGroupBytes) {
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
        first.start();
        second.start();
        columns.bind(first.store, second.store);
        groupRows = 0;
    }

    /** Writes the buffered rows as a row group (none: nothing) and releases the group's buffers. */
    private void flushRowGroup() throws IOException {
        try {
            if (groupRows > 0) {
                first.store.flush();
                second.store.flush();
                file.startBlock(groupRows);
                // the halves' columns in schema order: the first half's, then the second's
                first.pages.flushToFileWriter(file);
                second.pages.flushToFileWriter(file);
                file.endBlock();
                rowGroups++;
            }
        } finally {
            first.closeStores();
            second.closeStores();
        }
    }

    private void release() {
        try {
            first.closeStores();
            second.closeStores();
        } finally {
            first.codecs.release();
            second.codecs.release();
            if (encoder != null) {
                encoder.shutdownNow();
            }
        }
    }

    /** One half of the columns: its own compressor (not thread-safe) and, per row group, its page and column stores. */
    private final class Half {
        final MessageType schema;
        final CodecFactory codecs;
        final CompressionCodecFactory.BytesInputCompressor compressor;
        ColumnChunkPageWriteStore pages;
        ColumnWriteStore store;

        Half(MessageType schema) {
            this.schema = schema;
            this.codecs = new CodecFactory(new PlainParquetConfiguration(), props.getPageSizeThreshold());
            this.compressor = codecs.getCompressor(CompressionCodecName.SNAPPY);
        }

        void start() {
            pages = new ColumnChunkPageWriteStore(compressor, schema, allocator, props.getColumnIndexTruncateLength(),
                    props.getPageWriteChecksumEnabled(), null, rowGroups);
            store = props.newColumnWriteStore(schema, pages, pages);
        }

        void closeStores() {
            if (store != null) {
                store.close();
                pages.close();
                store = null;
                pages = null;
            }
        }
    }
}
