package org.eventindex.consolidated;

import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.filter2.predicate.Operators.IntColumn;
import org.apache.parquet.filter2.predicate.Operators.LongColumn;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveComparator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.eventindex.names.PoolToken;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.spb.EventScan;
import org.eventindex.sql.EventIndexSql;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The consolidated file, written by the project's own page encoders ({@link ConsolidatedFileWriter}), read by
 * readers that share no code with them: parquet-mr's own reader (example {@code Group}s, footer statistics, column
 * and offset indexes), DuckDB and Spark. Impala prunes row groups and pages with the same statistics, so a wrong
 * minimum, maximum or null count there silently drops events: every filter here must return exactly the rows that a
 * brute-force scan of the generated data selects, with each engine's statistics and page-index pushdown on.
 * <p>
 * The data is made for the edges of unsigned order: run and lumi block numbers on both sides of 2^31 and up to
 * 0xFFFFFFFF, event numbers from 0, across 2^63 (negative as signed) and up to 2^64 - 1, duplicated (run, event)
 * pairs, NULLs in every optional column (and a whole run of them, so whole pages hold only NULLs or empty token
 * lists), in small row groups (each with several pages on the filtered columns).
 * <p>
 * Which reader proves what: with the page statistics broken on purpose (PageMinMax comparing signed), the parquet-mr
 * and DuckDB filter cases and the statistics check fail, the Spark cases still pass: Spark 3.5 does not turn filters
 * on unsigned columns (read as BIGINT and DECIMAL(20, 0)) into Parquet predicates, so its cases check what it reads,
 * not the statistics.
 * <p>
 * In this package (as the kudu-loader tests) for the writer's row-group-size constructor.
 */
class ConsolidatedFileConformanceIT {
    private static final long[] RUNS = {0, 1, 327_636, 0x7FFF_FFFFL, 0x8000_0000L, 0xFFFF_FFFEL, 0xFFFF_FFFFL};
    /** Lumi block of each run's first row; every 3,000 rows the next one, at most 0xFFFFFFFF. */
    private static final long[] LUMI_BASES = {0, 1, 100, 0x7FFF_FFF8L, 0xFFFF_FFF5L, 0x7FFF_FFFDL, 0xFFFF_FFF0L};
    /** Run 1 has every optional column NULL and no tokens. */
    private static final long NULL_RUN = 1;
    private static final int ROWS_PER_RUN = 36_000;
    private static final int ROWS = RUNS.length * ROWS_PER_RUN;
    /** About 21,000 rows (two pages on dictionary columns, three on event numbers) in each of a dozen row groups. */
    private static final long ROW_GROUP_BYTES = 5L << 18;
    private static final String[] OPTIONAL = {"extended_level1_id", "l1_passed_trig_mask", "l2_passed_trig_mask",
            "ef_passed_trig_mask", "smk", "hltpsk", "l1psk", "mc_event_weight", "mc_channel_number", "db_raw",
            "db_esd", "db_aod", "db"};
    private static final String[] STREAMS = {"StreamAOD", "StreamESD", "StreamRAW", "StreamDAOD_PHYS"};

    @TempDir
    static Path dir;
    private static Path file;
    private static final List<EIEvent_p1> EVENTS = new ArrayList<>();
    private static final List<String> GUIDS = new ArrayList<>();
    /** Per row, what every reader must read back: keys, NULL pattern, tokens, GUID. */
    private static final List<String> SIGNATURES = new ArrayList<>();
    /** The file as parquet-mr's example reader reads it, row by row, without any filter. */
    private static List<Group> scanned;
    private static SparkSession spark;

    @BeforeAll
    static void writeFile() throws IOException {
        generate();
        file = dir.resolve("conformance.parquet");
        try (OutputStream out = Files.newOutputStream(file)) {
            ConsolidatedFileWriter w = new ConsolidatedFileWriter(out, true, ROW_GROUP_BYTES);
            for (int i = 0; i < ROWS; i++) {
                w.write(EVENTS.get(i), GUIDS.get(i));
            }
            w.finish(Map.of(ConsolidatedSchema.META_FORMAT, ConsolidatedSchema.FORMAT_VERSION,
                    ConsolidatedSchema.META_CHECKSUM, w.finishDigest()));
        }
        scanned = new ArrayList<>(ROWS);
        try (ParquetReader<Group> reader = groupReader(null)) {
            for (Group g = reader.read(); g != null; g = reader.read()) {
                scanned.add(g);
            }
        }
        spark = EventIndexSql.startSpark(dir.resolve("warehouse"), 2);
    }

    @AfterAll
    static void stopSpark() {
        if (spark != null) {
            spark.stop();
        }
    }

    // ---- the data ----

    private static void generate() {
        Random random = new Random(20);
        StageRefs.Resolver resolver = new StageRefs.Resolver();
        EventScan scan = new EventScan();
        StageRefs refs = new StageRefs();
        for (int r = 0; r < RUNS.length; r++) {
            long[] events = eventNumbers(random, r == 0);
            for (int i = 0; i < ROWS_PER_RUN; i++) {
                long lumi = Math.min(0xFFFF_FFFFL, LUMI_BASES[r] + i / 3_000);
                EIEvent_p1 e = event(random, RUNS[r], events[i], lumi, RUNS[r] == NULL_RUN, EVENTS.size());
                String guid = guid(EVENTS.size() / 10_000 % 5);
                EVENTS.add(e);
                GUIDS.add(guid);
                byte[] bytes = e.toByteArray();
                try {
                    scan.scanCanonical(bytes, 0, bytes.length);
                } catch (com.google.protobuf.InvalidProtocolBufferException ex) {
                    throw new AssertionError("generated event " + EVENTS.size() + " does not scan", ex);
                }
                resolver.resolve(scan, guid, refs);
                boolean[] nulls = {!e.hasExtendedLevel1ID(), !e.hasL1PassedTrigMask(), !e.hasL2PassedTrigMask(),
                        !e.hasEFPassedTrigMask(), !e.hasSMK(), !e.hasHLTPSK(), !e.hasL1PSK(), !e.hasMcEventWeight(),
                        !e.hasMcChannelNumber(), refs.dbRaw == null, refs.dbEsd == null, refs.dbAod == null,
                        refs.db == null};
                SIGNATURES.add(signature(Integer.toUnsignedString(e.getRunNumber()),
                        Long.toUnsignedString(e.getEventNumber()), Integer.toUnsignedString(e.getLumiBlock()), nulls,
                        e.getEitokenCount(), guid));
            }
        }
    }

    /**
     * A run's event numbers in unsigned order: a third from 0 or a few, a third across 2^63, a third up to 2^64 - 1
     * (the last one exactly); steps of 0 (a duplicate, about one in 400), 1, 2 or 3.
     */
    private static long[] eventNumbers(Random random, boolean fromZero) {
        int third = ROWS_PER_RUN / 3;
        long[] e = new long[ROWS_PER_RUN];
        long[] starts = {fromZero ? 0 : 1 + random.nextInt(5), Long.MIN_VALUE - third, -1L - 3L * third};
        for (int s = 0; s < 3; s++) {
            long v = starts[s];
            for (int i = s * third; i < (s == 2 ? ROWS_PER_RUN : (s + 1) * third); i++) {
                e[i] = v;
                v += random.nextInt(400) == 0 ? 0 : 1 + random.nextInt(3);
            }
        }
        e[ROWS_PER_RUN - 1] = -1L;
        return e;
    }

    private static EIEvent_p1 event(Random random, long run, long eventNumber, long lumi, boolean allNull, int row) {
        EIEvent_p1.Builder b = EIEvent_p1.newBuilder()
                .setRunNumber((int) run)
                .setEventNumber(eventNumber)
                .setLumiBlock((int) lumi)
                .setTimeStamp(random.nextInt())
                .setTimeStampNSOffset(random.nextInt(1_000_000_000))
                .setBcid(random.nextInt(3564))
                .setIsSimulation(random.nextBoolean())
                .setIsCalibration(random.nextInt(10) == 0)
                .setIsTestBeam(false);
        if (allNull) {
            return b.build();
        }
        if (present(random)) {
            b.setExtendedLevel1ID(random.nextInt());
        }
        if (present(random)) {
            b.setL1PassedTrigMask("D!!E!" + Integer.toString(random.nextInt(1 << 20), 36));
        }
        if (present(random)) {
            b.setL2PassedTrigMask("l2-" + random.nextInt(4));
        }
        if (present(random)) {
            b.setEFPassedTrigMask("C!" + Integer.toString(random.nextInt(), 36) + ";;");
        }
        int[] keys = {0, 2711, 0x8000_0000, 0xFFFF_FFFF};
        if (present(random)) {
            b.setSMK(keys[random.nextInt(keys.length)]);
        }
        if (present(random)) {
            b.setHLTPSK(keys[random.nextInt(keys.length)]);
        }
        if (present(random)) {
            b.setL1PSK(keys[random.nextInt(keys.length)]);
        }
        if (present(random)) {
            b.setMcEventWeight((random.nextInt(9) - 4) * 0.25f);
        }
        if (present(random)) {
            b.setMcChannelNumber(random.nextBoolean() ? 361_106 : 0xFFFF_FFFF);
        }
        // a quarter of the rows without tokens: an empty list
        int tokens = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(4);
        for (int t = 0; t < tokens; t++) {
            b.addEitoken(EItoken_p1.newBuilder().setName(STREAMS[(t + random.nextInt(2)) % STREAMS.length])
                    .setToken(new PoolToken(guid(10 + random.nextInt(20)), "POOLContainer(DataHeader)",
                            "D82968A1-CF91-4320-B2DD-E0F739CBC7E6", 0x202, 3, row).format()));
        }
        return b.build();
    }

    private static boolean present(Random random) {
        return random.nextInt(7) != 0;
    }

    private static String guid(int i) {
        return String.format("%08X-0000-4000-8000-%012X", i, 0);
    }

    private static String signature(String run, String event, String lumi, boolean[] nulls, int tokens,
                                     String guid) {
        StringBuilder b = new StringBuilder(run).append('|').append(event).append('|').append(lumi).append('|');
        for (boolean n : nulls) {
            b.append(n ? 'N' : 'v');
        }
        return b.append('|').append(tokens).append('|').append(guid).toString();
    }

    // ---- the filters ----

    enum Key {
        RUN("run_number", 32), EVENT("event_number", 64), LUMI("lumi_block", 32);

        final String column;
        final int bits;

        Key(String column, int bits) {
            this.column = column;
            this.bits = bits;
        }

        long of(EIEvent_p1 e) {
            return switch (this) {
                case RUN -> Integer.toUnsignedLong(e.getRunNumber());
                case EVENT -> e.getEventNumber();
                case LUMI -> Integer.toUnsignedLong(e.getLumiBlock());
            };
        }

        String duckLiteral(long v) {
            return Long.toUnsignedString(v) + (bits == 32 ? "::UINTEGER" : "::UBIGINT");
        }

        /** Spark reads UINT_32 as BIGINT and UINT_64 as DECIMAL(20, 0). */
        String sparkLiteral(long v) {
            return bits == 32 ? Long.toString(v) : "CAST('" + Long.toUnsignedString(v) + "' AS DECIMAL(20, 0))";
        }
    }

    /** One condition, in each reader's terms, and the rows it selects by brute force. */
    record Filter(String name, FilterPredicate parquet, String duckDb, String spark, IntPredicate selects) {
        @Override
        public String toString() {
            return name;
        }

        static Filter eq(Key k, long v) {
            FilterPredicate p = k.bits == 32 ? FilterApi.eq(intColumn(k), (int) v) : FilterApi.eq(longColumn(k), v);
            return new Filter(k.column + " = " + Long.toUnsignedString(v), p,
                    k.column + " = " + k.duckLiteral(v), k.column + " = " + k.sparkLiteral(v),
                    i -> k.of(EVENTS.get(i)) == v);
        }

        /** {@code lo <= key <= hi}, unsigned. */
        static Filter range(Key k, long lo, long hi) {
            FilterPredicate p = k.bits == 32
                    ? FilterApi.and(FilterApi.gtEq(intColumn(k), (int) lo), FilterApi.ltEq(intColumn(k), (int) hi))
                    : FilterApi.and(FilterApi.gtEq(longColumn(k), lo), FilterApi.ltEq(longColumn(k), hi));
            return new Filter(Long.toUnsignedString(lo) + " <= " + k.column + " <= " + Long.toUnsignedString(hi), p,
                    k.column + " >= " + k.duckLiteral(lo) + " AND " + k.column + " <= " + k.duckLiteral(hi),
                    k.column + " >= " + k.sparkLiteral(lo) + " AND " + k.column + " <= " + k.sparkLiteral(hi),
                    i -> Long.compareUnsigned(k.of(EVENTS.get(i)), lo) >= 0
                            && Long.compareUnsigned(k.of(EVENTS.get(i)), hi) <= 0);
        }

        static Filter and(Filter a, Filter b) {
            return new Filter(a.name + " AND " + b.name, FilterApi.and(a.parquet, b.parquet),
                    "(" + a.duckDb + ") AND (" + b.duckDb + ")", "(" + a.spark + ") AND (" + b.spark + ")",
                    i -> a.selects.test(i) && b.selects.test(i));
        }

        private static IntColumn intColumn(Key k) {
            return FilterApi.intColumn(k.column);
        }

        private static LongColumn longColumn(Key k) {
            return FilterApi.longColumn(k.column);
        }
    }

    static Stream<Filter> filters() {
        long top = -1L;
        long half = Long.MIN_VALUE;
        // generated before the filters are listed (the factory runs after @BeforeAll)
        EIEvent_p1 mid = EVENTS.get(4 * ROWS_PER_RUN + ROWS_PER_RUN / 2);
        EIEvent_p1 last = EVENTS.get(ROWS - 1);
        EIEvent_p1 low = EVENTS.get(2 * ROWS_PER_RUN + 1_234);
        return Stream.of(
                Filter.eq(Key.RUN, 0xFFFF_FFFFL),
                Filter.eq(Key.RUN, 0x8000_0000L),
                Filter.eq(Key.RUN, 0x7FFF_FFFFL),
                Filter.eq(Key.RUN, 0),
                Filter.eq(Key.RUN, 5),
                Filter.range(Key.RUN, 0x7FFF_FFFFL, 0x8000_0000L),
                Filter.range(Key.RUN, 0xFFFF_FFFEL, 0xFFFF_FFFFL),
                Filter.range(Key.RUN, 1, 0x8000_0000L),
                Filter.eq(Key.EVENT, top),
                Filter.eq(Key.EVENT, half),
                Filter.eq(Key.EVENT, half - 1),
                Filter.eq(Key.EVENT, 0),
                Filter.range(Key.EVENT, half - 100, half + 100),
                Filter.range(Key.EVENT, half, top),
                Filter.range(Key.EVENT, top - 999, top),
                Filter.range(Key.EVENT, 0, 999),
                Filter.range(Key.EVENT, 1_000_000, half - 1_000_000),
                Filter.and(Filter.eq(Key.RUN, Integer.toUnsignedLong(mid.getRunNumber())),
                        Filter.eq(Key.EVENT, mid.getEventNumber())),
                Filter.and(Filter.eq(Key.RUN, Integer.toUnsignedLong(last.getRunNumber())),
                        Filter.eq(Key.EVENT, last.getEventNumber())),
                Filter.and(Filter.eq(Key.RUN, Integer.toUnsignedLong(low.getRunNumber())),
                        Filter.eq(Key.EVENT, low.getEventNumber())),
                Filter.and(Filter.eq(Key.RUN, 0x8000_0000L), Filter.range(Key.EVENT, half - 50, half + 50)),
                Filter.and(Filter.eq(Key.RUN, 0xFFFF_FFFFL), Filter.range(Key.EVENT, top - 10, top)),
                Filter.eq(Key.LUMI, 0xFFFF_FFFFL),
                Filter.eq(Key.LUMI, 0x8000_0000L),
                Filter.range(Key.LUMI, 0x7FFF_FFF0L, 0x8000_0010L),
                Filter.range(Key.LUMI, 0x8000_0000L, 0xFFFF_FFFFL),
                Filter.range(Key.LUMI, 0, 10),
                Filter.and(Filter.eq(Key.RUN, 0xFFFF_FFFEL), Filter.eq(Key.LUMI, 0x8000_0001L)));
    }

    private static List<Long> expected(Filter f) {
        return IntStream.range(0, ROWS).filter(f.selects).mapToObj(i -> (long) i).toList();
    }

    // ---- the file has what the test is about ----

    @Test
    void theFileHasManyRowGroupsAndSeveralPagesPerRowGroupOnTheFilteredColumns() throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
            List<BlockMetaData> blocks = reader.getFooter().getBlocks();
            assertTrue(blocks.size() >= 10, blocks.size() + " row groups");
            int multiPage = 0;
            for (BlockMetaData block : blocks) {
                int pages = Integer.MAX_VALUE;
                for (String key : List.of("run_number", "event_number", "lumi_block")) {
                    OffsetIndex offsets = reader.readOffsetIndex(column(block, key));
                    assertNotNull(offsets, key + " has an offset index");
                    pages = Math.min(pages, offsets.getPageCount());
                }
                multiPage += pages > 1 ? 1 : 0;
            }
            assertTrue(multiPage >= blocks.size() / 2, multiPage + " of " + blocks.size()
                    + " row groups have several pages on every key column");
        }
    }

    // ---- parquet-mr ----

    @Test
    void parquetMrReadsEveryRowAsWritten() {
        assertEquals(ROWS, scanned.size());
        for (int i = 0; i < ROWS; i++) {
            assertEquals(SIGNATURES.get(i), signature(scanned.get(i)), "row " + i);
        }
    }

    /**
     * Every page's column index entry (min, max, null count, null page) and every column chunk's statistics
     * against the values parquet-mr reads back, in the order of the column's type: what Impala, Spark and parquet-mr
     * prune with.
     */
    @Test
    void everyPageIndexEntryAndChunkStatisticMatchesItsRows() throws IOException {
        int pagesChecked = 0;
        int chunksChecked = 0;
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
            long rowBase = 0;
            for (BlockMetaData block : reader.getFooter().getBlocks()) {
                for (ColumnChunkMetaData chunk : block.getColumns()) {
                    String path = chunk.getPath().toDotString();
                    @SuppressWarnings("unchecked")
                    PrimitiveComparator<Object> order =
                            (PrimitiveComparator<Object>) chunk.getPrimitiveType().comparator();
                    Statistics<?> stats = chunk.getStatistics();
                    if (!stats.isEmpty()) {
                        MinMax all = minMax(path, order, rowBase, rowBase + block.getRowCount());
                        String where = path + " row group at row " + rowBase;
                        assertEquals(all.nulls, stats.getNumNulls(), where + " nulls");
                        assertEquals(all.min != null, stats.hasNonNullValue(), where + " has values");
                        if (all.min != null) {
                            assertEquals(0, order.compare(all.min, stats.genericGetMin()), where + " min "
                                    + stats.genericGetMin() + ", rows " + all.min);
                            assertEquals(0, order.compare(all.max, stats.genericGetMax()), where + " max "
                                    + stats.genericGetMax() + ", rows " + all.max);
                        }
                        chunksChecked++;
                    }
                    ColumnIndex index = reader.readColumnIndex(chunk);
                    if (index == null) {
                        continue;
                    }
                    OffsetIndex offsets = reader.readOffsetIndex(chunk);
                    for (int p = 0; p < offsets.getPageCount(); p++) {
                        long from = rowBase + offsets.getFirstRowIndex(p);
                        long to = rowBase + (p + 1 < offsets.getPageCount() ? offsets.getFirstRowIndex(p + 1)
                                : block.getRowCount());
                        MinMax page = minMax(path, order, from, to);
                        String where = path + " page " + p + " rows " + from + "-" + to;
                        assertEquals(page.nulls, (long) index.getNullCounts().get(p), where + " nulls");
                        assertEquals(page.min == null, index.getNullPages().get(p), where + " null page");
                        if (page.min != null) {
                            Object min = decode(chunk, index.getMinValues().get(p));
                            Object max = decode(chunk, index.getMaxValues().get(p));
                            assertEquals(0, order.compare(page.min, min), where + " min " + min + ", rows "
                                    + page.min);
                            assertEquals(0, order.compare(page.max, max), where + " max " + max + ", rows "
                                    + page.max);
                        }
                        pagesChecked++;
                    }
                }
                rowBase += block.getRowCount();
            }
        }
        assertTrue(pagesChecked > 300, pagesChecked + " pages");
        assertTrue(chunksChecked > 100, chunksChecked + " chunks");
    }

    /**
     * With statistics, dictionary and column-index filtering on, the rows kept by the row filter are exactly the
     * brute-force selection: a wrongly pruned row group or page loses rows here.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("filters")
    void parquetMrWithPushdownReturnsExactlyTheSelectedRows(Filter f) throws IOException {
        List<Long> rows = new ArrayList<>();
        try (ParquetReader<Group> reader = groupReader(f.parquet)) {
            for (Group g = reader.read(); g != null; g = reader.read()) {
                long i = reader.getCurrentRowIndex();
                assertEquals(SIGNATURES.get((int) i), signature(g), "row " + i);
                rows.add(i);
            }
        }
        assertEquals(expected(f), rows);
    }

    /** The pushdown is not idle: without the row filter, a selective filter reads back fewer rows than the file. */
    @Test
    void parquetMrPageIndexNarrowsAPointLookupToAFewPages() throws IOException {
        EIEvent_p1 target = EVENTS.get(5 * ROWS_PER_RUN + 20_000);
        FilterPredicate p = FilterApi.and(FilterApi.eq(FilterApi.intColumn("run_number"), target.getRunNumber()),
                FilterApi.eq(FilterApi.longColumn("event_number"), target.getEventNumber()));
        long read = 0;
        try (ParquetReader<Group> reader = groupReaderBuilder(p).useRecordFilter(false).build()) {
            while (reader.read() != null) {
                read++;
            }
        }
        assertTrue(read > 0 && read < 25_000, read + " rows read for one event");
    }

    private static ParquetReader<Group> groupReader(FilterPredicate filter) throws IOException {
        return groupReaderBuilder(filter).build();
    }

    private static ParquetReader.Builder<Group> groupReaderBuilder(FilterPredicate filter) {
        ParquetReader.Builder<Group> b = new ParquetReader.Builder<Group>(new LocalInputFile(file),
                new PlainParquetConfiguration()) {
            @Override
            protected ReadSupport<Group> getReadSupport() {
                return new GroupReadSupport();
            }
        };
        if (filter != null) {
            b.withFilter(FilterCompat.get(filter)).useStatsFilter(true).useDictionaryFilter(true)
                    .useColumnIndexFilter(true).useRecordFilter(true);
        }
        return b;
    }

    private static String signature(Group g) {
        boolean[] nulls = new boolean[OPTIONAL.length];
        for (int c = 0; c < OPTIONAL.length; c++) {
            nulls[c] = g.getFieldRepetitionCount(OPTIONAL[c]) == 0;
        }
        Group list = g.getGroup("eitoken", 0);
        return signature(Integer.toUnsignedString(g.getInteger("run_number", 0)),
                Long.toUnsignedString(g.getLong("event_number", 0)),
                Integer.toUnsignedString(g.getInteger("lumi_block", 0)), nulls, list.getFieldRepetitionCount("list"),
                g.getString("guid", 0));
    }

    private record MinMax(Object min, Object max, long nulls) {
    }

    /** Min, max (by {@code order}) and NULLs (an empty token list counts one) of a column over rows [from, to). */
    private static MinMax minMax(String path, PrimitiveComparator<Object> order, long from, long to) {
        Object min = null;
        Object max = null;
        long nulls = 0;
        for (long r = from; r < to; r++) {
            List<Object> values = values(scanned.get((int) r), path);
            if (values.isEmpty()) {
                nulls++;
            }
            for (Object v : values) {
                min = min == null || order.compare(v, min) < 0 ? v : min;
                max = max == null || order.compare(v, max) > 0 ? v : max;
            }
        }
        return new MinMax(min, max, nulls);
    }

    private static List<Object> values(Group row, String path) {
        String[] p = path.split("\\.");
        if (p.length == 1) {
            return row.getFieldRepetitionCount(p[0]) == 0 ? List.of() : List.of(value(row, p[0]));
        }
        // eitoken.list.element.<field>
        Group list = row.getGroup(p[0], 0);
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < list.getFieldRepetitionCount(p[1]); i++) {
            out.add(value(list.getGroup(p[1], i).getGroup(p[2], 0), p[3]));
        }
        return out;
    }

    private static Object value(Group g, String field) {
        return switch (g.getType().getType(field).asPrimitiveType().getPrimitiveTypeName()) {
            case INT32 -> g.getInteger(field, 0);
            case INT64 -> g.getLong(field, 0);
            case FLOAT -> g.getFloat(field, 0);
            case BOOLEAN -> g.getBoolean(field, 0);
            case BINARY -> g.getBinary(field, 0);
            default -> throw new AssertionError("no such column type in the schema: " + field);
        };
    }

    private static Object decode(ColumnChunkMetaData chunk, ByteBuffer b) {
        ByteBuffer le = b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return switch (chunk.getPrimitiveType().getPrimitiveTypeName()) {
            case INT32 -> le.getInt(le.position());
            case INT64 -> le.getLong(le.position());
            case FLOAT -> le.getFloat(le.position());
            case BOOLEAN -> le.get(le.position()) != 0;
            case BINARY -> Binary.fromConstantByteBuffer(le);
            default -> throw new AssertionError("no such column type in the schema: " + chunk.getPath());
        };
    }

    private static ColumnChunkMetaData column(BlockMetaData block, String name) {
        return block.getColumns().stream().filter(c -> c.getPath().toDotString().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no column " + name));
    }

    // ---- DuckDB ----

    private static final String DUCK_SIGNATURE = "concat_ws('|', run_number::VARCHAR, event_number::VARCHAR,"
            + " lumi_block::VARCHAR, concat(" + String.join(", ", Stream.of(OPTIONAL)
                    .map(c -> "CASE WHEN " + c + " IS NULL THEN 'N' ELSE 'v' END").toList())
            + "), len(eitoken)::VARCHAR, guid)";

    @Test
    void duckDbReadsEveryRowAsWritten() throws SQLException {
        assertEquals(IntStream.range(0, ROWS).mapToObj(i -> i + " " + SIGNATURES.get(i)).toList(),
                duckDb("TRUE"));
    }

    /** DuckDB prunes row groups by their statistics (its filter pushdown into the Parquet scan). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("filters")
    void duckDbWithPushdownReturnsExactlyTheSelectedRows(Filter f) throws SQLException {
        assertEquals(expected(f).stream().map(i -> i + " " + SIGNATURES.get((int) (long) i)).toList(),
                duckDb(f.duckDb));
    }

    /** The filters reach DuckDB's Parquet scan (pushed down), rather than a filter above a full scan. */
    @Test
    void duckDbPushesTheKeyFiltersIntoTheParquetScan() throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("EXPLAIN SELECT file_row_number FROM read_parquet('" + file
                     + "', file_row_number = true) WHERE run_number = 4294967295::UINTEGER"
                     + " AND event_number >= 9223372036854775808::UBIGINT")) {
            StringBuilder plan = new StringBuilder();
            while (rs.next()) {
                plan.append(rs.getString(2));
            }
            // the plan is drawn in boxes, with long filters wrapped
            String p = plan.toString().replaceAll("[\\s\u2502]", "");
            assertTrue(p.contains("PARQUET_SCAN") || p.contains("READ_PARQUET"), p);
            assertTrue(p.contains("run_number=4294967295") && p.contains("event_number>=9223372036854775808"), p);
            assertFalse(p.contains("FILTER"), p);
        }
    }

    private static List<String> duckDb(String where) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT file_row_number, " + DUCK_SIGNATURE + " FROM read_parquet('"
                     + file + "', file_row_number = true) WHERE " + where + " ORDER BY file_row_number")) {
            while (rs.next()) {
                rows.add(rs.getLong(1) + " " + rs.getString(2));
            }
        }
        return rows;
    }

    // ---- Spark ----

    @Test
    void sparkReadsEveryRowAsWritten() {
        assertEquals(IntStream.range(0, ROWS).mapToObj(i -> i + " " + SIGNATURES.get(i)).toList(), spark("TRUE"));
    }

    /** Spark with its defaults: Parquet filter pushdown on (row groups and, through parquet-mr, pages). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("filters")
    void sparkWithPushdownReturnsExactlyTheSelectedRows(Filter f) {
        assertEquals("true", spark.conf().get("spark.sql.parquet.filterPushdown"));
        assertEquals(expected(f).stream().map(i -> i + " " + SIGNATURES.get((int) (long) i)).toList(),
                spark(f.spark));
    }

    private static List<String> spark(String where) {
        String nulls = String.join(", ", Stream.of(OPTIONAL)
                .map(c -> "CASE WHEN " + c + " IS NULL THEN 'N' ELSE 'v' END").toList());
        // the file's own DataFrame: a view over it would hide the _metadata column
        Dataset<Row> rows = spark.read().parquet(file.toString()).where(where).selectExpr("_metadata.row_index AS i",
                "concat_ws('|', CAST(run_number AS STRING), CAST(event_number AS STRING), CAST(lumi_block AS STRING),"
                        + " concat(" + nulls + "), CAST(size(eitoken) AS STRING), guid) AS s").orderBy("i");
        return rows.collectAsList().stream().map(r -> r.getLong(0) + " " + r.getString(1)).toList();
    }
}
