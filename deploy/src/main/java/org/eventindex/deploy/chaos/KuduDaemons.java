package org.eventindex.deploy.chaos;

import org.apache.kudu.client.KuduClient;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.cluster.ClusterSettings;
import org.eventindex.testing.KuduBinaries;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.eventindex.testing.Ports;
import org.eventindex.testing.hosts.Host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Kudu as two processes of the real {@code kudu} binary: one master and one tablet server, each with fixed ports (so
 * a restarted tablet server comes back where clients look for it) and its own data, WAL and log folders. The binary
 * is the wrapper written by the test-kit build ({@code .kudu-binary/bin/kudu}, which sets the library path for
 * Kudu only), found by {@link KuduBinaries}. Both run on one {@link Host}, bound to its address (RPC and web server).
 * Public for the tests of other modules that need Kudu on a host of its own (the rebuild's RebuildOnHostsIT).
 */
public final class KuduDaemons implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KuduDaemons.class);
    private static final List<String> COMMON_FLAGS = List.of("--time_source=system_unsync", "--never_fsync",
            "--unlock_unsafe_flags", "--unlock_experimental_flags", "--log_preallocate_segments=false",
            "--log_segment_size_mb=1", "--log_container_preallocate_bytes=0", "--log_min_segments_to_retain=1",
            "--logtostderr");

    private final Host host;
    private final int masterPort;
    private final ChildProcess master;
    private final ChildProcess tabletServer;
    private final KuduClient client;

    private KuduDaemons(Host host, int masterPort, ChildProcess master, ChildProcess tabletServer) {
        this.host = host;
        this.masterPort = masterPort;
        this.master = master;
        this.tabletServer = tabletServer;
        this.client = ClusterAccess.open(ClusterSettings.defaults(), null).kuduClient(masterAddresses(),
                b -> b.defaultAdminOperationTimeoutMs(30_000).defaultOperationTimeoutMs(30_000));
    }

    /** Starts a master and a tablet server on {@code host} (data under {@code dir}) and waits for both. */
    public static KuduDaemons start(Path dir, Host host, Duration timeout) throws IOException {
        Path kudu = binary();
        String address = host.address();
        int masterPort = Ports.freeForRestart();
        int tserverPort = Ports.freeForRestart();
        ChildProcess master = new ChildProcess("kudu-master", command(host, kudu, "master", dir.resolve("master"),
                List.of("--rpc_bind_addresses=" + address + ":" + masterPort, "--max_create_tablets_per_ts=0",
                        "--webserver_port=" + Ports.freeForRestart())),
                Map.of(), dir.resolve("logs").resolve("kudu-master.log"));
        ChildProcess tserver = new ChildProcess("kudu-tserver", command(host, kudu, "tserver", dir.resolve("tserver"),
                List.of("--rpc_bind_addresses=" + address + ":" + tserverPort,
                        "--tserver_master_addrs=" + address + ":" + masterPort, "--webserver_port=" + Ports.freeForRestart())),
                Map.of(), dir.resolve("logs").resolve("kudu-tserver.log"));
        KuduDaemons d = new KuduDaemons(host, masterPort, master, tserver);
        try {
            master.start();
            tserver.start();
            d.awaitTabletServer(timeout);
            return d;
        } catch (RuntimeException e) {
            d.close();
            throw e;
        }
    }

    private static List<String> command(Host host, Path kudu, String role, Path home, List<String> extra)
            throws IOException {
        Files.createDirectories(home.resolve("wal"));
        Files.createDirectories(home.resolve("data"));
        Files.createDirectories(home.resolve("log"));
        List<String> cmd = new ArrayList<>(List.of(kudu.toString(), role, "run",
                "--fs_wal_dir=" + home.resolve("wal"), "--fs_data_dirs=" + home.resolve("data"),
                "--log_dir=" + home.resolve("log")));
        cmd.addAll(COMMON_FLAGS);
        cmd.add("--webserver_interface=" + host.address());
        cmd.addAll(extra);
        return host.command(cmd);
    }

    static Path binary() {
        return KuduBinaries.kudu();
    }

    public String masterAddresses() {
        return host.endpoint(masterPort);
    }

    public KuduClient client() {
        return client;
    }

    ChildProcess tabletServer() {
        return tabletServer;
    }

    ChildProcess master() {
        return master;
    }

    /** Waits until the master knows a live tablet server. */
    void awaitTabletServer(Duration timeout) {
        ChaosWait.until("Kudu master with a live tablet server", timeout, () -> {
            if (!master.isAlive() || !tabletServer.isAlive()) {
                throw new IllegalStateException("a Kudu daemon exited; see " + master.log() + " and "
                        + tabletServer.log());
            }
            try {
                return client.listTabletServers().getTabletServersCount() >= 1;
            } catch (Exception e) {
                return false;
            }
        });
    }

    @Override
    public void close() {
        try {
            client.close();
        } catch (Exception e) {
            LOG.warn("closing the Kudu client failed", e);
        } finally {
            tabletServer.close();
            master.close();
        }
    }
}
