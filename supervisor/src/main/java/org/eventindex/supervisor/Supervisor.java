package org.eventindex.supervisor;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Json;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.ops.OpsHttpServer;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompMessageHandler;
import org.eventindex.stomp.StompQueueWorker;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.supervisor.journal.JournalException;
import org.eventindex.supervisor.ha.FencedException;
import org.eventindex.supervisor.ha.Leadership;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The supervisor daemon's lifecycle owner: wires the journal, the engine, the signal sender, the two queue workers and
 * the operations HTTP server, starts them in order and stops them in reverse.
 * <p>
 * {@link #start()} replays the journal (the durable state) before consuming anything, re-plans datasets that were
 * complete at the crash and re-sends signals that were planned but not confirmed sent. {@link #stop()} is
 * idempotent. The read-only views ({@link #dataset}, {@link #datasets}) are safe to call from any thread.
 * <p>
 * With {@code supervisor.ha.enabled} it is one of two supervisors sharing the journal directory: {@link #start()}
 * serves HTTP as a standby and returns; a background thread waits for the lease ({@link Leadership}), takes it,
 * hands the journal over into its own generation and only then does what a single supervisor does at start. Every
 * journal write, acknowledgement, signal and answer first checks the fence; once fenced out the supervisor does none
 * of them again ({@link #onFenced}: the daemon exits at once).
 */
public final class Supervisor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Supervisor.class);
    /** STOMP header of an operator request naming where its answer goes (a temporary queue). */
    static final String REPLY_TO = "reply-to";
    /** STOMP header of an operator request and of its answer: the request id. */
    static final String CORRELATION_ID = "correlation-id";
    /** STOMP header of a signal: the fencing token of the supervisor that sent it (with a standby only). */
    public static final String SIGNAL_TOKEN_HEADER = "eventindex-supervisor-token";

    private final SupervisorConfig config;
    private final Clock clock;
    private final PrometheusRegistry metricsRegistry = DaemonMetrics.registry("supervisor");
    private final SupervisorMetrics metrics = new SupervisorMetrics(metricsRegistry);
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final AtomicBoolean halted = new AtomicBoolean();

    private volatile Journal journal;
    private volatile SupervisorEngine engine;
    private volatile StompSender sender;
    /** Answers to operator requests, on their own connection: a reply queue gone with its operator must not cost the
     * signals' connection. */
    private volatile StompSender replies;
    private volatile SignalDispatcher dispatcher;
    /** {@code supervisor.journal.group.commit.max} subscriptions to the producer queue (group commit). */
    private volatile List<StompQueueWorker> producerWorkers = List.of();
    private volatile StompQueueWorker controlWorker;
    private volatile StompQueueWorker heartbeatWorker;
    private volatile OpsHttpServer http;
    private volatile EventBus eventBus;
    private volatile EpochRanges epochRanges;
    private volatile Catalogue catalogue;
    private volatile CleanupStore objectStore;
    private volatile ScheduledExecutorService background;
    private volatile ObjectCleaner cleaner;
    private final long startedAtMillis;
    private final Function<SupervisorConfig.Epochs, EpochRanges> rangesFactory;
    private final JournalDiskGuard diskGuard;
    private final Checkpoints checkpoints;
    /** Serialises activation (on the standby thread) with stop(). */
    private final Object lifecycle = new Object();
    private volatile Leadership leadership;
    private volatile InfoResources infoResources;
    private volatile ConsoleResources consoleResources;
    private volatile Consumer<String> onFenced = why -> { };
    private volatile Consumer<Exception> onActivationFailure = e -> { };

    public Supervisor(SupervisorConfig config, Clock clock) {
        this(config, clock, c -> c.managed() ? new KuduEpochRanges(c) : EpochRanges.NONE,
                JournalDiskGuard.FreeSpace.of(config.journal().dir()));
    }

    /** With the {@link EpochRanges} (Kudu's, or another manager's) and the journal disk's room given by the caller. */
    Supervisor(SupervisorConfig config, Clock clock, Function<SupervisorConfig.Epochs, EpochRanges> ranges,
               JournalDiskGuard.FreeSpace journalDisk) {
        this.config = Objects.requireNonNull(config, "config is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.rangesFactory = Objects.requireNonNull(ranges, "ranges is null");
        this.startedAtMillis = clock.millis();
        this.diskGuard = new JournalDiskGuard(journalDisk, config.journal().minFreeBytes(), config.handOff().tick(),
                config.journal().dir().toString());
        this.checkpoints = new Checkpoints(config.journal().checkpointEntries(), clock, metrics);
    }

    /**
     * Replays the journal, then starts sending, consuming and serving HTTP. Returns without waiting for the broker:
     * the workers connect (and reconnect) in the background; {@code /ready} says when both are subscribed.
     *
     * @throws IOException           when the journal cannot be opened or replayed, or the HTTP port is taken
     * @throws IllegalStateException when called twice
     */
    public void start() throws IOException {
        if (stopped.get() || !started.compareAndSet(false, true)) {
            throw new IllegalStateException("supervisor already started or stopped; a Supervisor starts once");
        }
        if (!config.ha().enabled()) {
            if (Leadership.sharedLayout(config.journal().dir())) {
                stop();
                throw new IOException(SupervisorConfig.JOURNAL_DIR + " " + config.journal().dir() + " is shared by"
                        + " supervisors with a standby (it has fence-N files and generation-N journals): set "
                        + SupervisorConfig.HA_ENABLED + "=true, or point " + SupervisorConfig.JOURNAL_DIR
                        + " at the newest generation-N to run without a standby");
            }
            activate(config.journal().dir());
            return;
        }
        try {
            eventBus = new EventBus(config.eventsQueue(), metrics.eventSubscribersDropped::inc);
            http = infoService(eventBus);
            String id = config.ha().id().isEmpty() ? hostName() + ":" + http.port() : config.ha().id();
            leadership = new Leadership(config.ha(), config.journal().dir(), id, metricsRegistry, this::fenced);
            http.start();
        } catch (IOException | RuntimeException e) {
            stop();
            throw e;
        }
        Thread t = new Thread(this::standby, "supervisor-standby");
        t.setDaemon(true);
        t.start();
        LOG.info("supervisor {} started as a standby on {} (lease {}); ops HTTP on port {}", leadership.id(),
                config.journal().dir(), config.ha().lease(), http.port());
    }

    /** The standby thread: waits for the lease, then activates; a failed activation is reported and stops it. */
    private void standby() {
        try {
            Optional<Path> generation = leadership.awaitActive();
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
            LOG.error("supervisor {} could not take over: {}", leadership.id(), e.toString(), e);
            stop();
            onActivationFailure.accept(e);
        }
    }

    /**
     * What a starting supervisor does: replays the journal in {@code journalDir}, then consumes, sends and serves.
     */
    private void activate(Path journalDir) throws IOException {
        try {
            SupervisorState state = new SupervisorState(config.console().historyDays());
            long opening = System.nanoTime();
            state.beginReplay();
            journal = Journal.open(journalDir, config.journal().keepSegments(),
                    StateCheckpoint.restoreInto(state), state::apply);
            state.endReplay();
            if (leadership != null) {
                journal.guard(leadership::check);
            }
            checkpoints.replayed(journal, state, Duration.ofNanos(System.nanoTime() - opening));
            StompSettings stomp = config.stompSettings();
            sender = new StompSender(stomp);
            replies = new StompSender(stomp);
            epochRanges = rangesFactory.apply(config.epochs());
            if (epochRanges instanceof KuduEpochRanges kudu) {
                kudu.registerMetrics(metricsRegistry); // the Kerberos login's, when there is one
            }
            dispatcher = new SignalDispatcher(this::sendSignal, s -> engine.onSignalSent(s),
                    metrics.signalSendFailures::inc, config.signalBackoff());
            Quarantine quarantine = config.quarantine().<Quarantine>map(q -> (source, r, body) ->
                    sender.send(q, body, Quarantine.headers(source, r))).orElse(Quarantine.NONE);
            MessageValidator validator = MessageValidator.forEndpoint(config.s3Bucket(),
                    config.cleanup().s3Endpoint());
            engine = new SupervisorEngine(journal, state, validator, dispatcher,
                    quarantine, metrics, clock, new EpochPolicy(config.kuduEpoch(), config.epochs().maxEvents()),
                    new HandOffPolicy(config.handOff()), config.maxMessageBytes(), config.producerQueue(),
                    config.controlQueue());
            if (eventBus == null) {
                eventBus = new EventBus(config.eventsQueue(), metrics.eventSubscribersDropped::inc);
            }
            engine.listener(eventBus::publish);
            engine.recover();
            registerGauges(engine);

            infoResources = new InfoResources(engine, this::supervisorInfo, clock, config.missingHeartbeats());
            consoleResources = new ConsoleResources(engine, clock, config.console().stuckAfter(),
                    config.missingHeartbeats(), new ConsoleResources.Commands(config.brokers().stream()
                    .map(StompEndpoint::toString).collect(Collectors.joining(",")), config.epochs().kuduMasters()));
            if (http == null) {
                http = infoService(eventBus);
                http.start();
            }

            // One thread per periodic task (ticks, catalogue, cleanup): a slow Rucio or S3 never delays a lease.
            background = Executors.newScheduledThreadPool(3, r -> {
                Thread t = new Thread(r, "supervisor-background");
                t.setDaemon(true);
                return t;
            });
            long tick = config.handOff().tick().toMillis();
            background.scheduleWithFixedDelay(this::tick, tick, tick, TimeUnit.MILLISECONDS);
            if (config.catalogue().enabled()) {
                catalogue = new RucioCatalogue(config.catalogue(), clock);
                CataloguePoller poller = new CataloguePoller(catalogue, engine, metrics);
                long every = config.catalogue().interval().toMillis();
                background.scheduleWithFixedDelay(poller::pollOnce, 0, every,
                        TimeUnit.MILLISECONDS);
            }
            if (config.cleanup().enabled()) {
                objectStore = S3CleanupStore.create(config.cleanup(), config.tls().s3TrustManagers());
                cleaner = new ObjectCleaner(objectStore, engine, config.s3Bucket(), config.cleanup().retention(),
                        config.cleanup().orphanRetention(), clock, metrics);
                long every = config.cleanup().interval().toMillis();
                // a fenced-out supervisor deletes nothing either
                background.scheduleWithFixedDelay(() -> {
                    if (fenceHolds()) {
                        cleaner.runOnceLogged();
                    }
                }, every, every, TimeUnit.MILLISECONDS);
            }

            List<StompQueueWorker> producers = new ArrayList<>();
            for (int i = 0; i < config.journal().groupCommitMax(); i++) {
                producers.add(new StompQueueWorker("supervisor-producer" + (i == 0 ? "" : "-" + i), stomp,
                        config.producerQueue(), config.prefetch(), handler(true)));
            }
            producerWorkers = List.copyOf(producers);
            controlWorker = new StompQueueWorker("supervisor-control", stomp, config.controlQueue(),
                    config.prefetch(), handler(false));
            // heartbeats are not journalled: they never wait for the journal's disk (no JournalDiskGuard)
            heartbeatWorker = new StompQueueWorker("supervisor-heartbeat", stomp, config.heartbeatQueue(),
                    config.prefetch(), new StompMessageHandler() {
                        @Override
                        public void onMessage(StompMessage m) throws Exception {
                            heartbeat(m);
                        }

                        @Override
                        public void onOversize(StompMessage m) throws Exception {
                            heartbeat(m);
                        }
                    });
            producerWorkers.forEach(StompQueueWorker::start);
            controlWorker.start();
            heartbeatWorker.start();
            LOG.info("supervisor started: {}; ops HTTP on port {}", config, http.port());
        } catch (IOException | RuntimeException e) {
            stop();
            throw e;
        }
    }

    /** Stops consuming (waiting for the messages in progress), sending and serving, and closes the journal. */
    public void stop() {
        if (!stopped.compareAndSet(false, true)) {
            return;
        }
        Leadership l = leadership;
        if (l != null) {
            l.stopWaiting(); // a standby stops waiting; an active keeps its lease while it stops
        }
        synchronized (lifecycle) {
            stopActive();
        }
        if (l != null) {
            if (journal != null && !halted.get()) {
                l.release(); // after the journal is closed: the standby may take over at once
            }
            l.close();
        }
        LOG.info("supervisor stopped");
    }

    private void stopActive() {
        stopWorkers();
        ScheduledExecutorService bg = background;
        if (bg != null) {
            bg.shutdownNow();
        }
        SignalDispatcher d = dispatcher;
        if (d != null) {
            d.close(config.shutdownGrace());
        }
        closeQuietly("STOMP sender", sender);
        closeQuietly("STOMP reply sender", replies);
        closeQuietly("ops HTTP server", http);
        closeQuietly("event stream", eventBus);
        closeQuietly("Kudu client", epochRanges);
        closeQuietly("object store client", objectStore);
        if (!halted.get()) {
            checkpoints.onStop(engine);
        }
        closeQuietly("journal", journal);
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
        halted.set(true);
        onFenced.accept(why);
        Thread t = new Thread(this::stopWorkers, "supervisor-fenced");
        t.setDaemon(true);
        t.start();
    }

    /** Throws when this supervisor is fenced out (nothing may be journalled, acknowledged or sent). */
    private void checkFence() throws FencedException {
        Leadership l = leadership;
        if (l != null) {
            l.check();
        }
    }

    private boolean fenceHolds() {
        try {
            checkFence();
            return true;
        } catch (FencedException e) {
            return false;
        }
    }

    private static String hostName() {
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
        OpsHttpServer h = http;
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

    /** Whether the supervisor is consuming its three queues with a working journal, and if not why. */
    public OpsHttpServer.Readiness readiness() {
        Leadership l = leadership;
        if (l != null && !stopped.get() && l.role() != Leadership.Role.ACTIVE) {
            return OpsHttpServer.Readiness.notReady(l.role() == Leadership.Role.STANDBY ? l.standbyReason()
                    : "fenced out: another supervisor took the lease; this one journals, signals and acknowledges"
                    + " nothing");
        }
        SupervisorEngine e = engine;
        if (e == null || stopped.get()) {
            return OpsHttpServer.Readiness.notReady(stopped.get() ? "stopped" : "starting");
        }
        Optional<String> failure = e.failure();
        if (failure.isPresent()) {
            return OpsHttpServer.Readiness.notReady("journal failed, consuming halted: " + failure.get());
        }
        Optional<String> low = diskGuard.low();
        if (low.isPresent()) {
            return OpsHttpServer.Readiness.notReady(low.get());
        }
        if (!producerWorkers.stream().allMatch(Supervisor::isConnected)) {
            return OpsHttpServer.Readiness.notReady("not subscribed to " + config.producerQueue());
        }
        if (!isConnected(controlWorker)) {
            return OpsHttpServer.Readiness.notReady("not subscribed to " + config.controlQueue());
        }
        if (!isConnected(heartbeatWorker)) {
            return OpsHttpServer.Readiness.notReady("not subscribed to " + config.heartbeatQueue());
        }
        return OpsHttpServer.Readiness.ok();
    }

    /** The metrics served at {@code /metrics}. */
    public PrometheusRegistry metrics() {
        return metricsRegistry;
    }

    /** The live stream of state changes (tests publish floods into it). */
    EventBus events() {
        return eventBus;
    }

    /**
     * Checks leases and retries now, then writes a checkpoint if one is due and the journal's disk has room (the
     * background thread does it every {@code supervisor.tick.interval}).
     */
    void tick() {
        SupervisorEngine e = engine;
        if (e == null || halted.get() || e.failure().isPresent()) {
            return;
        }
        diskGuard.check();
        try {
            e.tick();
        } catch (IOException | RuntimeException ex) {
            LOG.warn("lease/retry check failed: {}", ex.toString());
        }
        if (diskGuard.low().isEmpty()) {
            checkpoints.ifDue(e);
        }
    }

    /**
     * The information service on the one ops server: {@code /health}, {@code /ready}, {@code /metrics}, the JSON
     * resources and the {@code /events} stream (each subscriber has its own writer thread, see {@link EventBus}),
     * and the web console at {@code /} with its own JSON under {@code /console} ({@link ConsoleAssets}).
     */
    private OpsHttpServer infoService(EventBus events) throws IOException {
        OpsHttpServer server;
        try {
            server = new OpsHttpServer(config.httpHost(), config.httpPort(), metricsRegistry,
                    OpsHttpServer.Readiness::ok, this::readiness);
        } catch (IOException e) {
            throw new IOException(e.getMessage() + " (" + SupervisorConfig.HTTP_PORT + ")", e);
        }
        // a standby has no state yet: the resources answer once it is active (the role is at /console/role)
        server.json("/datasets", (rest, query) -> rest.isEmpty() ? resources().datasets(query)
                : resources().dataset(rest));
        server.json("/consumers", (rest, query) -> rest.isEmpty() ? resources().consumers() : null);
        server.json("/supervisor", (rest, query) -> rest.isEmpty() ? supervisorResource() : null);
        server.eventStream("/events", events::subscribe);
        server.json("/console", (rest, query) -> rest.equals("role") ? role() : console().get(rest, query));
        server.handle("/", new ConsoleAssets());
        return server;
    }

    private InfoResources resources() {
        InfoResources r = infoResources;
        if (r == null) {
            throw new IllegalArgumentException(notActive());
        }
        return r;
    }

    private ConsoleResources console() {
        ConsoleResources c = consoleResources;
        if (c == null) {
            throw new IllegalArgumentException(notActive());
        }
        return c;
    }

    private String notActive() {
        return readiness().reason() + " (this supervisor has no state until it is active; see /console/role)";
    }

    private Object supervisorResource() {
        InfoResources r = infoResources;
        if (r == null) {
            return Map.of("supervisor", role());
        }
        return r.supervisor();
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

    private void registerGauges(SupervisorEngine e) {
        GaugeWithCallback.builder().name("eventindex_supervisor_datasets")
                .help("Live datasets now in each state (a retired dataset is no longer counted).").labelNames("state")
                .callback(cb -> {
                    Map<CollectionState, Long> byState = e.read(st -> st.all().stream()
                            .collect(Collectors.groupingBy(d -> d.state, Collectors.counting())));
                    for (CollectionState s : CollectionState.values()) {
                        cb.call(byState.getOrDefault(s, 0L), s.name().toLowerCase(Locale.ROOT));
                    }
                }).register(metricsRegistry);
        DaemonMetrics.gauge(metricsRegistry, "eventindex_supervisor_current_epoch",
                "Epoch (Kudu range) new datasets go to.",
                () -> e.read(st -> Math.max(st.currentEpoch(), config.kuduEpoch())));
        DaemonMetrics.gauge(metricsRegistry, "eventindex_supervisor_current_epoch_events",
                "Events assigned to the current epoch.",
                () -> e.read(SupervisorState::eventsInEpoch));
        DaemonMetrics.gauge(metricsRegistry, "eventindex_supervisor_datasets_retired",
                "Datasets DONE with every object deleted, of which only a summary is kept.",
                () -> e.read(st -> st.retired().size()));
        DaemonMetrics.gauge(metricsRegistry, "eventindex_supervisor_journal_seq", "Last journal sequence number.",
                () -> journal.lastSeq());
        DaemonMetrics.gauge(metricsRegistry, "eventindex_supervisor_journal_fsyncs",
                "Forces (fsync) of the journal file since start; with group commit one covers several messages.",
                () -> journal.forces());
        DaemonMetrics.gauge(metricsRegistry, "eventindex_supervisor_event_subscribers",
                "Connected /events subscribers.",
                () -> eventBus.subscribers());
        GaugeWithCallback.builder().name(SupervisorMetrics.CONSUMER_HEARTBEAT_AGE).unit(Unit.SECONDS)
                .help("Seconds since each consumer's last heartbeat (consumers heard since the supervisor started).")
                .labelNames("consumer")
                .callback(cb -> e.heartbeats().ages(clock.millis()).forEach((name, age) -> cb.call(age, name)))
                .register(metricsRegistry);
        DaemonMetrics.gauge(metricsRegistry, SupervisorMetrics.CONSUMERS_MISSING, "Consumers without a heartbeat for "
                + SupervisorConfig.CONSUMER_MISSING_HEARTBEATS + " of their intervals.",
                () -> e.heartbeats().missing(clock.millis(), config.missingHeartbeats()));
        GaugeWithCallback.builder().name(SupervisorMetrics.OLDEST_DATASET_AGE).unit(Unit.SECONDS)
                .help("Age of the oldest live dataset in each state but DONE, from its first object or manifest;"
                        + " 0 when none is in the state.").labelNames("state")
                .callback(cb -> e.read(st -> DatasetAges.oldest(st.all(), clock.millis()))
                        .forEach((s, age) -> cb.call(age, s.name().toLowerCase(Locale.ROOT))))
                .register(metricsRegistry);
        diskGuard.registerGauges(metricsRegistry);
        checkpoints.registerGauges(metricsRegistry, journal);
        if (leadership == null) {
            DaemonMetrics.gauge(metricsRegistry, "eventindex_supervisor_active", "1 while this supervisor consumes"
                    + " (without a standby it is the only one), 0 as a standby or once fenced out.",
                    () -> stopped.get() ? 0 : 1);
        }
    }

    private SupervisorInfo supervisorInfo() {
        Journal j = journal;
        ObjectCleaner c = cleaner;
        return new SupervisorInfo(Instant.ofEpochMilli(startedAtMillis),
                Duration.ofMillis(Math.max(0, clock.millis() - startedAtMillis)), readiness().ready(),
                readiness().reason(), j == null ? -1 : j.lastSeq(), checkpoints.info(j), config.kuduEpoch(),
                config.epochs().maxEvents(),
                config.epochs().managed(), config.catalogue().enabled(), config.cleanup().enabled(),
                eventBus == null ? 0 : eventBus.subscribers(), c == null ? null : c.lastRun(), config.toString());
    }

    /** A queue's handler: messages over the STOMP frame limits are rejected (OVERSIZE) like any other bad message. */
    private StompMessageHandler handler(boolean producerQueue) {
        return new StompMessageHandler() {
            @Override
            public void onMessage(StompMessage m) throws Exception {
                handle(m, producerQueue);
            }

            @Override
            public void onOversize(StompMessage m) throws Exception {
                handle(m, producerQueue);
            }
        };
    }

    private void handle(StompMessage m, boolean producerQueue) throws Exception {
        // a journal disk about to fill holds the message here, unacknowledged, until it has room again
        diskGuard.awaitRoom(stopped::get);
        try {
            // the fence is checked by the journal before it writes and once the entry is on disk (Journal.Guard), and
            // below before the acknowledgement (also for a message that journals nothing)
            String replyTo = producerQueue ? null : m.headers().get(REPLY_TO);
            String requestId = m.headers().get(CORRELATION_ID);
            if (m.oversize() != null) {
                engine.onOversizeFrame(producerQueue, m.body(), m.messageId(), m.oversize());
                if (replyTo != null) {
                    answer(replyTo, engine.answerUnreadable(requestId, m.messageId(), m.oversize()));
                }
            } else if (producerQueue) {
                engine.onProducerMessage(m.body(), m.messageId());
            } else if (replyTo == null) {
                engine.onControlMessage(m.body(), m.messageId());
            } else {
                answer(replyTo, engine.onControlMessage(m.body(), m.messageId(), requestId));
            }
            checkFence(); // after the fsync, before the acknowledgement
        } catch (FencedException e) {
            throw unacknowledged(e);
        } catch (IOException e) {
            if (e instanceof JournalException j && !j.retriable()) {
                halt(e);
            }
            throw e;
        }
    }

    /** Fenced out: the queue worker leaves the message unacknowledged and stops (the broker gives it to the other). */
    private static InterruptedException unacknowledged(FencedException e) {
        InterruptedException stop = new InterruptedException(e.getMessage() + "; message left unacknowledged");
        stop.initCause(e);
        return stop;
    }

    /** A heartbeat: kept in memory; only a refused one is journalled, and a journal failing then halts as below. */
    private void heartbeat(StompMessage m) throws IOException, InterruptedException {
        try {
            engine.onHeartbeat(m.body(), m.messageId(), m.oversize(), config.heartbeatQueue());
            checkFence();
        } catch (FencedException e) {
            throw unacknowledged(e);
        } catch (IOException e) {
            if (e instanceof JournalException j && !j.retriable()) {
                halt(e);
            }
            throw e;
        }
    }

    /**
     * Sends an operator request's answer to its reply queue, before the request is acknowledged. Only temporary queues
     * are answered (a {@code reply-to} naming a real queue could make the supervisor write into the consumers' queue);
     * a failed send is logged: the answer is in the journal and a redelivered request gets it again.
     */
    private void answer(String replyTo, OperatorAnswer a) {
        if (!replyTo.startsWith("/remote-temp-queue/") && !replyTo.startsWith("/temp-queue/")) {
            LOG.warn("request {}: reply-to {} is not a temporary queue; not answered ({}: {})", a.requestId(),
                    replyTo, a.outcome(), a.detail());
            return;
        }
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("content-type", "application/json");
        if (a.requestId() != null) {
            headers.put(CORRELATION_ID, a.requestId());
        }
        try {
            checkFence();
            replies.send(replyTo, Json.write(a), headers);
            metrics.answers.inc();
        } catch (IOException | RuntimeException e) {
            metrics.answerSendFailures.inc();
            LOG.warn("request {}: answer {} could not be sent to {} (its operator gone?): {}", a.requestId(),
                    a.outcome(), replyTo, e.getMessage());
        }
    }

    /**
     * The journal cannot be written: stop consuming so that messages wait in the broker instead of being
     * dead-lettered one by one. Done on another thread because this runs inside a worker's handler.
     */
    private void halt(IOException cause) {
        if (halted.compareAndSet(false, true)) {
            LOG.error("journal {} failed ({}); the supervisor stops consuming. Fix the disk, restart the supervisor,"
                    + " and re-drive the one message the broker dead-lettered", journal.file(), cause.getMessage());
            Thread t = new Thread(this::stopWorkers, "supervisor-halt");
            t.setDaemon(true);
            t.start();
        }
    }

    private void stopWorkers() {
        List<StompQueueWorker> all = new ArrayList<>(producerWorkers);
        all.add(controlWorker);
        all.add(heartbeatWorker);
        for (StompQueueWorker w : all) {
            if (w != null) {
                w.stop(config.shutdownGrace());
            }
        }
    }

    private void sendSignal(ConsumerSignal signal) throws IOException {
        if (!engine.isCurrent(signal)) {
            LOG.info("dataset {}: signal {} was superseded by a re-selection before it could be sent; dropped",
                    signal.dataset(), signal.signalId());
            return;
        }
        try {
            epochRanges.ensure(signal.epoch());
        } catch (IOException | RuntimeException e) {
            metrics.epochRangeFailures.inc();
            throw new IOException("Kudu range of epoch " + signal.epoch() + " for dataset " + signal.dataset()
                    + " cannot be created: " + e.getMessage(), e);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("content-type", "application/json");
        headers.put("eventindex-signal-id", signal.signalId());
        headers.put("eventindex-dataset", signal.dataset());
        Leadership l = leadership;
        if (l != null) {
            // consumers may refuse a signal from a lower token than one they have seen (docs/operations.md)
            headers.put(SIGNAL_TOKEN_HEADER, Long.toString(l.token()));
        }
        checkFence();
        sender.send(config.consumerQueue(), Json.write(signal), headers);
    }

    private static boolean isConnected(StompQueueWorker w) {
        return w != null && w.isConnected();
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
