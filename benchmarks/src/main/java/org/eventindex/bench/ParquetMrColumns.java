package org.eventindex.bench;

import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ColumnChunkPageWriteStore;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.eventindex.consolidated.ConsolidatedFileWriter;
import org.eventindex.consolidated.ConsolidatedSchema;
import org.eventindex.consolidated.StageRefs;
import org.eventindex.spb.EventScan;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/**
 * The consolidated file's columns written by parquet-mr's own column writers ({@link ColumnWriteStore} over a
 * {@link ColumnChunkPageWriteStore}, data page v1, Snappy, page CRCs and page index as parquet-mr writes them), for
 * the benchmark that weighs the project's own page encoders against them ({@code bin/bench-consumer --pairs N},
 * decision 0022). The same schema, halves, page size, dictionary page size and per-column choices as the own
 * encoders ({@code EventColumns}): no dictionary on tokens and on the unique-per-event columns, no statistics on
 * masks and tokens. The values go straight into the column writers with their levels, as the consumer did before
 * decision 0010, and each half has its own compressor, so two threads can fill one row group.
 */
final class ParquetMrColumns implements ConsolidatedFileWriter.Columns {
    private static final int SPLIT = 18;
    private static final String TOKEN_PATH = String.join(".", ConsolidatedSchema.EITOKEN, ConsolidatedSchema.LIST,
            ConsolidatedSchema.ELEMENT, ConsolidatedSchema.TOKEN);
    private static final int STRING_CACHE_MAX = 16_384;
    static final ParquetProperties PROPERTIES = ParquetProperties.builder()
            .withPageSize(ConsolidatedSchema.PAGE_BYTES)
            .withDictionaryPageSize(ConsolidatedSchema.PAGE_BYTES * 4)
            .withDictionaryEncoding(true)
            .withStatisticsEnabled(ConsolidatedSchema.L1_PASSED_TRIG_MASK, false)
            .withStatisticsEnabled(ConsolidatedSchema.L2_PASSED_TRIG_MASK, false)
            .withStatisticsEnabled(ConsolidatedSchema.EF_PASSED_TRIG_MASK, false)
            .withStatisticsEnabled(TOKEN_PATH, false)
            .withDictionaryEncoding(TOKEN_PATH, false)
            .withDictionaryEncoding(ConsolidatedSchema.EVENT_NUMBER, false)
            .withDictionaryEncoding(ConsolidatedSchema.TIME_STAMP_NS_OFFSET, false)
            .withDictionaryEncoding(ConsolidatedSchema.EXTENDED_LEVEL1_ID, false)
            .build();
    private static final List<ColumnDescriptor> COLUMNS = ConsolidatedSchema.SCHEMA.getColumns();
    private static final MessageType FIRST = part(0, SPLIT);
    private static final MessageType SECOND = part(SPLIT, COLUMNS.size());

    private final Half first = new Half(FIRST);
    private final Half second = new Half(SECOND);
    private final HashMap<String, Binary> strings = new HashMap<>();
    private final ColumnWriter[] w = new ColumnWriter[COLUMNS.size()];

    ParquetMrColumns() {
        start();
    }

    /** The top-level fields holding columns [from, to) of the schema, with the same paths and levels. */
    private static MessageType part(int from, int to) {
        List<Type> fields = new ArrayList<>();
        for (int i = from; i < to; i++) {
            Type top = ConsolidatedSchema.SCHEMA.getType(COLUMNS.get(i).getPath()[0]);
            if (!fields.contains(top)) {
                fields.add(top);
            }
        }
        return new MessageType(ConsolidatedSchema.SCHEMA.getName(), fields);
    }

    private void start() {
        first.start();
        second.start();
        for (int i = 0; i < COLUMNS.size(); i++) {
            w[i] = (i < SPLIT ? first : second).store.getColumnWriter(COLUMNS.get(i));
        }
    }

    @Override
    public void writeFirst(EventScan e) {
        byte[] b = e.buf();
        int i = 0;
        w[i++].write(e.runNumber, 0, 0);
        w[i++].write(e.eventNumber, 0, 0);
        w[i++].write(e.lumiBlock, 0, 0);
        w[i++].write(e.timeStamp, 0, 0);
        w[i++].write(e.timeStampNSOffset, 0, 0);
        w[i++].write(e.bcid, 0, 0);
        optional(w[i++], e.hasExtendedLevel1ID, e.extendedLevel1ID);
        w[i++].write(e.isSimulation, 0, 0);
        w[i++].write(e.isCalibration, 0, 0);
        w[i++].write(e.isTestBeam, 0, 0);
        optional(w[i++], b, e.l1MaskOff, e.l1MaskLen);
        optional(w[i++], b, e.l2MaskOff, e.l2MaskLen);
        optional(w[i++], b, e.efMaskOff, e.efMaskLen);
        optional(w[i++], e.hasSmk, e.smk);
        optional(w[i++], e.hasHltpsk, e.hltpsk);
        optional(w[i++], e.hasL1psk, e.l1psk);
        if (e.hasMcEventWeight) {
            w[i++].write(e.mcEventWeight, 0, 1);
        } else {
            w[i++].writeNull(0, 0);
        }
        optional(w[i], e.hasMcChannelNumber, e.mcChannelNumber);
        first.store.endRecord();
    }

    @Override
    public void writeSecond(EventScan e, String fileGuid, StageRefs r) {
        byte[] b = e.buf();
        ColumnWriter name = w[SPLIT];
        ColumnWriter token = w[SPLIT + 1];
        if (e.tokenCount == 0) {
            name.writeNull(0, 1);
            token.writeNull(0, 1);
        } else {
            for (int t = 0; t < e.tokenCount; t++) {
                int repetition = t == 0 ? 0 : 1;
                // views of the event's bytes: the writers encode at once and copy what they keep
                name.write(Binary.fromReusedByteArray(b, e.nameOff[t], e.nameLen[t]), repetition, 2);
                token.write(Binary.fromReusedByteArray(b, e.tokenOff[t], e.tokenLen[t]), repetition, 2);
            }
        }
        w[SPLIT + 2].write(string(fileGuid), 0, 0);
        optional(w[SPLIT + 3], r.dbRaw);
        optional(w[SPLIT + 4], r.dbEsd);
        optional(w[SPLIT + 5], r.dbAod);
        optional(w[SPLIT + 6], r.db);
        second.store.endRecord();
    }

    private static void optional(ColumnWriter c, boolean present, int value) {
        if (present) {
            c.write(value, 0, 1);
        } else {
            c.writeNull(0, 0);
        }
    }

    private static void optional(ColumnWriter c, byte[] b, int off, int len) {
        if (off >= 0) {
            c.write(Binary.fromReusedByteArray(b, off, len), 0, 1);
        } else {
            c.writeNull(0, 0);
        }
    }

    private void optional(ColumnWriter c, String value) {
        if (value != null) {
            c.write(string(value), 0, 1);
        } else {
            c.writeNull(0, 0);
        }
    }

    /** GUID columns: a few distinct values per file, so their encoded Binary is cached (bounded). */
    private Binary string(String value) {
        Binary b = strings.get(value);
        if (b == null) {
            b = Binary.fromConstantByteArray(value.getBytes(StandardCharsets.UTF_8));
            if (strings.size() >= STRING_CACHE_MAX) {
                strings.clear();
            }
            strings.put(value, b);
        }
        return b;
    }

    @Override
    public long bufferedBytes() {
        return first.store.getBufferedSize() + second.store.getBufferedSize();
    }

    @Override
    public void writeTo(ParquetFileWriter file) throws IOException {
        first.store.flush();
        second.store.flush();
        // the halves' columns in schema order
        first.pages.flushToFileWriter(file);
        second.pages.flushToFileWriter(file);
        reset();
    }

    @Override
    public void reset() {
        first.close();
        second.close();
        start();
    }

    /**
     * One half of the columns: its own compressor (not thread-safe) and, per row group, its page and column stores.
     * The compressor's codec factory is never released (Columns has no close): a few per consolidated file, left to
     * the garbage collector, in a benchmark.
     */
    private static final class Half {
        private final MessageType schema;
        private final CompressionCodecFactory.BytesInputCompressor compressor;
        ColumnChunkPageWriteStore pages;
        ColumnWriteStore store;

        Half(MessageType schema) {
            this.schema = schema;
            this.compressor = new CodecFactory(new PlainParquetConfiguration(), PROPERTIES.getPageSizeThreshold())
                    .getCompressor(CompressionCodecName.SNAPPY);
        }

        void start() {
            pages = new ColumnChunkPageWriteStore(compressor, schema, HeapByteBufferAllocator.getInstance(),
                    PROPERTIES.getColumnIndexTruncateLength(), PROPERTIES.getPageWriteChecksumEnabled(), null, 0);
            store = PROPERTIES.newColumnWriteStore(schema, pages, pages);
        }

        void close() {
            store.close();
            pages.close();
        }
    }
}
