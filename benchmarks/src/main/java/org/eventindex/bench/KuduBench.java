package org.eventindex.bench;

import org.apache.hadoop.fs.Path;
import org.apache.kudu.client.CreateTableOptions;
import org.apache.kudu.client.KuduClient;
import org.eventindex.kudu.DatasetLoader;
import org.eventindex.kudu.DatasetSource;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.kudu.LoadRequest;
import org.eventindex.kudu.LoadResult;
import org.eventindex.kudu.LoaderSettings;
import org.eventindex.names.DatasetName;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.EmbeddedKudu;
import org.eventindex.testing.KuduBinaries;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Kudu ingest of the loader (EVENTS rows/s, one session, analytics included) against {@code kudu perf loadgen} with
 * one thread inserting the same number of rows into a table of the EVENTS schema with the same hash buckets (one
 * unbounded range, since loadgen's sequential values cover every rgid). Loadgen fills every column, the 216 trigger
 * words included, so its rows are heavier than the loader's (which leaves zero words NULL).
 * <p>
 * The file is loaded twice: first cold (the loader's and the Kudu client's code not yet compiled; reported) into
 * tables of their own, then measured again warm into the tables whose column sizes are reported. Both print the CPU per row of each thread
 * role ({@link ThreadCpuMeter}, JIT and GC threads included).
 * <p>
 * Then, for each of the thread counts asked for ({@code --load-threads}, 1, 2 and 4 by default), the file is loaded
 * with that many Kudu sessions ({@link LoaderSettings#loadThreads()}) into fresh tables, and loadgen inserts as many
 * rows with as many threads into a fresh table; the ratios are printed side by side.
 */
final class KuduBench {
    private static final int BUCKETS = 16;
    private final EmbeddedKudu kudu;
    private final EmbeddedHdfs hdfs;
    private final PrintStream out;

    private final java.nio.file.Path tserverDir;

    /** @param tserverDir the tablet server's folder (holding {@code wal/} and {@code data/}), for the size tool */
    KuduBench(EmbeddedKudu kudu, EmbeddedHdfs hdfs, PrintStream out, java.nio.file.Path tserverDir) {
        this.kudu = kudu;
        this.hdfs = hdfs;
        this.out = out;
        this.tserverDir = tserverDir;
    }

    void run(Path parquet, int loadgenRowsCap, int[] loadThreads, boolean maskText) throws Exception {
        KuduClient client = kudu.client();
        KuduTablesConfig config = new KuduTablesConfig("bench_", BUCKETS, 1);
        KuduTables tables = new KuduTables(client, config);
        tables.createOrVerify(0);
        // one session, as in the figures recorded before the parallel load (the sweep below compares thread counts)
        LoaderSettings oneSession = LoaderSettings.defaults().withLoadThreads(1);
        DatasetLoader loader = new DatasetLoader(client, tables, oneSession, Clock.systemUTC());
        // The first load runs the loader's code cold (class loading, JIT compilation: seconds of CPU that a
        // long-lived consumer pays once); it is reported, and the same file is loaded again, measured warm, like the
        // consolidation paths above (which run after an untimed warm-up). The cold load goes to tables of their own:
        // deleted rows stay in the tablets' files until compaction, and the column sizes measured at the end must be
        // those of the measured load alone.
        KuduTables coldTables = new KuduTables(client, new KuduTablesConfig("benchcold_", BUCKETS, 1));
        coldTables.createOrVerify(0);
        DatasetLoader coldLoader = new DatasetLoader(client, coldTables, oneSession, Clock.systemUTC());
        String coldName = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid00000001_00";
        Load cold = load(coldLoader, coldName, 2, parquet);
        out.printf("Kudu loader, first load in this JVM (cold code): %,d rows in %.2f s = %,.0f rows/s; JVM CPU"
                + " %.2f us/row; tablet server %.1f us/row%n", cold.rows, cold.seconds, cold.rows / cold.seconds,
                cold.cpuNanos / 1e3 / cold.rows, cold.tserverMillis * 1e3 / cold.rows);
        ConsumerBenchMain.printThreads(out, "first load", cold.threads, cold.cpuNanos, cold.rows);
        // its tablets are idle from now on; deleting would only add work during the measured load
        awaitQuietTabletServer();
        Load warm = load(loader, "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824", 1, parquet);
        floor(client, config, warm);
        // the same file into tables with the coded mask text (as created before decision 0037), right after
        Load text = null;
        KuduTablesConfig textConfig = new KuduTablesConfig("benchtext_", BUCKETS, 1);
        if (maskText) {
            KuduTables textTables = new KuduTables(client, textConfig);
            textTables.createOrVerify(0);
            addMaskText(client, textConfig);
            awaitQuietTabletServer();
            text = load(new DatasetLoader(client, textTables, oneSession, Clock.systemUTC()),
                    "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824", 1, parquet);
        }
        LoadResult r = warm.result;
        double loaderSeconds = warm.seconds;
        long loaderCpu = warm.cpuNanos;
        Map<String, Double> loaderThreads = warm.threads;
        long loaderTs = warm.tserverMillis;
        double loaderRate = r.events() / loaderSeconds;

        // the same number of rows as the loader wrote, so both run for comparable times on the same shared machine
        long rows = Math.min(r.events(), loadgenRowsCap);
        awaitQuietTabletServer();
        Loadgen gen = loadgen(client, "bench_loadgen_EVENTS", 1, rows);
        double loadgenSeconds = gen.seconds;
        long loadgenTs = gen.tserverMillis;
        List<String> cmd = gen.command;
        double loadgenRate = rows / loadgenSeconds;
        out.printf("Kudu loader, second load (EVENTS+DUPLICATEDEVENTS, trigger words, TRIGGERCOUNT, EVENTSOVERLAP):"
                + " %,d rows in"
                + " %.2f s = %,.0f rows/s%n", r.events(), loaderSeconds, loaderRate);
        out.printf("  loader JVM CPU (the tablet server not included): %.2f s = %.2f us/row%n", loaderCpu / 1e9,
                loaderCpu / 1e3 / r.events());
        ConsumerBenchMain.printThreads(out, "loader", loaderThreads, loaderCpu, r.events());
        printAllocated("loader", warm.allocated, r.events());
        out.printf("  tablet server CPU while the loader ran: %.2f s = %.1f us/row%n", loaderTs / 1e3,
                loaderTs * 1e3 / r.events());
        out.printf("kudu perf loadgen (1 thread, same schema and %d buckets): %,d rows in %.2f s = %,.0f rows/s%n",
                BUCKETS, rows, loadgenSeconds, loadgenRate);
        out.printf("  tablet server CPU while loadgen ran: %.2f s = %.1f us/row%n", loadgenTs / 1e3,
                loadgenTs * 1e3 / rows);
        out.printf("loader / loadgen = %.0f%%%n", 100 * loaderRate / loadgenRate);
        out.printf("command: %s%n", String.join(" ", cmd));
        if (text != null) {
            out.printf("Kudu loader into tables with the coded mask text columns (before decision 0037), same file:"
                    + " %,d rows in %.2f s = %,.0f rows/s; tablet server %.1f us/row; loader JVM %.2f us/row%n",
                    text.rows, text.seconds, text.rows / text.seconds, text.tserverMillis * 1e3 / text.rows,
                    text.cpuNanos / 1e3 / text.rows);
            out.printf("  without / with the text: rows/s %.2fx, tablet server CPU per row %.2fx, loader JVM CPU per"
                    + " row %.2fx%n", loaderRate / (text.rows / text.seconds),
                    (double) loaderTs / r.events() / ((double) text.tserverMillis / text.rows),
                    (double) loaderCpu / r.events() / ((double) text.cpuNanos / text.rows));
        }
        tabletServerBound(r.events(), loaderSeconds, loaderTs, loaderCpu / 1_000_000, gen, rows);
        // TRIGGERCOUNT rows are written per dataset (one per fired trigger pair), not per event: on a small dataset
        // they add tablet server work per loaded event that loadgen does not do
        long pairs = triggerCountRows(client, config);
        out.printf("  TRIGGERCOUNT rows written by the load: %,d (%.2f per event)%n", pairs,
                (double) pairs / r.events());
        threadSweep(client, parquet, loadgenRowsCap, loadThreads);
        Map<String, String> sized = new java.util.LinkedHashMap<>();
        sized.put("EVENTS", config.eventsTable());
        if (text != null) {
            sized.put("EVENTS with the coded mask text (before decision 0037)", textConfig.eventsTable());
        }
        triggerBytes(client, sized, r.uniqueEvents());
    }

    /**
     * Issue 37 item 2: the rows of the warm load written again by the Kudu client alone ({@link KuduClientFloor}),
     * into tables of their own, and the CPU per row of both printed side by side. The consumer's share excludes
     * what this benchmark's JVM runs beside it: the in-JVM DataNode serving the file and the CPU meter.
     */
    private void floor(KuduClient client, KuduTablesConfig loaded, Load warm) throws Exception {
        KuduClientFloor.Rows rows = KuduClientFloor.capture(client, new org.eventindex.kudu.DatasetQueries(client,
                loaded), List.of(loaded.eventsTable(), loaded.duplicatedEventsTable()), 1, 0);
        KuduTablesConfig floorConfig = new KuduTablesConfig("benchfloor_", BUCKETS, 1);
        new KuduTables(client, floorConfig).createOrVerify(0);
        awaitQuietTabletServer();
        long ts0 = kudu.tabletServerCpuMillis();
        KuduClientFloor.Result f = KuduClientFloor.write(client,
                List.of(floorConfig.eventsTable(), floorConfig.duplicatedEventsTable()), rows,
                LoaderSettings.DEFAULT_BUFFER_ROWS);
        long floorTs = kudu.tabletServerCpuMillis() - ts0;
        double loaderUs = consumerCpu(warm.cpuNanos, warm.threads) / 1e3 / warm.rows;
        double floorUs = consumerCpu(f.cpuNanos(), f.threads()) / 1e3 / f.rows();
        out.printf("Minimal Kudu client, the floor (the same rows read back, written again into tables of the same"
                + " schema: one session, AUTO_FLUSH_BACKGROUND, %,d rows buffered, Insert built and applied, nothing"
                + " else): %,d rows in %.2f s = %,.0f rows/s; JVM CPU %.2f us/row; tablet server %.1f us/row%n",
                LoaderSettings.DEFAULT_BUFFER_ROWS, f.rows(), f.seconds(), f.rows() / f.seconds(),
                f.cpuNanos() / 1e3 / f.rows(), floorTs * 1e3 / f.rows());
        ConsumerBenchMain.printThreads(out, "floor", f.threads(), f.cpuNanos(), f.rows());
        printAllocated("floor", f.allocated(), f.rows());
        out.printf("Consumer CPU per row in the Kudu load (JVM CPU without the in-JVM DataNode and the CPU meter):"
                + " loader %.2f us, minimal client %.2f us, loader / floor %.2f (target: loader <= 8 us)%n",
                loaderUs, floorUs, loaderUs / floorUs);
    }

    private void printAllocated(String what, Map<String, Long> allocated, long rows) {
        StringBuilder alloc = new StringBuilder("  " + what + " bytes allocated per row by thread:");
        allocated.forEach((role, bytes) -> alloc.append(String.format(" %s %,d;", role, bytes / rows)));
        out.println(alloc);
    }

    /** The JVM's CPU less the threads that are not the consumer's: the in-JVM DataNode and the CPU meter. */
    private static double consumerCpu(long processNanos, Map<String, Double> threads) {
        double notConsumer = threads.getOrDefault("HDFS datanode", 0.0)
                + threads.getOrDefault("benchmark's CPU meter", 0.0);
        return processNanos - notConsumer * 1e9;
    }

    /** The seed's dataset (seed 000 Table 2) and the time it must be queryable in after its last producer message. */
    static final long SEED_ROWS = 21_103_653;
    static final double SEED_SECONDS = 300;

    /**
     * Issue 22 item 4: whether one tablet server on 2 cores can take the seed's 21,103,653 rows within 5 minutes of
     * the last producer message. The loader's and loadgen's rows/s and CPU per row (the tablet server's, and the
     * client's: the loader JVM, the loadgen process), as measured, are extrapolated to the seed's rows: time at the
     * measured rate, and CPU time spread over all cores (a lower bound: nothing else running, the consolidation
     * included, and perfect use of both cores).
     */
    private void tabletServerBound(long loaderRows, double loaderSeconds, long loaderTsMillis, long loaderCpuMillis,
                                   Loadgen gen, long genRows) {
        int cores = Runtime.getRuntime().availableProcessors();
        out.printf("Tablet-server bound for the seed's %,d rows within %.0f s on %d cores (%,.0f rows/s needed):%n",
                SEED_ROWS, SEED_SECONDS, cores, SEED_ROWS / SEED_SECONDS);
        out.printf("  %-28s %10s %8s %8s %9s %9s %10s %12s %14s%n", "", "rows", "s", "rows/s", "ts us/row",
                "cl us/row", "seed: s", "ts CPU/cores", "ts+cl CPU/cores");
        double loaderFloor = boundLine("loader (1 session)", loaderRows, loaderSeconds, loaderTsMillis,
                loaderCpuMillis, cores);
        double genFloor = boundLine("kudu perf loadgen (1 thread)", genRows, gen.seconds, gen.tserverMillis,
                gen.clientMillis, cores);
        double tsOnly = loaderTsMillis * 1e3 / loaderRows * SEED_ROWS / 1e6 / cores;
        out.printf("  => the tablet server alone needs %.0f s of %d cores for the seed's rows (loader's rows; %.0f s"
                + " with loadgen's); with the client's CPU, %.0f s (loader) / %.0f s (loadgen): %s within %.0f s on"
                + " one %d-core machine%n", tsOnly, cores, genTsFloor(gen, genRows, cores), loaderFloor, genFloor,
                Math.min(loaderFloor, genFloor) > SEED_SECONDS ? "NOT possible" : "possible on CPU", SEED_SECONDS,
                cores);
    }

    private static double genTsFloor(Loadgen gen, long rows, int cores) {
        return gen.tserverMillis * 1e3 / rows * SEED_ROWS / 1e6 / cores;
    }

    /** Prints one line; returns the seconds the seed's rows take of all cores, tablet server and client. */
    private double boundLine(String label, long rows, double seconds, long tserverMillis, long clientMillis,
                             int cores) {
        double ts = tserverMillis * 1e3 / rows;
        double client = clientMillis < 0 ? Double.NaN : clientMillis * 1e3 / rows;
        double floor = (ts + (clientMillis < 0 ? 0 : client)) * SEED_ROWS / 1e6 / cores;
        out.printf("  %-28s %,10d %8.2f %,8.0f %9.1f %9.1f %,10.0f %,12.0f %,14.0f%n", label, rows, seconds,
                rows / seconds, ts, client, SEED_ROWS / (rows / seconds), ts * SEED_ROWS / 1e6 / cores, floor);
        return floor;
    }

    /** Adds the coded mask text columns to the event tables of {@code config}, as tables made before 0037 had. */
    private static void addMaskText(KuduClient client, KuduTablesConfig config) throws Exception {
        for (String table : List.of(config.eventsTable(), config.duplicatedEventsTable(), config.mcEventsTable())) {
            org.apache.kudu.client.AlterTableOptions alter = new org.apache.kudu.client.AlterTableOptions();
            KuduSchemas.maskTextColumns().forEach(alter::addColumn);
            client.alterTable(table, alter);
        }
    }

    /**
     * Waits (at most 120 s) until the tablet server has used less than 5% of a core over a second: the flushes and
     * compactions of the previous load would otherwise be counted in the next one's CPU per row.
     */
    private void awaitQuietTabletServer() throws InterruptedException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        long before = kudu.tabletServerCpuMillis();
        long t0 = System.nanoTime();
        while (System.nanoTime() < deadline) {
            Thread.sleep(1000); // a measuring interval, not synchronisation
            long now = kudu.tabletServerCpuMillis();
            double share = (now - before) / ((System.nanoTime() - t0) / 1e6);
            if (share < 0.05) {
                return;
            }
            before = now;
            t0 = System.nanoTime();
        }
        out.println("  (the tablet server was still busy after 120 s; measuring anyway)");
    }

    /**
     * The loader with {@code n} sessions on {@code n} threads against loadgen with {@code n} threads, for each
     * {@code n} of {@code loadThreads}: each load into tables of its own, each loadgen into a table of its own, so
     * that no run pays for another's deleted rows or compactions.
     */
    private void threadSweep(KuduClient client, Path parquet, int loadgenRowsCap, int[] loadThreads)
            throws Exception {
        if (loadThreads.length == 0) {
            return;
        }
        out.printf("Kudu loader with N sessions on N threads against kudu perf loadgen with N threads (%d buckets,"
                + " fresh tables for each run):%n", BUCKETS);
        out.printf("  %7s %12s %14s %9s %15s %9s %11s %14s%n", "threads", "rows", "loader rows/s", "loader s",
                "loadgen rows/s", "loadgen s", "loader/gen", "tserver us/row");
        List<String> commands = new ArrayList<>();
        for (int i = 0; i < loadThreads.length; i++) {
            int n = loadThreads[i];
            // tables named by position: a thread count may be listed twice (to see the machine's drift)
            KuduTables t = new KuduTables(client, new KuduTablesConfig("benchpar" + i + "_", BUCKETS, 1));
            t.createOrVerify(0);
            DatasetLoader loader = new DatasetLoader(client, t, LoaderSettings.defaults().withLoadThreads(n),
                    Clock.systemUTC());
            Load load = load(loader, "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824", 10 + i, parquet);
            double loaderRate = load.rows / load.seconds;
            long perThread = Math.max(1, Math.min(load.rows, loadgenRowsCap) / n);
            Loadgen gen = loadgen(client, "bench_loadgen_run" + i + "_EVENTS", n, perThread);
            double genRate = n * perThread / gen.seconds;
            out.printf("  %7d %,12d %,14.0f %9.2f %,15.0f %9.2f %10.0f%% %6.1f / %-6.1f%n", n, load.rows,
                    loaderRate, load.seconds, genRate, gen.seconds, 100 * loaderRate / genRate,
                    load.tserverMillis * 1e3 / load.rows, gen.tserverMillis * 1e3 / (n * perThread));
            commands.add(String.join(" ", gen.command));
        }
        out.println("  (tserver us/row: the tablet server's CPU per row, loader / loadgen; target loader/gen >= 80%)");
        commands.forEach(c -> out.printf("command: %s%n", c));
    }

    /** {@code clientMillis}: the loadgen process's own CPU (user + system), -1 when not known. */
    private record Loadgen(double seconds, long tserverMillis, long clientMillis, List<String> command) {
    }

    /** {@code kudu perf loadgen} with {@code threads} threads of {@code rowsPerThread} rows into a new table. */
    private Loadgen loadgen(KuduClient client, String table, int threads, long rowsPerThread) throws Exception {
        client.createTable(table, KuduSchemas.events(), new CreateTableOptions()
                .setRangePartitionColumns(List.of())
                .addHashPartitions(List.of(KuduSchemas.EVENTNUMBER), BUCKETS)
                .setNumReplicas(1));
        List<String> cmd = new ArrayList<>(List.of(kuduBinary(), "perf", "loadgen", kudu.masterAddresses(),
                "--table_name=" + table, "--num_threads=" + threads, "--num_rows_per_thread=" + rowsPerThread,
                "--run_scan=false"));
        long ts1 = kudu.tabletServerCpuMillis();
        long t1 = System.nanoTime();
        // run under bash, whose 'times' then prints the CPU its child (loadgen) used: "<user>m<s>s <sys>m<s>s"
        List<String> wrapped = new ArrayList<>(List.of("bash", "-c", "\"$@\"; s=$?; echo; times; exit $s", "bash"));
        wrapped.addAll(cmd);
        Process p = new ProcessBuilder(wrapped).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int status = p.waitFor();
        double seconds = (System.nanoTime() - t1) / 1e9;
        long tserver = kudu.tabletServerCpuMillis() - ts1;
        if (status != 0) {
            throw new IOException("kudu perf loadgen failed (" + status + "): " + text);
        }
        return new Loadgen(seconds, tserver, childCpuMillis(text), cmd);
    }

    private record Load(LoadResult result, long rows, double seconds, long cpuNanos, long tserverMillis,
                        Map<String, Double> threads, Map<String, Long> allocated) {
    }

    private Load load(DatasetLoader loader, String dataset, int dspid, Path parquet) throws Exception {
        long ts0 = kudu.tabletServerCpuMillis();
        ThreadCpuMeter meter = new ThreadCpuMeter();
        long cpu0 = processCpuNanos();
        long t0 = System.nanoTime();
        LoadResult r = loader.load(new LoadRequest(DatasetName.parse(dataset), dspid, 0, "bench-load",
                DatasetSource.hadoop(hdfs.fs(), parquet)));
        double seconds = (System.nanoTime() - t0) / 1e9;
        long cpu = processCpuNanos() - cpu0;
        Map<String, Double> threads = meter.stop();
        return new Load(r, r.events(), seconds, cpu, kudu.tabletServerCpuMillis() - ts0, threads, meter.allocated());
    }

    /**
     * On-disk bytes per event of the trigger word columns of EVENTS: the tablet server is stopped (its MemRowSets
     * were flushed by the short flush thresholds it was started with) and {@code kudu local_replica data_size}
     * reports the size of every column's blocks.
     */
    private void triggerBytes(KuduClient client, Map<String, String> tables, long rows) throws Exception {
        Map<String, java.util.Set<String>> tablets = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, String> table : tables.entrySet()) {
            java.util.Set<String> ids = new java.util.HashSet<>();
            for (var t : client.openTable(table.getValue()).getTabletsLocations(60_000)) {
                ids.add(new String(t.getTabletId(), StandardCharsets.UTF_8));
            }
            tablets.put(table.getKey(), ids);
        }
        awaitQuietTabletServer();
        kudu.killTabletServer(0);
        List<String> cmd = List.of(kuduBinary(), "local_replica", "data_size", "*",
                "--fs_wal_dir=" + tserverDir.resolve("wal"), "--fs_data_dirs=" + tserverDir.resolve("data"),
                "--format=csv");
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("kudu local_replica data_size failed: " + text);
        }
        for (Map.Entry<String, java.util.Set<String>> table : tablets.entrySet()) {
            columnBytes(text, table.getKey(), table.getValue(), rows);
        }
        out.printf("command: %s%n", String.join(" ", cmd));
    }

    private void columnBytes(String dataSize, String label, java.util.Set<String> tablets, long rows) {
        long l1 = 0;
        long hlt = 0;
        long masks = 0;
        long all = 0;
        // csv: table id, tablet id, rowset id ("*" = the tablet's total), "cN (column)", size
        for (String line : dataSize.split("\n")) {
            String[] f = line.split(",");
            if (f.length < 5 || !tablets.contains(f[1].trim()) || !f[2].trim().equals("*")) {
                continue;
            }
            int open = f[3].indexOf('(');
            int close = f[3].lastIndexOf(')');
            if (open < 0 || close < open) {
                continue;
            }
            String column = f[3].substring(open + 1, close);
            long bytes = parseSize(f[4].trim());
            all += bytes;
            if (column.matches("l1w\\d\\d")) {
                l1 += bytes;
            } else if (column.matches("hltw\\d{3}")) {
                hlt += bytes;
            } else if (column.equals(KuduSchemas.L1TRIGMASK) || column.equals(KuduSchemas.EFTRIGMASK)) {
                masks += bytes;
            }
        }
        out.printf("%s on disk (%,d rows): L1 words %.1f B/event, HLT words %.1f B/event (seed: 60 + 15 B),"
                + " coded mask strings %.1f B/event, whole row %.1f B/event%n", label, rows, (double) l1 / rows,
                (double) hlt / rows, (double) masks / rows, (double) all / rows);
    }

    /** The children's user + system CPU from the last line of bash's {@code times} output; -1 if not found. */
    static long childCpuMillis(String output) {
        String[] lines = output.strip().split("\n");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)m([\\d.]+)s (\\d+)m([\\d.]+)s")
                .matcher(lines[lines.length - 1].trim());
        if (!m.matches()) {
            return -1;
        }
        return Math.round((Long.parseLong(m.group(1)) * 60 + Double.parseDouble(m.group(2))
                + Long.parseLong(m.group(3)) * 60 + Double.parseDouble(m.group(4))) * 1000);
    }

    private static long triggerCountRows(KuduClient client, KuduTablesConfig config) throws Exception {
        org.apache.kudu.client.KuduScanner scanner = client.newScannerBuilder(
                client.openTable(config.triggerCountTable())).setProjectedColumnNames(List.of()).build();
        long rows = 0;
        while (scanner.hasMoreRows()) {
            rows += scanner.nextRows().getNumRows();
        }
        scanner.close();
        return rows;
    }

    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static long parseSize(String s) {
        String v = s.replace("\"", "").trim();
        double mult = 1;
        if (v.endsWith("K") || v.endsWith("KiB")) {
            mult = 1024;
        } else if (v.endsWith("M") || v.endsWith("MiB")) {
            mult = 1024 * 1024;
        } else if (v.endsWith("G") || v.endsWith("GiB")) {
            mult = 1024.0 * 1024 * 1024;
        }
        String num = v.replaceAll("[^0-9.]", "");
        return num.isEmpty() ? 0 : (long) (Double.parseDouble(num) * mult);
    }

    private static String kuduBinary() {
        return KuduBinaries.kudu().toString();
    }
}
