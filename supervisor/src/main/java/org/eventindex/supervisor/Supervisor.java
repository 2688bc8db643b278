package org.eventindex.supervisor;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.hadoop.fs.FileSystem;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.cluster.KdcUnreachableException;
import org.eventindex.ops.CertificateExpiry;
import org.eventindex.ops.CredentialFiles;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.ops.DependencyChecks;
import org.eventindex.ops.DependencyWait;
import org.eventindex.ops.OpsHttpServer;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;
import org.eventindex.supervisor.ha.Leadership;
import org.eventindex.supervisor.ha.SharedDirLeadership;
import org.eventindex.supervisor.ha.ZooKeeperLeadership;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.supervisor.journal.JournalFiles;
import org.eventindex.supervisor.journal.LocalJournalFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The supervisor daemon's lifecycle owner: builds its parts, wires them, starts them in order and stops them in
 * reverse. It takes part in no message's way: a producer or control message goes from {@link InboundQueues} to the
 * {@link SupervisorEngine} and its journal, a signal from the engine to the {@link SignalDispatcher} and its
 * {@link SignalSender}, and none of them calls this class.
 * <p>
 * {@link #start()} replays the journal (the durable state) before consuming anything, re-plans datasets that were
 * complete at the crash and re-sends signals that were planned but not confirmed sent. {@link #stop()} is
 * idempotent. The read-only views ({@link #dataset}, {@link #datasets}) are safe to call from any thread.
 * <p>
 * With {@code supervisor.ha.enabled} it is one of two supervisors (sharing the journal directory, or with the lease in
 * ZooKeeper and the journal on HDFS): {@link #start()} serves HTTP as a standby and returns; a background thread waits for the lease ({@link Leadership}), takes it,
 * hands the journal over into its own generation and only then does what a single supervisor does at start. Every
 * journal write, acknowledgement, signal and answer first checks the {@link Fence}; once fenced out the supervisor
 * does none of them again ({@link #onFenced}: the daemon exits at once).
 */
public final class Supervisor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Supervisor.class);
    /** STOMP header of an operator request naming where its answer goes (a temporary queue). */
    public static final String REPLY_TO = "reply-to";
    /** STOMP header of an operator request and of its answer: the request id. */
    public static final String CORRELATION_ID = "correlation-id";
    /** STOMP header of a signal: the fencing token of the supervisor that sent it (with a standby only). */
    public static final String SIGNAL_TOKEN_HEADER = org.eventindex.message.ConsumerSignal.TOKEN_HEADER;
    /** Gauge: 1 while a dependency checked for {@code /ready} (the Kudu masters, when the epochs are managed) answers. */
    public static final String DEPENDENCY_UP = "eventindex_supervisor_dependency_up";
    /** How often the Kudu masters are asked for {@code /ready}, and the time they have to answer. */
    static final Duration DEPENDENCY_CHECK_INTERVAL = Duration.ofSeconds(10);

    private final SupervisorConfig config;
    private final Clock clock;
    private final PrometheusRegistry metricsRegistry = DaemonMetrics.registry("supervisor");
    private final SupervisorMetrics metrics = new SupervisorMetrics(metricsRegistry);
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final Instant startedAt;
    private final Function<SupervisorConfig.Epochs, EpochRanges> rangesFactory;
    private final JournalDiskGuard diskGuard;
    private final Checkpoints checkpoints;
    /** The wait at start for what the supervisor cannot start without: the KDC of its Kerberos login. */
    private final DependencyWait startWait = new DependencyWait();
    /** Serialises activation (on the standby thread) with stop(). */
    private final Object lifecycle = new Object();
    private volatile Consumer<String> onFenced = why -> { };
    private volatile Consumer<Exception> onActivationFailure = e -> { };

    // Each part is set once, when it is built; stop() closes those that were.
    private volatile Leadership leadership;
    /** With the lease in ZooKeeper: the HDFS client of the journal, and its Kerberos login. */
    private volatile ClusterAccess cluster;
    private volatile FileSystem journalFs;
    private volatile EventBus eventBus;
    private volatile InfoService info;
    private volatile Journal journal;
    /** Signals and quarantined copies of refused messages go out on this connection. */
    private volatile StompSender outbound;
    private volatile EpochRanges epochRanges;
    private volatile DependencyChecks dependencies;
    private volatile OperatorAnswers answers;
    private volatile SignalDispatcher dispatcher;
    private volatile SupervisorEngine engine;
    private volatile InboundQueues inbound;
    private volatile PeriodicTasks periodic;
    private volatile Health health;

    public Supervisor(SupervisorConfig config, Clock clock) {
        this(config, clock, c -> c.managed() ? new KuduEpochRanges(c) : EpochRanges.NONE,
                config.ha().enabled() && config.ha().zooKeeper().isPresent()
                        ? () -> Long.MAX_VALUE // HDFS: the NameNode refuses a write without room, the journal fails
                        : JournalDiskGuard.FreeSpace.of(config.journal().dir()));
    }

    /** With the {@link EpochRanges} (Kudu's, or another manager's) and the journal disk's room given by the caller. */
    Supervisor(SupervisorConfig config, Clock clock, Function<SupervisorConfig.Epochs, EpochRanges> ranges,
               JournalDiskGuard.FreeSpace journalDisk) {
        this.config = Objects.requireNonNull(config, "config is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.rangesFactory = Objects.requireNonNull(ranges, "ranges is null");
        this.startedAt = Instant.ofEpochMilli(clock.millis());
        CertificateExpiry.register(metricsRegistry, config.tls());
        new CredentialFiles().secret(config.stompPassword()).secret(config.cleanup().accessKey())
                .secret(config.cleanup().secretKey()).trustStores(config.tls())
                .file(config.epochs().kerberos().names().keytab(), "keytab", config.epochs().kerberos().keytab())
                .register(metricsRegistry, clock);
        this.diskGuard = new JournalDiskGuard(journalDisk, config.journal().minFreeBytes(), config.handOff().tick(),
                config.journal().dir().toString());
        this.checkpoints = new Checkpoints(config.journal().checkpointEntries(), clock, metrics);
        startWait.register(metricsRegistry);
    }

    /**
     * Serves HTTP, replays the journal, then starts sending and consuming. Returns without waiting for the broker:
     * the workers connect (and reconnect) in the background; {@code /ready} says when both are subscribed. Waits for
     * a KDC that does not answer the Kerberos login of the epoch ranges ({@link DependencyWait}: {@code /ready}
     * names it meanwhile); {@link #stop()} from another thread ends that wait.
     *
     * @throws IOException           when the journal cannot be opened or replayed, or the HTTP port is taken, or the
     *                               supervisor was stopped while it waited for the KDC
     * @throws IllegalStateException when called twice
     */
    public void start() throws IOException {
        if (stopped.get() || !started.compareAndSet(false, true)) {
            throw new IllegalStateException("supervisor already started or stopped; a Supervisor starts once");
        }
        if (!config.ha().enabled()) {
            if (SharedDirLeadership.sharedLayout(config.journal().dir())) {
                stop();
                throw new IOException(SupervisorConfig.JOURNAL_DIR + " " + config.journal().dir() + " is shared by"
                        + " supervisors with a standby (it has fence-N files and generation-N journals): set "
                        + SupervisorConfig.HA_ENABLED + "=true, or point " + SupervisorConfig.JOURNAL_DIR
                        + " at the newest generation-N to run without a standby");
            }
            try {
                serveHttp();
            } catch (IOException | RuntimeException e) {
                stop();
                throw e;
            }
            activate(new LocalJournalFiles(config.journal().dir()));
            return;
        }
        try {
            serveHttp();
            String id = config.ha().id().isEmpty() ? hostName() + ":" + info.port() : config.ha().id();
            leadership = config.ha().zooKeeper().isPresent() ? zooKeeperLeadership(id)
                    : new SharedDirLeadership(config.ha(), config.journal().dir(), id, metricsRegistry, this::fenced);
        } catch (IOException | RuntimeException e) {
            stop();
            throw e;
        }
        Thread t = new Thread(this::standby, "supervisor-standby");
        t.setDaemon(true);
        t.start();
        LOG.info("supervisor {} started as a standby on {} (lease {}); ops HTTP on port {}", leadership.id(),
                config.ha().zooKeeper().map(z -> z.connect() + z.root() + " and " + z.journal())
                        .orElse(config.journal().dir().toString()), config.ha().lease(), info.port());
    }

    /**
     * The lease in ZooKeeper and the journal on HDFS, as the Kerberos principal when one is configured (a KDC that
     * does not answer is waited for).
     */
    private Leadership zooKeeperLeadership(String id) throws IOException {
        SupervisorConfig.ZooKeeperStore store = config.ha().zooKeeper().orElseThrow();
        try {
            cluster = startWait.await("kerberos", () -> ClusterAccess.open(config.epochs().kerberos(),
                    metricsRegistry), KdcUnreachableException.class::isInstance);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("supervisor stopped while it waited for the KDC", e);
        }
        journalFs = ZooKeeperLeadership.journalFileSystem(cluster, store);
        return new ZooKeeperLeadership(config.ha(), journalFs, id, metricsRegistry, this::fenced);
    }

    /**
     * The ops HTTP server, before anything the supervisor waits for: {@code /health} answers, {@code /ready} says
     * what it waits for; the state's resources are added once it is active.
     */
    private void serveHttp() throws IOException {
        eventBus = new EventBus(config.eventsQueue(), metrics.eventSubscribersDropped::inc);
        info = new InfoService(config, metricsRegistry, eventBus, this::readiness, this::role);
        info.start();
    }

    /** The standby thread: waits for the lease, then activates; a failed activation is reported and stops it. */
    private void standby() {
        try {
            Optional<JournalFiles> generation = leadership.awaitActive();
            if (generation.isEmpty()) {
                return;
            }
            synchronized (lifecycle) {
                if (stopped.get()) {
                    return;
                }
                activate(generation.get());
                leadership.activated();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            if (stopped.get()) {
                return; // stopped while it waited for the KDC
            }
            LOG.error("supervisor {} could not take over: {}", leadership.id(), e.toString(), e);
            stop();
            onActivationFailure.accept(e);
        }
    }

    /**
     * What a starting supervisor does: replays the journal in {@code journalDir}, builds the parts that act on it and
     * starts them, consuming last.
     */
    private void activate(JournalFiles journalDir) throws IOException {
        try {
            SupervisorState state = new SupervisorState(config.console().historyDays());
            long opening = System.nanoTime();
            journal = state.replayJournal(journalDir, config.journal().keepSegments(), true);
            Leadership l = leadership;
            Fence fence = l == null ? Fence.NONE : Fence.of(l);
            if (l != null) {
                journal.guard(fence.journalGuard());
            }
            checkpoints.replayed(journal, state, Duration.ofNanos(System.nanoTime() - opening));

            StompSettings stomp = config.stompSettings();
            outbound = new StompSender(stomp);
            answers = new OperatorAnswers(stomp, fence, metrics);
            epochRanges = epochRanges();
            if (epochRanges instanceof KuduEpochRanges kudu) {
                kudu.registerMetrics(metricsRegistry); // the Kerberos login's, when there is one
                dependencies = new DependencyChecks(Map.of("kudu", kudu::probe), DEPENDENCY_CHECK_INTERVAL, clock,
                        metricsRegistry, DEPENDENCY_UP);
                dependencies.start();
            }
            dispatcher = new SignalDispatcher(new SignalSender(outbound, config.consumerQueue(), epochRanges, fence,
                    metrics), metrics.signalSendFailures::inc, config.signalBackoff());
            StompSender quarantined = outbound;
            Quarantine quarantine = config.quarantine().<Quarantine>map(q -> (source, r, body) ->
                    quarantined.send(q, body, Quarantine.headers(source, r))).orElse(Quarantine.NONE);
            engine = new SupervisorEngine(journal, state, MessageValidator.forEndpoint(config.s3Bucket(),
                    config.cleanup().s3Endpoint()), dispatcher, quarantine, metrics, clock,
                    new EpochPolicy(config.kuduEpoch(), config.epochs().maxEvents()),
                    new HandOffPolicy(config.handOff()), config.maxMessageBytes(), config.producerQueue(),
                    config.controlQueue());
            dispatcher.reportTo(engine);
            engine.listener(eventBus::publish);
            engine.recover();

            inbound = new InboundQueues(config, journal.file(), engine, diskGuard, answers, fence, stopped::get);
            DatasetAudit audit = !config.verifyInterval().isZero() && epochRanges instanceof KuduEpochRanges kudu
                    ? new DatasetAudit(kudu.verifyTarget(), config.verifyInterval(), clock,
                    config.epochs().kuduMasters(), metrics.verifications) : null;
            DatasetAudit.registerGauges(metricsRegistry, audit);
            periodic = new PeriodicTasks(config, clock, metrics, engine, diskGuard, checkpoints, fence,
                    inbound::halted, audit);
            health = new Health(config, clock, startedAt, journal, engine, diskGuard, checkpoints, inbound, eventBus,
                    periodic, Optional.ofNullable(dependencies));
            health.registerGauges(metricsRegistry);
            if (l == null) {
                DaemonMetrics.gauge(metricsRegistry, "eventindex_supervisor_active", "1 while this supervisor"
                        + " consumes (without a standby it is the only one), 0 as a standby or once fenced out.",
                        () -> stopped.get() ? 0 : 1);
            }

            Health h = health;
            InfoResources resources = new InfoResources(engine, () -> h.info(readiness()), clock,
                    config.missingHeartbeats());
            ConsoleResources console = new ConsoleResources(engine, clock, config.console().stuckAfter(),
                    config.missingHeartbeats(), new ConsoleResources.Commands(config.brokers().stream()
                    .map(StompEndpoint::toString).collect(Collectors.joining(",")), config.epochs().kuduMasters()),
                    audit);
            info.serve(resources, console);

            periodic.start();
            inbound.start();
            LOG.info("supervisor started: {}; ops HTTP on port {}", config, info.port());
        } catch (IOException | RuntimeException e) {
            stop();
            throw e;
        }
    }

    /**
     * The epoch ranges, once their Kerberos login (when one is configured) got a ticket: a KDC that does not answer
     * is waited for, a login it refuses ends the start ({@code ClusterConfigException}, exit 2).
     */
    private EpochRanges epochRanges() throws IOException {
        try {
            return startWait.await("kerberos", () -> rangesFactory.apply(config.epochs()),
                    KdcUnreachableException.class::isInstance);
        } catch (InterruptedException e) {
            throw new IOException("supervisor stopped while it waited for the KDC", e);
        }
    }

    /**
     * Ends a wait of {@link #start()} for a dependency (the KDC): the start then fails; returns at once (a signal
     * handler calls it). Without such a wait it does nothing.
     */
    public void stopWaiting() {
        startWait.close();
    }

    /** Stops consuming (waiting for the messages in progress), sending and serving, and closes the journal. */
    public void stop() {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        stopWaiting(); // a start waiting for the KDC gives up, and releases the lifecycle
        Leadership l = leadership;
        if (l != null) {
            l.stopWaiting(); // a standby stops waiting; an active keeps its lease while it stops
        }
        synchronized (lifecycle) {
            stopActive();
        }
        if (l != null) {
            if (journal != null && !halted()) {
                l.release(); // after the journal is closed: the standby may take over at once
            }
            l.close();
        }
        closeQuietly("HDFS client of the journal", journalFs);
        closeQuietly("Kerberos login of the journal", cluster);
        LOG.info("supervisor stopped");
    }

    /** Stops what {@link #activate} started, consuming first, the journal last (after a checkpoint). */
    private void stopActive() {
        InboundQueues q = inbound;
        if (q != null) {
            q.stop();
        }
        closeQuietly("background tasks", periodic);
        SignalDispatcher d = dispatcher;
        if (d != null) {
            d.close(config.shutdownGrace());
        }
        closeQuietly("STOMP sender", outbound);
        closeQuietly("STOMP reply sender", answers);
        closeQuietly("ops HTTP server", info);
        closeQuietly("event stream", eventBus);
        closeQuietly("Kudu readiness checks", dependencies);
        closeQuietly("Kudu client", epochRanges);
        if (!halted()) {
            checkpoints.onStop(engine);
        }
        closeQuietly("journal", journal);
    }

    /** Consuming stopped for good: the journal failed, or another supervisor fenced this one out. */
    private boolean halted() {
        InboundQueues q = inbound;
        Leadership l = leadership;
        return q != null ? q.halted() : l != null && l.role() == Leadership.Role.FENCED;
    }

    /**
     * What to do once this supervisor finds itself fenced out (another took the lease): by default it stops
     * consuming and sending; the daemon ends the process at once ({@link Leadership#EXIT_FENCED}).
     */
    public void onFenced(Consumer<String> reaction) {
        onFenced = Objects.requireNonNull(reaction, "reaction is null");
    }

    /** What to do when a standby took the lease but could not start (the daemon exits non-zero). */
    public void onActivationFailure(Consumer<Exception> reaction) {
        onActivationFailure = Objects.requireNonNull(reaction, "reaction is null");
    }

    /** The lease and role, when this supervisor runs with a standby. */
    public Optional<Leadership> leadership() {
        return Optional.ofNullable(leadership);
    }

    private void fenced(String why) {
        onFenced.accept(why);
        InboundQueues q = inbound;
        if (q != null) {
            q.stopInBackground("supervisor-fenced");
        }
    }

    /** This host's name, "localhost" when it has none. */
    static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    @Override
    public void close() {
        stop();
    }

    /** The operations HTTP port (useful when configured as 0). */
    public int httpPort() {
        InfoService h = info;
        if (h == null) {
            throw new IllegalStateException("supervisor not started");
        }
        return h.port();
    }

    /** The dataset's current state, or empty when the supervisor has never heard of it (or is not started). */
    public Optional<DatasetView> dataset(String name) {
        Objects.requireNonNull(name, "name is null");
        SupervisorEngine e = engine;
        return e == null ? Optional.empty() : e.dataset(name);
    }

    /** Every known dataset, sorted by name. */
    public List<DatasetView> datasets() {
        SupervisorEngine e = engine;
        return e == null ? List.of() : e.datasets();
    }

    /**
     * Whether the supervisor is consuming its three queues with a working journal, and if not why: its role (a
     * standby, or fenced out), where it is in its lifecycle (starting, stopped), else its active parts' health.
     */
    public OpsHttpServer.Readiness readiness() {
        Leadership l = leadership;
        if (l != null && !stopped.get() && l.role() != Leadership.Role.ACTIVE) {
            return OpsHttpServer.Readiness.notReady(l.role() == Leadership.Role.STANDBY ? l.standbyReason()
                    : "fenced out: another supervisor took the lease; this one journals, signals and acknowledges"
                    + " nothing");
        }
        Optional<String> suspended = l == null || stopped.get() ? Optional.empty() : l.suspension();
        if (suspended.isPresent()) {
            return OpsHttpServer.Readiness.notReady(suspended.get());
        }
        Health h = health;
        if (h == null || stopped.get()) {
            return OpsHttpServer.Readiness.notReady(stopped.get() ? "stopped" : startWait.waitingFor()
                    .map(w -> "waiting for " + w).orElse("starting"));
        }
        return h.readiness();
    }

    /** The role, for /console/role and the console's header: {@code active} without a standby. */
    private Map<String, Object> role() {
        Leadership l = leadership;
        if (l == null) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("role", stopped.get() ? "stopped" : "active");
            m.put("standby", false);
            return m;
        }
        Map<String, Object> m = new LinkedHashMap<>(l.info());
        m.put("standby", true);
        m.put("ready", readiness().ready());
        m.put("reason", readiness().reason());
        return m;
    }

    /** The metrics served at {@code /metrics}. */
    public PrometheusRegistry metrics() {
        return metricsRegistry;
    }

    /** The live stream of state changes (tests publish floods into it). */
    EventBus events() {
        return eventBus;
    }

    /** Checks leases and retries now, then writes a checkpoint if one is due ({@link PeriodicTasks#tick}). */
    void tick() {
        PeriodicTasks p = periodic;
        if (p != null) {
            p.tick();
        }
    }

    private static void closeQuietly(String what, AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            LOG.warn("closing the {} failed: {}", what, e.toString());
        }
    }
}
