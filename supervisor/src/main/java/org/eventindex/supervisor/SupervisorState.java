package org.eventindex.supervisor;

import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.ProducerInfo;
import org.eventindex.supervisor.journal.JournalEntry;
import org.eventindex.supervisor.journal.JournalEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
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

    private final Map<String, DatasetRecord> datasets = new TreeMap<>();
    private final Map<String, DatasetRecord> bySignal = new HashMap<>();
    private final Set<String> messageIds = new HashSet<>();
    private final ConsumerStats consumers = new ConsumerStats();
    private int lastDspid;
    private int currentEpoch = -1;
    private long eventsInEpoch;
    private long lastSeq;
    private long rejectedMessages;
    private long unknownReports;

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
            DatasetRecord d = dataset(e.manifest().dataset());
            d.supersedeSignal();
            d.manifest = e.manifest().files();
            d.manifestAt = ts;
            d.refreshCollectingState();
        } else if (event instanceof JournalEvent.ObjectInvalidated e) {
            DatasetRecord d = dataset(e.dataset());
            d.invalidObjects.put(e.url(), e.reason());
            if (d.signalled() && d.signal.objects().stream().anyMatch(o -> o.url().equals(e.url()))) {
                d.supersedeSignal();
            }
            d.refreshCollectingState();
        } else if (event instanceof JournalEvent.ObjectsDeleted e) {
            DatasetRecord d = dataset(e.dataset());
            d.deletedObjects.addAll(e.urls());
            d.deletedAt = ts;
        } else if (event instanceof JournalEvent.SignalPlanned e) {
            ConsumerSignal s = e.signal();
            DatasetRecord d = dataset(s.dataset());
            boolean firstSignal = d.dspid < 0;
            d.signal = s;
            d.lastSignalTs = Math.max(d.lastSignalTs, s.ts());
            d.dspid = s.dspid();
            d.epoch = s.epoch();
            d.state = DatasetState.SIGNAL_PLANNED;
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
            DatasetRecord d = bySignal.get(e.signalId());
            if (d != null && d.signalled() && d.signal.signalId().equals(e.signalId())) {
                d.sentAt = ts;
                if (d.state == DatasetState.SIGNAL_PLANNED) {
                    d.state = DatasetState.SIGNALLED;
                }
            }
        } else if (event instanceof JournalEvent.ReportReceived e) {
            reportReceived(ts, e.report());
        } else if (event instanceof JournalEvent.ResignalRequested e) {
            DatasetRecord d = bySignal.get(e.signalId());
            if (d != null && d.signalled() && d.signal.signalId().equals(e.signalId())) {
                d.state = DatasetState.SIGNAL_PLANNED;
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
        }
    }

    private void objectReported(long seq, long ts, JournalEvent.ObjectReported e) {
        messageIds.add(e.messageId());
        ProducerInfo info = e.info();
        DatasetRecord d = dataset(info.inputDsName());
        if (!d.urls.add(info.url())) {
            return;
        }
        d.candidates.add(new Candidate(info.url(), info.size(), seq, info.guids()));
        if (d.signalled()) {
            d.lateObjects.add(info.url());
        } else {
            d.refreshCollectingState();
        }
        if (d.firstObjectAt < 0) {
            d.firstObjectAt = ts;
        }
        d.lastObjectAt = ts;
    }

    private void reportReceived(long ts, ConsumerReport r) {
        consumers.report(r, ts);
        DatasetRecord d = bySignal.get(r.signalId());
        if (d == null) {
            unknownReports++;
            return;
        }
        if (!d.signalled() || !d.signal.signalId().equals(r.signalId())) {
            LOG.debug("dataset {}: report {} for superseded signal {} ignored", d.name, r.status(), r.signalId());
            return;
        }
        if (ConsumerReport.DONE.equals(r.status())) {
            d.state = DatasetState.DONE;
            d.lastReport = r;
            d.lastReportAt = ts;
            if (d.doneAt < 0) {
                d.doneAt = ts;
            }
        } else if (d.state != DatasetState.DONE) {
            d.state = DatasetState.FAILED_CONSUMER;
            d.failures++;
            d.lastReport = r;
            d.lastReportAt = ts;
        } else {
            LOG.debug("dataset {}: FAILED report for signal {} after DONE ignored", d.name, r.signalId());
        }
    }

    private DatasetRecord dataset(String name) {
        return datasets.computeIfAbsent(name, DatasetRecord::new);
    }

    Optional<DatasetRecord> find(String name) {
        return Optional.ofNullable(datasets.get(name));
    }

    Optional<DatasetRecord> findBySignal(String signalId) {
        return Optional.ofNullable(bySignal.get(signalId));
    }

    /** Datasets sorted by name. */
    Collection<DatasetRecord> all() {
        return Collections.unmodifiableCollection(datasets.values());
    }

    boolean seenMessage(String messageId) {
        return messageIds.contains(messageId);
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
