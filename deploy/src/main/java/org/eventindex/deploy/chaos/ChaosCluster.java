package org.eventindex.deploy.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.config.SecretFile;
import org.eventindex.consumer.ConsumerConfig;
import org.eventindex.consumer.ConsumerMain;
import org.eventindex.deploy.BrokerLogins;
import org.eventindex.deploy.DaemonProcesses;
import org.eventindex.deploy.ProducerLauncher;
import org.eventindex.kudu.KuduTables;
import org.eventindex.message.Json;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.stomp.StompSettings;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.supervisor.SupervisorMain;
import org.eventindex.testing.EmbeddedCeph;
import org.eventindex.testing.ZooKeeperEnsemble;
import org.eventindex.testing.hosts.Host;
import org.eventindex.testing.hosts.HostNetwork;
import org.eventindex.testing.Ports;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The whole system as separate processes, each role on its own host of a {@link HostNetwork} (decision 0053):
 * independent ActiveMQ brokers behind one alias ({@link IndependentBrokers}: child JVMs on {@code broker1} and
 * {@code broker2}, each on its own KahaDB, a watchdog beside each), the real Ceph RADOS Gateway (monitor, OSD and
 * radosgw processes) on {@code s3}, an HDFS NameNode and DataNode (child JVMs) on {@code hdfs}, a Kudu master and
 * tablet server (the {@code kudu} binary) on {@code kudu}, a ZooKeeper ensemble of three servers on {@code zk1},
 * {@code zk2} and {@code zk3}, two supervisors (one active, one standby, {@link SupervisorPair}) on {@code supa} and
 * {@code supb} with their lease and fencing token in ZooKeeper and their journal on an HDFS of its own (a second
 * NameNode and DataNode on {@code hdfs}; {@code supervisor.ha.store=zookeeper}, decisions 0043 and 0061), two consumers (child JVMs with configuration
 * files, as in production) on {@code consumer1} and {@code consumer2}, and the producers on {@code producer}. The
 * process using it (the driver) runs on {@code control}, which reaches every host. The brokers are secured as in
 * production: one login per role (random passwords in mode-0600 files under {@code <work>/secrets}), no anonymous
 * access, per-destination rules. Every client reaches each broker and S3 through a {@link FaultProxy}, a process on
 * the service's own host, so that connection resets and latency can be injected and a partition between two hosts
 * cuts the proxied traffic too ({@link #network()}). Consumers' spool directories and the DataNode's data directory are small tmpfs mounts when the harness may
 * mount (root), so that their disks can be made full.
 */
final class ChaosCluster implements AutoCloseable {
    /** The hosts the cluster needs, in the order a network for it is made; the driver runs on {@code control}. */
    static final List<String> HOSTS = List.of("control", "broker1", "broker2", "s3", "hdfs", "kudu", "zk1", "zk2", "zk3",
            "supa", "supb", "consumer1", "consumer2", "producer");
    /** The supervisors' journal folder on the cluster's HDFS. */
    static final String SUPERVISOR_JOURNAL = "/eventindex/supervisor/journal";
    static final String BUCKET = "eventindex";
    static final String S3_ACCESS_KEY = "eventindex-chaos";
    static final String S3_SECRET_KEY = "eventindex-chaos-secret";
    static final String HDFS_ROOT = "/eventindex/datasets";
    static final int CONSUMERS = 2;
    /**
     * The DataNode's tmpfs: room for every block of a long run, small enough to fill in a second or two (a 1 GiB
     * disk took 9 s to fill on a busy 2-core machine).
     */
    static final int DATANODE_DISK_MB = 256;
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

    private final Path work;
    private final HostNetwork network;
    private final KuduTablesConfig tables;
    private final Consumer<String> progress;
    private final Started started = new Started();
    private final Map<ChildProcess, Host> placement = new java.util.concurrent.ConcurrentHashMap<>();
    private final Thread shutdownHook = new Thread(this::close, "chaos-cluster-stop");
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final BrokerLogins logins = BrokerLogins.random();
    private IndependentBrokers brokers;
    private EmbeddedCeph ceph;
    private FaultProxy s3Proxy;
    private HdfsDaemons hdfs;
    private HdfsDaemons journalHdfs;
    private KuduDaemons kudu;
    private ZooKeeperEnsemble zooKeeper;
    private SupervisorPair supervisors;
    private final List<ChildProcess> consumers = new ArrayList<>();
    private final List<Integer> consumerHttpPorts = new ArrayList<>();
    private final List<TmpfsDisk> spoolDisks = new ArrayList<>();
    private TmpfsDisk dataNodeDisk;
    private String diskFaultsUnavailable;

    private ChaosCluster(Path work, HostNetwork network, KuduTablesConfig tables, Consumer<String> progress) {
        this.work = work;
        this.network = network;
        this.tables = tables;
        this.progress = progress;
    }

    /** Starts every process; on failure stops what was started. Fails with the install command without Ceph. */
    static ChaosCluster start(Path work, HostNetwork network, String tablePrefix, Consumer<String> progress)
            throws Exception {
        List<String> missing = EmbeddedCeph.missingBinaries();
        if (!missing.isEmpty()) {
            throw new IllegalStateException("the chaos harness needs the real Ceph RADOS Gateway, but " + missing
                    + " are not on the PATH; install them with deploy/ceph/install-ceph.sh (apt-get install -y"
                    + " --no-install-recommends ceph-mon ceph-osd radosgw ceph-common)");
        }
        ChaosCluster c = new ChaosCluster(work.toAbsolutePath(), network, new KuduTablesConfig(tablePrefix, 4, 1),
                progress);
        // Ctrl-C, SIGTERM or a test JVM stopped by its timeout must not leave daemons, paused processes or mounts.
        Runtime.getRuntime().addShutdownHook(c.shutdownHook);
        try {
            c.startAll();
            return c;
        } catch (Exception e) {
            c.close();
            throw e;
        }
    }

    private void startAll() throws Exception {
        Files.createDirectories(work);
        String cp = System.getProperty("java.class.path");
        progress.accept("starting " + IndependentBrokers.COUNT + " independent ActiveMQ brokers behind one alias (a"
                + " process and a KahaDB store each, a watchdog beside each; one login per role, per-queue access"
                + " rules)");
        logins.writeTo(secrets());
        brokers = track(IndependentBrokers.start(work, secrets(), logs(""), List.of(host("broker1"),
                host("broker2")), cp, START_TIMEOUT));
        progress.accept("brokers listening; the alias is " + brokers.endpoints());

        progress.accept("starting Ceph (mon, OSD, radosgw processes) on " + host("s3"));
        ceph = track(EmbeddedCeph.start(work.resolve("ceph"), host("s3"), S3_ACCESS_KEY, S3_SECRET_KEY));
        ceph.createBucket(BUCKET);
        String gateway = ceph.endpoint().getHost() + ":" + ceph.endpoint().getPort();
        s3Proxy = track(FaultProxy.start("s3-proxy", host("s3"), gateway, cp, logs("s3-proxy.log"), START_TIMEOUT));

        if (Boolean.getBoolean("ei.chaos.noTmpfs")) {
            noDiskFaults("-Dei.chaos.noTmpfs=true");
        }
        Optional<TmpfsDisk> dnDisk = diskFaultsUnavailable != null ? Optional.empty()
                : TmpfsDisk.mount(work.resolve("hdfs-data"), DATANODE_DISK_MB, this::noDiskFaults);
        dnDisk.ifPresent(d -> dataNodeDisk = track(d));
        progress.accept("starting HDFS NameNode and DataNode processes");
        hdfs = track(HdfsDaemons.start(work.resolve("hdfs"), work.resolve("hdfs-data").resolve("dn"), host("hdfs"),
                START_TIMEOUT));

        progress.accept("starting Kudu master and tablet server processes");
        kudu = track(KuduDaemons.start(work.resolve("kudu"), host("kudu"), START_TIMEOUT));
        new KuduTables(kudu.client(), tables).createOrVerify(1);

        // The journal's own HDFS (NameNode and DataNode on the same host, its data on the machine's disk): on the
        // DataNode whose disk DATANODE_DISK_FULL fills, with one replica, a journal append that met the full disk left
        // its last block unrecoverable until the DataNode restarted (decision 0061).
        progress.accept("starting the supervisors' journal HDFS (a NameNode and a DataNode of its own) on "
                + host("hdfs"));
        journalHdfs = track(HdfsDaemons.start(work.resolve("journal-hdfs"), work.resolve("journal-hdfs-data"),
                host("hdfs"), START_TIMEOUT));

        progress.accept("starting three ZooKeeper servers (processes on zk1, zk2, zk3) for the supervisors' lease");
        zooKeeper = track(ZooKeeperEnsemble.startProcesses(work.resolve("zk"), List.of(host("zk1"), host("zk2"),
                host("zk3"))));

        Path secret = secrets().resolve("s3-secret-key");
        SecretFile.write(secret, S3_SECRET_KEY);
        startSupervisorPair(cp);
        for (int i = 0; i < CONSUMERS; i++) {
            if (diskFaultsUnavailable == null) {
                TmpfsDisk.mount(work.resolve("spool-" + (i + 1)), 64, this::noDiskFaults)
                        .ifPresent(d -> spoolDisks.add(track(d)));
            }
            consumerHttpPorts.add(Ports.freeForRestart());
            consumers.add(track(daemon("consumer-" + (i + 1), host("consumer" + (i + 1)), ConsumerMain.class.getName(),
                    consumerConfig(i, secret), hdfs.confDir() + java.io.File.pathSeparator + cp)));
        }
        progress.accept("starting " + CONSUMERS + " consumer processes");
        consumers.forEach(ChildProcess::start);
        consumers.forEach(c -> awaitReady(c, START_TIMEOUT));
        progress.accept("cluster ready" + (diskFaultsUnavailable == null ? "" : "; disk-full faults unavailable: "
                + diskFaultsUnavailable));
    }

    /**
     * The two supervisors, their lease and token in ZooKeeper and their journal on HDFS: the first is started and
     * waited for active, then the second as its standby.
     */
    private void startSupervisorPair(String cp) throws IOException {
        List<ChildProcess> two = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        for (String id : List.of("supervisor-a", "supervisor-b")) {
            Host h = host(id.equals("supervisor-a") ? "supa" : "supb");
            ports.add(Ports.freeForRestart());
            two.add(track(daemon(id, h, SupervisorMain.class.getName(), supervisorConfig(id, h,
                    ports.get(ports.size() - 1), work.resolve("local-" + id)), cp)));
        }
        supervisors = track(new SupervisorPair(two, ports, token -> journalBytes(token), this::get));
        progress.accept("starting two supervisor processes (active and standby; lease in ZooKeeper "
                + zooKeeper.connectString() + ", session " + SupervisorPair.LEASE + "; journal on " + journalHdfs.uri()
                + SUPERVISOR_JOURNAL + ")");
        supervisors.start(START_TIMEOUT);
    }

    /**
     * What a reader sees (everything synced) of the journal of generation {@code token} on HDFS, live or sealed by
     * the takeover that followed it; -1 when neither exists.
     */
    private long journalBytes(long token) {
        String generation = SUPERVISOR_JOURNAL + "/generation-" + token;
        for (String dir : List.of(generation, generation + ".sealed")) {
            long n = journalHdfs.visibleBytes(dir + "/" + org.eventindex.supervisor.journal.Journal.FILE_NAME);
            if (n >= 0) {
                return n;
            }
        }
        return -1;
    }

    private void noDiskFaults(String reason) {
        if (diskFaultsUnavailable == null) {
            diskFaultsUnavailable = reason;
        }
    }

    /** The folder of the mode-0600 secret files: broker passwords per login, the S3 secret key. */
    private Path secrets() {
        return work.resolve("secrets");
    }

    /** The file {@code name} in the logs folder (the folder itself for an empty name). */
    private Path logs(String name) {
        return work.resolve("logs").resolve(name);
    }

    private ChildProcess daemon(String name, Host host, String main, Map<String, String> config, String cp)
            throws IOException {
        Path file = DaemonProcesses.writeConfig(work.resolve(name + ".properties"), config);
        List<String> cmd = ChildProcess.java(main, cp, name.startsWith("consumer") ? "512m" : "256m")
                .options("-Djava.io.tmpdir=" + Files.createDirectories(work.resolve("tmp-" + name)))
                .args("run", "--config", file.toString()).on(host).command();
        ChildProcess p = new ChildProcess(name, cmd, Map.of(), logs(name + ".log"));
        placement.put(p, host);
        return p;
    }

    /** The host named {@code name} of the cluster's network. */
    Host host(String name) {
        return network.host(name);
    }

    /** The network the roles run on: its partitions are the cluster's. */
    HostNetwork network() {
        return network;
    }

    /** The host a daemon (supervisor, consumer) runs on. */
    Host hostOf(ChildProcess daemon) {
        Host h = placement.get(daemon);
        if (h == null) {
            throw new IllegalArgumentException(daemon.name() + " is no daemon of the cluster");
        }
        return h;
    }

    private DaemonConfigs configs(Path s3Secret) {
        return new DaemonConfigs(brokers.endpoints(), secrets(), s3Endpoint(), S3_ACCESS_KEY, s3Secret, BUCKET,
                hdfs.uri(), HDFS_ROOT, kudu.masterAddresses(), tables);
    }

    private Map<String, String> supervisorConfig(String id, Host host, int httpPort, Path localDir) {
        Map<String, String> p = configs(secrets().resolve("s3-secret-key")).supervisor(localDir, host.address(),
                httpPort);
        p.put(SupervisorConfig.HA_STORE, "zookeeper");
        p.put(SupervisorConfig.HA_ZOOKEEPER_CONNECT, zooKeeper.connectString());
        p.put(SupervisorConfig.JOURNAL_HDFS_DIR, journalHdfs.uri() + SUPERVISOR_JOURNAL);
        p.put(SupervisorConfig.HADOOP_CONF_DIR, journalHdfs.confDir().toString());
        p.put(SupervisorConfig.HA_ENABLED, "true");
        p.put(SupervisorConfig.HA_ID, id);
        p.put(SupervisorConfig.HA_LEASE, SupervisorPair.LEASE.toMillis() + "ms");
        p.put(SupervisorConfig.HA_RENEW_INTERVAL, SupervisorPair.RENEW.toMillis() + "ms");
        p.put(SupervisorConfig.SIGNAL_LEASE, "45s");
        p.put(SupervisorConfig.RETRY_INITIAL, "1s");
        p.put(SupervisorConfig.RETRY_MAX, "5s");
        p.put(SupervisorConfig.RETRY_ATTEMPTS, "1000");
        return p;
    }

    private Map<String, String> consumerConfig(int i, Path secret) {
        Map<String, String> p = configs(secret).consumer("consumer-" + (i + 1), work.resolve("spool-" + (i + 1)),
                host("consumer" + (i + 1)).address(), consumerHttpPorts.get(i));
        // Every sorted run goes to the spool disk (no run memory, small sort buffers), so a full disk there is
        // felt by every dataset.
        p.put(ConsumerConfig.SORT_MEMORY_BYTES, "262144");
        p.put(ConsumerConfig.RUN_MEMORY_BYTES, "0");
        return p;
    }

    private <T extends AutoCloseable> T track(T c) {
        return started.add(c);
    }

    /** Waits for a daemon's {@code /ready} to answer 200. */
    void awaitReady(ChildProcess daemon, Duration timeout) {
        HostProcesses.awaitReady(http, daemon, hostOf(daemon), httpPort(daemon), timeout);
    }

    int httpPort(ChildProcess daemon) {
        int supervisorPort = supervisors.port(daemon);
        if (supervisorPort >= 0) {
            return supervisorPort;
        }
        int i = consumers.indexOf(daemon);
        if (i < 0) {
            throw new IllegalArgumentException(daemon.name() + " has no operations port");
        }
        return consumerHttpPorts.get(i);
    }

    /**
     * Whether a consumer process has a dataset in flight, from its {@code /status}; a dead or silent consumer counts
     * as not busy (it holds nothing that could still finish).
     */
    boolean consumerBusy(ChildProcess consumer) {
        if (!consumer.isAlive()) {
            return false;
        }
        return get(consumer, "/status").filter(r -> r.statusCode() == 200).map(r -> {
            try {
                JsonNode f = Json.tree(r.body().getBytes(StandardCharsets.UTF_8)).path("inFlight");
                return !f.isMissingNode() && !f.isNull() && !(f.isArray() && f.isEmpty());
            } catch (IOException | RuntimeException e) {
                return false;
            }
        }).orElse(false);
    }

    /** GET on a daemon's operations port, on its host; empty when it does not answer. */
    Optional<HttpResponse<String>> get(ChildProcess daemon, String path) {
        return DaemonProcesses.get(http, hostOf(daemon).address(), httpPort(daemon), path);
    }

    String s3Endpoint() {
        return "http://" + s3Proxy.endpoint();
    }

    /** What producers use: the broker (as the producer login) and S3 through the proxies, like every other client. */
    ProducerLauncher.ProducerEndpoints producerEndpoints() {
        return new ProducerLauncher.ProducerEndpoints(brokers.endpoints(), BrokerLogins.PRODUCER,
                logins.password(BrokerLogins.PRODUCER), s3Endpoint(), BUCKET, S3_ACCESS_KEY, S3_SECRET_KEY);
    }

    /** Settings to reach the alias's brokers through their proxies as {@code login} (one of {@link BrokerLogins}' roles). */
    StompSettings brokerSettings(String login) {
        return logins.settings(brokers.endpoints(), login);
    }

    /** Settings to reach one broker, {@code endpoint} (its proxy), as {@code login}. */
    StompSettings brokerSettingsOf(String endpoint, String login) {
        return logins.settings(endpoint, login);
    }

    Path work() {
        return work;
    }

    KuduTablesConfig tables() {
        return tables;
    }

    IndependentBrokers brokers() {
        return brokers;
    }

    /** The proxy every client reaches S3 through. */
    FaultProxy s3Proxy() {
        return s3Proxy;
    }

    EmbeddedCeph ceph() {
        return ceph;
    }

    HdfsDaemons hdfs() {
        return hdfs;
    }

    /** The supervisors' journal HDFS (on the same host as {@link #hdfs()}). */
    HdfsDaemons journalHdfs() {
        return journalHdfs;
    }

    KuduDaemons kudu() {
        return kudu;
    }

    /** The active supervisor (the last one seen active while none is). */
    ChildProcess supervisor() {
        return supervisors.active();
    }

    SupervisorPair supervisors() {
        return supervisors;
    }

    /** The ZooKeeper servers of the supervisors' lease (processes on {@code zk1..zk3}). */
    ZooKeeperEnsemble zooKeeper() {
        return zooKeeper;
    }

    List<ChildProcess> consumers() {
        return List.copyOf(consumers);
    }

    /** The consumers' spool disks (empty when tmpfs cannot be mounted). */
    List<TmpfsDisk> spoolDisks() {
        return List.copyOf(spoolDisks);
    }

    Optional<TmpfsDisk> dataNodeDisk() {
        return Optional.ofNullable(dataNodeDisk);
    }

    /** Why disk-full faults cannot run here, or null when they can. */
    String diskFaultsUnavailable() {
        return diskFaultsUnavailable;
    }

    /** Daemons that should be running but are not (a daemon must never die by itself). */
    List<String> deadDaemons() {
        List<String> dead = new ArrayList<>();
        List<ChildProcess> all = new ArrayList<>(List.of(hdfs.nameNode(), hdfs.dataNode(), journalHdfs.nameNode(),
                journalHdfs.dataNode(),
                kudu.master(), kudu.tabletServer()));
        all.addAll(supervisors.both());
        all.addAll(brokers.brokers());
        all.addAll(brokers.watchdogs());
        all.addAll(consumers);
        all.addAll(brokers.proxies().stream().map(FaultProxy::process).toList());
        all.add(s3Proxy.process());
        for (ChildProcess p : all) {
            if (!p.isAlive()) {
                dead.add(p.name() + " (log " + p.log() + ")");
            }
        }
        return dead;
    }

    /** Stops everything in reverse start order; idempotent; each failure is logged and the rest still stopped. */
    @Override
    public synchronized void close() {
        started.close();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // close() is running from the hook itself
        }
    }
}
