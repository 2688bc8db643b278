package org.eventindex.supervisor;

import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.ProducerInfo;
import org.eventindex.names.DatasetName;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.supervisor.journal.JournalEntry;
import org.eventindex.supervisor.journal.JournalEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The supervisor's decisions: for each inbound message, what to record, and whether a dataset just became complete.
 * Every handler journals (with fsync) before it returns, so returning normally means "safe to acknowledge". One lock
 * serialises the two queues, the signal-sent callbacks and the views. Signals are only handed to the
 * {@link SignalOutbox} after their SIGNAL_PLANNED entry is on disk.
 */
final class SupervisorEngine {
    private static final Logger LOG = LoggerFactory.getLogger(SupervisorEngine.class);
    private static final int MAX_BODY_IN_JOURNAL = 16 * 1024;

    private final Journal journal;
    private final SupervisorState state;
    private final MessageValidator validator;
    private final SignalOutbox outbox;
    private final Quarantine quarantine;
    private final SupervisorMetrics metrics;
    private final Clock clock;
    private final int epoch;
    private final String producerQueue;
    private final String controlQueue;

    /** @param state the state replayed from {@code journal}; from now on only this engine changes either */
    SupervisorEngine(Journal journal, SupervisorState state, MessageValidator validator, SignalOutbox outbox,
                     Quarantine quarantine, SupervisorMetrics metrics, Clock clock, int epoch, String producerQueue,
                     String controlQueue) {
        this.journal = Objects.requireNonNull(journal, "journal is null");
        this.state = Objects.requireNonNull(state, "state is null");
        this.validator = Objects.requireNonNull(validator, "validator is null");
        this.outbox = Objects.requireNonNull(outbox, "outbox is null");
        this.quarantine = Objects.requireNonNull(quarantine, "quarantine is null");
        this.metrics = Objects.requireNonNull(metrics, "metrics is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.epoch = epoch;
        this.producerQueue = Objects.requireNonNull(producerQueue, "producerQueue is null");
        this.controlQueue = Objects.requireNonNull(controlQueue, "controlQueue is null");
    }

    /**
     * After replay: plans datasets that are complete but have no signal yet (the process stopped between the two
     * entries) and hands every planned-but-unsent signal to the outbox again, unchanged.
     */
    synchronized void recover() throws IOException {
        for (DatasetRecord d : List.copyOf(state.all())) {
            if (!d.signalled()) {
                Optional<ConsumerSignal> s = planIfComplete(d.name, d.manifest, d.selection());
                if (s.isPresent()) {
                    record(List.of(new JournalEvent.SignalPlanned(s.get())));
                    metrics.signalsPlanned.inc();
                    LOG.info("dataset {} was complete at restart; signal {} planned", d.name, s.get().signalId());
                }
            }
        }
        for (DatasetRecord d : state.all()) {
            if (d.state == DatasetState.SIGNAL_PLANNED) {
                LOG.info("dataset {}: signal {} planned but not confirmed sent; sending it (again)", d.name,
                        d.signal.signalId());
                outbox.submit(d.signal);
            }
        }
    }

    /** A message of the producer queue. Returns once its effect (or its rejection) is on disk. */
    void onProducerMessage(byte[] body, String brokerMessageId) throws IOException {
        metrics.producerMessages.inc();
        Inbound in = validator.producer(body, brokerMessageId);
        if (in instanceof Inbound.Rejected r) {
            reject(producerQueue, r.rejection(), body);
        } else if (in instanceof Inbound.ObjectStored o) {
            objectStored(o.messageId(), o.info());
        } else {
            throw new IllegalStateException("unexpected producer message " + in.getClass().getSimpleName());
        }
    }

    /** A message of the control queue. Returns once its effect (or its rejection) is on disk. */
    void onControlMessage(byte[] body, String brokerMessageId) throws IOException {
        metrics.controlMessages.inc();
        Inbound in = validator.control(body, brokerMessageId);
        if (in instanceof Inbound.Rejected r) {
            reject(controlQueue, r.rejection(), body);
        } else if (in instanceof Inbound.Manifest m) {
            manifest(m.manifest(), body, brokerMessageId);
        } else if (in instanceof Inbound.Report r) {
            report(r.report());
        } else if (in instanceof Inbound.Resignal r) {
            resignal(r.dataset(), body, brokerMessageId);
        } else {
            throw new IllegalStateException("unexpected control message " + in.getClass().getSimpleName());
        }
    }

    /** The outbox's confirmation that the broker accepted a signal. */
    synchronized void onSignalSent(ConsumerSignal signal) {
        metrics.signalsSent.inc();
        try {
            record(List.of(new JournalEvent.SignalSent(signal.dataset(), signal.signalId())));
            LOG.info("dataset {}: signal {} (dspid {}, epoch {}, {} objects, {} events) sent", signal.dataset(),
                    signal.signalId(), signal.dspid(), signal.epoch(), signal.objects().size(),
                    signal.expectedEvents());
        } catch (IOException e) {
            LOG.error("dataset {}: signal {} was sent but this cannot be journalled ({}); it will be sent again"
                    + " after a restart, which consumers tolerate", signal.dataset(), signal.signalId(), e.getMessage());
        }
    }

    synchronized Optional<DatasetView> dataset(String name) {
        return state.find(name).map(DatasetViews::of);
    }

    synchronized List<DatasetView> datasets() {
        return state.all().stream().map(DatasetViews::of).toList();
    }

    /** Why the engine cannot record anything any more, if so. */
    Optional<String> failure() {
        return journal.failure();
    }

    private synchronized void objectStored(String messageId, ProducerInfo info) throws IOException {
        String name = info.inputDsName();
        if (state.seenMessage(messageId)) {
            metrics.duplicateMessages.inc();
            LOG.debug("dataset {}: producer message {} was already recorded; acknowledging the re-send", name,
                    messageId);
            return;
        }
        Optional<DatasetRecord> existing = state.find(name);
        if (existing.isPresent() && existing.get().urls.contains(info.url())) {
            metrics.duplicateMessages.inc();
            LOG.warn("dataset {}: object {} was already reported under another message id; message {} ignored",
                    name, info.url(), messageId);
            return;
        }
        List<JournalEvent> events = new ArrayList<>(2);
        events.add(new JournalEvent.ObjectReported(messageId, info));
        boolean late = existing.isPresent() && existing.get().signalled();
        Optional<ConsumerSignal> planned = Optional.empty();
        if (!late) {
            List<Candidate> candidates = new ArrayList<>();
            existing.ifPresent(d -> candidates.addAll(d.candidates));
            candidates.add(new Candidate(info.url(), info.size(), journal.lastSeq() + 1, info.guids()));
            List<DatasetManifest.ManifestFile> manifest = existing.map(d -> d.manifest).orElse(null);
            planned = planIfComplete(name, manifest, DatasetSelection.select(manifest, candidates));
            planned.ifPresent(s -> events.add(new JournalEvent.SignalPlanned(s)));
        }
        record(events);
        metrics.objects.inc();
        if (late) {
            metrics.lateObjects.inc();
            LOG.info("dataset {} was already signalled ({}); late object {} recorded and not read", name,
                    existing.get().state, info.url());
        }
        planned.ifPresent(this::signalPlanned);
    }

    private synchronized void manifest(DatasetManifest manifest, byte[] body, String brokerMessageId)
            throws IOException {
        String name = manifest.dataset();
        Optional<DatasetRecord> existing = state.find(name);
        if (existing.isPresent() && manifest.files().equals(existing.get().manifest)) {
            metrics.duplicateMessages.inc();
            LOG.debug("dataset {}: identical manifest registered again; nothing to do", name);
            return;
        }
        if (existing.isPresent() && existing.get().signalled()) {
            DatasetRecord d = existing.get();
            reject(controlQueue, new Rejection(RejectReason.MANIFEST_CONFLICT, "dataset " + name
                    + " was already signalled (signal " + d.signal.signalId() + ", dspid " + d.signal.dspid()
                    + ") from a different manifest; re-selecting a signalled dataset is not supported yet",
                    brokerMessageId, name), body);
            return;
        }
        boolean replacing = existing.isPresent() && existing.get().manifest != null;
        List<Candidate> candidates = existing.map(d -> List.copyOf(d.candidates)).orElse(List.of());
        Optional<ConsumerSignal> planned = planIfComplete(name, manifest.files(),
                DatasetSelection.select(manifest.files(), candidates));
        List<JournalEvent> events = new ArrayList<>(2);
        events.add(new JournalEvent.ManifestRegistered(manifest));
        planned.ifPresent(s -> events.add(new JournalEvent.SignalPlanned(s)));
        record(events);
        metrics.manifests.inc();
        LOG.info("dataset {}: manifest of {} files registered{}", name, manifest.files().size(),
                replacing ? " (replacing the earlier one)" : "");
        planned.ifPresent(this::signalPlanned);
    }

    private synchronized void report(ConsumerReport report) throws IOException {
        Optional<DatasetRecord> d = state.findBySignal(report.signalId());
        record(List.of(new JournalEvent.ReportReceived(report)));
        if (d.isEmpty()) {
            metrics.reportsUnknown.inc();
            LOG.warn("report {} from consumer {} names unknown signal {} (dataset {}); recorded and ignored",
                    report.status(), report.consumer(), report.signalId(), report.dataset());
        } else if (ConsumerReport.DONE.equals(report.status())) {
            metrics.reportsDone.inc();
            DatasetView v = DatasetViews.of(d.get());
            LOG.info("dataset {} DONE by consumer {}: {} events written, {} loaded, traversal time {}", d.get().name,
                    report.consumer(), report.eventsWritten(), report.eventsLoaded(), v.times().traversalTime());
        } else {
            metrics.reportsFailed.inc();
            LOG.warn("dataset {} FAILED at consumer {} (signal {}): {}; state {}", d.get().name, report.consumer(),
                    report.signalId(), report.reason(), d.get().state);
        }
    }

    private synchronized void resignal(String name, byte[] body, String brokerMessageId) throws IOException {
        Optional<DatasetRecord> d = state.find(name);
        if (d.isEmpty()) {
            reject(controlQueue, new Rejection(RejectReason.UNKNOWN_DATASET, "resignal: dataset " + name
                    + " is not known to this supervisor", brokerMessageId, name), body);
            return;
        }
        DatasetState s = d.get().state;
        // DONE is allowed: an operator re-runs a dataset (e.g. its HDFS file was lost); consumers make it a no-op
        // when nothing is missing, since the signal is unchanged.
        if (s != DatasetState.SIGNALLED && s != DatasetState.FAILED_CONSUMER && s != DatasetState.DONE) {
            reject(controlQueue, new Rejection(RejectReason.WRONG_STATE, "resignal: dataset " + name + " is " + s
                    + "; only SIGNALLED, FAILED_CONSUMER or DONE datasets can be re-signalled", brokerMessageId,
                    name), body);
            return;
        }
        ConsumerSignal signal = d.get().signal;
        record(List.of(new JournalEvent.ResignalRequested(name, signal.signalId())));
        metrics.resignals.inc();
        LOG.info("dataset {}: operator asked for signal {} again (was {})", name, signal.signalId(), s);
        outbox.submit(signal);
    }

    private void reject(String queue, Rejection r, byte[] body) throws IOException {
        synchronized (this) {
            record(List.of(new JournalEvent.MessageRejected(queue, r.messageId(), r.reason().name(), r.detail(),
                    r.dataset(), bodyForJournal(body))));
        }
        metrics.rejected(r.reason());
        LOG.warn("rejected message {} from {}: {}: {}", r.messageId(), queue, r.reason(), r.detail());
        try {
            quarantine.copy(queue, r, body);
        } catch (IOException | RuntimeException e) {
            metrics.quarantineFailures.inc();
            LOG.warn("rejected message {} from {} could not be copied to quarantine: {} (it stays in the journal)",
                    r.messageId(), queue, e.getMessage());
        }
    }

    /** The signal to send if the selection is complete; assigns the next dspid and the configured epoch. */
    private Optional<ConsumerSignal> planIfComplete(String name, List<DatasetManifest.ManifestFile> manifest,
                                                    Selection selection) {
        if (manifest == null || !selection.complete()) {
            return Optional.empty();
        }
        String container = DatasetName.parse(name).container();
        return Optional.of(SignalPlanner.plan(name, container, selection, state.lastDspid() + 1, epoch,
                clock.millis()));
    }

    private void signalPlanned(ConsumerSignal s) {
        metrics.signalsPlanned.inc();
        LOG.info("dataset {} complete: signal {} planned (dspid {}, epoch {}, {} objects, {} events)", s.dataset(),
                s.signalId(), s.dspid(), s.epoch(), s.objects().size(), s.expectedEvents());
        outbox.submit(s);
    }

    private void record(List<JournalEvent> events) throws IOException {
        for (JournalEntry e : journal.append(events, clock.millis())) {
            state.apply(e);
        }
    }

    private static String bodyForJournal(byte[] body) {
        if (body == null) {
            return null;
        }
        if (body.length <= MAX_BODY_IN_JOURNAL) {
            return new String(body, StandardCharsets.UTF_8);
        }
        return new String(body, 0, MAX_BODY_IN_JOURNAL, StandardCharsets.UTF_8) + "...(truncated, " + body.length
                + " bytes)";
    }
}
