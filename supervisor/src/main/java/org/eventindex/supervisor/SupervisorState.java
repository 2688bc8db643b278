package org.eventindex.supervisor;

import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.ProducerInfo;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.supervisor.journal.JournalFiles;
import org.eventindex.supervisor.journal.LocalJournalFiles;
import org.eventindex.supervisor.journal.JournalEntry;
import org.eventindex.supervisor.journal.JournalEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The supervisor's in-memory state: a pure fold of the journal. {@link #apply} is the only mutator and is
 * deterministic, so replaying the same journal always rebuilds the same state. Decisions (what to journal) are taken
 * by {@link SupervisorEngine}; this class only records their consequences. Not thread-safe: the engine serialises.
 */
final class SupervisorState {
    private static final Logger LOG = LoggerFactory.getLogger(SupervisorState.class);
    /** Operator answers kept to answer a redelivered request the same way (the oldest is forgotten first). */
    static final int MAX_ANSWERS = 10_000;

    private final Map<String, TrackedDataset> datasets = new TreeMap<>();
    private final Map<String, RetiredDataset> retired = new TreeMap<>();
    private final Map<String, DeletedDataset> deleted = new TreeMap<>();
    /** The answers of the last {@link #MAX_ANSWERS} operator requests, by request id, oldest first. */
    private final Map<String, JournalEvent.RequestAnswered> answers = new LinkedHashMap<>();
    private final Map<String, TrackedDataset> bySignal = new HashMap<>();
    /** Producer message id -> the live dataset it reported an object of. */
    private final Map<String, TrackedDataset> messageIds = new HashMap<>();
    private final ConsumerStats consumers = new ConsumerStats();
    /** The console's plots' data, bounded by its days. */
    private final History history;
    /** While replaying: unsignalled datasets whose COLLECTING/HELD state is brought up to date by endReplay. */
    private final Set<TrackedDataset> stale = new LinkedHashSet<>();
    private boolean replaying;
    private int lastDspid;
    private int currentEpoch = -1;
    private long eventsInEpoch;
    private long lastSeq;
    private long rejectedMessages;
    private long unknownReports;
    /** The last {@code STATE_RECONCILED}; null when none (decision 0054). */
    private Reconciliation reconciliation;

    SupervisorState() {
        this(History.DEFAULT_DAYS);
    }

    /** @param historyDays {@code supervisor.history.days}: how far back {@link #history()} reaches */
    SupervisorState(int historyDays) {
        history = new History(historyDays);
    }

    void apply(JournalEntry entry) {
        if (entry.seq() <= lastSeq) {
            throw new IllegalStateException("journal entry " + entry.seq() + " applied after entry " + lastSeq);
        }
        lastSeq = entry.seq();
        long ts = entry.tsMillis();
        JournalEvent event = entry.event();
        if (event instanceof JournalEvent.ObjectReported e) {
            objectReported(entry.seq(), ts, e);
        } else if (event instanceof JournalEvent.ManifestRegistered e) {
            TrackedDataset d = live(e.manifest().dataset());
            if (d == null) {
                return;
            }
            d.supersedeSignal(ts);
            d.manifest = e.manifest().files();
            d.manifestAt = ts;
            refresh(d, ts);
        } else if (event instanceof JournalEvent.ObjectInvalidated e) {
            TrackedDataset d = live(e.dataset());
            if (d == null) {
                return;
            }
            d.invalidObjects.put(e.url(), e.reason());
            if (d.signalled() && d.signal.objects().stream().anyMatch(o -> o.url().equals(e.url()))) {
                d.supersedeSignal(ts);
            }
            refresh(d, ts);
        } else if (event instanceof JournalEvent.ObjectsDeleted e && deleted.containsKey(e.dataset())) {
            deleted.computeIfPresent(e.dataset(), (n, t) -> t.without(e.urls()));
        } else if (event instanceof JournalEvent.ObjectsDeleted e) {
            TrackedDataset d = live(e.dataset());
            if (d == null) {
                return;
            }
            d.deletedObjects.addAll(e.urls());
            d.deletedAt = ts;
            if (d.state == CollectionState.DONE && d.deletedObjects.containsAll(d.urls)) {
                retire(d);
            }
        } else if (event instanceof JournalEvent.SignalPlanned e) {
            ConsumerSignal s = e.signal();
            TrackedDataset d = live(s.dataset());
            if (d == null) {
                return;
            }
            boolean firstSignal = d.dspid < 0;
            d.signal = s;
            d.lastSignalTs = Math.max(d.lastSignalTs, s.ts());
            d.dspid = s.dspid();
            d.epoch = s.epoch();
            d.state = CollectionState.SIGNAL_PLANNED;
            d.noteState(ts);
            d.plannedAt = ts;
            d.failures = 0;
            bySignal.put(s.signalId(), d);
            lastDspid = Math.max(lastDspid, s.dspid());
            if (firstSignal) {
                if (s.epoch() != currentEpoch) {
                    currentEpoch = s.epoch();
                    eventsInEpoch = 0;
                }
                eventsInEpoch += s.expectedEvents();
            }
        } else if (event instanceof JournalEvent.SignalSent e) {
            TrackedDataset d = bySignal.get(e.signalId());
            if (d != null && d.signalled() && d.signal.signalId().equals(e.signalId())) {
                d.sentAt = ts;
                if (d.state == CollectionState.SIGNAL_PLANNED) {
                    d.state = CollectionState.SIGNALLED;
                    d.noteState(ts);
                }
            }
        } else if (event instanceof JournalEvent.ReportReceived e) {
            reportReceived(ts, e.report());
        } else if (event instanceof JournalEvent.ResignalRequested e) {
            TrackedDataset d = bySignal.get(e.signalId());
            if (d != null && d.signalled() && d.signal.signalId().equals(e.signalId())) {
                d.state = CollectionState.SIGNAL_PLANNED;
                d.noteState(ts);
                d.resignals++;
                d.lastResignalReason = e.reason() == null ? "operator" : e.reason();
                if (e.automatic()) {
                    d.automaticResignals++;
                } else {
                    d.failures = 0;
                }
            }
        } else if (event instanceof JournalEvent.MessageRejected) {
            rejectedMessages++;
        } else if (event instanceof JournalEvent.DatasetDeleted e) {
            datasetDeleted(ts, e);
        } else if (event instanceof JournalEvent.StateReconciled e) {
            reconciliation = new Reconciliation(entry.seq(), e.listedAt(), e.undecidedObjects());
            lastDspid = Math.max(lastDspid, e.dspidFloor());
        } else if (event instanceof JournalEvent.RequestAnswered e) {
            answers.remove(e.requestId());
            answers.put(e.requestId(), e);
            if (answers.size() > MAX_ANSWERS) {
                answers.remove(answers.keySet().iterator().next());
            }
        }
    }

    /**
     * A live or retired dataset becomes a tombstone; a live one keeps the objects still to delete. A line for a dataset
     * already deleted only takes its {@code stepsDone} off the tombstone's steps left.
     */
    private void datasetDeleted(long ts, JournalEvent.DatasetDeleted e) {
        if (deleted.containsKey(e.dataset())) {
            // a later line of a deleted dataset: the operator's command reports steps done
            deleted.computeIfPresent(e.dataset(), (n, t) -> t.withStepsDone(e.stepsDone()));
            return;
        }
        TrackedDataset d = datasets.remove(e.dataset());
        RetiredDataset r = retired.remove(e.dataset());
        if (d != null) {
            forget(d);
            stale.remove(d);
            deleted.put(d.name, new DeletedDataset(d.name, d.dspid, d.epoch, ts, e.reason(),
                    d.urls.stream().filter(u -> !d.deletedObjects.contains(u)).sorted().toList(), e.stepsLeft(),
                    e.finishWith()));
        } else if (r != null) {
            deleted.put(r.name(), new DeletedDataset(r.name(), r.dspid(), r.epoch(), ts, e.reason(), List.of(),
                    e.stepsLeft(), e.finishWith()));
        } else {
            deleted.put(e.dataset(), new DeletedDataset(e.dataset(), -1, -1, ts, e.reason(), List.of(),
                    e.stepsLeft(), e.finishWith()));
        }
    }

    private void objectReported(long seq, long ts, JournalEvent.ObjectReported e) {
        ProducerInfo info = e.info();
        TrackedDataset d = live(info.inputDsName());
        if (d == null) {
            // journals written before datasets retired may hold late objects of a finished dataset: never read,
            // and deleted by the cleanup as orphans
            LOG.debug("dataset {} is retired; object {} ignored", info.inputDsName(), info.url());
            return;
        }
        messageIds.put(e.messageId(), d);
        d.messageIds.add(e.messageId());
        if (!d.urls.add(info.url())) {
            return;
        }
        Candidate c = new Candidate(info.url(), info.size(), info.usize(), seq, info.guids(), e.messageId(),
                info.jobID());
        d.candidates.add(c);
        history.object(ts, info.size());
        if (d.signalled()) {
            d.lateObjects.add(info.url());
            d.lateConflicts.addAll(LateConflict.of(d, c));
        } else {
            refresh(d, ts);
        }
        if (d.firstObjectAt < 0) {
            d.firstObjectAt = ts;
        }
        d.lastObjectAt = ts;
    }

    private void reportReceived(long ts, ConsumerReport r) {
        consumers.report(r, ts);
        TrackedDataset d = bySignal.get(r.signalId());
        if (d == null) {
            unknownReports++;
            return;
        }
        if (!d.signalled() || !d.signal.signalId().equals(r.signalId())) {
            LOG.debug("dataset {}: report {} for superseded signal {} ignored", d.name, r.status(), r.signalId());
            return;
        }
        if (ConsumerReport.DONE.equals(r.status())) {
            d.state = CollectionState.DONE;
            d.noteState(ts);
            d.lastReport = r;
            d.lastReportAt = ts;
            if (d.doneAt < 0) {
                d.doneAt = ts;
                history.done(ts, d, r);
            }
        } else if (d.state != CollectionState.DONE) {
            d.state = CollectionState.FAILED_CONSUMER;
            d.noteState(ts);
            d.failures++;
            d.lastReport = r;
            d.lastReportAt = ts;
        } else {
            LOG.debug("dataset {}: FAILED report for signal {} after DONE ignored", d.name, r.signalId());
        }
    }

    /**
     * The journal part of a start: the checkpoint in {@code dir} restored into this state, the journal after it
     * replayed, each unsignalled dataset's selection computed once at the end ({@link #beginReplay}) unless
     * {@code deferSelections} is false (every entry applied as if it were live: the benchmark's baseline).
     *
     * @return the journal, open for appending
     */
    Journal replayJournal(Path dir, int keepSegments, boolean deferSelections) throws IOException {
        return replayJournal(new LocalJournalFiles(dir), keepSegments, deferSelections);
    }

    /** {@link #replayJournal(Path, int, boolean)} in a directory of any store (HDFS's, with a standby). */
    Journal replayJournal(JournalFiles dir, int keepSegments, boolean deferSelections) throws IOException {
        if (deferSelections) {
            beginReplay();
        }
        Journal journal = Journal.open(dir, keepSegments, StateCheckpoint.restoreInto(this), this::apply);
        endReplay();
        return journal;
    }

    /**
     * From now on until {@link #endReplay}, the state of unsignalled datasets (COLLECTING or HELD, a full selection
     * each time) is left stale by the entries that change it: nothing reads it during a replay, and per entry it
     * made the replay of a dataset of n objects cost n selections of n objects.
     */
    void beginReplay() {
        replaying = true;
    }

    /** Brings the datasets left stale since {@link #beginReplay} up to date: one selection each. */
    void endReplay() {
        replaying = false;
        // when a stale dataset changed state in the replay is not known: its stateSince() falls back to its times
        stale.forEach(d -> d.refreshCollectingState(-1));
        stale.clear();
    }

    private void refresh(TrackedDataset d, long ts) {
        if (replaying) {
            stale.add(d);
        } else {
            d.refreshCollectingState(ts);
        }
    }

    /** The live record of the dataset, created on first mention; null when the dataset is retired. */
    private TrackedDataset live(String name) {
        return retired.containsKey(name) || deleted.containsKey(name) ? null
                : datasets.computeIfAbsent(name, TrackedDataset::new);
    }

    /**
     * DONE and every object deleted: nothing can happen to the dataset any more, so only its summary is kept (its
     * message ids too are forgotten: a message re-sent now is refused as naming a retired dataset).
     */
    private void retire(TrackedDataset d) {
        retired.put(d.name, RetiredDataset.of(d));
        datasets.remove(d.name);
        forget(d);
    }

    /** Drops the indexes to a dataset that is no longer live. */
    private void forget(TrackedDataset d) {
        d.messageIds.forEach(messageIds::remove);
        d.supersededSignals.forEach(bySignal::remove);
        if (d.signal != null) {
            bySignal.remove(d.signal.signalId());
        }
    }

    /** The state as a checkpoint of entry {@link #lastSeq()}. */
    StateCheckpoint checkpoint() {
        return new StateCheckpoint(StateCheckpoint.FORMAT, lastSeq, lastDspid, currentEpoch, eventsInEpoch,
                rejectedMessages, unknownReports, consumers.totals(),
                datasets.values().stream().map(StateCheckpoint.Live::of).toList(), List.copyOf(retired.values()),
                List.copyOf(deleted.values()), List.copyOf(answers.values()), reconciliation, history.save());
    }

    /** Restores a checkpoint into this state, which must be new (nothing applied yet). */
    void restore(StateCheckpoint c) {
        if (lastSeq != 0 || !datasets.isEmpty() || !retired.isEmpty()) {
            throw new IllegalStateException("a checkpoint is restored into a new state only (state at entry "
                    + lastSeq + ")");
        }
        lastSeq = c.seq();
        lastDspid = c.lastDspid();
        currentEpoch = c.currentEpoch();
        eventsInEpoch = c.eventsInEpoch();
        rejectedMessages = c.rejectedMessages();
        unknownReports = c.unknownReports();
        consumers.restore(c.consumers());
        history.restore(c.history());
        for (StateCheckpoint.Live l : c.datasets()) {
            TrackedDataset d = l.toRecord();
            datasets.put(d.name, d);
            d.messageIds.forEach(id -> messageIds.put(id, d));
            d.supersededSignals.forEach(id -> bySignal.put(id, d));
            if (d.signal != null) {
                bySignal.put(d.signal.signalId(), d);
            }
        }
        c.retired().forEach(r -> retired.put(r.name(), r));
        c.deleted().forEach(t -> deleted.put(t.name(), t));
        c.answers().forEach(a -> answers.put(a.requestId(), a));
        reconciliation = c.reconciliation();
    }

    /** The last reconciliation recorded ({@code supervisor rebuild-state}), if any. */
    Optional<Reconciliation> reconciliation() {
        return Optional.ofNullable(reconciliation);
    }

    /** Deleted datasets sorted by name. */
    Collection<DeletedDataset> deleted() {
        return Collections.unmodifiableCollection(deleted.values());
    }

    /**
     * The answers to the operator requests that named {@code dataset}, oldest first, among the last
     * {@link #MAX_ANSWERS}: what was asked of it and by whom.
     */
    List<JournalEvent.RequestAnswered> answersFor(String dataset) {
        return answers.values().stream().filter(a -> dataset.equals(a.dataset())).toList();
    }

    /** The answer given to operator request {@code requestId}, if it is one of the last {@link #MAX_ANSWERS}. */
    Optional<JournalEvent.RequestAnswered> answer(String requestId) {
        return Optional.ofNullable(answers.get(requestId));
    }

    /**
     * What this supervisor knows of a dataset name: live, retired, deleted or unknown. Every decision on a message
     * that names a dataset starts here, so that a finished dataset is refused the same way wherever it is named.
     */
    Lookup lookup(String name) {
        TrackedDataset d = datasets.get(name);
        if (d != null) {
            return new Lookup.Live(d);
        }
        RetiredDataset r = retired.get(name);
        if (r != null) {
            return new Lookup.Retired(r);
        }
        DeletedDataset t = deleted.get(name);
        return t != null ? new Lookup.Deleted(t) : Lookup.UNKNOWN;
    }

    /**
     * Where a dataset name stands: one of four, never two at once (a dataset retires or is deleted once, and a live
     * record is never made again for a name that did).
     */
    sealed interface Lookup {
        Lookup UNKNOWN = new Unknown();

        /** Tracked: objects, file list, selection and signal in memory. */
        record Live(TrackedDataset dataset) implements Lookup {
        }

        /** DONE with every object deleted: only its summary is kept. */
        record Retired(RetiredDataset dataset) implements Lookup {
        }

        /** Deleted by an operator: a tombstone. */
        record Deleted(DeletedDataset dataset) implements Lookup {
        }

        /** Never named to this supervisor (or only in messages it refused). */
        record Unknown() implements Lookup {
        }

        default Optional<TrackedDataset> live() {
            return this instanceof Live l ? Optional.of(l.dataset()) : Optional.empty();
        }

        default Optional<RetiredDataset> retired() {
            return this instanceof Retired r ? Optional.of(r.dataset()) : Optional.empty();
        }

        default Optional<DeletedDataset> deleted() {
            return this instanceof Deleted t ? Optional.of(t.dataset()) : Optional.empty();
        }

        /**
         * Why a message naming a finished dataset is refused ({@code DATASET_RETIRED} or {@code DATASET_DELETED}):
         * {@code ifRetired} or {@code ifDeleted} says what it asked for and what becomes of it. Empty for a live or
         * unknown dataset, which each caller decides on.
         */
        default Optional<Rejection> refusal(String ifRetired, String ifDeleted, String messageId) {
            if (this instanceof Retired r) {
                return Optional.of(r.dataset().refusal(ifRetired, messageId));
            } else if (this instanceof Deleted t) {
                return Optional.of(t.dataset().refusal(ifDeleted, messageId));
            }
            return Optional.empty();
        }

        /** What {@code /datasets/<name>} serves of a live or retired dataset; empty otherwise. */
        default Optional<DatasetView> view() {
            if (this instanceof Live l) {
                return Optional.of(DatasetViews.of(l.dataset()));
            }
            return retired().map(RetiredDataset::view);
        }
    }

    /** A live dataset (not retired, not deleted): {@code lookup(name).live()}, for the callers that ask nothing else. */
    Optional<TrackedDataset> find(String name) {
        return Optional.ofNullable(datasets.get(name));
    }

    /** Retired datasets sorted by name. */
    Collection<RetiredDataset> retired() {
        return Collections.unmodifiableCollection(retired.values());
    }

    Optional<TrackedDataset> findBySignal(String signalId) {
        return Optional.ofNullable(bySignal.get(signalId));
    }

    /** Live (not retired) datasets sorted by name. */
    Collection<TrackedDataset> all() {
        return Collections.unmodifiableCollection(datasets.values());
    }

    /**
     * The dataset and object a producer message id was recorded with (the message is forgotten when its dataset
     * retires).
     */
    Optional<RecordedMessage> recordedMessage(String messageId) {
        TrackedDataset d = messageIds.get(messageId);
        if (d == null) {
            return Optional.empty();
        }
        return Optional.of(new RecordedMessage(d.name, d.candidates.stream()
                .filter(c -> messageId.equals(c.messageId())).findFirst().orElse(null)));
    }

    /**
     * A producer message id already recorded.
     *
     * @param object the object it reported; null when not known (a checkpoint written before candidates kept their
     *               message id, or an object reported again under this id by a journal of before the URL check)
     */
    record RecordedMessage(String dataset, Candidate object) {
    }

    /** The epoch of the last dataset signalled for the first time (-1 when none). */
    int currentEpoch() {
        return currentEpoch;
    }

    /** Events (expectedEvents of first signals) assigned to {@link #currentEpoch()}. */
    long eventsInEpoch() {
        return eventsInEpoch;
    }

    ConsumerStats consumers() {
        return consumers;
    }

    History history() {
        return history;
    }

    /** The highest dataset id assigned so far (0 when none). */
    int lastDspid() {
        return lastDspid;
    }

    long lastSeq() {
        return lastSeq;
    }

    long rejectedMessages() {
        return rejectedMessages;
    }

    long unknownReports() {
        return unknownReports;
    }
}
