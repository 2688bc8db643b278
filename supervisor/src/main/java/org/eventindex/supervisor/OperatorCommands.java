package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.names.DatasetName;
import org.eventindex.supervisor.journal.JournalEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The operators' commands on one dataset, from the control queue: {@code resignal} (send the current signal again)
 * and {@code invalidate} (never select an object again; select the dataset again without it). A consumer that finds
 * an object unreadable sends {@code invalidate} too. Not thread-safe: called under the engine's lock.
 */
final class OperatorCommands {
    private static final Logger LOG = LoggerFactory.getLogger(OperatorCommands.class);

    private final SupervisorState state;
    private final Recorder recorder;
    private final SignalPlanner planner;
    private final SignalOutbox outbox;
    private final SupervisorMetrics metrics;

    OperatorCommands(SupervisorState state, Recorder recorder, SignalPlanner planner, SignalOutbox outbox,
                     SupervisorMetrics metrics) {
        this.state = Objects.requireNonNull(state, "state is null");
        this.recorder = Objects.requireNonNull(recorder, "recorder is null");
        this.planner = Objects.requireNonNull(planner, "planner is null");
        this.outbox = Objects.requireNonNull(outbox, "outbox is null");
        this.metrics = Objects.requireNonNull(metrics, "metrics is null");
    }

    /**
     * Marks an object invalid; a signal that names it is superseded and the dataset selected again. Returns why the
     * command is refused, if it is.
     */
    Optional<Rejection> invalidate(DatasetName name, InvalidateCommand c, String brokerMessageId)
            throws IOException {
        SupervisorState.Lookup found = state.lookup(c.dataset());
        String none = "invalidate: nothing can be selected again";
        Optional<Rejection> finished = found.refusal(none, none, brokerMessageId);
        if (finished.isPresent()) {
            return finished;
        }
        Optional<TrackedDataset> d = found.live();
        if (d.isEmpty()) {
            return refusal(RejectReason.UNKNOWN_DATASET, "invalidate: dataset " + c.dataset() + " is not known to"
                    + " this supervisor", c.dataset(), brokerMessageId);
        }
        if (!d.get().urls.contains(c.url())) {
            return refusal(RejectReason.UNKNOWN_OBJECT, "invalidate: dataset " + c.dataset() + " has no object "
                    + c.url(), c.dataset(), brokerMessageId);
        }
        if (!d.get().deletedObjects.isEmpty()) {
            return refusal(RejectReason.WRONG_STATE, "invalidate: the objects of dataset " + c.dataset() + " were"
                    + " already deleted by the cleanup; nothing can be selected again", c.dataset(), brokerMessageId);
        }
        if (d.get().invalidObjects.containsKey(c.url())) {
            metrics.duplicateMessages.inc();
            return Optional.empty();
        }
        String before = d.get().signalled() ? d.get().signal.signalId() : null;
        recorder.record(List.of(new JournalEvent.ObjectInvalidated(c.dataset(), c.url(), c.reason(), c.source())));
        metrics.invalidatedObjects.inc();
        LOG.warn("dataset {}: object {} invalidated by {}: {}{}", c.dataset(), c.url(), c.source(), c.reason(),
                before != null && !d.get().signalled() ? "; signal " + before + " superseded, selecting again" : "");
        planner.planAndRecord(name);
        if (!d.get().signalled()) {
            LOG.warn("dataset {}: no other valid object for {}; waiting for a new producer", c.dataset(),
                    d.get().selection().missingGuids());
        }
        return Optional.empty();
    }

    /**
     * Sends the dataset's current signal again (SIGNALLED, FAILED_CONSUMER or DONE), resetting its failures. Returns
     * why the command is refused, if it is.
     */
    Optional<Rejection> resignal(DatasetName dataset, String brokerMessageId) throws IOException {
        String name = dataset.toString();
        SupervisorState.Lookup found = state.lookup(name);
        Optional<Rejection> finished = found.refusal("resignal: reload it from its HDFS file with the kudu-loader"
                + " instead", "resignal: there is nothing to load", brokerMessageId);
        if (finished.isPresent()) {
            return finished;
        }
        Optional<TrackedDataset> d = found.live();
        if (d.isEmpty()) {
            return refusal(RejectReason.UNKNOWN_DATASET, "resignal: dataset " + name + " is not known to this"
                    + " supervisor", name, brokerMessageId);
        }
        CollectionState s = d.get().state;
        // DONE is allowed: an operator re-runs a dataset (e.g. its HDFS file was lost); consumers make it a no-op
        // when nothing is missing, since the signal is unchanged.
        if (s != CollectionState.SIGNALLED && s != CollectionState.FAILED_CONSUMER && s != CollectionState.DONE) {
            return refusal(RejectReason.WRONG_STATE, "resignal: dataset " + name + " is " + s + "; only"
                    + " SIGNALLED, FAILED_CONSUMER or DONE datasets can be re-signalled", name, brokerMessageId);
        }
        if (!d.get().deletedObjects.isEmpty()) {
            return refusal(RejectReason.WRONG_STATE, "resignal: the objects of dataset " + name + " were deleted by"
                    + " the cleanup; reload it from its HDFS file with the kudu-loader instead", name,
                    brokerMessageId);
        }
        ConsumerSignal signal = d.get().signal;
        recorder.record(List.of(new JournalEvent.ResignalRequested(name, signal.signalId(), null)));
        metrics.resignals.inc();
        LOG.info("dataset {}: operator asked for signal {} again (was {})", name, signal.signalId(), s);
        outbox.submit(signal);
        return Optional.empty();
    }

    /**
     * Deletes a dataset from the supervisor: a tombstone replaces it and the cleanup deletes the objects it still has;
     * with {@link DeleteCommand#where()} the tombstone lists the command's own steps (HDFS file, Kudu rows) as left
     * until a request naming them {@link DeleteCommand#finished()} arrives (decision 0058). Refused while a consumer
     * may be loading it (SIGNAL_PLANNED, SIGNALLED); a dataset already deleted is accepted again (only steps newly
     * finished are recorded), so that an interrupted {@code delete-dataset} can be run again. Returns why the command
     * is refused, if it is.
     */
    Optional<Rejection> delete(DatasetName dataset, DeleteCommand c, String brokerMessageId) throws IOException {
        String name = dataset.toString();
        SupervisorState.Lookup found = state.lookup(name);
        if (found instanceof SupervisorState.Lookup.Deleted) {
            DeletedDataset t = found.deleted().orElseThrow();
            List<String> done = c.finished().stream().filter(t.stepsLeft()::contains).toList();
            if (done.isEmpty()) {
                metrics.duplicateMessages.inc();
            } else {
                recorder.record(List.of(JournalEvent.DatasetDeleted.stepsDone(name, done)));
                LOG.info("dataset {}: delete-dataset finished {}; left: {}", name, done,
                        state.lookup(name).deleted().orElseThrow().left());
            }
            return Optional.empty();
        }
        if (!c.finished().isEmpty()) {
            return refusal(RejectReason.UNKNOWN_DATASET, "delete: dataset " + name + " was not deleted by this"
                    + " supervisor; nothing to finish", name, brokerMessageId);
        }
        Optional<TrackedDataset> d = found.live();
        if (found instanceof SupervisorState.Lookup.Unknown) {
            return refusal(RejectReason.UNKNOWN_DATASET, "delete: dataset " + name + " is not known to this"
                    + " supervisor; delete its HDFS file and Kudu rows with --not-in-supervisor", name,
                    brokerMessageId);
        }
        if (d.isPresent() && (d.get().state == CollectionState.SIGNAL_PLANNED
                || d.get().state == CollectionState.SIGNALLED)) {
            return refusal(RejectReason.WRONG_STATE, "delete: dataset " + name + " is " + d.get().state + ": a"
                    + " consumer may be loading signal " + d.get().signal.signalId() + " now; wait until it is DONE"
                    + " or FAILED_CONSUMER (GET /datasets/" + name + ") and run the delete again", name,
                    brokerMessageId);
        }
        List<String> steps = c.where() == null ? List.of()
                : Arrays.stream(DeleteCommand.Step.values()).map(Enum::name).toList();
        recorder.record(List.of(new JournalEvent.DatasetDeleted(name, c.reason(), steps,
                c.where() == null ? null : c.where().command(name), List.of())));
        metrics.datasetsDeleted.inc();
        DeletedDataset t = state.lookup(name).deleted().orElseThrow();
        LOG.warn("dataset {} deleted by an operator{}; {} objects left for the cleanup", name,
                c.reason() == null ? "" : " (" + c.reason() + ")", t.objectsLeft().size());
        return Optional.empty();
    }

    private static Optional<Rejection> refusal(RejectReason reason, String detail, String dataset,
                                               String messageId) {
        return Optional.of(new Rejection(reason, detail, messageId, dataset));
    }
}
