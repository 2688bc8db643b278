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
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

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
    private final EpochPolicy epochs;
    private final HandOffPolicy handOff;
    private final int maxMessageBytes;
    private final String producerQueue;
    private final String controlQueue;
    private volatile StateChange.Listener listener = StateChange.Listener.NONE;

    /** @param state the state replayed from {@code journal}; from now on only this engine changes either */
    SupervisorEngine(Journal journal, SupervisorState state, MessageValidator validator, SignalOutbox outbox,
                     Quarantine quarantine, SupervisorMetrics metrics, Clock clock, EpochPolicy epochs,
                     HandOffPolicy handOff, int maxMessageBytes, String producerQueue, String controlQueue) {
        this.journal = Objects.requireNonNull(journal, "journal is null");
        this.state = Objects.requireNonNull(state, "state is null");
        this.validator = Objects.requireNonNull(validator, "validator is null");
        this.outbox = Objects.requireNonNull(outbox, "outbox is null");
        this.quarantine = Objects.requireNonNull(quarantine, "quarantine is null");
        this.metrics = Objects.requireNonNull(metrics, "metrics is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.epochs = Objects.requireNonNull(epochs, "epochs is null");
        this.handOff = Objects.requireNonNull(handOff, "handOff is null");
        this.maxMessageBytes = maxMessageBytes;
        this.producerQueue = Objects.requireNonNull(producerQueue, "producerQueue is null");
        this.controlQueue = Objects.requireNonNull(controlQueue, "controlQueue is null");
    }

    /** Where every recorded change is pushed (the {@code /events} stream). */
    void listener(StateChange.Listener l) {
        this.listener = Objects.requireNonNull(l, "listener is null");
    }

    /**
     * After replay: plans datasets that are complete but have no signal yet (the process stopped between the two
     * entries) and hands every planned-but-unsent signal to the outbox again, unchanged.
     */
    synchronized void recover() throws IOException {
        for (DatasetRecord d : List.copyOf(state.all())) {
            if (!d.signalled()) {
                Optional<ConsumerSignal> s = planIfComplete(d, d.name, d.manifest, d.selection());
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

    /**
     * Leases and retries: sends again, with the same signalId, every signal whose lease expired and every failed one
     * whose backoff elapsed. Each dataset is decided on its own; nothing waits for another dataset.
     */
    synchronized void tick() throws IOException {
        long now = clock.millis();
        for (DatasetRecord d : List.copyOf(state.all())) {
            Optional<String> reason = handOff.resignalReason(d, now);
            if (reason.isPresent()) {
                ConsumerSignal signal = d.signal;
                record(List.of(new JournalEvent.ResignalRequested(d.name, signal.signalId(), reason.get())));
                metrics.automaticResignals.inc();
                LOG.warn("dataset {}: signal {} sent again: {}", d.name, signal.signalId(), reason.get());
                outbox.submit(signal);
            }
        }
    }

    /**
     * The catalogue's files of a dataset (from the catalogue poller): registered like a manifest when they differ from
     * the current one. Returns whether anything changed.
     */
    synchronized boolean onCatalogue(String dataset, List<DatasetManifest.ManifestFile> files) throws IOException {
        Optional<DatasetRecord> d = state.find(dataset);
        if (d.isPresent() && StateChanges.sameFiles(files, d.get().manifest)) {
            return false;
        }
        manifest(new DatasetManifest(DatasetManifest.TYPE, dataset, List.copyOf(files)), null, "catalogue");
        return true;
    }

    /** Datasets the catalogue should be asked about: known, not DONE, objects not deleted. */
    synchronized List<String> datasetsAwaitingCatalogue() {
        return state.all().stream().filter(d -> d.state != DatasetState.DONE && d.deletedObjects.isEmpty())
                .map(d -> d.name).toList();
    }

    /** The cleanup deleted objects of a DONE dataset. */
    synchronized void onObjectsDeleted(String dataset, List<String> urls) throws IOException {
        record(List.of(new JournalEvent.ObjectsDeleted(dataset, urls)));
    }

    /** A read-only look at the state under the engine's lock (for the cleanup and the information service). */
    synchronized <T> T read(Function<SupervisorState, T> reader) {
        return reader.apply(state);
    }

    /** A message of the producer queue. Returns once its effect (or its rejection) is on disk. */
    void onProducerMessage(byte[] body, String brokerMessageId) throws IOException {
        metrics.producerMessages.inc();
        Inbound in = oversize(body, brokerMessageId).orElseGet(() -> validator.producer(body, brokerMessageId));
        if (in instanceof Inbound.Rejected r) {
            reject(producerQueue, r.rejection(), body);
        } else if (in instanceof Inbound.ObjectStored o) {
            objectStored(o.messageId(), o.info(), body);
        } else {
            throw new IllegalStateException("unexpected producer message " + in.getClass().getSimpleName());
        }
    }

    /** A message of the control queue. Returns once its effect (or its rejection) is on disk. */
    void onControlMessage(byte[] body, String brokerMessageId) throws IOException {
        metrics.controlMessages.inc();
        Inbound in = oversize(body, brokerMessageId).orElseGet(() -> validator.control(body, brokerMessageId));
        if (in instanceof Inbound.Rejected r) {
            reject(controlQueue, r.rejection(), body);
        } else if (in instanceof Inbound.Manifest m) {
            manifest(m.manifest(), body, brokerMessageId);
        } else if (in instanceof Inbound.Report r) {
            report(r.report());
        } else if (in instanceof Inbound.Resignal r) {
            resignal(r.dataset(), body, brokerMessageId);
        } else if (in instanceof Inbound.Invalidate i) {
            invalidate(i.command(), body, brokerMessageId);
        } else {
            throw new IllegalStateException("unexpected control message " + in.getClass().getSimpleName());
        }
    }

    /**
     * A message whose STOMP frame was over {@code supervisor.stomp.frame.max.bytes} or
     * {@code supervisor.stomp.frame.max.header.bytes}: rejected as OVERSIZE (journaled, counted, quarantined with the
     * first bytes of its body), so that it is acknowledged instead of being redelivered forever.
     */
    void onOversizeFrame(boolean producer, byte[] preview, String brokerMessageId, String oversize)
            throws IOException {
        (producer ? metrics.producerMessages : metrics.controlMessages).inc();
        reject(producer ? producerQueue : controlQueue, new Rejection(RejectReason.OVERSIZE, "message "
                + brokerMessageId + " is over the STOMP frame limits (" + SupervisorConfig.STOMP_FRAME_MAX_BYTES + ", "
                + SupervisorConfig.STOMP_FRAME_MAX_HEADER_BYTES + "): " + oversize, brokerMessageId, null), preview);
    }

    /** Whether {@code signal} is still its dataset's signal (not superseded by a re-selection). */
    synchronized boolean isCurrent(ConsumerSignal signal) {
        return state.find(signal.dataset()).map(d -> d.signalled() && d.signal.signalId().equals(signal.signalId()))
                .orElse(false);
    }

    /** The outbox's confirmation that the broker accepted a signal (a superseded one is not recorded). */
    synchronized void onSignalSent(ConsumerSignal signal) {
        if (!isCurrent(signal)) {
            return;
        }
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

    /** The dataset's view, live or retired. */
    synchronized Optional<DatasetView> dataset(String name) {
        return state.find(name).map(DatasetViews::of).or(() -> state.findRetired(name).map(RetiredDataset::view));
    }

    /** Every dataset's view, live and retired, sorted by name. */
    synchronized List<DatasetView> datasets() {
        return Stream.concat(state.all().stream().map(DatasetViews::of),
                state.retired().stream().map(RetiredDataset::view))
                .sorted(Comparator.comparing(DatasetView::name)).toList();
    }

    /** One line per dataset, live and retired, sorted by name ({@code /datasets}). */
    synchronized List<DatasetSummary> summaries() {
        return Stream.concat(state.all().stream().map(d -> DatasetSummary.of(DatasetViews.of(d))),
                state.retired().stream().map(DatasetSummary::of))
                .sorted(Comparator.comparing(DatasetSummary::name)).toList();
    }

    /**
     * Writes a journal checkpoint of the state when at least {@code minEntries} (at least 1) entries were appended
     * since the last one; nothing is recorded meanwhile.
     */
    synchronized Optional<Journal.CheckpointResult> checkpoint(long minEntries) throws IOException {
        if (journal.entriesSinceCheckpoint() < Math.max(1, minEntries)) {
            return Optional.empty();
        }
        return journal.checkpoint(state.checkpoint()::writeTo, clock.millis());
    }

    /** Why the engine cannot record anything any more, if so. */
    Optional<String> failure() {
        return journal.failure();
    }

    private synchronized void objectStored(String messageId, ProducerInfo info, byte[] body) throws IOException {
        String name = info.inputDsName();
        if (state.seenMessage(messageId)) {
            metrics.duplicateMessages.inc();
            LOG.debug("dataset {}: producer message {} was already recorded; acknowledging the re-send", name,
                    messageId);
            return;
        }
        if (state.findRetired(name).isPresent()) {
            reject(producerQueue, retired(name, "object " + info.url() + " is never read; it is deleted as an orphan"
                    + " after " + SupervisorConfig.CLEANUP_ORPHAN_RETENTION, messageId), body);
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
            existing.ifPresent(d -> candidates.addAll(d.validCandidates()));
            candidates.add(new Candidate(info.url(), info.size(), journal.lastSeq() + 1, info.guids()));
            List<DatasetManifest.ManifestFile> manifest = existing.map(d -> d.manifest).orElse(null);
            planned = planIfComplete(existing.orElse(null), name, manifest,
                    DatasetSelection.select(manifest, candidates));
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

    /**
     * A new file list for a dataset, from a manifest message ({@code body} non-null) or the catalogue. A signalled
     * dataset whose file list changes is selected again: its signal is superseded and, once complete, a new signal
     * (new signalId, same dspid and epoch) goes out; the consumer's load of the new signal replaces the old rows.
     */
    private synchronized void manifest(DatasetManifest manifest, byte[] body, String brokerMessageId)
            throws IOException {
        String name = manifest.dataset();
        if (state.findRetired(name).isPresent()) {
            Rejection r = retired(name, "its file list can no longer change; produce it again under a new task",
                    brokerMessageId);
            if (body != null) {
                reject(controlQueue, r, body);
            } else {
                LOG.warn("catalogue: {}", r.detail());
            }
            return;
        }
        Optional<DatasetRecord> existing = state.find(name);
        if (existing.isPresent() && StateChanges.sameFiles(manifest.files(), existing.get().manifest)) {
            metrics.duplicateMessages.inc();
            LOG.debug("dataset {}: identical manifest registered again; nothing to do", name);
            return;
        }
        if (existing.isPresent() && !existing.get().deletedObjects.isEmpty()) {
            Rejection r = new Rejection(RejectReason.MANIFEST_CONFLICT, "dataset " + name + " changed its file list"
                    + " after the cleanup deleted its objects; produce it again under a new task, or re-register"
                    + " the original manifest", brokerMessageId, name);
            if (body != null) {
                reject(controlQueue, r, body);
            } else {
                LOG.warn("catalogue: {}", r.detail());
            }
            return;
        }
        boolean wasSignalled = existing.isPresent() && existing.get().signalled();
        List<JournalEvent> events = new ArrayList<>(2);
        events.add(new JournalEvent.ManifestRegistered(manifest));
        record(events);
        metrics.manifests.inc();
        DatasetRecord d = state.find(name).orElseThrow();
        LOG.info("dataset {}: {} of {} files registered{}", name, body == null ? "catalogue list" : "manifest",
                manifest.files().size(), wasSignalled ? "; its signal is superseded, the dataset is selected again"
                        : "");
        planAndRecord(d);
    }

    private synchronized void invalidate(InvalidateCommand c, byte[] body, String brokerMessageId)
            throws IOException {
        if (state.findRetired(c.dataset()).isPresent()) {
            reject(controlQueue, retired(c.dataset(), "invalidate: nothing can be selected again", brokerMessageId),
                    body);
            return;
        }
        Optional<DatasetRecord> d = state.find(c.dataset());
        if (d.isEmpty()) {
            reject(controlQueue, new Rejection(RejectReason.UNKNOWN_DATASET, "invalidate: dataset " + c.dataset()
                    + " is not known to this supervisor", brokerMessageId, c.dataset()), body);
            return;
        }
        if (!d.get().urls.contains(c.url())) {
            reject(controlQueue, new Rejection(RejectReason.UNKNOWN_OBJECT, "invalidate: dataset " + c.dataset()
                    + " has no object " + c.url(), brokerMessageId, c.dataset()), body);
            return;
        }
        if (!d.get().deletedObjects.isEmpty()) {
            reject(controlQueue, new Rejection(RejectReason.WRONG_STATE, "invalidate: the objects of dataset "
                    + c.dataset() + " were already deleted by the cleanup; nothing can be selected again",
                    brokerMessageId, c.dataset()), body);
            return;
        }
        if (d.get().invalidObjects.containsKey(c.url())) {
            metrics.duplicateMessages.inc();
            return;
        }
        String before = d.get().signalled() ? d.get().signal.signalId() : null;
        record(List.of(new JournalEvent.ObjectInvalidated(c.dataset(), c.url(), c.reason(), c.source())));
        metrics.invalidatedObjects.inc();
        LOG.warn("dataset {}: object {} invalidated by {}: {}{}", c.dataset(), c.url(), c.source(), c.reason(),
                before != null && !d.get().signalled() ? "; signal " + before + " superseded, selecting again" : "");
        planAndRecord(d.get());
        if (!d.get().signalled()) {
            LOG.warn("dataset {}: no other valid object for {}; waiting for a new producer", c.dataset(),
                    d.get().selection().missingGuids());
        }
    }

    /** Plans (journals) and submits the dataset's signal if it is unsignalled and complete. */
    private void planAndRecord(DatasetRecord d) throws IOException {
        if (d.signalled()) {
            return;
        }
        Optional<ConsumerSignal> planned = planIfComplete(d, d.name, d.manifest, d.selection());
        if (planned.isPresent()) {
            record(List.of(new JournalEvent.SignalPlanned(planned.get())));
            signalPlanned(planned.get());
        }
    }

    private synchronized void report(ConsumerReport report) throws IOException {
        Optional<DatasetRecord> d = state.findBySignal(report.signalId());
        record(List.of(new JournalEvent.ReportReceived(report)));
        if (d.isEmpty()) {
            metrics.reportsUnknown.inc();
            LOG.warn("report {} from consumer {} names unknown signal {} (dataset {}); recorded and ignored",
                    report.status(), report.consumer(), report.signalId(), report.dataset());
        } else if (!d.get().signalled() || !d.get().signal.signalId().equals(report.signalId())) {
            metrics.reportsSuperseded.inc();
            LOG.info("dataset {}: report {} for superseded signal {} recorded and ignored", d.get().name,
                    report.status(), report.signalId());
        } else if (ConsumerReport.DONE.equals(report.status())) {
            metrics.reportsDone.inc();
            DatasetView v = DatasetViews.of(d.get());
            LOG.info("dataset {} DONE by consumer {}: {} events written, {} loaded, traversal time {}", d.get().name,
                    report.consumer(), report.eventsWritten(), report.eventsLoaded(), v.times().traversalTime());
        } else {
            metrics.reportsFailed.inc();
            DatasetRecord r = d.get();
            LOG.warn("dataset {} FAILED at consumer {} (signal {}, failure {}): {}; {}", r.name, report.consumer(),
                    report.signalId(), r.failures, report.reason(), handOff.retriesExhausted(r)
                            ? "automatic retries exhausted, waiting for an operator"
                            : "retrying in " + handOff.backoff(r.failures));
        }
    }

    private synchronized void resignal(String name, byte[] body, String brokerMessageId) throws IOException {
        if (state.findRetired(name).isPresent()) {
            reject(controlQueue, retired(name, "resignal: reload it from its HDFS file with the kudu-loader instead",
                    brokerMessageId), body);
            return;
        }
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
        if (!d.get().deletedObjects.isEmpty()) {
            reject(controlQueue, new Rejection(RejectReason.WRONG_STATE, "resignal: the objects of dataset " + name
                    + " were deleted by the cleanup; reload it from its HDFS file with the kudu-loader instead",
                    brokerMessageId, name), body);
            return;
        }
        ConsumerSignal signal = d.get().signal;
        record(List.of(new JournalEvent.ResignalRequested(name, signal.signalId(), null)));
        metrics.resignals.inc();
        LOG.info("dataset {}: operator asked for signal {} again (was {})", name, signal.signalId(), s);
        outbox.submit(signal);
    }

    private Rejection retired(String name, String what, String messageId) {
        RetiredDataset r = state.findRetired(name).orElseThrow();
        return new Rejection(RejectReason.DATASET_RETIRED, "dataset " + name + " is finished: DONE (dspid "
                + r.dspid() + ") and its objects deleted at " + Instant.ofEpochMilli(r.deletedAt()) + "; " + what,
                messageId, name);
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

    /**
     * The signal to send if the selection is complete. A dataset signalled before keeps its dspid and epoch; a new
     * one gets the next dspid and the epoch the {@link EpochPolicy} gives.
     */
    private Optional<ConsumerSignal> planIfComplete(DatasetRecord existing, String name,
                                                    List<DatasetManifest.ManifestFile> manifest, Selection selection) {
        if (manifest == null || !selection.complete()) {
            return Optional.empty();
        }
        String container = DatasetName.parse(name).container();
        boolean known = existing != null && existing.dspid >= 0;
        int dspid = known ? existing.dspid : state.lastDspid() + 1;
        int epoch = known ? existing.epoch
                : epochs.epochFor(state.currentEpoch(), state.eventsInEpoch(), selection.expectedEvents());
        // Consumers refuse a signal older than the selection already loaded (DATASETS signal_ts), so a re-selection
        // must carry a later ts than every earlier signal of the dataset, even if the clock went back.
        long ts = Math.max(clock.millis(), existing == null ? 0 : existing.lastSignalTs + 1);
        return Optional.of(SignalPlanner.plan(name, container, selection, dspid, epoch, ts));
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
            publish(e);
        }
    }

    private void publish(JournalEntry e) {
        try {
            listener.changed(StateChanges.of(e, state));
        } catch (RuntimeException ex) {
            LOG.warn("state change listener failed on entry {}: {}", e.seq(), ex.toString());
        }
    }

    private Optional<Inbound> oversize(byte[] body, String brokerMessageId) {
        if (body != null && body.length > maxMessageBytes) {
            return Optional.of(new Inbound.Rejected(new Rejection(RejectReason.OVERSIZE, "message of " + body.length
                    + " bytes is larger than " + maxMessageBytes + " bytes (" + SupervisorConfig.MESSAGE_MAX_BYTES
                    + ")", brokerMessageId, null)));
        }
        return Optional.empty();
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
