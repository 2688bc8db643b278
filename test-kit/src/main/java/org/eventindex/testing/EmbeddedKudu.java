package org.eventindex.testing;

import org.apache.kudu.client.HostAndPort;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.test.cluster.MiniKuduCluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A real Kudu cluster (1 master, N tablet servers) run as child processes of the test JVM through
 * {@link MiniKuduCluster}, for tests and the embedded demo stack.
 * <p>
 * The Kudu binary directory is {@link KuduBinaries#binDir()}: the {@code kudu} wrapper that sets
 * {@code LD_LIBRARY_PATH}/{@code SASL_PATH} for Kudu's processes only.
 * <p>
 * The daemons are tuned for small disks: no WAL segment preallocation, small WAL segments, no block container
 * preallocation, so each tablet costs kilobytes instead of ~17 MB; they log their metrics once a minute, as Kudu does
 * by default, not every second as MiniKuduCluster sets them to. {@value #TSERVER_FLAGS_PROPERTY} adds tablet server
 * flags (a benchmark's site settings).
 */
public final class EmbeddedKudu implements AutoCloseable {
    /** System property naming the directory holding the {@code kudu} executable (also read by MiniKuduCluster). */
    public static final String BIN_DIR_PROPERTY = KuduBinaries.PROPERTY;
    /**
     * System property with extra tablet server flags, separated by commas (a value cannot hold one), added after
     * every other flag (so they win): how a benchmark runs the tablet server with a site's settings, e.g.
     * {@code -Dei.kudu.tserver.flags=--log_segment_size_mb=8,--maintenance_manager_num_threads=2}.
     */
    public static final String TSERVER_FLAGS_PROPERTY = "ei.kudu.tserver.flags";

    private static final List<String> SERVER_FLAGS = List.of(
            "--log_preallocate_segments=false",
            "--log_segment_size_mb=1",
            "--log_container_preallocate_bytes=0",
            "--log_min_segments_to_retain=1",
            // The mini cluster's test defaults use 768-bit RSA certificates, which the JDK refuses once any library
            // in the same JVM has touched the certpath constraints (the embedded stack); use production sizes.
            "--ipki_ca_key_size=2048",
            "--ipki_server_key_size=2048",
            "--tsk_num_rsa_bits=2048",
            // MiniKuduCluster makes each daemon write all its metrics to a log file every second (for Kudu's own
            // tests): with the tables' 64+ tablets, that dump and the 1 MB WAL segments above together took 3-12% of
            // the tablet server's CPU in bench-seed. Kudu's default: once a minute (decision 0085).
            "--metrics_log_interval_ms=60000");

    private final MiniKuduCluster cluster;
    private final KuduClient client;
    private final Duration startTime;
    private final Path root;

    private EmbeddedKudu(MiniKuduCluster cluster, Duration startTime, Path root) {
        this.cluster = cluster;
        this.startTime = startTime;
        this.root = root;
        this.client = new KuduClient.KuduClientBuilder(cluster.getMasterAddressesAsString())
                .defaultAdminOperationTimeoutMs(60_000)
                .defaultOperationTimeoutMs(60_000)
                .build();
    }

    /**
     * Starts a cluster whose data, WALs and logs live under {@code dir} (created if missing).
     *
     * @param tabletServers 1 for most tests; with 3 or more, replicated tables become possible
     * @throws IllegalStateException naming {@value KuduBinaries#PROPERTY}/{@value KuduBinaries#ENV} when no Kudu binary is
     *                               found
     * @throws UncheckedIOException  when the cluster does not come up
     */
    public static EmbeddedKudu start(Path dir, int tabletServers) {
        return start(dir, tabletServers, List.of());
    }

    /**
     * As {@link #start(Path, int)} with extra tablet server flags (benchmarks use short MemRowSet flush thresholds
     * so that on-disk column sizes can be measured).
     */
    public static EmbeddedKudu start(Path dir, int tabletServers, List<String> tabletServerFlags) {
        requireNonNull(dir, "dir is null");
        requireNonNull(tabletServerFlags, "tabletServerFlags is null");
        if (tabletServers < 1) {
            throw new IllegalArgumentException("tabletServers must be at least 1: " + tabletServers);
        }
        Path binDir = KuduBinaries.binDir();
        // MiniKuduCluster reads the binary location from this system property only.
        System.setProperty(BIN_DIR_PROPERTY, binDir.toString());
        long t0 = System.nanoTime();
        try {
            Path root = Files.createDirectories(dir.toAbsolutePath()).resolve("kudu-cluster");
            MiniKuduCluster.MiniKuduClusterBuilder builder = new MiniKuduCluster.MiniKuduClusterBuilder()
                    .numMasterServers(1)
                    .numTabletServers(tabletServers)
                    .clusterRoot(root.toString())
                    // Without this, tables with many hash buckets are refused on small clusters.
                    .addMasterServerFlag("--max_create_tablets_per_ts=0");
            for (String flag : SERVER_FLAGS) {
                builder.addMasterServerFlag(flag);
                builder.addTabletServerFlag(flag);
            }
            tabletServerFlags.forEach(builder::addTabletServerFlag);
            extraTabletServerFlags().forEach(builder::addTabletServerFlag);
            MiniKuduCluster cluster = builder.build();
            return new EmbeddedKudu(cluster, Duration.ofNanos(System.nanoTime() - t0), root);
        } catch (IOException e) {
            throw new UncheckedIOException("Kudu mini cluster under " + dir + " with binaries from " + binDir
                    + " did not start", e);
        }
    }

    /** The flags of {@value #TSERVER_FLAGS_PROPERTY}, each checked by {@link #checkFlag}. */
    static List<String> extraTabletServerFlags() {
        String value = System.getProperty(TSERVER_FLAGS_PROPERTY, "").strip();
        if (value.isEmpty()) {
            return List.of();
        }
        List<String> flags = List.of(value.split("\\s*,\\s*"));
        for (String flag : flags) {
            String problem = checkFlag(flag);
            if (problem != null) {
                throw new IllegalArgumentException("system property " + TSERVER_FLAGS_PROPERTY + ": " + problem);
            }
        }
        return flags;
    }

    /**
     * Null when {@code flag} is one Kudu flag as {@value #TSERVER_FLAGS_PROPERTY} can carry it ({@code --name} or
     * {@code --name=value}, no space or comma in it), else why not, naming it.
     */
    public static String checkFlag(String flag) {
        return flag.matches("--[A-Za-z0-9_]+(=[^\\s,]*)?") ? null
                : "'" + flag + "' is not one flag (expected --name=value, without spaces or commas)";
    }

    /** Comma-separated master addresses, as taken by {@code KuduClientBuilder} and the {@code --masters} option. */
    public String masterAddresses() {
        return cluster.getMasterAddressesAsString();
    }

    /** A client shared by all callers of this fixture; closed by {@link #close()}. */
    public KuduClient client() {
        return client;
    }

    /** Wall time {@link #start} took to bring the cluster up. */
    public Duration startTime() {
        return startTime;
    }

    public List<HostAndPort> tabletServers() {
        return cluster.getTabletServers();
    }

    /**
     * CPU time (user + system) the tablet server processes of this cluster have used so far, from
     * {@code /proc/<pid>/stat} (Linux); benchmarks take differences of it. -1 when no tablet server process is found.
     */
    public long tabletServerCpuMillis() {
        String dir = root.toString();
        long[] total = {-1};
        ProcessHandle.allProcesses()
                .filter(h -> h.info().commandLine().map(c -> c.contains(" tserver ") && c.contains(dir)).orElse(false))
                .forEach(h -> {
                    try {
                        String stat = Files.readString(Path.of("/proc", Long.toString(h.pid()), "stat"));
                        // after the command name in parentheses: fields 3.. of stat; utime and stime are 14 and 15,
                        // in clock ticks (100 per second on Linux)
                        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        total[0] = Math.max(total[0], 0) + (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10;
                    } catch (IOException | RuntimeException e) {
                        // the process ended between listing and reading: it uses no more CPU
                    }
                });
        return total[0];
    }

    /** Kills (SIGKILL) the tablet server at {@code index} in {@link #tabletServers()}. */
    public void killTabletServer(int index) {
        HostAndPort server = cluster.getTabletServers().get(index);
        try {
            cluster.killTabletServer(server);
        } catch (IOException e) {
            throw new UncheckedIOException("could not kill Kudu tablet server " + server, e);
        }
    }

    /** Restarts the tablet server at {@code index} after {@link #killTabletServer(int)}, on the same port. */
    public void startTabletServer(int index) {
        HostAndPort server = cluster.getTabletServers().get(index);
        try {
            cluster.startTabletServer(server);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start Kudu tablet server " + server, e);
        }
    }

    /** Kills (SIGKILL) every master: clients get no answer until {@link #startMasters()}. */
    public void killMasters() {
        try {
            cluster.killAllMasterServers();
        } catch (IOException e) {
            throw new UncheckedIOException("could not kill the Kudu masters", e);
        }
    }

    /** Restarts the masters after {@link #killMasters()}, on the same ports. */
    public void startMasters() {
        try {
            cluster.startAllMasterServers();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the Kudu masters", e);
        }
    }

    /** Kills and restarts every master and tablet server; data survives. */
    public void restart() {
        try {
            cluster.killAllTabletServers();
            cluster.killAllMasterServers();
            cluster.startAllMasterServers();
            cluster.startAllTabletServers();
        } catch (IOException e) {
            throw new UncheckedIOException("could not restart the Kudu mini cluster", e);
        }
    }

    @Override
    public void close() {
        try {
            client.close();
        } catch (Exception e) {
            // The cluster must still be shut down; a client failing to close has nothing left to flush.
        } finally {
            cluster.close();
        }
    }
}
