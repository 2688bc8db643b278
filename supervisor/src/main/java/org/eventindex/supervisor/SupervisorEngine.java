package org.eventindex.supervisor;

import org.eventindex.message.ConsumerHeartbeat;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.ProducerInfo;
import org.eventindex.names.DatasetName;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.supervisor.journal.JournalEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The supervisor's decisions: for each inbound message, what to record, and whether a dataset just became complete.
 * Every handler journals (with fsync) before it returns, so returning normally means "safe to acknowledge"; producer
 * messages write their entries under the lock and wait for the disk outside it, so that several share a force (group
 * commit, decision 0035). One lock serialises the queues, the signal-sent callbacks and the views. Signals are only
 * handed to the {@link SignalOutbox} after their SIGNAL_PLANNED entry is on disk; the outbox, on its own thread, asks
 * the engine as its {@link SignalOutbox.Ledger} whether a signal is still current and tells it when one went out.
 */
final class SupervisorEngine implements SignalOutbox.Ledger {
    private static final Logger LOG = LoggerFactory.getLogger(SupervisorEngine.class);

    private final Recorder recorder;
    private final SignalPlanner planner;
    private final OperatorCommands commands;
    private final SupervisorState state;
    private final MessageValidator validator;
    private final SignalOutbox outbox;
    private final SupervisorMetrics metrics;
    private final Clock clock;
    private final HandOffPolicy handOff;
    private final int maxMessageBytes;
    private final String producerQueue;
    private final String controlQueue;
    private final ConsumerHeartbeats heartbeats = new ConsumerHeartbeats();
    private final SignalLeases leases;

    /** @param state the state replayed from {@code journal}; from now on only this engine changes either */
    SupervisorEngine(Journal journal, SupervisorState state, MessageValidator validator, SignalOutbox outbox,
                     Quarantine quarantine, SupervisorMetrics metrics, Clock clock, EpochPolicy epochs,
                     HandOffPolicy handOff, int maxMessageBytes, String producerQueue, String controlQueue) {
        this.state = Objects.requireNonNull(state, "state is null");
        this.validator = Objects.requireNonNull(validator, "validator is null");
        this.outbox = Objects.requireNonNull(outbox, "outbox is null");
        this.metrics = Objects.requireNonNull(metrics, "metrics is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.handOff = Objects.requireNonNull(handOff, "handOff is null");
        this.maxMessageBytes = maxMessageBytes;
        this.producerQueue = Objects.requireNonNull(producerQueue, "producerQueue is null");
        this.controlQueue = Objects.requireNonNull(controlQueue, "controlQueue is null");
        // the engine is built when this supervisor becomes active (at start, or at a standby's takeover)
        this.leases = new SignalLeases(clock.millis());
        this.recorder = new Recorder(journal, state, quarantine, metrics, clock);
        this.planner = new SignalPlanner(state, recorder, outbox, metrics, epochs, clock);
        this.commands = new OperatorCommands(state, recorder, planner, outbox, metrics);
    }

    /** The consumers' last heartbeats (not part of the journalled state). */
    ConsumerHeartbeats heartbeats() {
        return heartbeats;
    }

    /** Where every recorded change is pushed (the {@code /events} stream). */
    void listener(StateChange.Listener l) {
        recorder.listener(l);
    }

    /**
     * After replay: plans datasets that are complete but have no signal yet (the process stopped between the two
     * entries) and hands every planned-but-unsent signal to the outbox again, unchanged.
     */
    synchronized void recover() throws IOException {
        for (TrackedDataset d : List.copyOf(state.all())) {
            if (!d.signalled()) {
                Optional<ConsumerSignal> s = planner.planIfComplete(d, DatasetName.parse(d.name), d.manifest,
                        d.selection());
                if (s.isPresent()) {
                    recorder.record(List.of(new JournalEvent.SignalPlanned(s.get())));
                    metrics.signalsPlanned.inc();
                    LOG.info("dataset {} was complete at restart; signal {} planned", d.name, s.get().signalId());
                }
            }
        }
        for (TrackedDataset d : state.all()) {
            if (d.state == CollectionState.SIGNAL_PLANNED) {
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
        leases.retain(state);
        for (TrackedDataset d : List.copyOf(state.all())) {
            long leaseFrom = leases.countsFrom(d);
            Optional<String> reason = handOff.resignalReason(d, now, leaseFrom);
            if (reason.isPresent()) {
                ConsumerSignal signal = d.signal;
                String why = reason.get();
                if (handOff.leaseExpired(d, now, leaseFrom)) {
                    SignalLeases.Expired lost = leases.expired(d);
                    why += ": " + lost.detail();
                    if (lost.stuck()) {
                        metrics.leasesLostStuck.inc();
                    }
                }
                recorder.record(List.of(new JournalEvent.ResignalRequested(d.name, signal.signalId(), why)));
                metrics.automaticResignals.inc();
                LOG.warn("dataset {}: signal {} sent again: {}", d.name, signal.signalId(), why);
                outbox.submit(signal);
            }
        }
    }

    /**
     * The catalogue's files of a dataset (from the catalogue poller): registered like a manifest when they differ from
     * the current one. Returns whether anything changed.
     */
    synchronized boolean onCatalogue(DatasetName dataset, List<DatasetManifest.ManifestFile> files)
            throws IOException {
        Optional<TrackedDataset> d = state.find(dataset.toString());
        if (d.isPresent() && StateChanges.sameFiles(files, d.get().manifest)) {
            return false;
        }
        manifest(dataset, new DatasetManifest(DatasetManifest.TYPE, dataset.toString(), List.copyOf(files)),
                "catalogue", true).ifPresent(r -> LOG.warn("catalogue: {}", r.detail()));
        return true;
    }

    /** Datasets the catalogue should be asked about: known, not DONE, objects not deleted. */
    synchronized List<String> datasetsAwaitingCatalogue() {
        return state.all().stream().filter(d -> d.state != CollectionState.DONE && d.deletedObjects.isEmpty())
                .map(d -> d.name).toList();
    }

    /** The cleanup deleted objects of a DONE dataset. */
    synchronized void onObjectsDeleted(String dataset, List<String> urls) throws IOException {
        recorder.record(List.of(new JournalEvent.ObjectsDeleted(dataset, urls)));
    }

    /** A read-only look at the state under the engine's lock (for the cleanup and the information service). */
    synchronized <T> T read(Function<SupervisorState, T> reader) {
        return reader.apply(state);
    }

    /**
     * A message of the producer queue. Returns once its effect (or its rejection) is on disk. One way through:
     * validate, decide against the state (recording an accepted object), record a refusal of either step.
     */
    void onProducerMessage(byte[] body, String brokerMessageId) throws IOException {
        metrics.producerMessages.inc();
        Inbound in = oversize(body, brokerMessageId).orElseGet(() -> validator.producer(body, brokerMessageId));
        if (in instanceof Inbound.Rejected r) {
            reject(producerQueue, r.rejection(), body);
        } else if (in instanceof Inbound.ObjectStored o) {
            Stored stored = objectStored(o.messageId(), o.dataset(), o.info());
            // Group commit (decision 0035): the entries were written under the lock, the wait for the disk is
            // outside it, so that the messages other producer workers handle meanwhile share the next force. Waiting
            // for every entry written so far also covers a re-sent message's first copy, written by another worker.
            recorder.awaitDurable(stored.upTo());
            stored.planned().ifPresent(planner::submit);
            if (stored.refused().isPresent()) {
                reject(producerQueue, stored.refused().get(), body);
            }
        } else {
            throw new IllegalStateException("unexpected producer message " + in.getClass().getSimpleName());
        }
    }

    /**
     * What {@link #objectStored} decided: the journal entry to wait for before the message may be acknowledged, the
     * signal to hand to the outbox after that, or why the message is refused.
     */
    private record Stored(long upTo, Optional<ConsumerSignal> planned, Optional<Rejection> refused) {
    }

    /** A message of the control queue. Returns once its effect (or its rejection) is on disk. */
    void onControlMessage(byte[] body, String brokerMessageId) throws IOException {
        onControlMessage(body, brokerMessageId, null);
    }

    /**
     * A message of the control queue, and the answer for its sender. With a {@code requestId} (the request's
     * correlation id) the answer is journalled too; a request whose answer is recorded is not applied again and gets
     * the same answer. Returns once its effect, its rejection and its answer are on disk.
     */
    OperatorAnswer onControlMessage(byte[] body, String brokerMessageId, String requestId) throws IOException {
        return onControlMessage(body, brokerMessageId, requestId, Issuer.UNKNOWN);
    }

    /**
     * {@link #onControlMessage(byte[], String, String)} of a request whose sender is known: {@code issuer} is
     * journalled with its answer (decision 0058).
     */
    OperatorAnswer onControlMessage(byte[] body, String brokerMessageId, String requestId, Issuer issuer)
            throws IOException {
        Objects.requireNonNull(issuer, "issuer is null");
        if (requestId != null) {
            synchronized (this) {
                Optional<JournalEvent.RequestAnswered> earlier = state.answer(requestId);
                if (earlier.isPresent()) {
                    metrics.duplicateMessages.inc();
                    JournalEvent.RequestAnswered a = earlier.get();
                    LOG.info("request {} was answered before ({}); answering again without applying it", requestId,
                            a.outcome());
                    return new OperatorAnswer(OperatorAnswer.TYPE, requestId, a.outcome(), a.reason(), a.dataset(),
                            a.detail());
                }
            }
        }
        Inbound in = oversize(body, brokerMessageId).orElseGet(() -> validator.control(body, brokerMessageId));
        Optional<Rejection> refused = control(in, body, brokerMessageId);
        OperatorAnswer answer = refused.map(r -> OperatorAnswer.refused(requestId, r))
                .orElseGet(() -> OperatorAnswer.ok(requestId, datasetOf(in), done(in)));
        if (requestId != null) {
            synchronized (this) {
                recorder.record(List.of(new JournalEvent.RequestAnswered(requestId, answer.outcome(),
                        answer.reason(), answer.dataset(), answer.detail(), issuer.brokerLogin(),
                        issuer.claimedUser(), issuer.httpUser())));
            }
            LOG.info("request {} from {}: {}: {}", requestId, issuer.describe(), answer.outcome(), answer.detail());
        }
        return answer;
    }

    /**
     * A request that cannot be read at all (its frame was over the STOMP limits): the answer for its sender, recorded
     * like any other when it has a request id.
     */
    OperatorAnswer answerUnreadable(String requestId, String brokerMessageId, String oversize, Issuer issuer)
            throws IOException {
        OperatorAnswer answer = OperatorAnswer.refused(requestId, new Rejection(RejectReason.OVERSIZE, "request "
                + brokerMessageId + " is over the STOMP frame limits: " + oversize, brokerMessageId, null));
        if (requestId != null) {
            synchronized (this) {
                if (state.answer(requestId).isEmpty()) {
                    recorder.record(List.of(new JournalEvent.RequestAnswered(requestId, answer.outcome(),
                            answer.reason(), null, answer.detail(), issuer.brokerLogin(), issuer.claimedUser(),
                            issuer.httpUser())));
                }
            }
        }
        return answer;
    }

    private static String datasetOf(Inbound in) {
        if (in instanceof Inbound.Manifest m) {
            return m.dataset().toString();
        } else if (in instanceof Inbound.Resignal r) {
            return r.dataset().toString();
        } else if (in instanceof Inbound.Invalidate i) {
            return i.dataset().toString();
        } else if (in instanceof Inbound.Delete d) {
            return d.dataset().toString();
        } else if (in instanceof Inbound.Report r) {
            return r.report().dataset();
        }
        return null;
    }

    /** What an accepted control message did, for its answer. */
    private synchronized String done(Inbound in) {
        String name = datasetOf(in);
        SupervisorState.Lookup found = name == null ? SupervisorState.Lookup.UNKNOWN : state.lookup(name);
        String now = found.live().map(t -> "; dataset " + name + " is " + t.state
                + (t.signalled() ? " with signal " + t.signal.signalId() : "")).orElse("");
        if (in instanceof Inbound.Manifest m) {
            return "manifest of dataset " + name + " (" + m.manifest().files().size() + " files) registered" + now;
        } else if (in instanceof Inbound.Resignal) {
            return "signal of dataset " + name + " sent again" + now;
        } else if (in instanceof Inbound.Invalidate i) {
            return "object " + i.command().url() + " of dataset " + name + " is invalid and never selected again"
                    + now;
        } else if (in instanceof Inbound.Delete d) {
            if (!d.command().finished().isEmpty()) {
                return found.deleted().map(t -> "dataset " + name + ": " + String.join(", ",
                        d.command().finished()) + " done; left: " + t.left()).orElse("dataset " + name + " deleted");
            }
            return found.deleted().map(t -> "dataset " + name + " deleted from the supervisor at "
                    + Instant.ofEpochMilli(t.deletedAt()) + (t.dspid() < 0 ? "" : " (dspid " + t.dspid()
                    + ", epoch " + t.epoch() + ")") + "; " + t.objectsLeft().size() + " objects left for the"
                    + " cleanup" + (t.unfinished() ? "; steps left to delete-dataset: " + String.join(", ",
                    t.stepsLeft()) : "")).orElse("dataset " + name + " deleted");
        }
        return "recorded" + now;
    }

    private Optional<Rejection> control(Inbound in, byte[] body, String brokerMessageId) throws IOException {
        metrics.controlMessages.inc();
        Optional<Rejection> refused = Optional.empty();
        if (in instanceof Inbound.Rejected r) {
            refused = Optional.of(r.rejection());
        } else if (in instanceof Inbound.Manifest m) {
            refused = manifest(m.dataset(), m.manifest(), brokerMessageId, false);
        } else if (in instanceof Inbound.Report r) {
            report(r.report());
        } else if (in instanceof Inbound.Resignal r) {
            synchronized (this) {
                refused = commands.resignal(r.dataset(), brokerMessageId);
            }
        } else if (in instanceof Inbound.Invalidate i) {
            synchronized (this) {
                refused = commands.invalidate(i.dataset(), i.command(), brokerMessageId);
            }
        } else if (in instanceof Inbound.Delete d) {
            synchronized (this) {
                refused = commands.delete(d.dataset(), d.command(), brokerMessageId);
            }
        } else {
            throw new IllegalStateException("unexpected control message " + in.getClass().getSimpleName());
        }
        if (refused.isPresent()) {
            reject(controlQueue, refused.get(), body);
        }
        return refused;
    }

    /**
     * A message of the heartbeat queue ({@code queue}): kept in memory only, nothing journalled (see
     * {@link ConsumerHeartbeats}); a bad one, or one whose STOMP frame was over the limits ({@code oversize} not
     * null), is refused like any bad message.
     */
    void onHeartbeat(byte[] body, String brokerMessageId, String oversize, String queue) throws IOException {
        metrics.heartbeatMessages.inc();
        Inbound in = oversize != null
                ? new Inbound.Rejected(new Rejection(RejectReason.OVERSIZE, "heartbeat " + brokerMessageId
                        + " is over the STOMP frame limits: " + oversize, brokerMessageId, null))
                : oversize(body, brokerMessageId).orElseGet(() -> validator.heartbeat(body, brokerMessageId));
        if (in instanceof Inbound.Heartbeat h) {
            long now = clock.millis();
            heartbeats.record(h.heartbeat(), now);
            extendLease(h.heartbeat(), now);
        } else if (in instanceof Inbound.Rejected r) {
            reject(queue, r.rejection(), body);
        } else {
            throw new IllegalStateException("unexpected heartbeat message " + in.getClass().getSimpleName());
        }
    }

    /** A valid heartbeat's progress, which may extend the lease of the signal its consumer holds. */
    private synchronized void extendLease(ConsumerHeartbeat h, long now) {
        TrackedDataset d = h.dataset() == null ? null : state.find(h.dataset()).orElse(null);
        if (leases.heartbeat(d, h, now) == SignalLeases.Outcome.EXTENDED) {
            metrics.leaseExtensions.inc();
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
    @Override
    public synchronized boolean isCurrent(ConsumerSignal signal) {
        return state.find(signal.dataset()).map(d -> d.signalled() && d.signal.signalId().equals(signal.signalId()))
                .orElse(false);
    }

    /** The outbox's confirmation that the broker accepted a signal (a superseded one is not recorded). */
    @Override
    public synchronized void onSignalSent(ConsumerSignal signal) {
        if (!isCurrent(signal)) {
            return;
        }
        metrics.signalsSent.inc();
        try {
            recorder.record(List.of(new JournalEvent.SignalSent(signal.dataset(), signal.signalId())));
            LOG.info("dataset {}: signal {} (dspid {}, epoch {}, {} objects, {} events) sent", signal.dataset(),
                    signal.signalId(), signal.dspid(), signal.epoch(), signal.objects().size(),
                    signal.expectedEvents());
        } catch (IOException e) {
            LOG.error("dataset {}: signal {} was sent but this cannot be journalled ({}); it will be sent again"
                    + " after a restart, which consumers tolerate", signal.dataset(), signal.signalId(),
                    e.getMessage());
        }
    }

    /** The dataset's view, live or retired. */
    synchronized Optional<DatasetView> dataset(String name) {
        return state.lookup(name).view().map(this::withLease);
    }

    /** Every dataset's view, live and retired, sorted by name. */
    synchronized List<DatasetView> datasets() {
        return DatasetViews.all(state).stream().map(this::withLease).toList();
    }

    /** The lease of a SIGNALLED dataset's signal (its holder's progress, when it expires); else empty. */
    synchronized Optional<DatasetView.Lease> lease(TrackedDataset d) {
        return leases.view(d, handOff.lease().toMillis());
    }

    private DatasetView withLease(DatasetView v) {
        return v.state() != CollectionState.SIGNALLED ? v
                : state.find(v.name()).flatMap(this::lease).map(v::withLease).orElse(v);
    }

    /** One line per dataset in one of {@code states} (all when empty), live and retired, sorted by name. */
    synchronized List<DatasetSummary> summaries(Set<CollectionState> states) {
        return DatasetViews.summaries(state, states);
    }

    /**
     * Writes a journal checkpoint of the state when at least {@code minEntries} (at least 1) entries were appended
     * since the last one; nothing is recorded meanwhile.
     */
    synchronized Optional<Journal.CheckpointResult> checkpoint(long minEntries) throws IOException {
        return recorder.checkpoint(minEntries);
    }

    /** Why the engine cannot record anything any more, if so. */
    Optional<String> failure() {
        return recorder.failure();
    }

    /**
     * Records a validated object, or says why it is refused (its message id was recorded with another object, or its
     * dataset is retired); a re-sent message, or a known object under a new id, is acknowledged without a record. The
     * entries are written, not yet on disk: the caller waits for them outside the lock, then submits the signal.
     */
    private synchronized Stored objectStored(String messageId, DatasetName dataset, ProducerInfo info)
            throws IOException {
        String name = info.inputDsName();
        Optional<SupervisorState.RecordedMessage> recorded = state.recordedMessage(messageId);
        if (recorded.isPresent()) {
            SupervisorState.RecordedMessage first = recorded.get();
            if (first.dataset().equals(name) && (first.object() == null || first.object().sameObject(info))) {
                metrics.duplicateMessages.inc();
                LOG.debug("dataset {}: producer message {} was already recorded; acknowledging the re-send", name,
                        messageId);
                return stored(Optional.empty(), Optional.empty());
            }
            return stored(Optional.empty(), Optional.of(idConflict(messageId, first, info)));
        }
        SupervisorState.Lookup found = state.lookup(name);
        String orphan = "object " + info.url() + " is never read; it is deleted as an orphan after "
                + SupervisorConfig.CLEANUP_ORPHAN_RETENTION;
        Optional<Rejection> finished = found.refusal(orphan, orphan, messageId);
        if (finished.isPresent()) {
            return stored(Optional.empty(), finished);
        }
        Optional<TrackedDataset> existing = found.live();
        if (existing.isPresent() && existing.get().urls.contains(info.url())) {
            metrics.duplicateMessages.inc();
            LOG.warn("dataset {}: object {} was already reported under another message id; message {} ignored",
                    name, info.url(), messageId);
            return stored(Optional.empty(), Optional.empty());
        }
        List<JournalEvent> events = new ArrayList<>(2);
        events.add(new JournalEvent.ObjectReported(messageId, info));
        boolean late = existing.isPresent() && existing.get().signalled();
        Optional<ConsumerSignal> planned = Optional.empty();
        if (!late && existing.isPresent()) {
            // without a record there is no manifest yet, so no complete selection; with one, the incremental
            // selection says whether this object completes it, and only then is the whole selection built
            TrackedDataset d = existing.get();
            Candidate c = new Candidate(info.url(), info.size(), info.usize(), recorder.nextSeq(), info.guids(),
                    messageId, info.jobID());
            if (d.manifest != null && d.completeWith(c)) {
                List<Candidate> candidates = new ArrayList<>(d.validCandidates());
                candidates.add(c);
                planned = planner.planIfComplete(d, dataset, d.manifest,
                        DatasetSelection.select(d.manifest, candidates));
                planned.ifPresent(s -> events.add(new JournalEvent.SignalPlanned(s)));
            }
        }
        recorder.recordUnforced(events);
        metrics.objects.inc();
        if (existing.isEmpty()) {
            // once per dataset: its first object (a manifest registered first would have created it)
            LOG.info("dataset {}: first object {} recorded; waiting for its {}: it cannot complete before a manifest"
                    + " is registered or the catalogue lists its files", name, info.url(),
                    DatasetViews.WAITING_FOR_FILE_LIST);
        }
        if (late) {
            metrics.lateObjects.inc();
            LOG.info("dataset {} was already signalled ({}); late object {} recorded and not read", name,
                    existing.get().state, info.url());
            lateConflicts(existing.get(), info.url());
        }
        return stored(planned, Optional.empty());
    }

    /**
     * Counts and logs the claims of a late object (just recorded) that disagree with the signal's: nobody reads a late
     * object, so this is the only place where such a disagreement comes to light. The dataset does not change.
     */
    private void lateConflicts(TrackedDataset d, String url) {
        List<LateConflict> conflicts = d.lateConflicts.stream().filter(c -> c.url().equals(url)).toList();
        if (conflicts.isEmpty()) {
            return;
        }
        metrics.lateObjectConflicts.inc(conflicts.size());
        LOG.warn("dataset {}: late object {} disagrees with the signalled selection (signal {}): {}. The dataset is"
                + " loaded from the signalled objects and does not change; if a signalled object is the wrong one,"
                + " invalidate it to select the dataset again", d.name, url, d.signal.signalId(),
                conflicts.stream().map(LateConflict::describe).collect(java.util.stream.Collectors.joining("; ")));
    }

    /** The outcome of {@link #objectStored}, to wait for every entry written so far. */
    private Stored stored(Optional<ConsumerSignal> planned, Optional<Rejection> refused) {
        return new Stored(recorder.lastSeq(), planned, refused);
    }

    /**
     * Records a new file list for a dataset, from a manifest message or the catalogue, or says why it is refused. A
     * signalled dataset whose file list changes is selected again: its signal is superseded and, once complete, a new
     * signal (new signalId, same dspid and epoch) goes out; the consumer's load of the new signal replaces the old
     * rows.
     */
    private synchronized Optional<Rejection> manifest(DatasetName dataset, DatasetManifest manifest,
                                                      String brokerMessageId, boolean fromCatalogue)
            throws IOException {
        String name = manifest.dataset();
        SupervisorState.Lookup found = state.lookup(name);
        Optional<Rejection> finished = found.refusal("its file list can no longer change; produce it again under a"
                + " new task", "its file list is not registered; produce it again under a new task", brokerMessageId);
        if (finished.isPresent()) {
            return finished;
        }
        Optional<TrackedDataset> existing = found.live();
        if (existing.isPresent() && StateChanges.sameFiles(manifest.files(), existing.get().manifest)) {
            metrics.duplicateMessages.inc();
            LOG.debug("dataset {}: identical manifest registered again; nothing to do", name);
            return Optional.empty();
        }
        if (existing.isPresent() && !existing.get().deletedObjects.isEmpty()) {
            return Optional.of(new Rejection(RejectReason.MANIFEST_CONFLICT, "dataset " + name + " changed its file"
                    + " list after the cleanup deleted its objects; produce it again under a new task, or"
                    + " re-register the original manifest", brokerMessageId, name));
        }
        boolean wasSignalled = existing.isPresent() && existing.get().signalled();
        List<JournalEvent> events = new ArrayList<>(2);
        events.add(new JournalEvent.ManifestRegistered(manifest));
        recorder.record(events);
        metrics.manifests.inc();
        LOG.info("dataset {}: {} of {} files registered{}", name, fromCatalogue ? "catalogue list" : "manifest",
                manifest.files().size(), wasSignalled ? "; its signal is superseded, the dataset is selected again"
                        : "");
        planner.planAndRecord(dataset);
        return Optional.empty();
    }

    private synchronized void report(ConsumerReport report) throws IOException {
        Optional<TrackedDataset> d = state.findBySignal(report.signalId());
        recorder.record(List.of(new JournalEvent.ReportReceived(report)));
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
            TrackedDataset r = d.get();
            String next;
            if (HandOffPolicy.failedInternally(r)) {
                // a bug in the consumer, not bad data: loud, and not retried at the cost of a whole dataset each time
                metrics.reportsFailedPermanent.inc();
                metrics.reportsFailedInternal.inc();
                LOG.error("dataset {} FAILED at consumer {} (signal {}) with an INTERNAL ERROR of the consumer: {}; not"
                        + " retried automatically: the dataset stays FAILED_CONSUMER and its objects are kept. Fix the"
                        + " consumer, then 'eventindex supervisor resignal --dataset {}' re-runs it", r.name,
                        report.consumer(), report.signalId(), report.reason(), r.name);
                return;
            } else if (HandOffPolicy.failedPermanently(r)) {
                metrics.reportsFailedPermanent.inc();
                next = "a permanent failure, not retried: waiting for an operator (invalidate the object, or resignal"
                        + " once the cause is fixed)";
            } else if (handOff.retriesExhausted(r)) {
                next = "automatic retries exhausted, waiting for an operator";
            } else {
                next = "retrying in " + handOff.backoff(r.failures);
            }
            LOG.warn("dataset {} FAILED at consumer {} (signal {}, failure {}): {}; {}", r.name, report.consumer(),
                    report.signalId(), r.failures, report.reason(), next);
        }
    }

    /**
     * A producer message whose id was recorded with another object: two producers share an id (a broken sender), or
     * one was forged. The first object stays recorded; this one is refused, so that an operator decides.
     */
    private static Rejection idConflict(String messageId, SupervisorState.RecordedMessage first, ProducerInfo info) {
        String recorded = first.object() == null ? "an object" : "object " + first.object().url();
        String differs = !first.dataset().equals(info.inputDsName()) ? "another dataset"
                : first.object() != null && first.object().url().equals(info.url())
                ? "the same object with other contents (size or input files)" : "another object";
        return new Rejection(RejectReason.MESSAGE_ID_CONFLICT, "producer message id " + messageId
                + " was already recorded for " + recorded + " of dataset " + first.dataset() + "; this message with"
                + " the same id reports " + differs + ": object " + info.url() + " of dataset " + info.inputDsName()
                + ". The first is kept and this one is not recorded; find the producer that reuses ids, and send this"
                + " object's message again with a new id if it is valid", messageId, info.inputDsName());
    }

    /** Records a refused message (under the lock), then copies it to the quarantine queue (outside it). */
    private void reject(String queue, Rejection r, byte[] body) throws IOException {
        synchronized (this) {
            recorder.recordRejection(queue, r, body);
        }
        recorder.quarantine(queue, r, body);
    }

    private Optional<Inbound> oversize(byte[] body, String brokerMessageId) {
        if (body != null && body.length > maxMessageBytes) {
            return Optional.of(new Inbound.Rejected(new Rejection(RejectReason.OVERSIZE, "message of " + body.length
                    + " bytes is larger than " + maxMessageBytes + " bytes (" + SupervisorConfig.MESSAGE_MAX_BYTES
                    + ")", brokerMessageId, null)));
        }
        return Optional.empty();
    }
}
