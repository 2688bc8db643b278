package org.eventindex.rebuild;

import org.apache.kudu.client.Delete;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.RowResult;
import org.apache.kudu.client.Update;
import org.eventindex.kudu.DatasetQueries;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.lookup.EventKey;
import org.eventindex.lookup.EventLookup;
import org.eventindex.lookup.LookupFilter;
import org.eventindex.lookup.LookupResult;
import org.eventindex.names.DatasetName;
import org.eventindex.testing.Await;
import org.eventindex.testing.DaemonProcess;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.EmbeddedKudu;
import org.eventindex.testing.SparkStandalone;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code eventindex rebuild} on a real Spark standalone cluster (a master and two workers, each its own process,
 * executors started by the workers), with real HDFS and Kudu: the index loaded by the loader is rebuilt from its HDFS
 * files into other tables, and every column of every row of the six tables must be the loader's; a rebuild killed
 * halfway (its driver, SIGKILL) and run again gives the same rows; verify finds and repairs damaged rows and reports a
 * replaced file; the rebuilt tables are swapped in, back and in again while lookups run, and none fails or differs;
 * verify submitted in the spark-submit form ({@code SparkSubmit} with the module's jar). One cluster for the class;
 * the tests run in order (verify works on the first test's tables, the swap on the second's).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RebuildIT {
    private static final KuduTablesConfig SOURCE = new KuduTablesConfig("src_", 2, 1);
    private static final KuduTablesConfig TARGET = new KuduTablesConfig("dst_", 2, 1);

    @TempDir
    static Path dir;
    private static EmbeddedHdfs hdfs;
    private static EmbeddedKudu kudu;
    private static SparkStandalone spark;

    @BeforeAll
    static void start() throws IOException {
        // the Spark daemons start while HDFS and Kudu do and the index is loaded
        spark = SparkStandalone.launch(dir.resolve("spark"), 2, 1, "640m");
        hdfs = EmbeddedHdfs.start(dir.resolve("hdfs"));
        kudu = EmbeddedKudu.start(dir.resolve("kudu"), 1);
        IndexedDatasets.load(hdfs.fs(), kudu.client(), SOURCE);
        spark.awaitWorkers(2);
    }

    @AfterAll
    static void stop() {
        try (AutoCloseable a = spark; AutoCloseable b = kudu; AutoCloseable c = hdfs) {
            // closed in reverse order
        } catch (Exception e) {
            throw new AssertionError("could not stop the cluster", e);
        }
    }

    @Test
    @Order(1)
    void rebuildWritesEveryRowAsTheLoaderDid() throws Exception {
        String out = rebuild(0, 2, "--all");

        assertTrue(out.contains("rebuild: 5 datasets"), out);
        for (String table : List.of("DUPLICATEDEVENTS", "MCEVENTS", "EVENTSOVERLAP", "TRIGGERCOUNT")) {
            assertFalse(rows(SOURCE.prefix() + table).isEmpty(), "the source " + table + " has rows to compare");
        }
        assertTablesEqual();
        // each worker started an executor of the job as a process of its own (its folder holds the executor's log)
        assertEquals(2, spark.workersWithExecutors(), "workers that started an executor, under " + spark.dir());
    }

    @Test
    @Order(2)
    void aJobKilledHalfwayResumesWhereItStopped() throws Exception {
        KuduTablesConfig resumed = new KuduTablesConfig("k_", 2, 1);
        List<String> options = SparkJvmOptions.get();
        options.add("-Xmx600m");
        List<String> args = new ArrayList<>(rebuildArgs(resumed, 2));
        // a wave per run: the runs before the big one's are finished (LOADED) when it is killed
        args.addAll(List.of("--all", "--wave-events", "1"));
        DatasetQueries target = new DatasetQueries(kudu.client(), resumed);
        try (DaemonProcess driver = DaemonProcess.start(RebuildMain.class, dir.resolve("killed-driver.log"), options,
                args.toArray(String[]::new))) {
            // halfway: the big dataset LOADING with rows written
            Await.until("the rebuild halfway through " + IndexedDatasets.BIG, Duration.ofSeconds(120), () -> {
                assertTrue(driver.isAlive(), () -> "the rebuild ended before it could be killed:\n" + driver.log());
                return loadingWithRows(target, IndexedDatasets.BIG);
            });
        } // killed (SIGKILL)

        String out = rebuild(0, resumed, 2, "--all", "--wave-events", "1");

        // the runs of the waves before the big one's are done: skipped; the big one, found LOADING with part of its
        // rows, is loaded again
        assertTrue(out.contains("already rebuilt "), out);
        assertTrue(out.contains("rebuilt " + IndexedDatasets.BIG + ":"), out);
        for (int i = 0; i < SOURCE.tables().size(); i++) {
            assertEquals(rows(SOURCE.tables().get(i)), rows(resumed.tables().get(i)), resumed.tables().get(i));
        }
    }

    @Test
    @Order(3)
    void aRebuildAssignsEpochsAnew() throws Exception {
        KuduTablesConfig reEpoched = new KuduTablesConfig("e_", 2, 1);
        String text = rebuildLocal(0, reEpoched, "--all", "--epoch-max-events", "700", "--first-epoch", "5");
        assertTrue(text.contains("epochs assigned anew, 700 events at most each: 5 to "), text);

        // the supervisor's rule, checked from outside: in dataset id order, an epoch takes the next dataset while it
        // fits in 700 events, else the next epoch opens
        List<DatasetsRow> placed = new DatasetQueries(kudu.client(), reEpoched).datasets().stream()
                .sorted(java.util.Comparator.comparingInt(DatasetsRow::dspid)).toList();
        long loaded = new DatasetQueries(kudu.client(), SOURCE).datasets().stream().filter(DatasetsRow::isLoaded)
                .count();
        assertEquals(loaded, placed.size());
        assertEquals(5, placed.get(0).rgid());
        long inEpoch = 0;
        for (int i = 0; i < placed.size(); i++) {
            DatasetsRow d = placed.get(i);
            if (i > 0 && d.rgid() != placed.get(i - 1).rgid()) {
                assertEquals(placed.get(i - 1).rgid() + 1, d.rgid(), d.dataset());
                assertTrue(inEpoch + d.countEvents() > 700, d.dataset() + " would have fitted");
                inEpoch = 0;
            } else if (i > 0) {
                assertTrue(inEpoch + d.countEvents() <= 700, d.dataset() + " overfills epoch " + d.rgid());
            }
            inEpoch += d.countEvents();
        }
        assertTrue(placed.stream().map(DatasetsRow::rgid).distinct().count() >= 3, placed.toString());

        // every row is the loader's but for its epoch
        java.util.Map<Integer, Integer> epochOf = new java.util.HashMap<>();
        placed.forEach(d -> epochOf.put(d.dspid(), d.rgid()));
        for (int i = 0; i < SOURCE.tables().size(); i++) {
            assertEquals(rowsInEpochs(SOURCE.tables().get(i), epochOf), rowsInEpochs(reEpoched.tables().get(i), null),
                    reEpoched.tables().get(i));
        }
        // and each dataset agrees with its file and with the checksum its rebuild recorded
        ByteArrayOutputStream verified = new ByteArrayOutputStream();
        int verifyStatus = VerifyMain.run(new String[] {"--masters", kudu.masterAddresses(), "--prefix",
            reEpoched.prefix(), "--master", "local[2]", "--conf", "spark.ui.enabled=false", "--conf",
            "spark.driver.host=127.0.0.1", "--all"}, new PrintStream(verified, true, StandardCharsets.UTF_8),
                new PrintStream(verified, true, StandardCharsets.UTF_8));
        assertEquals(0, verifyStatus, verified.toString(StandardCharsets.UTF_8));
    }

    /**
     * Every row of {@code table} as {@link #rows} gives them, with its {@code rgid} the one {@code epochOf} gives its
     * {@code dspid} (null: as stored) and DATASETS' content checksum left out (it sums the rows, epoch included).
     */
    private static List<String> rowsInEpochs(String table, java.util.Map<Integer, Integer> epochOf)
            throws IOException {
        KuduClient client = kudu.client();
        KuduTable t = client.openTable(table);
        boolean hasEpoch = t.getSchema().hasColumn(KuduSchemas.RGID);
        KuduScanner scanner = client.newScannerBuilder(t).build();
        List<String> rows = new ArrayList<>();
        while (scanner.hasMoreRows()) {
            for (RowResult r : scanner.nextRows()) {
                String text = r.rowToString().replaceAll("content_checksum=[^,]*", "content_checksum=?");
                if (hasEpoch && epochOf != null) {
                    text = text.replaceAll("\\brgid=-?\\d+", "rgid=" + epochOf.get(r.getInt(KuduSchemas.DSPID)));
                }
                rows.add(text);
            }
        }
        scanner.close();
        rows.sort(null);
        return rows;
    }

    private static boolean loadingWithRows(DatasetQueries target, String dataset) {
        try {
            java.util.Optional<DatasetsRow> row = target.dataset(dataset);
            return row.isPresent() && row.get().state() == org.eventindex.kudu.LoadState.LOADING
                    && target.countEvents(row.get().dspid(), row.get().rgid()).events() > 1_000;
        } catch (IOException | RuntimeException e) {
            return false; // the target tables are not created yet
        }
    }

    @Test
    @Order(4)
    void verifyReportsEveryCorruptionOfKuduAndRepairsIt() throws Exception {
        // the rebuilt tables, damaged: rows deleted, a value changed, a duplicate deleted
        assertEquals(3, deleteEvents(IndexedDatasets.AOD, 3));
        changeLumiBlock(IndexedDatasets.ESD, 300, 999);
        deleteOneDuplicate(IndexedDatasets.MC);

        String found = verify(1, "--all");

        assertTrue(found.contains("KUDU_DIFFERS " + IndexedDatasets.AOD), found);
        assertTrue(found.contains("Kudu holds 297 rows, the file gives 300"), found);
        assertTrue(found.contains("KUDU_DIFFERS " + IndexedDatasets.ESD), found);
        assertTrue(found.contains("(same count: rows changed)"), found);
        // the file agrees with what the load recorded: Kudu's rows are the ones that changed
        assertTrue(found.contains("Kudu's rows have content checksum"), found);
        assertTrue(found.contains("KUDU_DIFFERS " + IndexedDatasets.MC), found);
        assertTrue(found.contains("OK " + IndexedDatasets.LATE), found);
        assertTrue(found.contains("5 datasets (every epoch, every dataset): 2 agree, 3 differ, 0 repaired"), found);

        String repaired = verify(0, "--all", "--repair");

        assertTrue(repaired.contains("3 repaired, 0 still differ"), repaired);
        assertTablesEqual();
    }

    @Test
    @Order(5)
    void verifyReportsAReplacedFileAndLeavesKuduAlone() throws Exception {
        List<String> before = rows(TARGET.eventsTable());
        // LATE's file written again: the same events, other trigger bits; the catalogue's counts
        IndexedDatasets.rewriteLate(hdfs.fs(), 7);

        String sameCounts = verify(1, "--dataset", IndexedDatasets.LATE, "--repair");

        assertTrue(sameCounts.contains("FILE_DIFFERS " + IndexedDatasets.LATE), sameCounts);
        assertTrue(sameCounts.contains("the file is not the one loaded"), sameCounts);
        assertFalse(sameCounts.contains("the catalogue says"), sameCounts);
        assertTrue(sameCounts.contains("Kudu is left as it is"), sameCounts);
        assertEquals(before, rows(TARGET.eventsTable()), "EVENTS after verifying a file with the same counts");

        // the replaced file is not rebuilt as if it were the loaded one: by run, by tablet (the catch-up's split)
        KuduTablesConfig replayed = new KuduTablesConfig("f_", 2, 1);
        String byRun = rebuildLocal(1, replayed, "--dataset", "{" + IndexedDatasets.LATE + "," + IndexedDatasets.ESD
                + "}", "--split", "run");
        assertRefusedReplacedLate(byRun, "rebuild: FAILED ");
        assertTrue(byRun.contains("rebuilt " + IndexedDatasets.ESD + ":"), byRun);
        assertTrue(byRun.contains("1 failed"), byRun);
        assertLoaded(replayed, IndexedDatasets.ESD, true);
        assertLoaded(replayed, IndexedDatasets.LATE, false);
        // the catch-up into those tables takes what they lack (LATE and the three not selected): LATE fails again
        String caughtUp = shadowCommand(1, "catch-up", "local[2]", replayed.prefix(), null);
        assertRefusedReplacedLate(caughtUp, "catch-up: FAILED ");
        assertTrue(caughtUp.contains("caught up " + IndexedDatasets.AOD + ":"), caughtUp);
        assertTrue(caughtUp.contains("3 verified, 1 failed"), caughtUp);
        assertLoaded(replayed, IndexedDatasets.AOD, true);
        assertLoaded(replayed, IndexedDatasets.LATE, false);

        // another dataset's file in LATE's place
        assertTrue(org.apache.hadoop.fs.FileUtil.copy(hdfs.fs(), IndexedDatasets.file(IndexedDatasets.AOD), hdfs.fs(),
                IndexedDatasets.file(IndexedDatasets.LATE), false, true, hdfs.conf()));

        String out = verify(1, "--dataset", IndexedDatasets.LATE, "--repair");

        assertTrue(out.contains("FILE_DIFFERS " + IndexedDatasets.LATE), out);
        assertTrue(out.contains("the file holds 311 events, the catalogue says 150"), out);
        assertTrue(out.contains("Kudu is left as it is"), out);
        assertEquals(before, rows(TARGET.eventsTable()), "EVENTS after verifying a replaced file");
    }

    @Test
    @Order(6)
    void swapAndSwapBackWhileLookupsRun() throws Exception {
        // live: SOURCE; shadow: the tables the killed-and-resumed rebuild wrote (equal to SOURCE's); retired: old_
        String shadow = "k_";
        String retired = "old_";
        // loaded by the consumers after the rebuild: the swap catches it up into the shadow tables
        IndexedDatasets.loadLater(hdfs.fs(), kudu.client(), SOURCE);
        // loaded again by the consumers (a new load id) while the shadow tables hold its first load: caught up too
        IndexedDatasets.reloadMc(hdfs.fs(), kudu.client(), SOURCE, "sig-14-again");
        List<EventKey> keys = List.of(new EventKey(327636, 55), new EventKey(327636, 300), new EventKey(327636, 445),
                new EventKey(327636, 480), new EventKey(327700, 10), new EventKey(361106, 14),
                new EventKey(327800, IndexedDatasets.BIG_EVENTS));
        try (EventLookup lookup = new EventLookup(kudu.client(), SOURCE, 2, true);
             LookupsRunning running = new LookupsRunning(lookup, keys)) {
            assertTrue(running.expected().get(3).matches().stream()
                    .allMatch(m -> m.dataset().equals(IndexedDatasets.LATER)), "event 480 is in "
                    + IndexedDatasets.LATER + " only: " + running.expected().get(3));

            String swapped = shadowCommand(0, "swap", spark.masterUrl(), shadow, retired);

            assertTrue(swapped.contains("caught up " + IndexedDatasets.LATER + ": 61 events"), swapped);
            assertTrue(swapped.contains("caught up " + IndexedDatasets.MC + ":"), swapped);
            assertTrue(swapped.contains("renamed " + shadow + "DATASETS -> " + SOURCE.prefix() + "DATASETS"), swapped);
            assertEquals("sig-14-again", new DatasetQueries(kudu.client(), SOURCE).dataset(IndexedDatasets.MC)
                    .orElseThrow().loadId(), "the load id of the reloaded dataset in the swapped-in tables");
            for (int i = 0; i < SOURCE.tables().size(); i++) {
                String live = SOURCE.tables().get(i);
                String old = retired + live.substring(SOURCE.prefix().length());
                assertEquals(rows(old), rows(live), live + " swapped in against the tables it replaced (" + old + ")");
            }
            running.awaitSwitches(1);
            // a swap-back killed after its first table (TRIGGERCOUNT is renamed first): run again, it finishes
            rename(SOURCE.triggerCountTable(), shadow + "TRIGGERCOUNT");
            rename(retired + "TRIGGERCOUNT", SOURCE.triggerCountTable());
            assertEquals(1, running.switches(), "lookups moved before the swap-back renamed DATASETS");

            String back = shadowCommand(0, "swap-back", "local[2]", shadow, retired);

            assertFalse(back.contains("renamed " + SOURCE.triggerCountTable()), back);
            assertTrue(back.contains("renamed " + retired + "DATASETS -> " + SOURCE.prefix() + "DATASETS"), back);
            running.awaitSwitches(2);
            shadowCommand(0, "swap", "local[2]", shadow, retired);
            running.awaitSwitches(3);
            String dropped = dropOld(retired);
            assertTrue(dropped.contains("6 tables with prefix '" + retired + "' deleted"), dropped);
            running.awaitRounds(3); // on the swapped-in tables only: the old ones are gone
            running.stop();
            assertEquals(List.of(), running.failures(), "lookups that failed or differed during the swaps");
        }
    }

    private static void rename(String from, String to) throws IOException {
        kudu.client().alterTable(from, new org.apache.kudu.client.AlterTableOptions().renameTable(to));
    }

    private static String shadowCommand(int expectedStatus, String command, String master, String shadow,
                                        String retired) {
        List<String> args = new ArrayList<>(List.of(command, "--masters", kudu.masterAddresses(),
                "--prefix", SOURCE.prefix(), "--target-prefix", shadow,
                "--master", master, "--conf", "spark.ui.enabled=false", "--conf", "spark.driver.host=127.0.0.1"));
        if (retired != null) {
            args.addAll(List.of("--retired-prefix", retired));
        }
        if (master.startsWith("spark:")) {
            SparkStandalone.applicationSettings(1, "512m").forEach((k, v) -> args.addAll(List.of("--conf",
                    k + "=" + v)));
        }
        return runMain(expectedStatus, args);
    }

    private static String dropOld(String retired) {
        return runMain(0, List.of("drop-old", "--masters", kudu.masterAddresses(), "--prefix", SOURCE.prefix(),
                "--retired-prefix", retired));
    }

    private static String runMain(int expectedStatus, List<String> args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        int status = RebuildMain.run(args.toArray(String[]::new), print, print);
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(expectedStatus, status, text);
        return text;
    }

    /**
     * Lookups of a fixed batch of events, round after round on a thread of their own, each result compared with the
     * one before any swap.
     */
    private static final class LookupsRunning implements AutoCloseable {
        private final EventLookup lookup;
        private final List<EventKey> keys;
        private final List<LookupResult> expected;
        private final List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        private final java.util.concurrent.atomic.AtomicLong rounds = new java.util.concurrent.atomic.AtomicLong();
        private volatile boolean stop;
        private final Thread thread;

        LookupsRunning(EventLookup lookup, List<EventKey> keys) {
            this.lookup = lookup;
            this.keys = keys;
            this.expected = lookup.lookup(keys, LookupFilter.all());
            for (LookupResult r : expected) {
                assertTrue(r.error() == null && !r.matches().isEmpty(), "found before the swap: " + r);
            }
            this.thread = new Thread(this::loop, "lookups-during-swap");
            thread.start();
        }

        private void loop() {
            while (!stop) {
                List<LookupResult> got = lookup.lookup(keys, LookupFilter.all());
                for (int i = 0; i < keys.size(); i++) {
                    if (!got.get(i).equals(expected.get(i))) {
                        failures.add("round " + rounds.get() + ": " + got.get(i) + " instead of " + expected.get(i));
                    }
                }
                rounds.incrementAndGet();
            }
        }

        List<LookupResult> expected() {
            return expected;
        }

        long switches() {
            return lookup.tableSwitches();
        }

        /** Until lookups moved {@code n} times in all, and a few rounds ran after. */
        void awaitSwitches(long n) {
            Await.until("lookups on the swapped tables (switch " + n + ")", Duration.ofSeconds(30),
                    () -> lookup.tableSwitches() >= n);
            assertEquals(n, lookup.tableSwitches(), "table switches");
            awaitRounds(3);
        }

        void awaitRounds(long more) {
            long target = rounds.get() + more;
            Await.until(more + " more rounds of lookups", Duration.ofSeconds(30), () -> rounds.get() >= target);
        }

        void stop() throws InterruptedException {
            stop = true;
            thread.join(Duration.ofSeconds(30).toMillis());
        }

        List<String> failures() {
            return List.copyOf(failures);
        }

        @Override
        public void close() throws InterruptedException {
            stop();
        }
    }

    @Test
    @Order(7)
    void verifyRunsInTheSparkSubmitForm() throws Exception {
        // spark-submit is Spark's SparkSubmit class on Spark's jars (the script only finds them): the application's
        // jar as its primary resource, its main class loaded from there
        List<String> deps = List.of(Files.readString(Path.of("target", "rebuild.classpath")).trim().split(":"));
        Path jar;
        try (Stream<Path> jars = Files.list(Path.of("target"))) {
            jar = jars.filter(f -> f.getFileName().toString().matches("eventindex-rebuild-.*\\.jar")).findFirst()
                    .orElseThrow(() -> new AssertionError("no eventindex-rebuild jar in target: mvn package first"));
        }
        // the module's dependencies on spark-submit's class path instead of --jars: these executors have them
        // (spark.executor.extraClassPath), and shipping ~200 jars to each would cost the test many seconds
        List<String> submit = new ArrayList<>(List.of("--master", spark.masterUrl(), "--class",
                VerifyMain.class.getName()));
        SparkStandalone.applicationSettings(1, "512m").forEach((k, v) -> submit.addAll(List.of("--conf", k + "=" + v)));
        submit.addAll(List.of(jar.toString(), "--masters", kudu.masterAddresses(), "--prefix", TARGET.prefix(),
                "--dataset", IndexedDatasets.AOD));
        Path log = dir.resolve("spark-submit.log");
        Process p = org.eventindex.testing.ChildJvm.main("org.apache.spark.deploy.SparkSubmit", String.join(":", deps))
                .heap("512m").options(SparkJvmOptions.get()).args(submit).start(log);
        boolean ended = p.waitFor(180, java.util.concurrent.TimeUnit.SECONDS);
        String out = Files.readString(log);
        if (!ended) {
            p.destroyForcibly();
        }
        assertTrue(ended, "spark-submit still running after 180 s:\n" + out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("OK " + IndexedDatasets.AOD + ":"), out);
        assertTrue(out.contains("verify: 1 datasets"), out);
    }

    /** The error line of a rebuild of LATE's replaced file: its name, path and both checksums. */
    private static void assertRefusedReplacedLate(String out, String prefix) throws IOException {
        DatasetsRow late = new DatasetQueries(kudu.client(), SOURCE).dataset(IndexedDatasets.LATE).orElseThrow();
        String line = out.lines().filter(l -> l.startsWith(prefix + "dataset " + IndexedDatasets.LATE)).findFirst()
                .orElse("");
        assertTrue(line.contains(" from " + late.hdfsPath() + ": "), out);
        assertTrue(line.contains("have content checksum "), out);
        assertTrue(line.contains("the catalogue's content_checksum is "
                + String.format("%016x", late.contentChecksum())), out);
        assertTrue(line.contains("not set LOADED"), out);
    }

    private static void assertLoaded(KuduTablesConfig tables, String dataset, boolean loaded) throws IOException {
        assertEquals(loaded, new DatasetQueries(kudu.client(), tables).dataset(dataset)
                .map(DatasetsRow::isLoaded).orElse(false), dataset + " LOADED in the " + tables.prefix() + " tables");
    }

    /** A rebuild from SOURCE into {@code target} in-process on {@code local[2]}; its output and error lines. */
    private static String rebuildLocal(int expectedStatus, KuduTablesConfig target, String... more) {
        List<String> args = new ArrayList<>(List.of("--masters", kudu.masterAddresses(), "--prefix", SOURCE.prefix(),
                "--target-prefix", target.prefix(), "--buckets", "2", "--replicas", "1", "--master", "local[2]",
                "--conf", "spark.ui.enabled=false", "--conf", "spark.driver.host=127.0.0.1"));
        args.addAll(List.of(more));
        return runMain(expectedStatus, args);
    }

    private static String rebuild(int expectedStatus, int executors, String... selection) {
        return rebuild(expectedStatus, TARGET, executors, selection);
    }

    /** The options of a rebuild from SOURCE into {@code target} on the cluster. */
    private static List<String> rebuildArgs(KuduTablesConfig target, int executors) {
        List<String> args = new ArrayList<>(List.of("--masters", kudu.masterAddresses(),
                "--prefix", SOURCE.prefix(), "--target-prefix", target.prefix(), "--buckets", "2", "--replicas", "1",
                "--master", spark.masterUrl()));
        SparkStandalone.applicationSettings(executors, "512m").forEach((k, v) -> args.addAll(List.of("--conf",
                k + "=" + v)));
        return args;
    }

    private static String rebuild(int expectedStatus, KuduTablesConfig target, int executors, String... selection) {
        List<String> args = rebuildArgs(target, executors);
        args.addAll(List.of(selection));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = RebuildMain.run(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        assertEquals(expectedStatus, status, text);
        return text;
    }

    /** {@code eventindex verify} of the rebuilt tables, in-process on {@code local[2]} (cheap: no executor JVMs). */
    private static String verify(int expectedStatus, String... args) {
        List<String> all = new ArrayList<>(List.of("--masters", kudu.masterAddresses(), "--prefix", TARGET.prefix(),
                "--master", "local[2]", "--conf", "spark.ui.enabled=false", "--conf", "spark.driver.host=127.0.0.1"));
        all.addAll(List.of(args));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = VerifyMain.run(all.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(out, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(expectedStatus, status, text);
        return text;
    }

    private static void assertTablesEqual() throws IOException {
        IndexedDatasets.assertTablesEqual(kudu.client(), SOURCE, TARGET);
    }

    private static List<String> rows(String table) throws IOException {
        return IndexedDatasets.rows(kudu.client(), table);
    }

    private static int deleteEvents(String dataset, int count) throws IOException {
        return IndexedDatasets.deleteEvents(kudu.client(), TARGET, dataset, count);
    }

    private static void changeLumiBlock(String dataset, long event, int lumiBlock) throws IOException {
        DatasetsRow row = new DatasetQueries(kudu.client(), TARGET).dataset(dataset).orElseThrow();
        Update update = kudu.client().openTable(TARGET.eventsTable()).newUpdate();
        KuduSchemas.addEventKey(update.getRow(), row.dspid(), event, row.rgid());
        update.getRow().addInt(KuduSchemas.LUMIBLOCKNR, lumiBlock);
        apply(List.of(update));
    }

    private static void deleteOneDuplicate(String dataset) throws IOException {
        DatasetsRow row = new DatasetQueries(kudu.client(), TARGET).dataset(dataset).orElseThrow();
        KuduTable table = kudu.client().openTable(TARGET.duplicatedEventsTable());
        KuduScanner scanner = kudu.client().newScannerBuilder(table)
                .setProjectedColumnNames(KuduSchemas.DUPLICATED_EVENTS_KEY).build();
        Delete delete = null;
        while (delete == null && scanner.hasMoreRows()) {
            for (RowResult r : scanner.nextRows()) {
                if (r.getInt(KuduSchemas.DSPID) == row.dspid()) {
                    delete = table.newDelete();
                    KuduSchemas.addEventKey(delete.getRow(), row.dspid(), r.getLong(KuduSchemas.EVENTNUMBER),
                            r.getInt(KuduSchemas.RGID));
                    delete.getRow().addLong(KuduSchemas.INSERTION_TIME, r.getLong(KuduSchemas.INSERTION_TIME));
                    break;
                }
            }
        }
        scanner.close();
        assertTrue(delete != null, "a duplicate of " + dataset + " to delete");
        apply(List.of(delete));
    }

    private static void apply(List<? extends org.apache.kudu.client.Operation> operations) throws IOException {
        IndexedDatasets.apply(kudu.client(), operations);
    }
}
