package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.names.DatasetName;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Builds the immutable {@link DatasetView} of a {@link TrackedDataset}. */
final class DatasetViews {
    /** {@link DatasetView#waitingFor} of a dataset without a file list: it cannot complete before one arrives. */
    static final String WAITING_FOR_FILE_LIST = "file list (no manifest registered and no catalogue entry)";

    private DatasetViews() {
    }

    /** Every dataset's view, live and retired, sorted by name. */
    static List<DatasetView> all(SupervisorState state) {
        return Stream.concat(state.all().stream().map(DatasetViews::of),
                state.retired().stream().map(RetiredDataset::view))
                .sorted(Comparator.comparing(DatasetView::name)).toList();
    }

    /**
     * One line per dataset in one of {@code states} (all of them when empty), live and retired (whose state is DONE),
     * sorted by name.
     */
    static List<DatasetSummary> summaries(SupervisorState state, Set<CollectionState> states) {
        boolean retired = states.isEmpty() || states.contains(CollectionState.DONE);
        return Stream.concat(state.all().stream().filter(d -> states.isEmpty() || states.contains(d.state))
                                .map(d -> DatasetSummary.of(of(d))),
                        retired ? state.retired().stream().map(DatasetSummary::of) : Stream.empty())
                .sorted(Comparator.comparing(DatasetSummary::name)).toList();
    }

    static DatasetView of(TrackedDataset d) {
        Selection sel = d.selection();
        ConsumerSignal s = d.signal;
        DatasetView.Timeline times = new DatasetView.Timeline(instant(d.firstObjectAt), instant(d.lastObjectAt),
                instant(d.manifestAt), instant(d.plannedAt), instant(d.sentAt), instant(d.doneAt),
                d.doneAt >= 0 && d.firstObjectAt >= 0 ? Duration.ofMillis(d.doneAt - d.firstObjectAt) : null);
        DatasetView.ConsumerOutcome outcome = DatasetView.ConsumerOutcome.of(d.lastReport, instant(d.lastReportAt));
        return new DatasetView(
                d.name,
                s != null ? s.container() : container(d.name),
                d.state,
                sel.expectedFiles(),
                sel.filesWithCandidate(),
                sel.missingGuids(),
                d.objectsReported(),
                s != null ? s.objects() : sel.objects(),
                sel.unusedObjects().stream().filter(u -> !d.lateObjects.contains(u)).toList(),
                d.lateObjects,
                d.lateConflicts,
                sel.invalidClaims(),
                sel.unexpectedGuids(),
                s != null ? s.expectedEvents() : sel.expectedEvents(),
                s != null ? Integer.valueOf(s.dspid()) : d.dspid >= 0 ? Integer.valueOf(d.dspid) : null,
                s != null ? Integer.valueOf(s.epoch()) : d.epoch >= 0 ? Integer.valueOf(d.epoch) : null,
                s != null ? s.signalId() : null,
                d.resignals,
                times,
                outcome,
                d.invalidObjects,
                sel.conflicts(),
                d.state == CollectionState.HELD ? sel.conflicts().stream().map(Conflict::reason)
                        .collect(Collectors.joining("; ")) : null,
                d.supersededSignals,
                d.failures,
                d.automaticResignals,
                d.lastResignalReason,
                d.deletedObjects.size(),
                null,
                d.manifest == null ? WAITING_FOR_FILE_LIST : null,
                null);
    }

    private static String container(String name) {
        try {
            return DatasetName.parse(name).container();
        } catch (IllegalArgumentException e) {
            return null; // recorded under older naming rules; the view still shows everything else
        }
    }

    private static Instant instant(long millis) {
        return millis < 0 ? null : Instant.ofEpochMilli(millis);
    }
}
