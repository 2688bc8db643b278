package org.eventindex.consolidated;

import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.util.AutoCloseables;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;
import java.util.Objects;

/**
 * Writes the rows of one consolidated file, already sorted by (run, event), to a stream (the HDFS temp file), then
 * the footer with the caller's metadata. Output bytes depend only on the rows and the metadata (no clock, no host):
 * a redelivered signal rewrites the same bytes. The stream is flushed, never closed.
 */
public final class ConsolidatedFileWriter implements Closeable {
    private static final String TOKEN_PATH = ConsolidatedSchema.EITOKEN + "." + ConsolidatedSchema.LIST + "."
            + ConsolidatedSchema.ELEMENT + "." + ConsolidatedSchema.TOKEN;
    private static final long POOL_BYTES = 64L << 20;
    private final EventWriteSupport support;
    private final ParquetWriter<EventWriteSupport.Row> writer;
    private final EventWriteSupport.Row row = new EventWriteSupport.Row();
    private final RowDigest digest = new RowDigest();
    private long events;
    private boolean closed;

    public ConsolidatedFileWriter(OutputStream out) throws IOException {
        this(out, new RecyclingAllocator(POOL_BYTES));
    }

    /** With the given page buffer allocator (tests compare the recycling one with plain heap buffers). */
    ConsolidatedFileWriter(OutputStream out, ByteBufferAllocator allocator) throws IOException {
        this.support = new EventWriteSupport();
        this.writer = new Builder(new StreamOutputFile(Objects.requireNonNull(out, "out is null")), support)
                .withConf(new PlainParquetConfiguration())
                .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
                // page buffers are recycled instead of allocated again for every page (bounded)
                .withAllocator(allocator)
                .withCompressionCodec(CompressionCodecName.SNAPPY)
                .withRowGroupSize(ConsolidatedSchema.ROW_GROUP_BYTES)
                .withPageSize(ConsolidatedSchema.PAGE_BYTES)
                .withDictionaryPageSize(ConsolidatedSchema.PAGE_BYTES * 4)
                .withDictionaryEncoding(true)
                .withMaxPaddingSize(0)
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
    }

    /** Appends one row; rows must come in (run, event) order. */
    public void write(EIEvent_p1 event, String guid) throws IOException {
        write(event, event.toByteArray(), guid);
    }

    /** As {@link #write(EIEvent_p1, String)}, with the event's serialization at hand (saves serializing it). */
    public void write(EIEvent_p1 event, byte[] serialized, String guid) throws IOException {
        write(event, serialized, guid, null);
    }

    /**
     * As {@link #write(EIEvent_p1, byte[], String)}, with the event's stage references already computed (by
     * {@link StageRefs#of} on another thread, then {@link StageRefs#copyRefs}); null computes them here.
     */
    public void write(EIEvent_p1 event, byte[] serialized, String guid, StageRefs refs) throws IOException {
        row.event = event;
        row.guid = guid;
        row.refs = refs;
        writer.write(row);
        digest.add(serialized, guid);
        events++;
    }

    public long events() {
        return events;
    }

    /**
     * Writes the footer with {@code metadata} (built by the caller, typically with {@link #events()} and the rows'
     * checksum from {@link #finishDigest()}), then flushes the stream.
     */
    public void finish(Map<String, String> metadata) throws IOException {
        support.metadata = Map.copyOf(metadata);
        closed = true;
        closeWriter();
    }

    /** Completes and returns the row checksum; call once, after the last row. */
    public String finishDigest() {
        return digest.hex();
    }

    /** Abandons the file (the caller discards the stream's content). */
    @Override
    public void close() throws IOException {
        if (!closed) {
            closed = true;
            support.metadata = Map.of();
            closeWriter();
        }
    }

    /** Closes the Parquet writer; a stream failure comes out as the stream's IOException, not Parquet's wrapper. */
    private void closeWriter() throws IOException {
        try {
            writer.close();
        } catch (AutoCloseables.ParquetCloseResourceException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw e;
        }
    }

    private static final class Builder extends ParquetWriter.Builder<EventWriteSupport.Row, Builder> {
        private static final String TOKEN_PATH = ConsolidatedSchema.EITOKEN + "." + ConsolidatedSchema.LIST + "."
            + ConsolidatedSchema.ELEMENT + "." + ConsolidatedSchema.TOKEN;
    private final EventWriteSupport support;

        Builder(OutputFile file, EventWriteSupport support) {
            super(file);
            this.support = support;
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        protected EventWriteSupport getWriteSupport(org.apache.hadoop.conf.Configuration conf) {
            return support;
        }

        @Override
        protected EventWriteSupport getWriteSupport(org.apache.parquet.conf.ParquetConfiguration conf) {
            return support;
        }
    }

    /** A Parquet output over a plain stream, counting the position; never closes the stream. */
    private static final class StreamOutputFile implements OutputFile {
        private final OutputStream out;

        StreamOutputFile(OutputStream out) {
            this.out = out;
        }

        @Override
        public PositionOutputStream create(long blockSizeHint) {
            return new PositionOutputStream() {
                private long pos;

                @Override
                public long getPos() {
                    return pos;
                }

                @Override
                public void write(int b) throws IOException {
                    out.write(b);
                    pos++;
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                    pos += len;
                }

                @Override
                public void flush() throws IOException {
                    out.flush();
                }

                @Override
                public void close() throws IOException {
                    try {
                        out.flush();
                    } catch (IOException e) {
                        // HDFS streams throw the same stored exception on every call after a failure; Parquet closes
                        // this stream in a try-with-resources after a failed write, and adding an exception to
                        // itself as suppressed hides the cause behind "Self-suppression not permitted".
                        throw new IOException("closing the consolidated file's stream failed: " + e.getMessage(), e);
                    }
                }
            };
        }

        @Override
        public PositionOutputStream createOrOverwrite(long blockSizeHint) {
            return create(blockSizeHint);
        }

        @Override
        public boolean supportsBlockSize() {
            return false;
        }

        @Override
        public long defaultBlockSize() {
            return 0;
        }
    }
}
