package org.eventindex.consumer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.Path;
import org.eventindex.retry.Outage;
import org.eventindex.ProjectVersion;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.cluster.ClusterErrors;
import org.eventindex.cluster.ClusterSettings;
import org.eventindex.cluster.HdfsRootCheck;
import org.eventindex.ops.CertificateExpiry;
import org.eventindex.ops.CredentialFiles;
import org.eventindex.s3.RotatingCredentials;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.ops.DependencyChecks;
import org.eventindex.ops.DependencyStatus;
import org.eventindex.ops.DependencyWait;
import org.eventindex.cluster.KdcUnreachableException;
import org.eventindex.ops.OpsHttpServer;
import org.eventindex.stomp.StompFanIn;
import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompMessageHandler;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The consumer daemon: one owner for its parts' lifecycle. {@link #start()} subscribes to the signal queue (prefetch
 * 1, so competing consumers share the datasets) and opens the operations HTTP endpoint; {@link #stop()} is idempotent
 * and waits for the dataset in progress.
 * <p>
 * A consumer whose signal worker dies (an {@link Error} such as {@link OutOfMemoryError} escaped the handler: nothing
 * was reported and the signal was not acknowledged, so the broker redelivers it) cannot take signals any more:
 * {@code /health} and {@code /ready} answer 503 with the reason, and the {@link ExitAction} given to
 * {@link #start(ExitAction)} is run with {@link #EXIT_WORKER_DIED}, so that the daemon's main exits and its process
 * supervisor restarts it.
 * <p>
 * In-process use (the embedded demo, tests):
 * <pre>{@code
 * ConsumerConfig config = ConsumerConfig.fromProperties(props, env);   // brokers, S3, HDFS, Kudu endpoints
 * Consumer consumer = new Consumer(config, hdfs.conf(), Clock.systemUTC());
 * consumer.start();
 * ...
 * consumer.stop();
 * }</pre>
 */
public final class Consumer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Consumer.class);
    private static final Duration STOP_GRACE = Duration.ofSeconds(60);

    /** Exit status of a consumer whose signal worker died. */
    public static final int EXIT_WORKER_DIED = 3;

    /** What the owner of the process does when the consumer can no longer work: {@code ConsumerMain} exits. */
    @FunctionalInterface
    public interface ExitAction {
        /** Leaves the process with the consumer as it is (in-process use: tests, the embedded stack). */
        ExitAction STAY = (status, reason) -> { };

        /**
         * Called once, on the dying worker's thread; must not wait for the consumer to stop.
         *
         * @param status the exit status, never 0
         * @param reason what happened, naming the consumer and the cause
         */
        void exit(int status, String reason);
    }

    /**
     * Collaborators built by the caller, who keeps ownership of them.
     *
     * @param fileContext file system the consolidated files go to
     * @param ingest      the Kudu load (or a stand-in)
     * @param reports     where reports go
     * @param parquet     opens the consolidated file's writer: {@link ParquetConsolidatedFormat#OWN_ENCODERS}
     *                    unless a benchmark compares another
     */
    public record Services(ObjectFetcher fetcher, FileContext fileContext, DatasetIngest ingest, ReportSink reports,
                           ParquetConsolidatedFormat.WriterFactory parquet) {
        public Services {
            Objects.requireNonNull(fetcher, "fetcher is null");
            Objects.requireNonNull(fileContext, "fileContext is null");
            Objects.requireNonNull(ingest, "ingest is null");
            Objects.requireNonNull(reports, "reports is null");
            Objects.requireNonNull(parquet, "parquet is null");
        }

        /** With the consolidated file's own page encoders. */
        public Services(ObjectFetcher fetcher, FileContext fileContext, DatasetIngest ingest, ReportSink reports) {
            this(fetcher, fileContext, ingest, reports, ParquetConsolidatedFormat.OWN_ENCODERS);
        }
    }

    private final ConsumerConfig config;
    private final List<AutoCloseable> owned;
    private final ConsumerMetrics metrics;
    private final ConsumerStatus status;
    private final SignalHandler handler;
    private final java.nio.file.Path spoolDir;
    private final DependencyChecks dependencies;
    private final ReportSink reports;
    private final ScheduledExecutorService heartbeats;
    /** Heartbeats not sent: lines at doubling counts of heartbeats missed, one when they go again (heartbeat thread). */
    private final Outage heartbeatOutage;
    private int heartbeatsMissed;
    private final Clock clock;
    private volatile StompFanIn worker;
    private volatile OpsHttpServer http;
    private volatile boolean started;
    private volatile boolean stopped;
    private volatile String deathReason;

    /** HDFS client key: first wait before retrying {@code complete()} of a closed file (or a new block). */
    static final String HDFS_RETRY_DELAY_KEY = "dfs.client.block.write.locateFollowingBlock.initial.delay.ms";
    /** HDFS client key: how many times, each wait twice the last. */
    static final String HDFS_RETRIES_KEY = "dfs.client.block.write.locateFollowingBlock.retries";
    /** HDFS client key: bytes of data per packet sent to the DataNodes. */
    static final String HDFS_PACKET_KEY = "dfs.client-write-packet-size";
    /** HDFS client key: packets sent and not yet acknowledged, per open file. */
    static final String HDFS_PACKETS_IN_FLIGHT_KEY = "dfs.client.write.max-packets-in-flight";
    /** HDFS client key: packet buffers reused instead of allocated for each packet. */
    static final String HDFS_BUFFER_REUSE_KEY = "dfs.client.write.byte-array-manager.enabled";

    /**
     * {@code base} with the consumer's HDFS client defaults where the operator's Hadoop configuration does not set
     * them. Closing a file asks the NameNode to complete it, which fails until a DataNode has reported the last block;
     * the client then sleeps {@value #HDFS_RETRY_DELAY_KEY} (Hadoop's default 400 ms) and doubles it: most closes pay
     * one such wait, per dataset. The consumer starts at 25 ms with 10 retries (25 ms x (2^10 - 1) = 25.6 s in all,
     * more than the 12.4 s of Hadoop's 400 ms x 5 retries).
     * <p>
     * A consolidated file is written as one long stream: packets of 1 MiB instead of Hadoop's 64 KiB cost the client
     * and the DataNode less CPU per byte, at most 16 in flight (16 MiB, Hadoop's 80 x 64 KiB being 5 MiB), in reused
     * buffers.
     */
    public static Configuration hdfsClientConf(Configuration base) {
        Configuration conf = new Configuration(Objects.requireNonNull(base, "base is null"));
        setUnlessConfigured(conf, HDFS_RETRY_DELAY_KEY, "25");
        setUnlessConfigured(conf, HDFS_RETRIES_KEY, "10");
        setUnlessConfigured(conf, HDFS_PACKET_KEY, String.valueOf(1 << 20));
        setUnlessConfigured(conf, HDFS_PACKETS_IN_FLIGHT_KEY, "16");
        setUnlessConfigured(conf, HDFS_BUFFER_REUSE_KEY, "true");
        return conf;
    }

    private static void setUnlessConfigured(Configuration conf, String key, String value) {
        String[] sources = conf.getPropertySources(key);
        boolean configured = sources != null && java.util.Arrays.stream(sources)
                .anyMatch(s -> !s.equals("hdfs-default.xml") && !s.equals("core-default.xml"));
        if (!configured) {
            conf.set(key, value, "eventindex consumer default");
        }
    }

    /**
     * Builds every part from {@code config}: the Hadoop configuration from its folder, the Kerberos login when a
     * principal is configured (its metrics in the consumer's registry), then the clients as the logged-in user.
     *
     * @throws org.eventindex.cluster.ClusterConfigException for a missing configuration folder or a refused login
     */
    public static Consumer create(ConsumerConfig config, Clock clock) throws IOException {
        return create(config, clock, ClusterAccess.open(config.cluster(), null));
    }

    /**
     * {@link #create(ConsumerConfig, Clock)}, waiting with {@code wait} while no KDC answers the Kerberos login
     * ({@code /ready} of the daemon names it meanwhile); the wait's metric goes into the consumer's registry too.
     *
     * @throws InterruptedException when {@code wait} was closed (the daemon stops) before a KDC answered
     */
    public static Consumer create(ConsumerConfig config, Clock clock, DependencyWait wait)
            throws IOException, InterruptedException {
        ClusterAccess cluster = wait.await("kerberos", () -> ClusterAccess.open(config.cluster(), null),
                KdcUnreachableException.class::isInstance);
        Consumer c = create(config, clock, cluster);
        wait.register(c.metrics.registry());
        return c;
    }

    private static Consumer create(ConsumerConfig config, Clock clock, ClusterAccess cluster) throws IOException {
        try {
            Consumer c = new Consumer(config, cluster, clock);
            c.owned.add(cluster);
            cluster.register(c.metrics.registry());
            return c;
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * Builds the S3 client, the Kudu client and the report sender from {@code config}, and the HDFS client from
     * {@code hadoopConf} (e.g. a MiniDFSCluster's) at {@link ConsumerConfig#hdfsUri()}, without Kerberos. The consumer
     * owns and closes them.
     */
    public Consumer(ConsumerConfig config, Configuration hadoopConf, Clock clock) throws IOException {
        this(config, ClusterAccess.unsecured(Objects.requireNonNull(hadoopConf, "hadoopConf is null")), clock);
    }

    /**
     * Builds the clients as {@code cluster}'s user, with its Hadoop configuration; the consumer owns and closes the
     * clients, the caller {@code cluster}.
     */
    public Consumer(ConsumerConfig config, ClusterAccess cluster, Clock clock) throws IOException {
        this(config, clock, new ArrayList<>(), Objects.requireNonNull(cluster, "cluster is null"));
    }

    /** Uses collaborators built by the caller; {@link #stop()} leaves them open. */
    public Consumer(ConsumerConfig config, Services services, Clock clock) {
        this(config, services, clock, List.of(), null, config.cluster());
    }

    private Consumer(ConsumerConfig config, Clock clock, List<AutoCloseable> owned, ClusterAccess cluster)
            throws IOException {
        this(config, ownedServices(config, clock, owned, cluster), clock, owned, cluster.configuration(),
                cluster.settings());
    }

    /**
     * @param hadoopConf the Hadoop configuration that names the NameNodes in HDFS errors (null: only the URI's)
     * @param settings where the Hadoop configuration folder came from, for the hint of an unknown nameservice
     */
    private Consumer(ConsumerConfig config, Services services, Clock clock, List<AutoCloseable> owned,
                     Configuration hadoopConf, ClusterSettings settings) {
        this.config = Objects.requireNonNull(config, "config is null");
        Objects.requireNonNull(services, "services is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.owned = owned;
        this.metrics = new ConsumerMetrics(DaemonMetrics.registry("consumer"));
        DaemonMetrics.brokerSubscriptions(metrics.registry(), () -> Map.of(config.signalQueue(),
                brokerSubscriptions()));
        this.status = new ConsumerStatus(config.consumerId(), clock, 20, () -> (long) metrics.objectsRead.get(),
                () -> (long) metrics.workDone.get());
        this.reports = services.reports();
        this.heartbeatOutage = new Outage("consumer " + config.consumerId() + ": heartbeats to "
                + config.heartbeatQueue(), "not sent", "sent again", LOG, System::nanoTime);
        Path hdfsRoot = new Path(config.hdfsRoot());
        FileContext fc = services.fileContext();
        DatasetIngest ingest = services.ingest();
        Map<String, DependencyChecks.Check> checks = new LinkedHashMap<>();
        checks.put("hdfs", () -> {
            try {
                HdfsRootCheck.reachable(fc, hdfsRoot);
            } catch (IOException | RuntimeException e) {
                throw hdfsDown(config.hdfsUri(), hadoopConf, settings, e);
            }
        });
        checks.put("kudu", ingest::probe);
        this.dependencies = new DependencyChecks(checks, config.readyCheckInterval(), clock, metrics.registry(),
                ConsumerMetrics.DEPENDENCY_UP);
        this.heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "consumer-heartbeat");
            t.setDaemon(true);
            return t;
        });
        this.spoolDir = config.spoolDir().resolve(HdfsCommitter.safe(config.consumerId()));
        Consolidator consolidator = new Consolidator(
                new SizeLimitedFetcher(services.fetcher(), config.limits().objectMaxBytes()), config.limits().spb(),
                config.fetchThreads(), config.fetchAttempts(), metrics);
        ParquetConsolidatedFormat format = new ParquetConsolidatedFormat(spoolDir, config.sortMemoryBytes(),
                config.encodingThreads(), config.runMemoryBytes(), services.parquet(),
                metrics.workDone::inc);
        DaemonMetrics.gauge(metrics.registry(), ConsumerMetrics.RUN_MEMORY_USED, "Bytes of sorted runs held in the run"
                + " memory now (the rest of a dataset's runs are in the spool dir).", format::runMemoryInUse);
        DaemonMetrics.gauge(metrics.registry(), ConsumerMetrics.RUN_MEMORY_LIMIT, "consumer.run.memory.bytes: most bytes"
                + " of sorted runs held in memory at a time.", config::runMemoryBytes);
        DaemonMetrics.gauge(metrics.registry(), ConsumerMetrics.KUDU_BUFFERED_ROWS, "Rows of the Kudu load in"
                + " progress decided and not yet taken by Kudu (waiting for their tablet's batch, or in the sessions'"
                + " buffers), 0 when none loads.",
                ingest::bufferedRows);
        DaemonMetrics.gauge(metrics.registry(), ConsumerMetrics.KUDU_BUDGET_ROWS, "consumer.kudu.load.budget.rows:"
                + " most rows one load holds for Kudu.", config::kuduBudgetRows);
        DaemonMetrics.gauge(metrics.registry(), ConsumerMetrics.SPOOL_FREE, "Bytes free for the consumer on the file"
                + " system of consumer.spool.dir (usable space; -1 when it cannot be read).",
                () -> SpoolSpace.usableBytes(config.spoolDir()));
        status.registerGauges(metrics.registry());
        CertificateExpiry.register(metrics.registry(), config.tls());
        new CredentialFiles().secret(config.stompPassword()).secret(config.s3AccessKey())
                .secret(config.s3SecretKey()).trustStores(config.tls())
                .file(config.cluster().names().keytab(), "keytab", config.cluster().keytab())
                .register(metrics.registry(), clock);
        HdfsCommitter committer = new HdfsCommitter(services.fileContext(), new Path(config.hdfsRoot()),
                format.fileSuffix());
        DatasetProcessor processor = new DatasetProcessor(consolidator, format, committer, services.ingest(),
                metrics.workDone::inc, config.kuduLoadOverlap());
        this.handler = new SignalHandler(config.consumerId(), SignalValidator.forConfig(config), processor,
                services.reports(), metrics, status, clock);
    }

    /**
     * The HDFS check's failure in one line, as the rest of the HDFS errors ({@link ClusterErrors#hdfs}): the
     * NameNode(s) named (an HA nameservice's from the configuration) and the reason in a few words, or the hint of an
     * unknown nameservice; without Hadoop's own text ("Call From ... For more details see: http://wiki...") as its
     * cause, since the readiness body shows every cause's first line.
     */
    static IOException hdfsDown(java.net.URI uri, Configuration hadoopConf, ClusterSettings settings, Exception e) {
        IOException readable = ClusterErrors.hdfs(uri, hadoopConf, settings, e);
        if (ClusterErrors.known(readable)) {
            return new IOException(readable.getMessage());
        }
        String first = e.getMessage() == null ? e.getClass().getSimpleName()
                : e.getMessage().lines().findFirst().orElse("");
        int wiki = first.indexOf("; For more details see:");
        return new IOException("HDFS " + uri + " does not answer: " + (wiki >= 0 ? first.substring(0, wiki) : first));
    }

    private static Services ownedServices(ConsumerConfig config, Clock clock, List<AutoCloseable> owned,
                                          ClusterAccess cluster) throws IOException {
        boolean ok = false;
        try {
            S3ObjectFetcher fetcher = S3ObjectFetcher.connect(config.s3Endpoint(),
                    RotatingCredentials.of(config.s3AccessKey(), config.s3SecretKey()), config.fetchThreads(),
                    config.tls().s3TrustManagers());
            owned.add(fetcher);
            Configuration hadoopConf = cluster.configuration();
            hadoopConf.set("fs.defaultFS", config.hdfsUri().toString());
            FileContext fc = cluster.fileContext(config.hdfsUri(), hdfsClientConf(hadoopConf));
            KuduIngest ingest = KuduIngest.connect(config, cluster, clock);
            owned.add(ingest);
            StompSender sender = new StompSender(stompSettings(config));
            owned.add(sender);
            ok = true;
            return new Services(fetcher, fc, ingest, new StompReportSink(sender, config.reportQueue(),
                    config.heartbeatQueue()));
        } finally {
            if (!ok) {
                closeAll(owned);
            }
        }
    }

    /** The brokers, login, TLS and frame limits the consumer connects with (also what {@code eventindex check} tries). */
    public static StompSettings stompSettings(ConsumerConfig config) {
        return config.tls().applyTo(StompSettings.rotating(config.brokers(),
                config.stompUser().isEmpty() ? null : config.stompUser(), config.stompPassword()))
                .withFrameLimits(config.frameLimits()).withResolveInterval(config.brokersResolveInterval());
    }

    /**
     * Subscribes to the signal queue and opens the operations endpoint, for in-process use: if the signal worker
     * dies, only {@code /health} and {@code /ready} say so ({@link ExitAction#STAY}).
     */
    public void start() throws IOException {
        start(ExitAction.STAY);
    }

    /**
     * Subscribes to the signal queue and opens the operations endpoint.
     *
     * @param exit run with {@link #EXIT_WORKER_DIED} if the signal worker dies
     */
    public synchronized void start(ExitAction exit) throws IOException {
        Objects.requireNonNull(exit, "exit is null");
        if (stopped) {
            throw new IllegalStateException("consumer " + config.consumerId() + " was stopped; create a new one");
        }
        if (started) {
            return;
        }
        prepareSpoolDir();
        http = new OpsHttpServer(new InetSocketAddress(config.httpHost(), config.httpPort()),
                OpsHttpServer.DEFAULT_THREADS, metrics.registry(), this::health, this::readiness, config.httpAccess());
        http.json("/status", status::snapshot);
        http.start();
        try {
            // the signal queue on every broker; one signal at a time over all of them (the memory budgets are for
            // one dataset), so a broker's next signal waits, prefetched, while another broker's is handled
            StompMessageHandler oneAtATime = new OneAtATime(handler);
            worker = new StompFanIn("consumer-" + config.consumerId(), stompSettings(config),
                    config.signalQueue(), 1, broker -> oneAtATime, StompFanIn.RECONNECT_BACKOFF,
                    (name, cause) -> workerDied(name, cause, exit));
            worker.start();
        } catch (RuntimeException e) {
            http.close();
            http = null;
            throw e;
        }
        dependencies.start();
        long every = config.heartbeatInterval().toMillis();
        heartbeats.scheduleWithFixedDelay(this::sendHeartbeat, 0, every, TimeUnit.MILLISECONDS);
        started = true;
        LOG.info("consumer {} started: signals from {} on {}, files under {}{}, ops on port {}", config.consumerId(),
                config.signalQueue(), config.brokers(), config.hdfsUri(), config.hdfsRoot(), http.port());
    }

    /**
     * One heartbeat; the broker drops it when it waited there longer than the supervisor's default missing window
     * (3 intervals), so that a supervisor back from a stop never reads a dead consumer's old heartbeats.
     */
    private void sendHeartbeat() {
        long every = config.heartbeatInterval().toMillis();
        try {
            reports.heartbeat(status.heartbeat(ProjectVersion.get(), every), 3 * every);
            heartbeatOutage.reachable();
        } catch (IOException | RuntimeException e) {
            heartbeatOutage.retryingEvery(e.getMessage(), ++heartbeatsMissed, config.heartbeatInterval());
            return;
        }
        heartbeatsMissed = 0;
    }

    private void workerDied(String workerName, Throwable cause, ExitAction exit) {
        String reason = "consumer " + config.consumerId() + ": signal worker " + workerName + " died of " + cause
                + "; the signal in hand was neither reported nor acknowledged (the broker redelivers it)";
        deathReason = reason;
        LOG.error("{}; exiting with status {} so that the process is restarted", reason, EXIT_WORKER_DIED);
        exit.exit(EXIT_WORKER_DIED, reason);
    }

    /** This consumer's own spool folder; spool and run files a crashed run left there are removed. */
    private void prepareSpoolDir() throws IOException {
        Files.createDirectories(spoolDir);
        try (DirectoryStream<java.nio.file.Path> leftovers = Files.newDirectoryStream(spoolDir,
                "{spool-*.bin,sort-*.run,obj-*.run,merge-*.run}")) {
            for (java.nio.file.Path f : leftovers) {
                LOG.info("removing spool or run file {} of an earlier run", f);
                Files.deleteIfExists(f);
            }
        }
    }

    /** Idempotent: stops taking signals (waiting for the one in progress), closes the endpoint and owned clients. */
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        heartbeats.shutdownNow();
        if (worker != null) {
            worker.stop(STOP_GRACE);
        }
        dependencies.close();
        if (http != null) {
            http.close();
        }
        List<AutoCloseable> reversed = new ArrayList<>(owned);
        Collections.reverse(reversed);
        closeAll(reversed);
        LOG.info("consumer {} stopped", config.consumerId());
    }

    @Override
    public void close() {
        stop();
    }

    /** The signal handler, for handling a signal in-process without the broker. */
    public SignalHandler handler() {
        return handler;
    }

    public ConsumerMetrics metrics() {
        return metrics;
    }

    public ConsumerStatus status() {
        return status;
    }

    /** The operations HTTP port (useful with port 0); -1 before {@link #start()}. */
    public int httpPort() {
        OpsHttpServer h = http;
        return h == null ? -1 : h.port();
    }

    /** True while subscribed to the signal queue on at least one broker. */
    public boolean isConnected() {
        StompFanIn w = worker;
        return w != null && !stopped && w.isConnected();
    }

    /** The signal queue's subscription on each broker (empty before {@link #start()}). */
    public Map<String, Boolean> brokerSubscriptions() {
        StompFanIn w = worker;
        return w == null ? Map.of() : w.subscriptions();
    }

    /** Why the consumer can no longer take signals (its worker died), or null while it can. */
    public String deathReason() {
        return deathReason;
    }

    private OpsHttpServer.Readiness health() {
        String dead = deathReason;
        return dead == null ? OpsHttpServer.Readiness.ok() : OpsHttpServer.Readiness.notReady(dead);
    }

    /**
     * Ready while the signal worker lives, is subscribed on at least one broker, and HDFS and Kudu answered their
     * last background check (every {@code consumer.ready.check.interval}); the body lists each dependency's last
     * check and each broker's subscription.
     */
    private OpsHttpServer.Readiness readiness() {
        OpsHttpServer.Readiness deps = dependencies.readiness();
        String dead = deathReason;
        if (dead != null) {
            return new OpsHttpServer.Readiness(false, dead, deps.dependencies());
        }
        List<DependencyStatus> all = new ArrayList<>(deps.dependencies());
        OpsHttpServer.Readiness brokers = OpsHttpServer.Readiness.brokers(Map.of(config.signalQueue(),
                brokerSubscriptions()), clock.instant());
        all.addAll(brokers.dependencies());
        if (!isConnected()) {
            return new OpsHttpServer.Readiness(false, "not subscribed to " + config.signalQueue() + " on any broker of "
                    + config.brokers(), all);
        }
        return new OpsHttpServer.Readiness(deps.ready(), deps.reason(), all);
    }

    private static void closeAll(List<AutoCloseable> resources) {
        for (AutoCloseable c : resources) {
            try {
                c.close();
            } catch (Exception e) {
                LOG.warn("closing {} failed: {}", c.getClass().getSimpleName(), e.toString());
            }
        }
    }

    /**
     * The signal handler of every broker's worker, one signal at a time. A worker that waited for another's signal
     * while the consumer began to stop leaves its own signal unacknowledged (the broker gives it to another consumer)
     * instead of starting it.
     */
    private final class OneAtATime implements StompMessageHandler {
        private final StompMessageHandler handler;
        private final ReentrantLock turn = new ReentrantLock();

        OneAtATime(StompMessageHandler handler) {
            this.handler = handler;
        }

        @Override
        public void onMessage(StompMessage message) throws Exception {
            inTurn(message, () -> handler.onMessage(message));
        }

        @Override
        public void onOversize(StompMessage message) throws Exception {
            inTurn(message, () -> handler.onOversize(message));
        }

        private void inTurn(StompMessage message, Handling handling) throws Exception {
            turn.lockInterruptibly();
            try {
                if (stopped) {
                    throw new InterruptedException("consumer " + config.consumerId() + " is stopping: signal message "
                            + message.messageId() + " left to the broker");
                }
                handling.handle();
            } finally {
                turn.unlock();
            }
        }
    }

    @FunctionalInterface
    private interface Handling {
        void handle() throws Exception;
    }
}
