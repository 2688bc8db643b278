package org.eventindex.rebuild;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.deploy.chaos.HdfsDaemons;
import org.eventindex.deploy.chaos.KuduDaemons;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.message.Json;
import org.eventindex.testing.SparkStandalone;
import org.eventindex.testing.hosts.HostNetwork;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The driver of {@link RebuildOnHostsIT}, run on the network's {@code control} host (only a process inside the
 * network reaches the hosts' addresses): starts HDFS on {@code hdfs}, Kudu on {@code kudu}, the Spark master on
 * {@code spark} and a worker on each of {@code worker1} and {@code worker2}; loads the four small datasets of
 * {@link IndexedDatasets} with the loader; runs {@code eventindex rebuild --all} (the tablet split) on that cluster with
 * this JVM as the Spark driver; compares every column of every row of the six tables; writes what the test checks
 * to the report (a properties file, written whole at the end). A failed check exits 1 with its message; SIGTERM
 * stops every daemon it started.
 * <pre>
 * RebuildOnHostsMain NETWORK WORK REPORT
 * </pre>
 */
final class RebuildOnHostsMain {
    static final List<String> HOSTS = List.of("control", "hdfs", "kudu", "spark", "worker1", "worker2");
    static final KuduTablesConfig SOURCE = new KuduTablesConfig("src_", 2, 1);
    static final KuduTablesConfig TARGET = new KuduTablesConfig("dst_", 2, 1);
    private static final Duration START = Duration.ofMinutes(2);

    private RebuildOnHostsMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: RebuildOnHostsMain NETWORK WORK REPORT (got " + List.of(args) + ")");
            System.exit(2);
        }
        HostNetwork net = HostNetwork.attach(args[0]);
        Path work = Path.of(args[1]);
        List<AutoCloseable> started = new CopyOnWriteArrayList<>();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(started), "rebuild-on-hosts-stop"));
        try {
            Properties report = run(net, work, started);
            Path partial = Path.of(args[2] + ".partial");
            try (OutputStream out = Files.newOutputStream(partial)) {
                report.store(out, "RebuildOnHostsMain");
            }
            Files.move(partial, Path.of(args[2]), StandardCopyOption.ATOMIC_MOVE);
        } catch (Exception | AssertionError e) {
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    private static Properties run(HostNetwork net, Path work, List<AutoCloseable> started) throws Exception {
        Properties report = new Properties();
        // the Spark daemons start while HDFS and Kudu do and the index is loaded
        SparkStandalone spark = SparkStandalone.launch(work.resolve("spark"), net.host("spark"),
                List.of(net.host("worker1"), net.host("worker2")), 1, "640m");
        started.add(spark);
        HdfsDaemons hdfs = HdfsDaemons.start(work.resolve("hdfs"), work.resolve("hdfs").resolve("data"),
                net.host("hdfs"), START);
        started.add(hdfs);
        KuduDaemons kudu = KuduDaemons.start(work.resolve("kudu"), net.host("kudu"), START);
        started.add(kudu);
        report.setProperty("hdfs.uri", hdfs.uri().toString());
        report.setProperty("kudu.masters", kudu.masterAddresses());
        report.setProperty("spark.master", spark.masterUrl());

        long t0 = System.nanoTime();
        IndexedDatasets.loadSmall(hdfs.fs(), kudu.client(), SOURCE);
        spark.awaitWorkers(2);
        report.setProperty("load.seconds", seconds(t0));

        List<String> args = new ArrayList<>(List.of("--masters", kudu.masterAddresses(), "--prefix", SOURCE.prefix(),
                "--target-prefix", TARGET.prefix(), "--buckets", "2", "--replicas", "1", "--master",
                spark.masterUrl()));
        SparkStandalone.applicationSettings(2, "512m", net.host("control")).forEach((k, v) -> args.addAll(
                List.of("--conf", k + "=" + v)));
        args.add("--all");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        long t1 = System.nanoTime();
        int status = RebuildMain.run(args.toArray(String[]::new), print, print);
        String text = out.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        report.setProperty("rebuild.status", Integer.toString(status));
        report.setProperty("rebuild.seconds", seconds(t1));
        report.setProperty("rebuild.summary", text.lines().filter(l -> l.startsWith("rebuild: ")).findFirst()
                .orElse(""));

        IndexedDatasets.assertTablesEqual(kudu.client(), SOURCE, TARGET);
        for (String table : SOURCE.tables()) {
            report.setProperty("rows." + table.substring(SOURCE.prefix().length()),
                    Integer.toString(IndexedDatasets.rows(kudu.client(), table).size()));
        }
        report.setProperty("tables.equal", "true");
        report.setProperty("workers.with.executors", Long.toString(spark.workersWithExecutors()));
        JsonNode status0 = Json.tree(spark.status().getBytes(StandardCharsets.UTF_8));
        List<String> workerHosts = new ArrayList<>();
        status0.path("workers").forEach(w -> workerHosts.add(w.path("host").asText()));
        workerHosts.sort(null);
        report.setProperty("spark.worker.hosts", String.join(",", workerHosts));
        return report;
    }

    private static String seconds(long since) {
        return String.format(java.util.Locale.ROOT, "%.1f", (System.nanoTime() - since) / 1e9);
    }

    /** Stops what was started, the last first (the Spark cluster, started first, last). */
    private static void stop(List<AutoCloseable> started) {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                System.err.println("stopping " + started.get(i) + " failed: " + e);
            }
        }
    }
}
