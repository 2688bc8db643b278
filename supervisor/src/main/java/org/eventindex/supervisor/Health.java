package org.eventindex.supervisor;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.ops.DependencyChecks;
import org.eventindex.ops.OpsHttpServer;
import org.eventindex.supervisor.journal.Journal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What the active supervisor tells operators about itself: why it is not ready ({@code /ready}: the journal failed,
 * its disk is low, a queue is not subscribed), the {@code /supervisor} document and the gauges of {@code /metrics}.
 * Made once the supervisor is active; before that (starting, standby) and once it stops, {@link Supervisor#readiness}
 * answers from its lifecycle alone.
 */
final class Health {
    private final SupervisorConfig config;
    private final Clock clock;
    private final Instant startedAt;
    private final Journal journal;
    private final SupervisorEngine engine;
    private final JournalDiskGuard diskGuard;
    private final Checkpoints checkpoints;
    private final InboundQueues inbound;
    private final EventBus events;
    private final PeriodicTasks periodic;
    private final Optional<DependencyChecks> dependencies;

    Health(SupervisorConfig config, Clock clock, Instant startedAt, Journal journal, SupervisorEngine engine,
           JournalDiskGuard diskGuard, Checkpoints checkpoints, InboundQueues inbound, EventBus events,
           PeriodicTasks periodic, Optional<DependencyChecks> dependencies) {
        this.config = Objects.requireNonNull(config, "config is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.startedAt = Objects.requireNonNull(startedAt, "startedAt is null");
        this.journal = Objects.requireNonNull(journal, "journal is null");
        this.engine = Objects.requireNonNull(engine, "engine is null");
        this.diskGuard = Objects.requireNonNull(diskGuard, "diskGuard is null");
        this.checkpoints = Objects.requireNonNull(checkpoints, "checkpoints is null");
        this.inbound = Objects.requireNonNull(inbound, "inbound is null");
        this.events = Objects.requireNonNull(events, "events is null");
        this.periodic = Objects.requireNonNull(periodic, "periodic is null");
        this.dependencies = Objects.requireNonNull(dependencies, "dependencies is null");
    }

    /**
     * Ready when the journal works, its disk has room, the Kudu masters answered their last check (when the
     * supervisor manages the epochs' ranges) and the three queues are subscribed on at least one broker; the
     * dependencies name each broker and the queues not subscribed on it.
     */
    OpsHttpServer.Readiness readiness() {
        Optional<String> failure = engine.failure();
        if (failure.isPresent()) {
            return OpsHttpServer.Readiness.notReady("journal failed, consuming halted: " + failure.get());
        }
        Optional<String> low = diskGuard.low();
        if (low.isPresent()) {
            return OpsHttpServer.Readiness.notReady(low.get());
        }
        if (dependencies.isPresent()) {
            OpsHttpServer.Readiness kudu = dependencies.get().readiness();
            if (!kudu.ready()) {
                return kudu;
            }
        }
        return OpsHttpServer.Readiness.brokers(inbound.subscriptions(), clock.instant());
    }

    /** {@code /supervisor}'s description of the daemon, with its readiness {@code now}. */
    SupervisorInfo info(OpsHttpServer.Readiness now) {
        return new SupervisorInfo(startedAt, Duration.ofMillis(Math.max(0, clock.millis() - startedAt.toEpochMilli())),
                now.ready(), now.reason(), journal.lastSeq(), checkpoints.info(journal), config.kuduEpoch(),
                config.epochs().maxEvents(), config.epochs().managed(), config.catalogue().enabled(),
                config.cleanup().enabled(), events.subscribers(), periodic.lastCleanup(), brokers(), config.shown());
    }

    /** Broker to (queue to subscribed): {@link InboundQueues#subscriptions} seen from the brokers, sorted. */
    private Map<String, Map<String, Boolean>> brokers() {
        Map<String, Map<String, Boolean>> out = new TreeMap<>();
        inbound.subscriptions().forEach((queue, brokers) -> brokers.forEach((broker, up) ->
                out.computeIfAbsent(broker, b -> new TreeMap<>()).put(queue, up)));
        return out;
    }

    /**
     * Registers the active supervisor's gauges: datasets by state, epochs, the journal, subscribers, consumers'
     * heartbeats, the oldest dataset and the longest time in the state per state, the journal disk and checkpoints,
     * and the subscription of each queue on each broker.
     */
    void registerGauges(PrometheusRegistry registry) {
        DaemonMetrics.brokerSubscriptions(registry, inbound::subscriptions);
        GaugeWithCallback.builder().name("eventindex_supervisor_datasets")
                .help("Live datasets now in each state (a retired dataset is no longer counted).").labelNames("state")
                .callback(cb -> {
                    Map<CollectionState, Long> byState = engine.read(st -> st.all().stream()
                            .collect(Collectors.groupingBy(d -> d.state, Collectors.counting())));
                    for (CollectionState s : CollectionState.values()) {
                        cb.call(byState.getOrDefault(s, 0L), s.name().toLowerCase(Locale.ROOT));
                    }
                }).register(registry);
        DaemonMetrics.gauge(registry, "eventindex_supervisor_current_epoch",
                "Epoch (Kudu range) new datasets go to.",
                () -> engine.read(st -> Math.max(st.currentEpoch(), config.kuduEpoch())));
        DaemonMetrics.gauge(registry, "eventindex_supervisor_current_epoch_events",
                "Events assigned to the current epoch.",
                () -> engine.read(SupervisorState::eventsInEpoch));
        DaemonMetrics.gauge(registry, "eventindex_supervisor_datasets_retired",
                "Datasets DONE with every object deleted, of which only a summary is kept.",
                () -> engine.read(st -> st.retired().size()));
        DaemonMetrics.gauge(registry, "eventindex_supervisor_journal_seq", "Last journal sequence number.",
                journal::lastSeq);
        DaemonMetrics.gauge(registry, "eventindex_supervisor_journal_fsyncs",
                "Forces (fsync) of the journal file since start; with group commit one covers several messages.",
                journal::forces);
        DaemonMetrics.gauge(registry, "eventindex_supervisor_event_subscribers",
                "Connected /events subscribers.",
                events::subscribers);
        GaugeWithCallback.builder().name(SupervisorMetrics.CONSUMER_HEARTBEAT_AGE).unit(Unit.SECONDS)
                .help("Seconds since each consumer's last heartbeat (consumers heard since the supervisor started).")
                .labelNames("consumer")
                .callback(cb -> engine.heartbeats().ages(clock.millis()).forEach((name, age) -> cb.call(age, name)))
                .register(registry);
        DaemonMetrics.gauge(registry, SupervisorMetrics.CONSUMERS_MISSING, "Consumers without a heartbeat for "
                + SupervisorConfig.CONSUMER_MISSING_HEARTBEATS + " of their intervals.",
                () -> engine.heartbeats().missing(clock.millis(), config.missingHeartbeats()));
        GaugeWithCallback.builder().name(SupervisorMetrics.OLDEST_DATASET_AGE).unit(Unit.SECONDS)
                .help("Age of the oldest live dataset in each state but DONE, from its first object or manifest;"
                        + " 0 when none is in the state.").labelNames("state")
                .callback(cb -> engine.read(st -> DatasetAges.oldest(st.all(), clock.millis()))
                        .forEach((s, age) -> cb.call(age, s.name().toLowerCase(Locale.ROOT))))
                .register(registry);
        GaugeWithCallback.builder().name(SupervisorMetrics.LONGEST_IN_STATE).unit(Unit.SECONDS)
                .help("Longest time a live dataset now in each state but DONE has spent in it, since it entered it;"
                        + " 0 when none is in the state.").labelNames("state")
                .callback(cb -> engine.read(st -> DatasetAges.longestInState(st.all(), clock.millis()))
                        .forEach((s, t) -> cb.call(t, s.name().toLowerCase(Locale.ROOT))))
                .register(registry);
        diskGuard.registerGauges(registry);
        checkpoints.registerGauges(registry, journal);
    }
}
