package org.eventindex.kudu;

import org.apache.kudu.ColumnSchema;
import org.apache.kudu.Schema;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.RowResult;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.io.LocalInputFile;
import org.eventindex.consolidated.ConsolidatedFileReader;
import org.eventindex.consolidated.ConsolidatedFileWriter;
import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.kudu.TestDatasetFiles.InputFile;
import org.eventindex.names.DatasetName;
import org.eventindex.names.TriggerMask;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.testing.EmbeddedKudu;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The parallel load ({@code loadThreads} > 1) against a real Kudu: exactly the rows of a one-session load of the same
 * file (EVENTS, DUPLICATEDEVENTS, TRIGGERCOUNT, EVENTSOVERLAP, DATASETS counts), for a sorted Parquet file whose
 * duplicates straddle row group boundaries and whose tablets get several batches each (the rows held compact until
 * their tablet's batch is full, decision 0078) and for a file of two runs (duplicates far apart); a failure injected
 * into one writing thread fails the whole load (dataset not LOADED) and a retry completes it; a malformed event fails
 * the load when it is decided, before any row decided after it is written.
 */
class ParallelLoadIT {
    private static final KuduTablesConfig CONFIG = new KuduTablesConfig("par_", 4, 1);
    private static final int EPOCH = 2;
    private static final int RUN = TestDatasetFiles.RUN;
    private static final String DS_A = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
    private static final String DS_B = "data17_13TeV.00327636.physics_Late.merge.AOD.f838_m1824";
    private static final String DS_C = "data17_13TeV.00327636.physics_TwoRuns.merge.AOD.f838_m1824";
    private static final String DS_D = "data17_13TeV.00327636.physics_Fail.merge.AOD.f838_m1824";
    private static final String DS_E = "data17_13TeV.00327636.physics_Malformed.merge.AOD.f838_m1824";

    @TempDir
    static Path dir;
    private static EmbeddedKudu kudu;
    private static KuduClient client;
    private static KuduTables tables;
    private static DatasetQueries queries;

    @BeforeAll
    static void start() throws Exception {
        kudu = EmbeddedKudu.start(dir.resolve("kudu"), 1);
        client = kudu.client();
        tables = new KuduTables(client, CONFIG);
        tables.createOrVerify(EPOCH);
        queries = new DatasetQueries(client, CONFIG);
    }

    @AfterAll
    static void stop() {
        if (kudu != null) {
            kudu.close();
        }
    }

    /** What Kudu holds for one dataset, insertion times relative to its insert_start. */
    private record Snapshot(List<String> events, List<String> duplicates, Map<List<Integer>, Long> pairs,
                            Map<List<Integer>, Long> overlaps, List<Object> datasetsRow) {
    }

    @Test
    void fourThreadsWriteExactlyTheRowsOfOneOnASortedParquetFile() throws Exception {
        List<EIEvent_p1> rowsA = rows(11, 0, 12_000);
        Path fileA = parquet("a", DS_A, rowsA);
        List<EIEvent_p1> sorted = sorted(rowsA);
        // the file has what the test is about: duplicates across row groups
        long[] groupEnds = rowGroupEnds(fileA);
        assertTrue(groupEnds.length >= 3, "row groups: " + groupEnds.length);
        assertTrue(Arrays.stream(groupEnds).anyMatch(end -> straddles(sorted, end)),
                "an event's copies straddle a row group boundary");
        // another LOADED dataset of the run, for EVENTSOVERLAP
        loader(1, null).load(request(DS_B, 601, "b", parquet("b", DS_B, rows(12, 9_000, 14_000))));

        LoadResult one = loader(1, null).load(request(DS_A, 600, "one", fileA));
        Snapshot single = snapshot(DS_A, 600);
        assertEquals(rowsA.size(), one.events());
        assertTrue(one.duplicates() > 0);
        assertEquals(one.uniqueEvents(), single.events().size());
        assertEquals(one.duplicates(), single.duplicates().size());
        // and every tablet (4 buckets per table) gets its rows in several batches of 200, the last one partial
        int tabletBatch = LoaderSettings.MAX_TABLET_BATCH_ROWS;
        assertTrue(single.duplicates().size() / 4 > 2 * tabletBatch, "duplicates: " + single.duplicates().size());
        assertFalse(single.pairs().isEmpty());
        // B shares events 9000..11999 with A: 3000 distinct; (other tests' datasets of the run may add pairs)
        assertEquals(3_000L, single.overlaps().get(List.of(600, 601)));
        assertEquals(3_000L, single.overlaps().get(List.of(601, 600)));

        Set<Integer> writers = ConcurrentHashMap.newKeySet();
        List<Long> progress = new ArrayList<>();
        List<Long> buffered = new ArrayList<>();
        DatasetLoader four = loader(4, (thread, rows) -> writers.add(thread));
        LoadResult parallel = four.load(request(DS_A, 600, "four", fileA), (ds, n) -> {
            progress.add(n);
            buffered.add(four.bufferedRows());
        });
        assertFalse(parallel.alreadyLoaded());
        assertEquals(new LoadResult(one.events(), one.uniqueEvents(), one.duplicates(), parallel.millis(), false),
                parallel);
        assertEquals(single, snapshot(DS_A, 600), "the reload with 4 sessions replaced the rows by the same rows");
        assertEquals("four", queries.dataset(DS_A).orElseThrow().loadId());
        assertTrue(writers.size() > 1, "batches were written by several threads: " + writers);
        // progress sums the threads' rows: never above the events, never back, ends at all of them
        assertEquals(rowsA.size(), progress.get(progress.size() - 1));
        for (int i = 1; i < progress.size(); i++) {
            assertTrue(progress.get(i - 1) <= progress.get(i) && progress.get(i) <= rowsA.size(), "" + progress);
        }
        assertTrue(progress.size() > 2, "progress during the load: " + progress);
        // the rows held for Kudu, as the gauge reads them: the rows waiting for their tablet's batch within the
        // budget (2,000 over 2 x 4 tablets: batches of 200, the most), and per thread its batches in hand-over and
        // its session's two buffers (4 batches each), taken by Kudu as the load goes, none once it is done
        long bound = 2_000 + 4 * (ParallelSessions.QUEUED + 1 + 2 * ParallelSessions.TABLETS_PER_FLUSH) * tabletBatch;
        assertTrue(buffered.stream().allMatch(b -> b >= 0 && b <= bound), "buffered rows: " + buffered);
        assertTrue(buffered.stream().anyMatch(b -> b > 0), "buffered rows: " + buffered);
        assertEquals(0, four.bufferedRows());
    }

    @Test
    void fourThreadsWriteExactlyTheRowsOfOneOnATwoRunFile() throws Exception {
        // files 3 and 4 of another run: the rows sorted by (run, event) hold the same event number once per run, far
        // apart, so the split uses the set of event numbers (a file of an earlier version: one run per dataset is a
        // content rule now)
        List<InputFile> inputs = new ArrayList<>();
        for (int f = 1; f <= 4; f++) {
            long[] numbers = new long[1500];
            for (int i = 0; i < numbers.length; i++) {
                numbers[i] = (long) i * f % 2500;
            }
            inputs.add(new InputFile(TestDatasetFiles.guid(f, 0), numbers));
        }
        Set<String> laterRun = Set.of(TestDatasetFiles.guid(3, 0), TestDatasetFiles.guid(4, 0));
        Path file = TestDatasetFiles.write(dir.resolve("c.parquet"), DS_C, inputs,
                e -> laterRun.stream().anyMatch(e.getEitoken(0).getToken()::contains) ? e.setRunNumber(RUN + 1) : e);
        try (ConsolidatedFileReader r = new ConsolidatedFileReader(new LocalInputFile(file), file.toString())) {
            assertEquals(List.of((long) RUN, RUN + 1L), r.metadata().runs());
        }

        LoadResult one = loader(1, null).load(request(DS_C, 602, "one", file));
        Snapshot single = snapshot(DS_C, 602);
        assertTrue(one.duplicates() > 0);
        LoadResult parallel = loader(4, null).load(request(DS_C, 602, "four", file));
        assertEquals(one.uniqueEvents(), parallel.uniqueEvents());
        assertEquals(one.duplicates(), parallel.duplicates());
        assertEquals(single, snapshot(DS_C, 602));
    }

    @Test
    void aFailureInOneThreadFailsTheLoadAndARetryCompletesIt() throws Exception {
        Path file = parquet("d", DS_D, rows(13, 0, 8_000));
        loader(1, null).load(request(DS_D, 603, "reference", file));
        Snapshot reference = snapshot(DS_D, 603);

        AtomicInteger batches = new AtomicInteger();
        DatasetLoader failing = loader(4, (thread, rows) -> {
            if (batches.incrementAndGet() == 3) {
                throw new IOException("injected failure in load thread " + thread);
            }
        });
        IOException e = assertThrows(IOException.class, () -> failing.load(request(DS_D, 603, "retry", file)));
        assertTrue(e.getMessage().contains("injected failure in load thread"), e.getMessage());
        DatasetsRow after = queries.dataset(DS_D).orElseThrow();
        assertEquals(LoadState.LOADING, after.state(), "a failed load is never LOADED");
        assertEquals("retry", after.loadId());
        assertNotEquals(reference.events().size(), EventRows.count(client, CONFIG.eventsTable(), 603, EPOCH),
                "the failed load stopped before writing every row");

        LoadResult retried = loader(4, null).load(request(DS_D, 603, "retry", file));
        assertFalse(retried.alreadyLoaded());
        assertEquals(reference, snapshot(DS_D, 603));
        assertEquals(LoadState.LOADED, queries.dataset(DS_D).orElseThrow().state());
    }

    @Test
    void aMalformedEventFailsTheLoadWhenItIsDecidedBeforeAnyLaterRowIsWritten() throws Exception {
        long bad = 6_000;
        // events 0..7999 once, every 4th twice more and every 9th once more (duplicates across the tablets);
        // file 1's copy of event 6000 has a malformed token (the writer of the test file does not check it)
        List<InputFile> inputs = List.of(new InputFile(TestDatasetFiles.guid(1, 0), range(0, 8_000, 1)),
                new InputFile(TestDatasetFiles.guid(2, 0), range(0, 8_000, 4)),
                new InputFile(TestDatasetFiles.guid(3, 0), range(0, 8_000, 4)),
                new InputFile(TestDatasetFiles.guid(4, 0), range(0, 8_000, 9)));
        Path file = TestDatasetFiles.write(dir.resolve("e.parquet"), DS_E, inputs,
                e -> e.getEventNumber() == bad && e.getEitoken(0).getToken().contains(TestDatasetFiles.guid(1, 0))
                        ? e.setEitoken(1, e.getEitoken(1).toBuilder().setToken("[DB=x]")) : e);
        Set<Integer> writers = ConcurrentHashMap.newKeySet();

        DatasetLoadException e = assertThrows(DatasetLoadException.class, () -> loader(4,
                (thread, n) -> writers.add(thread)).load(request(DS_E, 604, "malformed", file)));
        assertTrue(e.getMessage().contains("event " + RUN + "/" + bad + " of file " + TestDatasetFiles.guid(1, 0)),
                e.getMessage());
        assertTrue(e.getMessage().contains("malformed reference") && e.getMessage().contains("[DB=x]"),
                e.getMessage());
        assertFalse(e.retriable(), "a malformed reference is malformed every time");
        assertEquals(LoadState.LOADING, queries.dataset(DS_E).orElseThrow().state());
        // the sessions took the batches filled before the event (nothing half-ingested: the dataset is not LOADED,
        // its retry replaces what they wrote), and no row of the event or after it: it was refused as its row was
        // decided, not when its tablet's batch was built rows later
        assertFalse(writers.isEmpty(), "batches before the malformed event were handed to the sessions");
        assertEquals(0, rowsFrom(CONFIG.eventsTable(), 604, bad));
        assertEquals(0, rowsFrom(CONFIG.duplicatedEventsTable(), 604, bad));
    }

    private static long[] range(long from, long to, long step) {
        return LongStream.iterate(from, n -> n < to, n -> n + step).toArray();
    }

    /** Rows of {@code dspid} in {@code table} with an event number of {@code from} or more. */
    private static long rowsFrom(String table, int dspid, long from) throws Exception {
        KuduTable t = client.openTable(table);
        Schema s = t.getSchema();
        KuduScanner scanner = client.newScannerBuilder(t)
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.DSPID),
                        KuduPredicate.ComparisonOp.EQUAL, dspid))
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.EVENTNUMBER),
                        KuduPredicate.ComparisonOp.GREATER_EQUAL, from))
                .setProjectedColumnIndexes(List.of(s.getColumnIndex(KuduSchemas.EVENTNUMBER))).build();
        long n = 0;
        while (scanner.hasMoreRows()) {
            n += scanner.nextRows().getNumRows();
        }
        scanner.close();
        return n;
    }

    private static DatasetLoader loader(int threads, ParallelSessions.Fault fault) {
        LoaderSettings d = LoaderSettings.defaults();
        // a small session buffer, so that a thread waits on its flushes and the others take the next batches
        DatasetLoader loader = new DatasetLoader(client, tables, new LoaderSettings(1_000, d.flushInterval(),
                d.operationTimeout(), 2_048, true, threads, 2_000), Clock.systemUTC());
        loader.injectFault(fault);
        return loader;
    }

    /** Events {@code from..to-1} of the run; every 4th twice, every 9th once more, each copy from another file. */
    private static List<EIEvent_p1> rows(long seed, long from, long to) {
        Random r = new Random(seed);
        List<EIEvent_p1> out = new ArrayList<>();
        for (long e = from; e < to; e++) {
            int copies = 1 + (e % 4 == 0 ? 1 : 0) + (e % 9 == 0 ? 1 : 0);
            for (int c = 1; c <= copies; c++) {
                out.add(TestDatasetFiles.event(e, TestDatasetFiles.guid(c, 0), TestDatasetFiles.guid(c, 1),
                                TestDatasetFiles.guid(c, 2))
                        .setL1PassedTrigMask(TriggerMask.encodeL1(bits(r, 6), bits(r, 5), bits(r, 4)))
                        .setEFPassedTrigMask(TriggerMask.encodeHlt(bits(r, 5), new BitSet(), new BitSet()))
                        .build());
            }
        }
        return out;
    }

    private static BitSet bits(Random r, int n) {
        BitSet b = new BitSet();
        for (int i = 0; i < n; i++) {
            b.set(r.nextInt(40));
        }
        return b;
    }

    private static List<EIEvent_p1> sorted(List<EIEvent_p1> rows) {
        List<EIEvent_p1> s = new ArrayList<>(rows);
        s.sort(Comparator.comparingLong(EIEvent_p1::getEventNumber));
        return s;
    }

    /** A sorted consolidated file with small row groups. */
    private static Path parquet(String name, String dataset, List<EIEvent_p1> rows) throws IOException {
        Path file = dir.resolve(name + ".parquet");
        try (OutputStream out = Files.newOutputStream(file)) {
            ConsolidatedFileWriter w = new ConsolidatedFileWriter(out, false, 128 * 1024);
            for (EIEvent_p1 e : sorted(rows)) {
                w.write(e, fileGuid(e));
            }
            w.finish(new ConsolidatedMetadata(dataset, name, new ConsolidatedMetadata.HeaderInfo(1, "consolidated",
                    name, true, true), List.of("s3://x/" + name), List.of(), List.of(), w.events(),
                    List.of((long) RUN), 0, 2, w.finishDigest()).toKeyValues());
        }
        return file;
    }

    /** The GUID of the file an event of {@link #rows} comes from: the one its own (first) token names. */
    private static String fileGuid(EIEvent_p1 e) {
        for (int c = 1; c <= 3; c++) {
            String guid = TestDatasetFiles.guid(c, 0);
            if (e.getEitoken(0).getToken().contains(guid)) {
                return guid;
            }
        }
        throw new IllegalStateException("no test GUID in " + e.getEitoken(0).getToken());
    }

    /** Row index after the last row of each row group. */
    private static long[] rowGroupEnds(Path file) throws IOException {
        try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
            List<BlockMetaData> groups = r.getRowGroups();
            long[] ends = new long[groups.size()];
            long sum = 0;
            for (int i = 0; i < ends.length; i++) {
                sum += groups.get(i).getRowCount();
                ends[i] = sum;
            }
            return ends;
        }
    }

    private static boolean straddles(List<EIEvent_p1> sorted, long end) {
        int i = (int) end;
        return i > 0 && i < sorted.size() && sorted.get(i - 1).getEventNumber() == sorted.get(i).getEventNumber();
    }

    private static Snapshot snapshot(String dataset, int dspid) throws Exception {
        DatasetsRow row = queries.dataset(dataset).orElseThrow();
        assertEquals(LoadState.LOADED, row.state());
        long start = DatasetsReader.micros(row.insertStart());
        List<Object> counts = List.of(row.state(), row.dspid(), row.rgid(), row.countEvents(), row.uniqDuplEvents(),
                row.numDuplicates());
        return new Snapshot(table(CONFIG.eventsTable(), dspid, start), table(CONFIG.duplicatedEventsTable(), dspid,
                start), TestKuduRows.triggerCounts(client, CONFIG, dspid), overlaps(dspid), counts);
    }

    /** Every row of the dataset, every column, sorted; insertion_time as its offset from insert_start. */
    private static List<String> table(String name, int dspid, long startMicros) throws Exception {
        KuduTable t = client.openTable(name);
        Schema s = t.getSchema();
        KuduScanner scanner = client.newScannerBuilder(t).addPredicate(KuduPredicate.newComparisonPredicate(
                s.getColumn(KuduSchemas.DSPID), KuduPredicate.ComparisonOp.EQUAL, dspid)).build();
        List<String> out = new ArrayList<>();
        while (scanner.hasMoreRows()) {
            for (RowResult r : scanner.nextRows()) {
                StringBuilder b = new StringBuilder();
                for (int i = 0; i < s.getColumnCount(); i++) {
                    ColumnSchema c = s.getColumnByIndex(i);
                    b.append(c.getName()).append('=');
                    if (r.isNull(i)) {
                        b.append("null");
                    } else if (c.getName().equals(KuduSchemas.INSERTION_TIME)) {
                        b.append("start+").append(r.getLong(i) - startMicros);
                    } else {
                        Object v = r.getObject(i);
                        b.append(v instanceof byte[] bytes ? Arrays.toString(bytes) : String.valueOf(v));
                    }
                    b.append(' ');
                }
                out.add(b.toString());
            }
        }
        scanner.close();
        out.sort(null);
        return out;
    }

    private static Map<List<Integer>, Long> overlaps(int dspid) throws Exception {
        Map<List<Integer>, Long> all = TestKuduRows.overlaps(client, CONFIG);
        all.keySet().removeIf(pair -> pair.get(0) != dspid && pair.get(1) != dspid);
        return all;
    }

    private static LoadRequest request(String dataset, int dspid, String loadId, Path file) {
        return new LoadRequest(DatasetName.parse(dataset), dspid, EPOCH, loadId, DatasetSource.local(file), 0);
    }
}
