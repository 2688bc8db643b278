package org.eventindex.supervisor;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/** The supervisor's counters (process lifetime; a restart starts them at 0, the journal keeps the history). */
final class SupervisorMetrics {
    private static final String P = "eventindex_supervisor_";
    /** One counter for every refused message, its {@code reason} label the {@link RejectReason} in lower case. */
    static final String REJECTED = P + "rejected_total";
    /** Gauge, label {@code consumer}: seconds since the consumer's last heartbeat. */
    static final String CONSUMER_HEARTBEAT_AGE = P + "consumer_heartbeat_age_seconds";
    /** Gauge: consumers without a heartbeat for {@code supervisor.consumer.missing.heartbeats} intervals. */
    static final String CONSUMERS_MISSING = P + "consumers_missing";
    /** Gauge, label {@code state} (every state but DONE, lower case): age of the oldest dataset in it. */
    static final String OLDEST_DATASET_AGE = P + "oldest_dataset_age_seconds";
    /**
     * Gauge, label {@code state} (every state but DONE, lower case): the longest time a dataset now in the state has
     * spent in it, since it entered it. What the stuck-dataset alerts read.
     */
    static final String LONGEST_IN_STATE = P + "longest_in_state_seconds";

    final Counter producerMessages;
    final Counter controlMessages;
    final Counter heartbeatMessages;
    final Counter objects;
    final Counter lateObjects;
    final Counter lateObjectConflicts;
    final Counter duplicateMessages;
    final Counter manifests;
    final Counter signalsPlanned;
    final Counter signalsSent;
    final Counter signalSendFailures;
    final Counter reportsDone;
    final Counter reportsFailed;
    final Counter reportsFailedPermanent;
    final Counter reportsFailedInternal;
    final Counter reportsUnknown;
    final Counter resignals;
    final Counter quarantineFailures;
    final Counter automaticResignals;
    final Counter leaseExtensions;
    final Counter leasesLostStuck;
    final Counter invalidatedObjects;
    final Counter reportsSuperseded;
    final Counter catalogueQueries;
    final Counter catalogueFailures;
    final Counter objectsDeleted;
    final Counter orphansDeleted;
    /** Gauge: objects no journal entry names, old enough to go, kept by the last cleanup pass (decision 0054). */
    final Gauge orphansKept;
    final Counter cleanupFailures;
    /**
     * Scheduled verifications of a dataset ({@link DatasetAudit}), label {@code verdict} (every verdict from the
     * start, 0 while supervisor.verify.interval is off).
     */
    final Counter verifications;
    final Counter epochRangeFailures;
    final Counter eventSubscribersDropped;
    final Counter checkpoints;
    final Counter checkpointFailures;
    final Counter answers;
    final Counter answerSendFailures;
    final Counter datasetsDeleted;
    private final Map<RejectReason, CounterDataPoint> byReason = new EnumMap<>(RejectReason.class);
    private final PrometheusRegistry registry;

    SupervisorMetrics(PrometheusRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry is null");
        producerMessages = counter(P + "producer_messages_total", "Messages received on the producer queue.");
        controlMessages = counter(P + "control_messages_total", "Messages received on the control queue.");
        heartbeatMessages = counter(P + "heartbeat_messages_total", "Messages received on the heartbeat queue.");
        objects = counter(P + "objects_total", "Objects recorded (first message of each id).");
        lateObjects = counter(P + "late_objects_total",
                "Objects reported after their dataset was signalled (recorded, never read).");
        lateObjectConflicts = counter(P + "late_object_conflicts_total", "Claims of late objects on a file that"
                + " disagree with the signal's claim on it (event count, or run ranges): the dataset is unchanged.");
        duplicateMessages = counter(P + "duplicate_messages_total",
                "Re-sent producer messages (same id or same object) and re-sent identical manifests.");
        manifests = counter(P + "manifests_total", "Manifests registered.");
        signalsPlanned = counter(P + "signals_planned_total", "Datasets found complete and signalled.");
        signalsSent = counter(P + "signals_sent_total", "Signals the broker accepted (including re-sends).");
        signalSendFailures = counter(P + "signal_send_failures_total", "Signal send attempts that failed.");
        reportsDone = counter(P + "reports_done_total", "Consumer reports DONE for a known signal.");
        reportsFailed = counter(P + "reports_failed_total", "Consumer reports FAILED for a known signal.");
        reportsFailedPermanent = counter(P + "reports_failed_permanent_total", "Consumer reports FAILED"
                + " permanently for the current signal: not retried automatically, the dataset waits for an operator.");
        reportsFailedInternal = counter(P + "reports_failed_internal_total", "Of the permanent FAILED reports, those"
                + " of an internal error of the consumer (a bug): the objects are kept, resignal once it is fixed.");
        reportsUnknown = counter(P + "reports_unknown_total", "Consumer reports for unknown signal ids.");
        resignals = counter(P + "resignals_total", "Operator re-signal commands carried out.");
        quarantineFailures = counter(P + "quarantine_failures_total",
                "Rejected messages that could not be copied to the quarantine queue.");
        automaticResignals = counter(P + "automatic_resignals_total",
                "Signals sent again by the supervisor (lease expired, retry after FAILED).");
        leaseExtensions = counter(P + "lease_extensions_total", "Heartbeats whose progress extended the lease of the"
                + " signal their consumer holds (supervisor.signal.lease counts again from them).");
        leasesLostStuck = counter(P + "leases_lost_stuck_total", "Signal leases that expired while the consumer holding"
                + " them still sent heartbeats: alive, but without progress for supervisor.signal.lease.");
        invalidatedObjects = counter(P + "invalidated_objects_total",
                "Objects marked invalid (unreadable, inconsistent, or by an operator).");
        reportsSuperseded = counter(P + "reports_superseded_total",
                "Consumer reports for a signal replaced by a re-selection (ignored).");
        catalogueQueries = counter(P + "catalogue_queries_total", "Datasets looked up in the catalogue.");
        catalogueFailures = counter(P + "catalogue_failures_total", "Catalogue lookups that failed.");
        objectsDeleted = counter(P + "objects_deleted_total", "Objects of DONE datasets deleted.");
        orphansDeleted = counter(P + "orphans_deleted_total", "Objects no message named, deleted.");
        orphansKept = Gauge.builder().name(P + "cleanup_orphans_kept").help("Objects no journal entry names,"
                + " older than supervisor.cleanup.orphan.retention, that the last cleanup pass kept because no"
                + " reconciliation (supervisor rebuild-state) accounted for them (decision 0054).").register(registry);
        orphansKept.set(0); // exposed before the first pass
        cleanupFailures = counter(P + "cleanup_failures_total", "Object deletions or listings that failed.");
        verifications = Counter.builder().name(P + "verify_datasets_total").help("Scheduled verifications of a"
                + " dataset (supervisor.verify.interval), by verdict: ok, kudu_differs, file_differs, file_unreadable.")
                .labelNames("verdict").register(registry);
        for (org.eventindex.kudu.Verification.Verdict v : org.eventindex.kudu.Verification.Verdict.values()) {
            verifications.labelValues(DatasetAudit.label(v));
        }
        epochRangeFailures = counter(P + "epoch_range_failures_total",
                "Attempts to create a Kudu range that failed (the signal waits and is retried).");
        eventSubscribersDropped = counter(P + "event_subscribers_dropped_total",
                "/events subscribers dropped because they fell too far behind.");
        checkpoints = counter(P + "journal_checkpoints_total",
                "Journal checkpoints written (each starts a new journal file).");
        checkpointFailures = counter(P + "journal_checkpoint_failures_total",
                "Journal checkpoints that could not be written (the journal goes on in its file).");
        answers = counter(P + "answers_total", "Operator requests answered (a redelivered request included).");
        answerSendFailures = counter(P + "answer_send_failures_total",
                "Answers that could not be sent to their reply queue (the operator gone; the journal has them).");
        datasetsDeleted = counter(P + "datasets_deleted_total", "Datasets deleted by an operator (delete-dataset).");
        Counter rejected = Counter.builder().name(REJECTED)
                .help("Messages refused (journalled and acknowledged), by reason.").labelNames("reason")
                .register(registry);
        for (RejectReason r : RejectReason.values()) {
            // every reason from the start, so that a rate over a reason never seen is 0, not absent
            byReason.put(r, rejected.labelValues(label(r)));
        }
    }

    /** The {@code reason} label of {@link #REJECTED}. */
    static String label(RejectReason reason) {
        return reason.name().toLowerCase(Locale.ROOT);
    }

    void rejected(RejectReason reason) {
        byReason.get(reason).inc();
    }

    private Counter counter(String name, String help) {
        return Counter.builder().name(name).help(help).register(registry);
    }
}
