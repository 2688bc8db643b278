package org.eventindex.supervisor;

import org.eventindex.ops.Metrics;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/** The supervisor's counters (process lifetime; a restart starts them at 0, the journal keeps the history). */
final class SupervisorMetrics {
    private static final String P = "eventindex_supervisor_";

    final Metrics.Counter producerMessages;
    final Metrics.Counter controlMessages;
    final Metrics.Counter rejected;
    final Metrics.Counter objects;
    final Metrics.Counter lateObjects;
    final Metrics.Counter duplicateMessages;
    final Metrics.Counter manifests;
    final Metrics.Counter signalsPlanned;
    final Metrics.Counter signalsSent;
    final Metrics.Counter signalSendFailures;
    final Metrics.Counter reportsDone;
    final Metrics.Counter reportsFailed;
    final Metrics.Counter reportsFailedPermanent;
    final Metrics.Counter reportsUnknown;
    final Metrics.Counter resignals;
    final Metrics.Counter quarantineFailures;
    final Metrics.Counter automaticResignals;
    final Metrics.Counter invalidatedObjects;
    final Metrics.Counter reportsSuperseded;
    final Metrics.Counter catalogueQueries;
    final Metrics.Counter catalogueFailures;
    final Metrics.Counter objectsDeleted;
    final Metrics.Counter orphansDeleted;
    final Metrics.Counter cleanupFailures;
    final Metrics.Counter epochRangeFailures;
    final Metrics.Counter eventSubscribersDropped;
    final Metrics.Counter checkpoints;
    final Metrics.Counter checkpointFailures;
    private final Map<RejectReason, Metrics.Counter> byReason = new EnumMap<>(RejectReason.class);
    private final Metrics metrics;

    SupervisorMetrics(Metrics metrics) {
        this.metrics = Objects.requireNonNull(metrics, "metrics is null");
        producerMessages = metrics.counter(P + "producer_messages_total", "Messages received on the producer queue.");
        controlMessages = metrics.counter(P + "control_messages_total", "Messages received on the control queue.");
        rejected = metrics.counter(P + "rejected_total", "Messages refused (journalled and acknowledged).");
        objects = metrics.counter(P + "objects_total", "Objects recorded (first message of each id).");
        lateObjects = metrics.counter(P + "late_objects_total",
                "Objects reported after their dataset was signalled (recorded, never read).");
        duplicateMessages = metrics.counter(P + "duplicate_messages_total",
                "Re-sent producer messages (same id or same object) and re-sent identical manifests.");
        manifests = metrics.counter(P + "manifests_total", "Manifests registered.");
        signalsPlanned = metrics.counter(P + "signals_planned_total", "Datasets found complete and signalled.");
        signalsSent = metrics.counter(P + "signals_sent_total", "Signals the broker accepted (including re-sends).");
        signalSendFailures = metrics.counter(P + "signal_send_failures_total", "Signal send attempts that failed.");
        reportsDone = metrics.counter(P + "reports_done_total", "Consumer reports DONE for a known signal.");
        reportsFailed = metrics.counter(P + "reports_failed_total", "Consumer reports FAILED for a known signal.");
        reportsFailedPermanent = metrics.counter(P + "reports_failed_permanent_total", "Consumer reports FAILED"
                + " permanently for the current signal: not retried automatically, the dataset waits for an operator.");
        reportsUnknown = metrics.counter(P + "reports_unknown_total", "Consumer reports for unknown signal ids.");
        resignals = metrics.counter(P + "resignals_total", "Operator re-signal commands carried out.");
        quarantineFailures = metrics.counter(P + "quarantine_failures_total",
                "Rejected messages that could not be copied to the quarantine queue.");
        automaticResignals = metrics.counter(P + "automatic_resignals_total",
                "Signals sent again by the supervisor (lease expired, retry after FAILED).");
        invalidatedObjects = metrics.counter(P + "invalidated_objects_total",
                "Objects marked invalid (unreadable, inconsistent, or by an operator).");
        reportsSuperseded = metrics.counter(P + "reports_superseded_total",
                "Consumer reports for a signal replaced by a re-selection (ignored).");
        catalogueQueries = metrics.counter(P + "catalogue_queries_total", "Datasets looked up in the catalogue.");
        catalogueFailures = metrics.counter(P + "catalogue_failures_total", "Catalogue lookups that failed.");
        objectsDeleted = metrics.counter(P + "objects_deleted_total", "Objects of DONE datasets deleted.");
        orphansDeleted = metrics.counter(P + "orphans_deleted_total", "Objects no message named, deleted.");
        cleanupFailures = metrics.counter(P + "cleanup_failures_total", "Object deletions or listings that failed.");
        epochRangeFailures = metrics.counter(P + "epoch_range_failures_total",
                "Attempts to create a Kudu range that failed (the signal waits and is retried).");
        eventSubscribersDropped = metrics.counter(P + "event_subscribers_dropped_total",
                "/events subscribers dropped because they fell too far behind.");
        checkpoints = metrics.counter(P + "journal_checkpoints_total",
                "Journal checkpoints written (each starts a new journal file).");
        checkpointFailures = metrics.counter(P + "journal_checkpoint_failures_total",
                "Journal checkpoints that could not be written (the journal goes on in its file).");
        for (RejectReason r : RejectReason.values()) {
            byReason.put(r, metrics.counter(r.metricName(), "Messages refused because: " + r.name() + "."));
        }
    }

    void rejected(RejectReason reason) {
        rejected.inc();
        byReason.get(reason).inc();
    }

    Metrics registry() {
        return metrics;
    }
}
