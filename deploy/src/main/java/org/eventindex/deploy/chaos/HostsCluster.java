package org.eventindex.deploy.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.config.SecretFile;
import org.eventindex.consumer.ConsumerMain;
import org.eventindex.deploy.BrokerLogins;
import org.eventindex.deploy.DaemonProcesses;
import org.eventindex.deploy.ProducerLauncher;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.message.Json;
import org.eventindex.stomp.StompSettings;
import org.eventindex.supervisor.SupervisorMain;
import org.eventindex.testing.Ports;
import org.eventindex.testing.hosts.Host;
import org.eventindex.testing.hosts.HostNetwork;

import java.io.File;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;

/**
 * The system with each role on its own host of a {@link HostNetwork} (network namespaces), every process bound to
 * its host's address: two independent ActiveMQ brokers ({@link BrokerMain}, each on its own KahaDB, the same port on
 * each host's address, the alias {@code broker1,broker2}) on {@code broker1} and {@code broker2}, the supervisor on
 * {@code supervisor}, a consumer on {@code consumer}, the producer processes on {@code producer}, and the services
 * each on a host of its own, so that a client can be cut from one and not the others: HDFS NameNode and DataNode on
 * {@code hdfs}, Kudu master and tablet server on {@code kudu}, an S3 server ({@link S3ServerMain}) on {@code s3}.
 * It is driven from a {@code control} host: the process using this class runs there ({@link HostsFlowMain}) and
 * starts every role with {@code ip netns exec} on its host. Leaner than the {@link ChaosCluster} (one broker, one
 * supervisor, one consumer, S3Proxy instead of Ceph, no proxies or disk faults) so that a flow with a partition runs
 * in a test of seconds; the partitions are the network's ({@link HostNetwork#cut}, {@link HostNetwork#isolate}).
 */
final class HostsCluster implements AutoCloseable {
    /** The hosts the cluster needs, in the order a network for it is made. */
    static final List<String> HOSTS = List.of("control", "broker1", "broker2", "supervisor", "consumer", "producer",
            "hdfs", "kudu", "s3");
    /** The brokers' hosts, in the alias's order. */
    static final List<String> BROKER_HOSTS = List.of("broker1", "broker2");
    static final String BUCKET = "eventindex";
    static final String S3_ACCESS_KEY = "eventindex-hosts";
    static final String S3_SECRET_KEY = "eventindex-hosts-secret";
    static final String HDFS_ROOT = "/eventindex/datasets";
    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);

    private final Path work;
    private final HostNetwork network;
    private final KuduTablesConfig tables;
    private final Consumer<String> progress;
    private final BrokerLogins logins = BrokerLogins.random();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Started started = new Started();
    private final Map<ChildProcess, Host> placement = new LinkedHashMap<>();
    private final Thread shutdownHook = new Thread(this::close, "hosts-cluster-stop");
    private int brokerPort;
    private int s3Port;
    private int supervisorPort;
    private int consumerPort;
    private HdfsDaemons hdfs;
    private KuduDaemons kudu;
    private ChildProcess supervisor;
    private ChildProcess consumer;

    private HostsCluster(Path work, HostNetwork network, KuduTablesConfig tables, Consumer<String> progress) {
        this.work = work;
        this.network = network;
        this.tables = tables;
        this.progress = progress;
    }

    /** Starts every role on its host; on failure stops what was started. */
    static HostsCluster start(Path work, HostNetwork network, String tablePrefix, Consumer<String> progress)
            throws Exception {
        return start(work, network, tablePrefix, true, progress);
    }

    /**
     * Starts the site's services only, each on its host: the brokers, the S3 server with its bucket, HDFS and Kudu,
     * without the tables, the supervisor or the consumer (what a site has before EventIndex is installed on it).
     */
    static HostsCluster startServices(Path work, HostNetwork network, Consumer<String> progress) throws Exception {
        return start(work, network, "", false, progress);
    }

    private static HostsCluster start(Path work, HostNetwork network, String tablePrefix, boolean daemons,
                                      Consumer<String> progress) throws Exception {
        HostsCluster c = new HostsCluster(work.toAbsolutePath(), network, new KuduTablesConfig(tablePrefix, 4, 1),
                progress);
        Runtime.getRuntime().addShutdownHook(c.shutdownHook);
        try {
            c.startServices();
            if (daemons) {
                c.startDaemons();
            }
            return c;
        } catch (Exception e) {
            c.close();
            throw e;
        }
    }

    Host host(String role) {
        return network.host(role);
    }

    private void startServices() throws Exception {
        Files.createDirectories(work);
        String cp = System.getProperty("java.class.path");
        logins.writeTo(secrets());
        Path s3Secret = SecretFile.write(s3SecretKeyFile(), S3_SECRET_KEY);
        Host s3Host = host("s3");

        // The brokers and the S3 server start while HDFS and Kudu do: their starts are waits for other processes.
        // One port on every broker host, as the brokers of a DNS alias share one.
        brokerPort = Ports.freeForRestart();
        List<ChildProcess> brokers = new ArrayList<>();
        for (String name : BROKER_HOSTS) {
            Host h = host(name);
            brokers.add(process(name, h, ChildProcess.java(BrokerMain.class.getName(), cp, "256m")
                    .args(work.resolve(name).toString(), Integer.toString(brokerPort), secrets().toString(),
                            "--bind", h.address()).on(h).command()));
        }
        s3Port = Ports.freeForRestart();
        ChildProcess s3 = process("s3", s3Host, ChildProcess.java(S3ServerMain.class.getName(), cp, "256m")
                .args(work.resolve("s3").toString(), s3Host.address(), Integer.toString(s3Port), "--access-key",
                        S3_ACCESS_KEY, "--secret-key-file", s3Secret.toString(), "--bucket", BUCKET)
                .on(s3Host).command());
        brokers.forEach(ChildProcess::start);
        s3.start();
        progress.accept("starting the brokers on " + BROKER_HOSTS + ", the S3 server, HDFS and Kudu on their hosts");
        CompletableFuture<HdfsDaemons> hdfsStart = CompletableFuture.supplyAsync(() -> {
            try {
                return HdfsDaemons.start(work.resolve("hdfs"), work.resolve("hdfs-data"), host("hdfs"),
                        START_TIMEOUT);
            } catch (IOException | InterruptedException e) {
                throw new CompletionException(e);
            }
        });
        CompletableFuture<KuduDaemons> kuduStart = CompletableFuture.supplyAsync(() -> {
            try {
                return KuduDaemons.start(work.resolve("kudu"), host("kudu"), START_TIMEOUT);
            } catch (IOException e) {
                throw new CompletionException(e);
            }
        });
        try {
            hdfs = track(hdfsStart.join());
        } finally {
            kudu = track(kuduStart.join());
        }
        placement.put(hdfs.nameNode(), host("hdfs"));
        placement.put(hdfs.dataNode(), host("hdfs"));
        placement.put(kudu.master(), host("kudu"));
        placement.put(kudu.tabletServer(), host("kudu"));
        for (ChildProcess b : brokers) {
            awaitListening(b, placement.get(b), brokerPort);
        }
        awaitListening(s3, s3Host, s3Port);
    }

    private void startDaemons() throws Exception {
        String cp = System.getProperty("java.class.path");
        new KuduTables(kudu.client(), tables).createOrVerify(1);
        Host supervisorHost = host("supervisor");
        supervisorPort = Ports.freeForRestart();
        DaemonConfigs configs = new DaemonConfigs(brokerEndpoint(), secrets(), s3Endpoint(), S3_ACCESS_KEY,
                s3SecretKeyFile(), BUCKET, hdfs.uri(), HDFS_ROOT, kudu.masterAddresses(), tables);
        supervisor = daemon("supervisor", supervisorHost, SupervisorMain.class.getName(), cp,
                configs.supervisor(work.resolve("supervisor-journal"), supervisorHost.address(), supervisorPort));
        Host consumerHost = host("consumer");
        consumerPort = Ports.freeForRestart();
        consumer = daemon("consumer", consumerHost, ConsumerMain.class.getName(),
                hdfs.confDir() + File.pathSeparator + cp, configs.consumer("consumer-1", work.resolve("spool"),
                        consumerHost.address(), consumerPort));
        supervisor.start();
        consumer.start();
        awaitReady(supervisor, supervisorPort);
        awaitReady(consumer, consumerPort);
        progress.accept("cluster on hosts ready: " + String.join(", ", placement().entrySet().stream()
                .map(e -> e.getKey() + " on " + e.getValue().name()).toList()));
    }

    private ChildProcess process(String name, Host host, List<String> command) {
        ChildProcess p = track(new ChildProcess(name, command, Map.of(), logs(name)));
        placement.put(p, host);
        return p;
    }

    private ChildProcess daemon(String name, Host host, String main, String cp, Map<String, String> config)
            throws IOException {
        Path file = DaemonProcesses.writeConfig(work.resolve(name + ".properties"), config);
        return process(name, host, ChildProcess.java(main, cp, "consumer".equals(name) ? "512m" : "256m")
                .options("-Djava.io.tmpdir=" + Files.createDirectories(work.resolve("tmp-" + name)))
                .args("run", "--config", file.toString()).on(host).command());
    }

    private void awaitListening(ChildProcess p, Host host, int port) {
        HostProcesses.awaitListening(p, host, port, START_TIMEOUT);
    }

    private void awaitReady(ChildProcess daemon, int port) {
        HostProcesses.awaitReady(http, daemon, placement.get(daemon), port, START_TIMEOUT);
    }

    /** The supervisor's view of {@code dataset} ({@code /datasets/NAME}), empty when it does not answer. */
    Optional<JsonNode> supervisorView(String dataset) {
        return json(host("supervisor"), supervisorPort, "/datasets/" + URLEncoder.encode(dataset, StandardCharsets.UTF_8),
                "the supervisor's view of " + dataset);
    }

    private Optional<JsonNode> json(Host h, int port, String path, String what) {
        return DaemonProcesses.get(http, h.address(), port, path).filter(r -> r.statusCode() == 200).map(r -> {
            try {
                return Json.tree(r.body().getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new IllegalStateException(what + " is not JSON", e);
            }
        });
    }

    /** The consumer's {@code /status} document, empty when it does not answer. */
    Optional<JsonNode> consumerStatus() {
        return json(host("consumer"), consumerPort, "/status", "the consumer's status");
    }

    /** The consumer's {@code /metrics} text, empty when it does not answer. */
    Optional<String> consumerMetrics() {
        return DaemonProcesses.get(http, host("consumer").address(), consumerPort, "/metrics")
                .filter(r -> r.statusCode() == 200).map(r -> r.body());
    }

    int nameNodePort() {
        return hdfs.uri().getPort();
    }

    int kuduMasterPort() {
        return Integer.parseInt(kudu.masterAddresses().substring(kudu.masterAddresses().lastIndexOf(':') + 1));
    }

    /** What every broker still holds of the flow's queues, browsed as the admin login. */
    BrokerQueues brokerQueues() {
        return new BrokerQueues(BROKER_HOSTS.stream().map(h -> host(h).endpoint(brokerPort)).toList(),
                BrokerQueues.DRAINED, endpoint -> logins.settings(endpoint, BrokerLogins.ADMIN));
    }

    ChaosChecker checker() throws IOException {
        return new ChaosChecker(kudu.client(), tables, hdfs.fs(), HDFS_ROOT, this::supervisorView);
    }

    /** Every process started, with the host it was started on. */
    Map<ChildProcess, Host> placement() {
        return Map.copyOf(placement);
    }

    /** The alias: every broker, in {@link #BROKER_HOSTS}' order. */
    String brokerEndpoint() {
        return String.join(",", BROKER_HOSTS.stream().map(h -> host(h).endpoint(brokerPort)).toList());
    }

    int brokerPort() {
        return brokerPort;
    }

    String s3Endpoint() {
        return "http://" + host("s3").endpoint(s3Port);
    }

    ProducerLauncher.ProducerEndpoints producerEndpoints() {
        return producerEndpoints(brokerEndpoint());
    }

    /** What producers use when they know only {@code brokers} (e.g. one broker of the alias). */
    ProducerLauncher.ProducerEndpoints producerEndpoints(String brokers) {
        return new ProducerLauncher.ProducerEndpoints(brokers, BrokerLogins.PRODUCER,
                logins.password(BrokerLogins.PRODUCER), s3Endpoint(), BUCKET, S3_ACCESS_KEY, S3_SECRET_KEY);
    }

    StompSettings brokerSettings(String login) {
        return logins.settings(brokerEndpoint(), login);
    }

    ChildProcess consumer() {
        return consumer;
    }

    ChildProcess supervisor() {
        return supervisor;
    }

    Path work() {
        return work;
    }

    /** Processes that should run but do not. */
    List<String> deadDaemons() {
        return placement.keySet().stream().filter(p -> !p.isAlive()).map(p -> p.name() + " (log " + p.log() + ")")
                .toList();
    }

    /** One mode-0600 password file per broker login ({@link BrokerLogins#passwordFile}), and the S3 secret key. */
    Path secrets() {
        return work.resolve("secrets");
    }

    Path s3SecretKeyFile() {
        return secrets().resolve("s3-secret-key");
    }

    /** HDFS's NameNode address ({@code hdfs://ADDRESS:PORT}) on the hdfs host. */
    java.net.URI hdfsUri() {
        return hdfs.uri();
    }

    String kuduMasters() {
        return kudu.masterAddresses();
    }

    private Path logs(String name) {
        return work.resolve("logs").resolve(name + ".log");
    }

    private <T extends AutoCloseable> T track(T c) {
        return started.add(c);
    }

    /** Stops everything in reverse start order; idempotent. */
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
