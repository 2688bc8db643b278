package org.eventindex.deploy.chaos;

import org.eventindex.deploy.BrokerLogins;
import org.eventindex.deploy.DaemonProcesses;
import org.eventindex.stomp.StompSettings;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.supervisor.SupervisorMain;
import org.eventindex.testing.MetricsText;
import org.eventindex.testing.Ports;
import org.eventindex.testing.ZooKeeperEnsemble;
import org.eventindex.testing.hosts.Host;
import org.eventindex.testing.hosts.HostNetwork;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Two supervisors with the lease in ZooKeeper and the journal on HDFS ({@code supervisor.ha.store=zookeeper},
 * decision 0043), every process on its own host of a {@link HostNetwork}: a broker on {@code broker}, HDFS (NameNode
 * and DataNode) on {@code hdfs}, three ZooKeeper servers as processes on {@code zk1..zk3}, the supervisors on
 * {@code supa} and {@code supb}. The process using it runs on the {@code control} host (it reaches every host's
 * address; the test JVM in the machine's namespace does not). For {@code SupervisorPartitionIT} and
 * {@code bin/bench-supervisor takeover --partition}: partitions are the network's ({@link HostNetwork#isolate},
 * {@link HostNetwork#cut}).
 */
public final class SupervisorHaOnHosts implements AutoCloseable {
    /** The hosts it needs, in the order a network for it is made. */
    public static final List<String> HOSTS = List.of("control", "broker", "hdfs", "zk1", "zk2", "zk3", "supa",
            "supb");
    /** The journal's folder on HDFS. */
    public static final String JOURNAL = "/eventindex/supervisor/journal";
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    private final HostNetwork net;
    private final Path work;
    private final Duration lease;
    private final BrokerLogins logins = BrokerLogins.random();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private final Started started = new Started();
    private String brokers;
    private HdfsDaemons hdfs;
    private ZooKeeperEnsemble zk;

    /** One supervisor: its process, host and HTTP port. */
    public record Supervisor(String name, Host host, int port, ChildProcess process) {
        public Path log() {
            return process.log();
        }
    }

    private SupervisorHaOnHosts(HostNetwork net, Path work, Duration lease) {
        this.net = net;
        this.work = work;
        this.lease = lease;
    }

    /**
     * Starts the broker, HDFS and ZooKeeper on their hosts (the supervisors are started by {@link #supervisor});
     * {@code lease} is the supervisors' ZooKeeper session timeout. On failure stops what was started.
     */
    public static SupervisorHaOnHosts start(HostNetwork net, Path work, Duration lease) throws Exception {
        SupervisorHaOnHosts c = new SupervisorHaOnHosts(net, work.toAbsolutePath(), lease);
        try {
            c.startServices();
            return c;
        } catch (Exception | Error e) {
            c.close();
            throw e;
        }
    }

    private void startServices() throws Exception {
        Files.createDirectories(work);
        logins.writeTo(secrets());
        String cp = System.getProperty("java.class.path");
        Host brokerHost = net.host("broker");
        int brokerPort = Ports.freeForRestart();
        brokers = brokerHost.endpoint(brokerPort);
        ChildProcess broker = started.add(new ChildProcess("broker", ChildProcess.java(BrokerMain.class.getName(), cp,
                "256m").args(work.resolve("broker").toString(), Integer.toString(brokerPort), secrets().toString(),
                "--bind", brokerHost.address()).on(brokerHost).command(), Map.of(), work.resolve("broker.log")));
        broker.start();
        CompletableFuture<HdfsDaemons> hdfsStart = CompletableFuture.supplyAsync(() -> {
            try {
                return HdfsDaemons.start(work.resolve("hdfs"), work.resolve("hdfs-data"), net.host("hdfs"), TIMEOUT);
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException("HDFS did not start on " + net.host("hdfs") + ": " + e, e);
            }
        });
        try {
            zk = started.add(ZooKeeperEnsemble.startProcesses(work.resolve("zk"), List.of(net.host("zk1"),
                    net.host("zk2"), net.host("zk3"))));
        } finally {
            hdfs = started.add(hdfsStart.join());
        }
        ChaosWait.until("the broker listening on " + brokers, TIMEOUT, () -> {
            if (!broker.isAlive()) {
                throw new IllegalStateException("the broker exited; see " + broker.log());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(brokerHost.address(), brokerPort), 1000);
                return true;
            } catch (IOException e) {
                return false;
            }
        });
    }

    /** Starts supervisor {@code name} on {@code host} (the first one started becomes active). */
    public Supervisor supervisor(String name, Host host) throws IOException {
        int port = Ports.freeForRestart();
        Map<String, String> p = new TreeMap<>();
        p.put(SupervisorConfig.BROKERS, brokers);
        p.put(SupervisorConfig.STOMP_USER, BrokerLogins.SUPERVISOR);
        p.put(SupervisorConfig.STOMP_PASSWORD_FILE, BrokerLogins.passwordFile(secrets(), BrokerLogins.SUPERVISOR)
                .toString());
        p.put(SupervisorConfig.JOURNAL_DIR, work.resolve("local-" + name).toString());
        p.put(SupervisorConfig.HTTP_HOST, host.address());
        p.put(SupervisorConfig.HTTP_PORT, Integer.toString(port));
        p.put(SupervisorConfig.SIGNAL_RETRY_INITIAL, "200ms");
        p.put(SupervisorConfig.SIGNAL_RETRY_MAX, "2s");
        p.put(SupervisorConfig.TICK_INTERVAL, "250ms");
        p.put(SupervisorConfig.SHUTDOWN_GRACE, "5s");
        p.put(SupervisorConfig.HA_ENABLED, "true");
        p.put(SupervisorConfig.HA_ID, name);
        p.put(SupervisorConfig.HA_LEASE, lease.toMillis() + "ms");
        p.put(SupervisorConfig.HA_RENEW_INTERVAL, Math.max(100, Math.min(500, lease.toMillis() / 10)) + "ms");
        p.put(SupervisorConfig.HA_STORE, "zookeeper");
        p.put(SupervisorConfig.HA_ZOOKEEPER_CONNECT, zk.connectString());
        p.put(SupervisorConfig.JOURNAL_HDFS_DIR, hdfs.uri() + JOURNAL);
        p.put(SupervisorConfig.HADOOP_CONF_DIR, hdfs.confDir().toString());
        Path config = DaemonProcesses.writeConfig(work.resolve(name + ".properties"), p);
        ChildProcess process = started.add(new ChildProcess("supervisor-" + name, ChildProcess.java(
                SupervisorMain.class.getName(), System.getProperty("java.class.path"), "256m")
                .options("-Djava.io.tmpdir=" + Files.createDirectories(work.resolve("tmp-" + name)))
                .args("run", "--config", config.toString()).on(host).command(), Map.of(),
                work.resolve("supervisor-" + name + ".log")));
        process.start();
        return new Supervisor(name, host, port, process);
    }

    /** Starts {@code s} again (after an exit, as systemd would); it comes up as a standby. */
    public void restart(Supervisor s) {
        s.process().start();
        awaitStandby(s);
    }

    /** SIGKILL. */
    public void kill(Supervisor s) {
        s.process().kill9();
    }

    /** SIGSTOP. */
    public void pause(Supervisor s) {
        s.process().pause();
    }

    /** SIGCONT. */
    public void resume(Supervisor s) {
        s.process().resume();
    }

    /** Whether {@code s}'s {@code /ready} answers 200 (the active supervisor). */
    public boolean ready(Supervisor s) {
        return DaemonProcesses.get(http, s.host().address(), s.port(), "/ready").map(r -> r.statusCode() == 200)
                .orElse(false);
    }

    /** {@code GET path} of {@code s}: the body of a 200, else empty. */
    public java.util.Optional<String> get(Supervisor s, String path) {
        return DaemonProcesses.get(http, s.host().address(), s.port(), path).filter(r -> r.statusCode() == 200)
                .map(java.net.http.HttpResponse::body);
    }

    /** {@code GET path} of {@code s}: the body whatever the status, empty when it does not answer. */
    public java.util.Optional<String> getStatus(Supervisor s, String path) {
        return DaemonProcesses.get(http, s.host().address(), s.port(), path).map(java.net.http.HttpResponse::body);
    }

    public void awaitReady(Supervisor s) {
        ChaosWait.until("supervisor " + s.name() + " active (log " + s.log() + ")", TIMEOUT, () -> {
            requireAlive(s);
            return ready(s);
        });
    }

    /** Waits until {@code s} stands by with a ZooKeeper session (not merely waiting for ZooKeeper). */
    public void awaitStandby(Supervisor s) {
        ChaosWait.until("supervisor " + s.name() + " standing by (log " + s.log() + ")", TIMEOUT, () -> {
            requireAlive(s);
            return DaemonProcesses.get(http, s.host().address(), s.port(), "/ready")
                    .map(r -> r.statusCode() == 503 && r.body().contains("standby")
                            && !r.body().contains("waiting for ZooKeeper")).orElse(false);
        });
    }

    private static void requireAlive(Supervisor s) {
        if (!s.process().isAlive()) {
            throw new IllegalStateException("supervisor " + s.name() + " exited (" + s.process().exitCode()
                    .orElse(-1) + "); log " + s.log());
        }
    }

    /** Waits for {@code s} to exit; its status. */
    public int awaitExit(Supervisor s) {
        ChaosWait.until("supervisor " + s.name() + " exiting (log " + s.log() + ")", TIMEOUT,
                () -> !s.process().isAlive());
        return s.process().exitCode().orElseThrow();
    }

    /** {@code s}'s fencing token ({@code eventindex_supervisor_fencing_token}), -1 when it does not answer. */
    public long token(Supervisor s) {
        return get(s, "/metrics").map(b -> (long) MetricsText.value(b, "eventindex_supervisor_fencing_token"))
                .orElse(-1L);
    }

    /** {@code s}'s {@code eventindex_supervisor_lease_age_seconds} (active: since it last confirmed its lease). */
    public double leaseAgeSeconds(Supervisor s) {
        return get(s, "/metrics").map(b -> MetricsText.value(b, "eventindex_supervisor_lease_age_seconds"))
                .orElse(-1.0);
    }

    /** What a reader sees of a journal file on HDFS (everything synced), -1 when it is absent. */
    public long journalBytes(String file) {
        return hdfs.visibleBytes(file);
    }

    /** The ZooKeeper servers (processes on their hosts). */
    public ZooKeeperEnsemble zooKeeper() {
        return zk;
    }

    /** The broker's settings for {@code login} (a {@link BrokerLogins} role). */
    public StompSettings brokerSettings(String login) {
        return logins.settings(brokers, login);
    }

    public HostNetwork network() {
        return net;
    }

    private Path secrets() {
        return work.resolve("secrets");
    }

    /** Stops everything in reverse start order; idempotent. */
    @Override
    public void close() {
        started.close();
    }
}
