package org.eventindex.kudu;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.RowResult;
import org.eventindex.consolidated.ConsolidatedFileWriter;
import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.names.DatasetName;
import org.eventindex.names.TriggerMask;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.testing.EmbeddedKudu;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The full Kudu model against a real Kudu, loading sorted Parquet consolidated files: MCEVENTS for simulation,
 * DUPLICATEDEVENTS for repeated events, trigger mask words, TRIGGERCOUNT and EVENTSOVERLAP equal to a brute-force
 * reference computed here, and reload / redelivery / delete leaving exactly one consistent copy.
 */
class FullModelIT {
    private static final KuduTablesConfig CONFIG = new KuduTablesConfig("full_", 4, 1);
    private static final int EPOCH = 3;
    private static final int RUN = 327636;
    private static final String DS_A = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
    private static final String DS_B = "data17_13TeV.00327636.physics_Late.merge.AOD.f838_m1824";
    private static final String DS_MC = "mc16_13TeV.361106.PowhegPythia8_Zee.merge.AOD.e3601_r10201";

    @TempDir
    static Path dir;
    private static EmbeddedKudu kudu;
    private static KuduClient client;
    private static DatasetLoader loader;
    private static DatasetQueries queries;

    @BeforeAll
    static void start() throws Exception {
        kudu = EmbeddedKudu.start(dir.resolve("kudu"), 1);
        client = kudu.client();
        KuduTables tables = new KuduTables(client, CONFIG);
        tables.createOrVerify(EPOCH);
        loader = new DatasetLoader(client, tables, LoaderSettings.defaults(), Clock.systemUTC());
        queries = new DatasetQueries(client, CONFIG);
    }

    @AfterAll
    static void stop() {
        if (kudu != null) {
            kudu.close();
        }
    }

    /** A generated row: the event and its file GUID. */
    private record Row(EIEvent_p1 event, String guid) {
    }

    @Test
    void fullModelMatchesBruteForceAndSurvivesReloadAndDelete() throws Exception {
        Random r = new Random(5);
        // A: events 0..599 from file 1, and 100..149 again from file 2 (cross-file duplicates).
        List<Row> a = new ArrayList<>();
        for (long e = 0; e < 600; e++) {
            a.add(new Row(event(r, RUN, e, false), guid(1)));
        }
        for (long e = 100; e < 150; e++) {
            a.add(new Row(event(r, RUN, e, false), guid(2)));
        }
        // B: same run, events 400..899 -> 200 shared with A.
        List<Row> b = new ArrayList<>();
        for (long e = 400; e < 900; e++) {
            b.add(new Row(event(r, RUN, e, false), guid(3)));
        }
        List<Row> mc = new ArrayList<>();
        for (long e = 1; e <= 300; e++) {
            mc.add(new Row(event(r, 284500, e * 7, true), guid(4)));
        }
        Path fa = write("a", DS_A, "sig-a", a);
        Path fb = write("b", DS_B, "sig-b", b);
        Path fmc = write("mc", DS_MC, "sig-mc", mc);

        LoadResult ra = loader.load(request(DS_A, 300, EPOCH, "sig-a", fa, 0));
        assertEquals(650, ra.events());
        assertEquals(600, ra.uniqueEvents());
        assertEquals(50, ra.duplicates());
        loader.load(request(DS_B, 301, EPOCH, "sig-b", fb, 0));
        LoadResult rmc = loader.load(request(DS_MC, 302, EPOCH, "sig-mc", fmc, 0));
        assertEquals(300, rmc.uniqueEvents());

        // Tables
        assertEquals(600, rows(CONFIG.eventsTable(), 300));
        assertEquals(50, rows(CONFIG.duplicatedEventsTable(), 300));
        assertEquals(0, rows(CONFIG.eventsTable(), 302), "simulation never in EVENTS");
        assertEquals(300, rows(CONFIG.mcEventsTable(), 302), "simulation goes to MCEVENTS");
        assertEquals(new EventCounts(300, 0), queries.countEvents(302, EPOCH));
        assertTrue(queries.lookup(302, 7, EPOCH).isPresent(), "lookup finds MCEVENTS rows");

        // Trigger words: the stored words are the mask's words, zero words NULL; the coded text derived from them
        // is the file's text for every row (decision 0037: the text is not stored in Kudu).
        checkWords(a.get(0).event());
        assertEquals(maskTexts(a), storedMaskTexts(CONFIG, 300, false));
        assertEquals(maskTexts(mc), storedMaskTexts(CONFIG, 302, false));

        // Analytics against brute force
        assertEquals(bruteForcePairs(a), triggerCounts(300));
        assertEquals(bruteForcePairs(b), triggerCounts(301));
        assertEquals(bruteForcePairs(mc), triggerCounts(302));
        Map<List<Integer>, Long> overlap = overlaps();
        long shared = bruteForceOverlap(a, b);
        assertEquals(200, shared);
        assertEquals(Map.of(List.of(300, 301), shared, List.of(301, 300), shared), overlap);

        // Redelivery: same load id, nothing written.
        assertTrue(loader.load(request(DS_A, 300, EPOCH, "sig-a", fa, 0)).alreadyLoaded());
        // Reload with a new load id: one copy, same analytics.
        LoadResult again = loader.load(request(DS_A, 300, EPOCH, "sig-a2", fa, 0));
        assertFalse(again.alreadyLoaded());
        assertEquals(600, rows(CONFIG.eventsTable(), 300));
        assertEquals(50, rows(CONFIG.duplicatedEventsTable(), 300));
        assertEquals(bruteForcePairs(a), triggerCounts(300));
        assertEquals(overlap, overlaps());

        // Delete B: its rows, counts and overlaps go; A stays.
        assertTrue(loader.delete(DatasetName.parse(DS_B)));
        assertEquals(0, rows(CONFIG.eventsTable(), 301));
        assertEquals(Map.of(), triggerCounts(301));
        assertEquals(Map.of(), overlaps());
        assertTrue(queries.dataset(DS_B).isEmpty());
        assertEquals(600, rows(CONFIG.eventsTable(), 300));
        assertFalse(loader.delete(DatasetName.parse(DS_B)), "deleting twice is a no-op");
    }

    @Test
    void createTablesUpgradesAnEventsTableOfAnEarlierVersion() throws Exception {
        KuduTablesConfig old = new KuduTablesConfig("old_", 2, 1);
        // EVENTS as the first version made it: no trigger word columns, default block size on every column
        List<org.apache.kudu.ColumnSchema> columns = KuduSchemas.events().getColumns().stream()
                .filter(c -> !c.getName().startsWith("l1w") && !c.getName().startsWith("hltw"))
                .map(c -> new org.apache.kudu.ColumnSchema.ColumnSchemaBuilder(c).desiredBlockSize(0).build())
                .toList();
        org.apache.kudu.Schema v1 = new org.apache.kudu.Schema(columns);
        org.apache.kudu.client.PartialRow lower = v1.newPartialRow();
        lower.addInt(KuduSchemas.RGID, 0);
        org.apache.kudu.client.PartialRow upper = v1.newPartialRow();
        upper.addInt(KuduSchemas.RGID, 1);
        client.createTable(old.eventsTable(), v1, new org.apache.kudu.client.CreateTableOptions()
                .setRangePartitionColumns(List.of(KuduSchemas.RGID)).addRangePartition(lower, upper)
                .addHashPartitions(List.of(KuduSchemas.EVENTNUMBER), 2).setNumReplicas(1));
        assertFalse(client.openTable(old.eventsTable()).getSchema().hasColumn(KuduSchemas.l1Word(0)));

        new KuduTables(client, old).createOrVerify(0);

        org.apache.kudu.Schema upgraded = client.openTable(old.eventsTable()).getSchema();
        assertTrue(upgraded.hasColumn(KuduSchemas.l1Word(23)) && upgraded.hasColumn(KuduSchemas.hltWord(191)));
        assertEquals(KuduSchemas.events().getColumnCount(), upgraded.getColumnCount());
        for (org.apache.kudu.ColumnSchema c : KuduSchemas.events().getColumns()) {
            assertEquals(c.getDesiredBlockSize(), upgraded.getColumn(c.getName()).getDesiredBlockSize(),
                    "block size of " + c.getName());
        }
        assertEquals(32 * 1024, upgraded.getColumn(KuduSchemas.TK).getDesiredBlockSize());
        assertTrue(client.tableExists(old.mcEventsTable()) && client.tableExists(old.triggerCountTable())
                && client.tableExists(old.eventsOverlapTable()));
    }

    /**
     * An installation made before decision 0037: its event tables have the coded mask text columns. It keeps loading
     * (the loader fills the text as before, so old and new readers see the same rows), the text derived from the
     * words equals the stored text on every row, and the documented upgrade ({@code kudu table delete_column}, see
     * docs/operations.md) drops the columns, after which the same file reloads and reads back the same.
     */
    @Test
    void tablesWithTheMaskTextKeepLoadingAndTheDocumentedUpgradeDropsIt() throws Exception {
        KuduTablesConfig legacy = new KuduTablesConfig("legacy_", 2, 1);
        KuduTables tables = new KuduTables(client, legacy);
        tables.createOrVerify(EPOCH);
        List<String> eventTables = List.of(legacy.eventsTable(), legacy.duplicatedEventsTable(),
                legacy.mcEventsTable());
        for (String table : eventTables) {
            org.apache.kudu.client.AlterTableOptions add = new org.apache.kudu.client.AlterTableOptions();
            KuduSchemas.maskTextColumns().forEach(add::addColumn);
            client.alterTable(table, add);
        }
        Random r = new Random(11);
        List<Row> rows = new ArrayList<>();
        for (long e = 0; e < 200; e++) {
            rows.add(new Row(event(r, RUN, e, false), guid(5)));
        }
        for (long e = 50; e < 70; e++) {
            rows.add(new Row(event(r, RUN, e, false), guid(6)));
        }
        Path file = write("legacy", DS_A, "sig-l", rows);
        DatasetLoader legacyLoader = new DatasetLoader(client, tables, LoaderSettings.defaults(), Clock.systemUTC());
        tables.createOrVerify(EPOCH);
        assertEquals(220, legacyLoader.load(request(DS_A, 400, EPOCH, "sig-l", file, 0)).events());
        List<String> expected = maskTexts(rows);
        assertEquals(expected, storedMaskTexts(legacy, 400, true), "old output: the text columns");
        assertEquals(expected, storedMaskTexts(legacy, 400, false), "new output: text derived from the words");

        // the upgrade documented in docs/operations.md, run with the Kudu binary
        for (String table : eventTables) {
            for (String column : List.of(KuduSchemas.L1TRIGMASK, KuduSchemas.EFTRIGMASK)) {
                kuduTool("table", "delete_column", kudu.masterAddresses(), table, column);
            }
        }
        assertFalse(client.openTable(legacy.eventsTable()).getSchema().hasColumn(KuduSchemas.L1TRIGMASK));
        DatasetLoader upgraded = new DatasetLoader(client, tables, LoaderSettings.defaults(), Clock.systemUTC());
        assertEquals(220, upgraded.load(request(DS_A, 400, EPOCH, "sig-l2", file, 0)).events());
        assertEquals(expected, storedMaskTexts(legacy, 400, false), "after the upgrade and a reload");
    }

    private static void kuduTool(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty(EmbeddedKudu.BIN_DIR_PROPERTY), "kudu").toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), String.join(" ", command) + ": " + output);
    }

    /** "event L1-text HLT-text" of every row of the file (null for an absent mask), sorted. */
    private static List<String> maskTexts(List<Row> rows) {
        return rows.stream().map(x -> x.event().getEventNumber() + " "
                        + (x.event().hasL1PassedTrigMask() ? x.event().getL1PassedTrigMask() : null) + " "
                        + (x.event().hasEFPassedTrigMask() ? x.event().getEFPassedTrigMask() : null))
                .sorted().toList();
    }

    /**
     * The same for the rows of one dataset in Kudu (EVENTS or MCEVENTS and DUPLICATEDEVENTS): from the text columns
     * of an older table ({@code textColumns}) or derived from the word columns ({@link TriggerMaskColumns}).
     */
    private static List<String> storedMaskTexts(KuduTablesConfig config, int dspid, boolean textColumns)
            throws Exception {
        List<String> out = new ArrayList<>();
        for (String name : List.of(config.eventsTable(), config.mcEventsTable(), config.duplicatedEventsTable())) {
            org.apache.kudu.client.KuduTable table = client.openTable(name);
            List<String> columns = new ArrayList<>(List.of(KuduSchemas.EVENTNUMBER));
            if (textColumns) {
                columns.addAll(List.of(KuduSchemas.L1TRIGMASK, KuduSchemas.EFTRIGMASK));
            } else {
                columns.addAll(TriggerMaskColumns.l1Columns());
                columns.addAll(TriggerMaskColumns.hltColumns());
            }
            org.apache.kudu.client.KuduScanner scanner = client.newScannerBuilder(table)
                    .setProjectedColumnNames(columns)
                    .addPredicate(org.apache.kudu.client.KuduPredicate.newComparisonPredicate(
                            table.getSchema().getColumn(KuduSchemas.DSPID),
                            org.apache.kudu.client.KuduPredicate.ComparisonOp.EQUAL, dspid))
                    .build();
            while (scanner.hasMoreRows()) {
                for (RowResult row : scanner.nextRows()) {
                    String l1 = textColumns ? (row.isNull(KuduSchemas.L1TRIGMASK) ? null
                            : row.getString(KuduSchemas.L1TRIGMASK)) : TriggerMaskColumns.l1Mask(row);
                    String hlt = textColumns ? (row.isNull(KuduSchemas.EFTRIGMASK) ? null
                            : row.getString(KuduSchemas.EFTRIGMASK)) : TriggerMaskColumns.hltMask(row);
                    out.add(row.getLong(KuduSchemas.EVENTNUMBER) + " " + l1 + " " + hlt);
                }
            }
            scanner.close();
        }
        out.sort(null);
        return out;
    }

    /** An event; a few have no L1 mask, an L1 mask with no bit set, or no HLT mask. */
    private static EIEvent_p1 event(Random r, int run, long number, boolean simulation) {
        EIEvent_p1.Builder b = EIEvent_p1.newBuilder().setRunNumber(run).setEventNumber(number).setLumiBlock(3)
                .setTimeStamp(5).setTimeStampNSOffset(6).setBcid(7).setIsSimulation(simulation)
                .setIsCalibration(false).setIsTestBeam(false)
                .setL1PassedTrigMask(TriggerMask.encodeL1(bits(r, 512, 12), bits(r, 512, 10), bits(r, 512, 8)))
                .setEFPassedTrigMask(TriggerMask.encodeHlt(bits(r, 4096, 10), bits(r, 4096, 1), new BitSet()));
        if (number % 17 == 5) {
            b.clearL1PassedTrigMask();
        } else if (number % 13 == 6) {
            b.setL1PassedTrigMask(TriggerMask.encodeL1(new BitSet(), new BitSet(), new BitSet()));
        }
        if (number % 11 == 7) {
            b.clearEFPassedTrigMask();
        }
        return b.build();
    }

    private static BitSet bits(Random r, int width, int n) {
        BitSet b = new BitSet(width);
        for (int i = 0; i < n; i++) {
            // skewed: popular triggers fire often, so pairs repeat
            double u = r.nextDouble();
            b.set((int) (60 * u * u) + (width > 512 ? 100 : 0));
        }
        return b;
    }

    private static String guid(int i) {
        return String.format("%08X-3333-4000-8000-%012X", i, 0);
    }

    private Path write(String name, String dataset, String signal, List<Row> rows) throws Exception {
        List<Row> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparingLong((Row x) -> x.event().getRunNumber())
                .thenComparingLong(x -> x.event().getEventNumber()));
        Path file = dir.resolve(name + ".parquet");
        long simulation = rows.stream().filter(x -> x.event().getIsSimulation()).count();
        try (OutputStream out = Files.newOutputStream(file)) {
            ConsolidatedFileWriter w = new ConsolidatedFileWriter(out);
            for (Row x : sorted) {
                w.write(x.event(), x.guid());
            }
            List<Long> runs = sorted.stream().map(x -> (long) x.event().getRunNumber()).distinct().toList();
            w.finish(new ConsolidatedMetadata(dataset, signal,
                    new ConsolidatedMetadata.HeaderInfo(1, "consolidated", signal, true, true), List.of("s3://x/y"),
                    List.of(), List.of(), w.events(), runs, simulation, 2, w.finishDigest()).toKeyValues());
        }
        return file;
    }

    /** Pairs (t1 <= t2) of TAV (id = bit) and HLT physics (id = 512 + bit), over first occurrences only. */
    private static Map<List<Integer>, Long> bruteForcePairs(List<Row> rows) {
        Map<List<Integer>, Long> counts = new TreeMap<>(Comparator.<List<Integer>>comparingInt(l -> l.get(0))
                .thenComparingInt(l -> l.get(1)));
        Set<Long> seen = new HashSet<>();
        List<Row> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparingLong(x -> x.event().getEventNumber()));
        for (Row x : sorted) {
            if (!seen.add(x.event().getEventNumber())) {
                continue;
            }
            BitSet l1 = x.event().hasL1PassedTrigMask() ? TriggerMask.decodeL1(x.event().getL1PassedTrigMask())
                    : new BitSet();
            BitSet hlt = x.event().hasEFPassedTrigMask() ? TriggerMask.decodeHlt(x.event().getEFPassedTrigMask())[0]
                    : new BitSet();
            List<Integer> ids = new ArrayList<>();
            l1.get(1024, 1536).stream().forEach(ids::add);
            hlt.stream().forEach(j -> ids.add(512 + j));
            for (int i = 0; i < ids.size(); i++) {
                for (int j = i; j < ids.size(); j++) {
                    counts.merge(List.of(ids.get(i), ids.get(j)), 1L, Long::sum);
                }
            }
        }
        return counts;
    }

    private static long bruteForceOverlap(List<Row> x, List<Row> y) {
        Set<String> keys = new HashSet<>();
        x.forEach(row -> keys.add(row.event().getRunNumber() + "/" + row.event().getEventNumber()));
        return y.stream().map(row -> row.event().getRunNumber() + "/" + row.event().getEventNumber()).distinct()
                .filter(keys::contains).count();
    }

    private static Map<List<Integer>, Long> triggerCounts(int dspid) throws Exception {
        return TestKuduRows.triggerCounts(client, CONFIG, dspid);
    }

    private static Map<List<Integer>, Long> overlaps() throws Exception {
        return TestKuduRows.overlaps(client, CONFIG);
    }

    private static long rows(String table, int dspid) throws Exception {
        return EventRows.count(client, table, dspid, EPOCH);
    }

    private static void checkWords(EIEvent_p1 e) throws Exception {
        long[] l1 = TriggerMask.decodeL1(e.getL1PassedTrigMask()).toLongArray();
        BitSet[] hlt = TriggerMask.decodeHlt(e.getEFPassedTrigMask());
        RowResult row = EventRows.lookup(client, CONFIG.eventsTable(), 300, e.getEventNumber(), EPOCH,
                List.of(KuduSchemas.l1Word(0), KuduSchemas.l1Word(16), KuduSchemas.l1Word(23),
                        KuduSchemas.hltWord(1), KuduSchemas.hltWord(191)));
        assertEquals(l1.length > 0 && l1[0] != 0 ? l1[0] : null,
                row.isNull(KuduSchemas.l1Word(0)) ? null : row.getLong(KuduSchemas.l1Word(0)));
        assertEquals(l1.length > 16 && l1[16] != 0 ? l1[16] : null,
                row.isNull(KuduSchemas.l1Word(16)) ? null : row.getLong(KuduSchemas.l1Word(16)));
        assertTrue(row.isNull(KuduSchemas.l1Word(23)), "bits 1472.. never set here: NULL word");
        long[] physics = hlt[0].toLongArray();
        // HLT physics bits 100..160: word 1 (bits 64..127) or 2
        assertEquals(physics.length > 1 && physics[1] != 0 ? physics[1] : null,
                row.isNull(KuduSchemas.hltWord(1)) ? null : row.getLong(KuduSchemas.hltWord(1)));
        assertTrue(row.isNull(KuduSchemas.hltWord(191)));
    }

    /** A load of a local file; the name is parsed here, as the consumer's signal validator does. */
    private static LoadRequest request(String dataset, int dspid, int epoch, String loadId, Path file,
                                       long selectedAt) {
        return new LoadRequest(DatasetName.parse(dataset), dspid, epoch, loadId, DatasetSource.local(file), selectedAt);
    }
}
