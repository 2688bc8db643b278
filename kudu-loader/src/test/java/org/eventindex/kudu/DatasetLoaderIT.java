package org.eventindex.kudu;

import org.apache.kudu.ColumnSchema;
import org.apache.kudu.client.CreateTableOptions;
import org.apache.kudu.client.Insert;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.Update;
import org.eventindex.kudu.TestDatasetFiles.InputFile;
import org.eventindex.names.DatasetName;
import org.eventindex.testing.EmbeddedKudu;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The loader against a real Kudu: one cluster, one tablet server for the whole class. */
class DatasetLoaderIT {
    private static final KuduTablesConfig MAIN = new KuduTablesConfig("it_", 64, 1);
    private static final KuduTablesConfig SMALL = new KuduTablesConfig("small_", 4, 1);
    private static final int EPOCH = 1;

    @TempDir
    static Path dir;
    private static EmbeddedKudu kudu;
    private static KuduClient client;
    private static KuduTables tables;
    private static DatasetLoader loader;
    private static DatasetQueries queries;

    @BeforeAll
    static void startKudu() throws Exception {
        kudu = EmbeddedKudu.start(dir.resolve("kudu"), 1);
        client = kudu.client();
        tables = new KuduTables(client, MAIN);
        tables.createOrVerify(EPOCH);
        loader = new DatasetLoader(client, tables, LoaderSettings.defaults(), Clock.systemUTC());
        queries = new DatasetQueries(client, MAIN);
    }

    @AfterAll
    static void stopKudu() {
        if (kudu != null) {
            kudu.close();
        }
    }

    @Test
    void createsTablesWith64BucketsAndTheEpochRange() throws Exception {
        KuduTable events = client.openTable(MAIN.eventsTable());
        assertEquals(64, events.getTabletsLocations(60_000).size());
        assertEquals(List.of(EPOCH), tables.epochs(MAIN.eventsTable()));
        assertEquals(List.of(EPOCH), tables.epochs(MAIN.duplicatedEventsTable()));
        assertEquals(KuduSchemas.DATASETS_KEY, client.openTable(MAIN.datasetsTable()).getSchema()
                .getPrimaryKeyColumns().stream().map(ColumnSchema::getName).toList());
        // Idempotent, also from a second instance.
        new KuduTables(client, MAIN).createOrVerify(EPOCH);
        assertEquals(List.of(EPOCH), tables.epochs(MAIN.eventsTable()));
    }

    @Test
    void loadSplitsDuplicatesAndIsIdempotent() throws Exception {
        String dataset = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
        // 7 is in files 1 and 2; 9 three times: 2 duplicate rows for 9, 1 for 7.
        Path file = TestDatasetFiles.write(dir.resolve("a.parquet"), dataset, List.of(
                new InputFile(TestDatasetFiles.guid(1, 0), 1, 7, 9, 0),
                new InputFile(TestDatasetFiles.guid(2, 0), 7, 9, 11, 9)));
        LoadRequest request = request(dataset, 100, EPOCH, "signal-a", file, 0);

        LoadResult first = loader.load(request);
        assertEquals(new LoadResult(8, 5, 3, first.millis(), false), first);
        assertEquals(new EventCounts(5, 3), queries.countEvents(100, EPOCH));

        DatasetsRow row = queries.dataset(dataset).orElseThrow();
        assertEquals(LoadState.LOADED, row.state());
        assertEquals("signal-a", row.loadId());
        assertEquals(100, row.dspid());
        assertEquals(EPOCH, row.rgid());
        assertEquals(8L, row.countEvents());
        assertEquals(2L, row.uniqDuplEvents());
        assertEquals(3L, row.numDuplicates());
        assertTrue(row.hdfsPath().endsWith("a.parquet"));
        assertFalse(row.insertEnd().isBefore(row.insertStart()));

        // The first occurrence (file 1) is in EVENTS, with its own and provenance references.
        EventRefs seven = queries.lookup(100, 7, EPOCH).orElseThrow();
        assertEquals(TestDatasetFiles.guid(1, 0), seven.db());
        assertEquals(TestDatasetFiles.token(TestDatasetFiles.guid(1, 0), 7), seven.tk());
        assertEquals(TestDatasetFiles.guid(1, 0), seven.dbAod());
        assertEquals(TestDatasetFiles.guid(1, 1), seven.dbEsd());
        assertEquals(TestDatasetFiles.guid(1, 2), seven.dbRaw());
        assertEquals(TestDatasetFiles.token(TestDatasetFiles.guid(1, 2), 7), seven.tkRaw());
        assertEquals(TestDatasetFiles.RUN, seven.runNumber());
        assertEquals(TestDatasetFiles.guid(2, 0), queries.lookup(100, 11, EPOCH).orElseThrow().db());
        assertTrue(queries.lookup(100, 0, EPOCH).isPresent());
        assertFalse(queries.lookup(100, 8, EPOCH).isPresent());

        LoadResult again = loader.load(request);
        assertTrue(again.alreadyLoaded());
        assertEquals(8, again.events());
        assertEquals(5, again.uniqueEvents());
        assertEquals(3, again.duplicates());
        assertEquals(new EventCounts(5, 3), queries.countEvents(100, EPOCH));
        assertEquals(row.insertStart(), queries.dataset(dataset).orElseThrow().insertStart());
    }

    @Test
    void leftoverOfAnInterruptedLoadIsCleanedAndReloaded() throws Exception {
        String dataset = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid00000001_00";
        Path file = TestDatasetFiles.write(dir.resolve("b.parquet"), dataset, List.of(
                new InputFile(TestDatasetFiles.guid(3, 0), 1, 2, 3, 2)));
        LoadRequest request = request(dataset, 101, EPOCH, "signal-b", file, 0);
        loader.load(request);

        // Simulate a crash mid-load: a stray row and the state back to LOADING.
        KuduSession session = client.newSession();
        KuduTable events = client.openTable(MAIN.eventsTable());
        Insert stray = events.newInsert();
        KuduSchemas.addEventKey(stray.getRow(), 101, 999, EPOCH);
        assertFalse(session.apply(stray).hasRowError());
        Update state = client.openTable(MAIN.datasetsTable()).newUpdate();
        state.getRow().addInt(KuduSchemas.RUNNUMBER, 327636);
        state.getRow().addString(KuduSchemas.PROJECT, "data17_13TeV");
        state.getRow().addString(KuduSchemas.STREAMNAME, "physics_Main");
        state.getRow().addString(KuduSchemas.PRODSTEP, "merge");
        state.getRow().addString(KuduSchemas.DATATYPE, "AOD");
        state.getRow().addString(KuduSchemas.VERSION, "f838_m1824_tid00000001_00");
        state.getRow().addString(KuduSchemas.STATE, LoadState.LOADING.name());
        assertFalse(session.apply(state).hasRowError());
        session.close();
        assertEquals(new EventCounts(4, 1), queries.countEvents(101, EPOCH));

        LoadResult reload = loader.load(request);
        assertFalse(reload.alreadyLoaded());
        assertEquals(new EventCounts(3, 1), queries.countEvents(101, EPOCH));
        assertFalse(queries.lookup(101, 999, EPOCH).isPresent());
        assertEquals(LoadState.LOADED, queries.dataset(dataset).orElseThrow().state());
    }

    @Test
    void newContentReplacesTheOldRows() throws Exception {
        String dataset = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1825";
        Path v1 = TestDatasetFiles.write(dir.resolve("c1.parquet"), dataset, List.of(
                new InputFile(TestDatasetFiles.guid(4, 0), 1, 2, 3, 4, 4)));
        loader.load(request(dataset, 102, EPOCH, "signal-c1", v1, 0));
        Path v2 = TestDatasetFiles.write(dir.resolve("c2.parquet"), dataset, List.of(
                new InputFile(TestDatasetFiles.guid(5, 0), 1, 2)));
        LoadResult r = loader.load(request(dataset, 102, EPOCH, "signal-c2", v2, 0));
        assertEquals(new LoadResult(2, 2, 0, r.millis(), false), r);
        assertEquals(new EventCounts(2, 0), queries.countEvents(102, EPOCH));
        assertEquals(TestDatasetFiles.guid(5, 0), queries.lookup(102, 1, EPOCH).orElseThrow().db());
        assertEquals("signal-c2", queries.dataset(dataset).orElseThrow().loadId());
    }

    @Test
    void aLoadOfAnOlderSelectionIsRefusedAndChangesNothing() throws Exception {
        String dataset = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1829";
        Path older = TestDatasetFiles.write(dir.resolve("h1.parquet"), dataset, List.of(
                new InputFile(TestDatasetFiles.guid(10, 0), 1, 2, 3)));
        Path newer = TestDatasetFiles.write(dir.resolve("h2.parquet"), dataset, List.of(
                new InputFile(TestDatasetFiles.guid(11, 0), 1, 2)));
        // the newer selection (made at t=2000) is processed first, the superseded one (t=1000) arrives late
        loader.load(request(dataset, 107, EPOCH, "signal-h2", newer, 2000));
        LoadRequest late = request(dataset, 107, EPOCH, "signal-h1", older, 1000);
        DatasetLoadException e = assertThrows(DatasetLoadException.class,
                () -> loader.checkNotSuperseded(DatasetName.parse(dataset), "signal-h1", 1000));
        assertContains(e.getMessage(), dataset, "superseded", "signal-h2", "signal-h1", "nothing changed");
        assertFalse(e.retriable(), "a superseded load fails the same way every time");
        // the content DATASETS holds is never superseded
        loader.checkNotSuperseded(DatasetName.parse(dataset), "signal-h2", 1000);
        loader.checkNotSuperseded(DatasetName.parse(dataset), "signal-h9", 2001); // a newer selection passes
        e = assertThrows(DatasetLoadException.class, () -> loader.load(late));
        assertContains(e.getMessage(), "superseded");
        assertEquals(new EventCounts(2, 0), queries.countEvents(107, EPOCH));
        assertEquals(TestDatasetFiles.guid(11, 0), queries.lookup(107, 1, EPOCH).orElseThrow().db());
        assertEquals("signal-h2", queries.dataset(dataset).orElseThrow().loadId());
        assertTrue(queries.dataset(dataset).orElseThrow().isLoaded());

        // the same content again, even with an older time (a re-sent copy), and an operator's reload (no time) pass
        assertTrue(loader.load(request(dataset, 107, EPOCH, "signal-h2", newer, 1500))
                .alreadyLoaded());
        LoadResult reload = loader.load(
                request(dataset, 107, EPOCH, "operator-h1", older, 0));
        assertEquals(3, reload.events());
        // a newer selection still replaces it, and its time is kept for the next comparison
        loader.load(request(dataset, 107, EPOCH, "signal-h3", newer, 3000));
        assertThrows(DatasetLoadException.class, () -> loader.load(
                request(dataset, 107, EPOCH, "signal-h2", newer, 2000)));
        assertEquals("signal-h3", queries.dataset(dataset).orElseThrow().loadId());
    }

    @Test
    void aNewerSelectionStartedDuringTheLoadKeepsItFromEndingLoaded() throws Exception {
        String dataset = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1830";
        Path file = TestDatasetFiles.write(dir.resolve("i.parquet"), dataset, List.of(
                new InputFile(TestDatasetFiles.guid(12, 0), 1, 2)));
        AtomicBoolean newerStarted = new AtomicBoolean();
        // once the events are written, a newer selection's load takes the DATASETS row (as its markLoading would)
        DatasetLoader.Progress newerLoadStarts = (name, events) -> {
            if (newerStarted.compareAndSet(false, true)) {
                startLoadingElsewhere(dataset, "signal-i2", 3000);
            }
        };
        DatasetLoadException e = assertThrows(DatasetLoadException.class, () -> loader.load(
                request(dataset, 108, EPOCH, "signal-i1", file, 2000), newerLoadStarts));
        assertContains(e.getMessage(), dataset, "superseded", "signal-i2", "signal-i1");
        assertFalse(e.retriable(), "a superseded load fails the same way every time");
        DatasetsRow row = queries.dataset(dataset).orElseThrow();
        assertEquals("signal-i2", row.loadId());
        assertEquals(LoadState.LOADING, row.state());
    }

    private static void startLoadingElsewhere(String dataset, String loadId, long selectedAt) {
        try {
            KuduSession session = client.newSession();
            Update update = client.openTable(MAIN.datasetsTable()).newUpdate();
            KuduSchemas.addDatasetKey(update.getRow(), DatasetName.parse(dataset));
            update.getRow().addString(KuduSchemas.LOAD_ID, loadId);
            update.getRow().addLong(KuduSchemas.SIGNAL_TS, selectedAt);
            update.getRow().addString(KuduSchemas.STATE, LoadState.LOADING.name());
            assertFalse(session.apply(update).hasRowError(), "DATASETS row of " + dataset + " not updated");
            session.close();
        } catch (KuduException e) {
            throw new UncheckedIOException("could not update the DATASETS row of " + dataset, e);
        }
    }

    @Test
    void replacedDatasetLeavesNoRowsAtItsOldPlace() throws Exception {
        String dataset = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1828";
        Path file = TestDatasetFiles.write(dir.resolve("g.parquet"), dataset, List.of(
                new InputFile(TestDatasetFiles.guid(9, 0), 1, 2, 2)));
        loader.load(request(dataset, 105, EPOCH, "signal-g1", file, 0));
        DatasetLoadException e = assertThrows(DatasetLoadException.class, () -> loader.load(
                request(dataset, 106, EPOCH, "signal-g1", file, 0)));
        assertContains(e.getMessage(), "dspid 105", "dspid 106");
        assertFalse(e.retriable(), "the same load id cannot be placed elsewhere");

        loader.load(request(dataset, 106, EPOCH, "signal-g2", file, 0));
        assertEquals(new EventCounts(0, 0), queries.countEvents(105, EPOCH));
        assertEquals(new EventCounts(2, 1), queries.countEvents(106, EPOCH));
        assertEquals(106, queries.dataset(dataset).orElseThrow().dspid());
    }

    @Test
    void refusedRowFailsTheLoadAndLeavesItLoading() throws Exception {
        String dataset = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1826";
        // Kudu refuses cells above 64 KiB: the one event with such a token must fail the whole load.
        String huge = new org.eventindex.names.PoolToken(TestDatasetFiles.guid(6, 0), "C".repeat(70_000),
                "D82968A1-CF91-4320-B2DD-E0F739CBC7E6", 0x202, 3, 2).format();
        // The consumer never writes such a token (an SPB object cannot carry it: SpbContentLimits); a file can.
        Path file = TestDatasetFiles.write(dir.resolve("d.parquet"), dataset, List.of(
                        new InputFile(TestDatasetFiles.guid(6, 0), 1, 2, 3)),
                e -> e.getEventNumber() == 2 ? e.setEitoken(0, e.getEitoken(0).toBuilder().setToken(huge)) : e);
        DatasetLoadException e = assertThrows(DatasetLoadException.class, () -> loader.load(
                request(dataset, 103, EPOCH, "signal-d", file, 0)));
        assertContains(e.getMessage(), dataset, "refused 1 rows", MAIN.eventsTable());
        assertTrue(e.retriable(), "refused rows are retried (whatever Kudu's reason)");
        assertEquals(LoadState.LOADING, queries.dataset(dataset).orElseThrow().state());
        assertTrue(queries.countEvents(103, EPOCH).events() > 0, "the other rows were written");

        // given up for good (a consumer's permanent failure): nothing of the load stays
        DatasetName name = DatasetName.parse(dataset);
        assertFalse(loader.abandon(name, "signal-other"), "another load's row is left alone");
        assertEquals(LoadState.LOADING, queries.dataset(dataset).orElseThrow().state());
        assertTrue(loader.abandon(name, "signal-d"));
        assertTrue(queries.dataset(dataset).isEmpty(), "the DATASETS row is removed");
        assertEquals(new EventCounts(0, 0), queries.countEvents(103, EPOCH));
        assertFalse(loader.abandon(name, "signal-d"), "a second time finds nothing");
    }

    @Test
    void aLoadedDatasetIsNotAbandoned() throws Exception {
        String dataset = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1829";
        Path file = TestDatasetFiles.write(dir.resolve("abandon.parquet"), dataset, List.of(
                new InputFile(TestDatasetFiles.guid(9, 0), 1, 2, 3)));
        loader.load(request(dataset, 109, EPOCH, "signal-x", file, 0));
        assertFalse(loader.abandon(DatasetName.parse(dataset), "signal-x"));
        assertEquals(LoadState.LOADED, queries.dataset(dataset).orElseThrow().state());
        assertEquals(new EventCounts(3, 0), queries.countEvents(109, EPOCH));
    }

    @Test
    void malformedTokenFailsTheLoadNamingTheEvent() throws Exception {
        String dataset = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1827";
        Path file = TestDatasetFiles.write(dir.resolve("e.parquet"), dataset, List.of(
                        new InputFile(TestDatasetFiles.guid(7, 0), 1, 5)),
                e -> e.getEventNumber() == 5 ? e.setEitoken(1, e.getEitoken(1).toBuilder().setToken("[DB=x]")) : e);
        // the consumer never writes such a token (its reader refuses the object); the loader refuses it too,
        // naming the event, its file and the token
        DatasetLoadException e = assertThrows(DatasetLoadException.class, () -> loader.load(
                request(dataset, 104, EPOCH, "signal-e", file, 0)));
        assertContains(e.getMessage(), dataset, "event 327636/5 of file " + TestDatasetFiles.guid(7, 0),
                "e.parquet", "malformed reference", "[DB=x]");
        assertFalse(e.retriable(), "a malformed reference is malformed every time");
        assertEquals(LoadState.LOADING, queries.dataset(dataset).orElseThrow().state());
    }

    @Test
    void aFileThatIsNotParquetIsRefusedBeforeAnythingChanges() throws Exception {
        String dataset = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1831";
        Path parquet = TestDatasetFiles.write(dir.resolve("j.parquet"), dataset, List.of(
                new InputFile(TestDatasetFiles.guid(13, 0), 1, 2, 3)));
        loader.load(request(dataset, 110, EPOCH, "signal-j1", parquet, 0));
        DatasetsRow loaded = queries.dataset(dataset).orElseThrow();

        // the dataset's consolidated SPB file of a version before the Parquet file, under another load id
        Path spb = TestDatasetFiles.writeConsolidatedSpb(dir.resolve(dataset + ".ei.spb"), dataset,
                new InputFile(TestDatasetFiles.guid(14, 0), 1, 2));
        DatasetLoadException e = assertThrows(DatasetLoadException.class, () -> loader.load(
                request(dataset, 110, EPOCH, "signal-j2", spb, 0)));
        assertContains(e.getMessage(), dataset, spb.toUri().toString(), "is not a Parquet file", "gzip",
                "consolidated SPB file", "no longer loaded", "resignal");
        assertFalse(e.retriable(), "the file is the same at every attempt");
        assertEquals(loaded, queries.dataset(dataset).orElseThrow(), "DATASETS unchanged: LOADED, the first load");
        assertEquals(new EventCounts(3, 0), queries.countEvents(110, EPOCH));
        assertEquals(TestDatasetFiles.guid(13, 0), queries.lookup(110, 1, EPOCH).orElseThrow().db());

        // a dataset not loaded yet gets no DATASETS row from a refused file
        String fresh = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1832";
        Path text = java.nio.file.Files.writeString(dir.resolve("k.parquet"), "not a dataset file\n");
        e = assertThrows(DatasetLoadException.class, () -> loader.load(request(fresh, 111, EPOCH, "signal-k", text,
                0)));
        assertContains(e.getMessage(), text.toUri().toString(), "does not begin with the Parquet magic number PAR1");
        assertTrue(queries.dataset(fresh).isEmpty());
    }

    @Test
    void secondEpochIsAddedOnDemand() throws Exception {
        KuduTables small = new KuduTables(client, SMALL);
        small.createOrVerify(1);
        DatasetLoader smallLoader = new DatasetLoader(client, small, LoaderSettings.defaults(), Clock.systemUTC());
        String dataset = "data18_13TeV.00350000.physics_Main.merge.AOD.f900_m2000";
        Path file = TestDatasetFiles.write(dir.resolve("f.parquet"), dataset, List.of(
                new InputFile(TestDatasetFiles.guid(8, 0), 10, 20, 30)));
        smallLoader.load(request(dataset, 200, 2, "signal-f", file, 0));
        assertEquals(List.of(1, 2), small.epochs(SMALL.eventsTable()));
        assertEquals(List.of(1, 2), small.epochs(SMALL.duplicatedEventsTable()));
        assertEquals(new EventCounts(3, 0), new DatasetQueries(client, SMALL).countEvents(200, 2));
        assertEquals(new EventCounts(0, 0), new DatasetQueries(client, SMALL).countEvents(200, 1));

        // Two processes adding the same epoch at once both succeed and leave one range.
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<Void>> adds = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                KuduTables other = new KuduTables(client, SMALL);
                adds.add(pool.submit((Callable<Void>) () -> {
                    other.ensureEpoch(3);
                    return null;
                }));
            }
            for (Future<Void> add : adds) {
                add.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(List.of(1, 2, 3), small.epochs(SMALL.eventsTable()));
        assertEquals(List.of(1, 2, 3), small.epochs(SMALL.duplicatedEventsTable()));
    }

    @Test
    void existingTableWithAnotherKeyIsRefused() throws Exception {
        KuduTablesConfig bad = new KuduTablesConfig("bad_", 2, 1);
        client.createTable(bad.datasetsTable(), KuduSchemas.events(), new CreateTableOptions()
                .addHashPartitions(List.of(KuduSchemas.EVENTNUMBER), 2).setNumReplicas(1));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new KuduTables(client, bad).createOrVerify(0));
        assertContains(e.getMessage(), bad.datasetsTable(), "primary key");
    }

    private static void assertContains(String text, String... parts) {
        for (String part : parts) {
            assertTrue(text.contains(part), () -> "expected '" + part + "' in: " + text);
        }
    }

    /** A load of a local file; the name is parsed here, as the consumer's signal validator does. */
    private static LoadRequest request(String dataset, int dspid, int epoch, String loadId, Path file,
                                       long selectedAt) {
        return new LoadRequest(DatasetName.parse(dataset), dspid, epoch, loadId, DatasetSource.local(file), selectedAt);
    }
}
