package org.eventindex.supervisor;

import org.eventindex.message.ConsumerReport;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the supervisor keeps of a dataset once it is finished for good: {@code DONE} and every object of it deleted by
 * the cleanup. Nothing can happen to such a dataset any more (it cannot be re-signalled, re-selected or invalidated;
 * its HDFS file is reloaded with the kudu-loader), so its objects, claims, file list and signal are dropped from memory
 * and from checkpoints; ids, counts, times and the consumer's last report stay, for {@code /datasets/<name>}. The
 * journal's archived segments hold the rest. Times are epoch milliseconds, -1 when unset.
 */
record RetiredDataset(String name, String container, int dspid, int epoch, String signalId, int expectedFiles,
                      int objectsReported, int selectedObjects, long expectedEvents, int resignals,
                      int automaticResignals, String lastResignalReason, int supersededSignals, int invalidObjects,
                      int deletedObjects, long firstObjectAt, long lastObjectAt, long manifestAt, long plannedAt,
                      long sentAt, long doneAt, long deletedAt, ConsumerReport lastReport, long lastReportAt) {

    RetiredDataset {
        Objects.requireNonNull(name, "name is null");
        Objects.requireNonNull(signalId, "signalId is null");
    }

    /** The record of a DONE dataset whose objects are all deleted. */
    static RetiredDataset of(TrackedDataset d) {
        if (d.state != CollectionState.DONE || d.signal == null) {
            throw new IllegalStateException("dataset " + d.name + " is " + d.state + "; only a DONE dataset retires");
        }
        return new RetiredDataset(d.name, d.signal.container(), d.dspid, d.epoch, d.signal.signalId(),
                d.manifest == null ? -1 : d.manifest.size(), d.objectsReported(), d.signal.objects().size(),
                d.signal.expectedEvents(), d.resignals, d.automaticResignals, d.lastResignalReason,
                d.supersededSignals.size(), d.invalidObjects.size(), d.deletedObjects.size(), d.firstObjectAt,
                d.lastObjectAt, d.manifestAt, d.plannedAt, d.sentAt, d.doneAt, d.deletedAt, d.lastReport,
                d.lastReportAt);
    }

    /** The view served for it: counts, ids and times; the lists of objects and claims are empty (not kept). */
    DatasetView view() {
        DatasetView.Timeline times = new DatasetView.Timeline(instant(firstObjectAt), instant(lastObjectAt),
                instant(manifestAt), instant(plannedAt), instant(sentAt), instant(doneAt),
                doneAt >= 0 && firstObjectAt >= 0 ? Duration.ofMillis(doneAt - firstObjectAt) : null);
        DatasetView.ConsumerOutcome outcome = DatasetView.ConsumerOutcome.of(lastReport, instant(lastReportAt));
        return new DatasetView(name, container, CollectionState.DONE, expectedFiles, Math.max(expectedFiles, 0),
                List.of(), objectsReported, List.of(), List.of(), List.of(), List.of(), List.of(), List.of(),
                expectedEvents, dspid, epoch, signalId, resignals, times, outcome, Map.of(), List.of(), null, List.of(), 0,
                automaticResignals, lastResignalReason, deletedObjects, instant(deletedAt), null, null);
    }

    /** Why a message naming this dataset is refused: {@code what} says what it asked for and what becomes of it. */
    Rejection refusal(String what, String messageId) {
        return new Rejection(RejectReason.DATASET_RETIRED, "dataset " + name + " is finished: DONE (dspid " + dspid
                + ") and its objects deleted at " + instant(deletedAt) + "; " + what, messageId, name);
    }

    private static Instant instant(long millis) {
        return millis < 0 ? null : Instant.ofEpochMilli(millis);
    }
}
