package org.eventindex.consolidated;

import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;
import org.eventindex.names.PoolToken;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.ToLongFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What our page encoders put in the file, read by parquet-mr: every row back (nulls in every optional column, empty
 * and long token lists, a dictionary falling back mid-chunk and at its first page), the page index's min/max and
 * null counts against the rows of each page, and filtered reads that use it.
 */
class ConsolidatedFilePagesTest {
    private static final int EVENTS = 60_000;
    /** Rows whose L2 mask comes from 5 values: the dictionary pays on the first page, then unique masks overflow it. */
    private static final int REPEATED_L2_ROWS = 25_000;

    @TempDir
    static Path dir;
    private static List<EIEvent_p1> events;
    private static Path file;

    @BeforeAll
    static void writeFile() throws IOException {
        events = events(REPEATED_L2_ROWS);
        file = write(events, "pages.parquet");
    }

    @Test
    void everyRowReadsBack() throws IOException {
        assertRowsReadBack(file, events);
    }

    @Test
    void pageIndexMinMaxAndNullsMatchTheRowsOfEachPage() throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
            long rowBase = 0;
            int pagesChecked = 0;
            for (BlockMetaData block : reader.getFooter().getBlocks()) {
                pagesChecked += checkPages(reader, column(block, ConsolidatedSchema.RUN_NUMBER), rowBase,
                        e -> e.getRunNumber() & 0xFFFFFFFFL, false);
                pagesChecked += checkPages(reader, column(block, ConsolidatedSchema.EVENT_NUMBER), rowBase,
                        EIEvent_p1::getEventNumber, false);
                pagesChecked += checkPages(reader, column(block, ConsolidatedSchema.SMK), rowBase,
                        e -> e.hasSMK() ? e.getSMK() : -1, true);
                // random 32-bit values, half of them above 2^31: the order must be unsigned
                pagesChecked += checkPages(reader, column(block, ConsolidatedSchema.EXTENDED_LEVEL1_ID), rowBase,
                        e -> e.hasExtendedLevel1ID() ? e.getExtendedLevel1ID() & 0xFFFFFFFFL : -1, true);
                checkGuidPages(reader, column(block, ConsolidatedSchema.GUID), rowBase);
                rowBase += block.getRowCount();
            }
            assertEquals(EVENTS, rowBase);
            assertTrue(reader.getFooter().getBlocks().size() > 1, "several row groups");
            assertTrue(pagesChecked > 10, pagesChecked + " pages");
        }
    }

    @Test
    void aDictionaryFallsBackToPlainMidChunkOrAtItsFirstPage() throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
            ColumnChunkMetaData l2 = column(reader.getFooter().getBlocks().get(0),
                    ConsolidatedSchema.L2_PASSED_TRIG_MASK);
            assertTrue(l2.getEncodingStats().hasDictionaryPages(), "dictionary page");
            assertTrue(l2.getEncodingStats().hasDictionaryEncodedPages(), "pages before the fallback");
            assertTrue(l2.getEncodingStats().hasNonDictionaryEncodedPages(), "pages after the fallback");
        }
        List<EIEvent_p1> unique = events(0);
        Path plain = write(unique, "plain.parquet");
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(plain))) {
            ColumnChunkMetaData l2 = column(reader.getFooter().getBlocks().get(0),
                    ConsolidatedSchema.L2_PASSED_TRIG_MASK);
            assertFalse(l2.getEncodingStats().hasDictionaryPages(), "a dictionary that does not pay is dropped");
            ColumnChunkMetaData run = column(reader.getFooter().getBlocks().get(0), ConsolidatedSchema.RUN_NUMBER);
            assertFalse(run.getEncodingStats().hasNonDictionaryEncodedPages(), "run numbers keep their dictionary");
        }
        assertRowsReadBack(plain, unique);
    }

    @Test
    void filteredReadsReturnExactlyTheMatchingRows() throws IOException {
        EIEvent_p1 target = events.get(33_333);
        List<EIEvent_p1> one = read(FilterApi.and(
                FilterApi.eq(FilterApi.intColumn(ConsolidatedSchema.RUN_NUMBER), target.getRunNumber()),
                FilterApi.eq(FilterApi.longColumn(ConsolidatedSchema.EVENT_NUMBER), target.getEventNumber())), true);
        assertEquals(List.of(target), one);

        int run = events.get(EVENTS - 1).getRunNumber();
        List<EIEvent_p1> expected = events.stream().filter(e -> e.getRunNumber() == run).toList();
        assertEquals(expected, read(FilterApi.eq(FilterApi.intColumn(ConsolidatedSchema.RUN_NUMBER), run), true));

        // without the row-by-row filter, what comes back is what the page index kept: a few pages, the target's among them
        List<EIEvent_p1> pages = read(FilterApi.eq(FilterApi.longColumn(ConsolidatedSchema.EVENT_NUMBER),
                target.getEventNumber()), false);
        assertTrue(pages.contains(target));
        assertTrue(pages.size() < EVENTS / 5, pages.size() + " rows read for one event number");
    }

    private static List<EIEvent_p1> events(int repeatedL2Rows) {
        Random random = new Random(23);
        List<EIEvent_p1> list = new ArrayList<>();
        String pad = "x".repeat(200);
        for (int i = 0; i < EVENTS; i++) {
            EIEvent_p1.Builder b = ConsolidatedFileWriterTest.event(i, random).toBuilder();
            if (i % 97 == 0) {
                b.clearExtendedLevel1ID().clearL1PassedTrigMask().clearEFPassedTrigMask().clearSMK().clearHLTPSK()
                        .clearL1PSK().clearMcEventWeight().clearMcChannelNumber().clearEitoken();
            } else {
                b.setL2PassedTrigMask(i < repeatedL2Rows ? "l2-" + i % 5 : "l2-" + i + pad)
                        .setMcEventWeight((i % 4) * 0.5f - 0.5f).setMcChannelNumber(361_000 + i % 3);
            }
            if (i % 101 == 0) {
                for (int t = 0; t < 40; t++) {
                    b.addEitoken(EItoken_p1.newBuilder().setName("Stream" + t).setToken(new PoolToken(
                            ConsolidatedFileWriterTest.guid(100 + t), "POOLContainer(DataHeader)",
                            "D82968A1-CF91-4320-B2DD-E0F739CBC7E6", 0x202, 3, i).format()));
                }
            }
            list.add(b.build());
        }
        return list;
    }

    private static Path write(List<EIEvent_p1> rows, String name) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        // 4 MiB row groups: two, the first holding the L2 dictionary's first page and its fallback
        ConsolidatedFileWriter w = new ConsolidatedFileWriter(out, true, 4 << 20);
        for (int i = 0; i < rows.size(); i++) {
            w.write(rows.get(i), ConsolidatedFileWriterTest.guid(i % 7));
        }
        w.finish(EventRecordTest.metadata(rows.size(), w.finishDigest()).toKeyValues());
        Path path = dir.resolve(name);
        Files.write(path, out.toByteArray());
        return path;
    }

    private static void assertRowsReadBack(Path path, List<EIEvent_p1> rows) throws IOException {
        try (ConsolidatedFileReader reader = new ConsolidatedFileReader(new LocalInputFile(path), path.toString())) {
            for (int i = 0; i < rows.size(); i++) {
                ConsolidatedFileReader.Row r = reader.next();
                assertEquals(rows.get(i), r.event(), "row " + i);
                assertEquals(ConsolidatedFileWriterTest.guid(i % 7), r.guid(), "guid of row " + i);
            }
            assertNull(reader.next());
        }
    }

    private static ColumnChunkMetaData column(BlockMetaData block, String name) {
        return block.getColumns().stream().filter(c -> c.getPath().toDotString().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no column " + name));
    }

    /** Integer columns: min/max per page (unsigned), null count per page; -1 from {@code value} is a null. */
    private static int checkPages(ParquetFileReader reader, ColumnChunkMetaData chunk, long rowBase,
                                  ToLongFunction<EIEvent_p1> value, boolean optional) throws IOException {
        ColumnIndex index = reader.readColumnIndex(chunk);
        OffsetIndex offsets = reader.readOffsetIndex(chunk);
        int width = chunk.getPrimitiveType().getPrimitiveTypeName().name().equals("INT64") ? 8 : 4;
        long rows = chunk.getValueCount();
        for (int p = 0; p < offsets.getPageCount(); p++) {
            long from = offsets.getFirstRowIndex(p);
            long to = p + 1 < offsets.getPageCount() ? offsets.getFirstRowIndex(p + 1) : rows;
            long min = -1;
            long max = -1;
            long nulls = 0;
            for (long r = from; r < to; r++) {
                long v = value.applyAsLong(events.get((int) (rowBase + r)));
                if (optional && v == -1) {
                    nulls++;
                } else {
                    min = min == -1 || Long.compareUnsigned(v, min) < 0 ? v : min;
                    max = max == -1 || Long.compareUnsigned(v, max) > 0 ? v : max;
                }
            }
            String where = chunk.getPath() + " page " + p + " rows " + (rowBase + from) + "-" + (rowBase + to);
            assertEquals(nulls, index.getNullCounts().get(p), where + " nulls");
            if (min != -1) {
                assertEquals(min, decode(index.getMinValues().get(p), width), where + " min");
                assertEquals(max, decode(index.getMaxValues().get(p), width), where + " max");
            }
        }
        Statistics<?> chunkStats = chunk.getStatistics();
        assertTrue(chunkStats.hasNonNullValue(), chunk.getPath() + " has chunk statistics");
        return offsets.getPageCount();
    }

    private static void checkGuidPages(ParquetFileReader reader, ColumnChunkMetaData chunk, long rowBase)
            throws IOException {
        ColumnIndex index = reader.readColumnIndex(chunk);
        OffsetIndex offsets = reader.readOffsetIndex(chunk);
        for (int p = 0; p < offsets.getPageCount(); p++) {
            long from = offsets.getFirstRowIndex(p);
            long to = p + 1 < offsets.getPageCount() ? offsets.getFirstRowIndex(p + 1) : chunk.getValueCount();
            String min = null;
            String max = null;
            for (long r = from; r < to; r++) {
                String g = ConsolidatedFileWriterTest.guid((int) ((rowBase + r) % 7));
                min = min == null || g.compareTo(min) < 0 ? g : min;
                max = max == null || g.compareTo(max) > 0 ? g : max;
            }
            assertEquals(min, StandardCharsets.UTF_8.decode(index.getMinValues().get(p)).toString(), "page " + p);
            assertEquals(max, StandardCharsets.UTF_8.decode(index.getMaxValues().get(p)).toString(), "page " + p);
        }
    }

    private static long decode(ByteBuffer b, int width) {
        ByteBuffer le = b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return width == 8 ? le.getLong(0) : le.getInt(0) & 0xFFFFFFFFL;
    }

    private static List<EIEvent_p1> read(FilterPredicate filter, boolean rowFilter) throws IOException {
        InputFile in = new LocalInputFile(file);
        List<EIEvent_p1> rows = new ArrayList<>();
        try (ParquetReader<EventRecord> reader = new ParquetReader.Builder<EventRecord>(in,
                new PlainParquetConfiguration()) {
            @Override
            protected ReadSupport<EventRecord> getReadSupport() {
                return new EventRecordReadSupport();
            }
        }.withFilter(FilterCompat.get(filter)).useRecordFilter(rowFilter).useColumnIndexFilter(true).build()) {
            for (EventRecord r = reader.read(); r != null; r = reader.read()) {
                rows.add(r.toEvent());
            }
        }
        return rows;
    }
}
