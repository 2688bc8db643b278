package org.eventindex.supervisor;

import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest.ManifestFile;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What the supervisor knows of one dataset. Mutable, owned by {@link SupervisorState} and changed only by replaying
 * journal entries; read under the engine's lock. Times are epoch milliseconds from journal entries, -1 when unset.
 */
final class TrackedDataset {
    final String name;
    List<ManifestFile> manifest;
    long manifestAt = -1;
    /** Every object reported for the dataset, in journal order (late ones too: they compete after a re-selection). */
    final List<Candidate> candidates = new ArrayList<>();
    /** Objects reported while the dataset had a signal: recorded, not read unless a re-selection picks them. */
    final List<String> lateObjects = new ArrayList<>();
    /**
     * The claims of the late objects that disagree with the signal's claim on the same file, in the order reported;
     * derived from {@link #lateObjects}, the candidates and the signal, so checkpoints do not hold them.
     */
    final List<LateConflict> lateConflicts = new ArrayList<>();
    final Set<String> urls = new HashSet<>();
    /** The producer message ids recorded for the dataset (forgotten when it retires). */
    final List<String> messageIds = new ArrayList<>();
    /** Objects that must never be selected again, with the reason. */
    final Map<String, String> invalidObjects = new LinkedHashMap<>();
    /** Objects the cleanup deleted. */
    final Set<String> deletedObjects = new LinkedHashSet<>();
    /** Signals replaced by a re-selection (their reports are recorded and ignored). */
    final List<String> supersededSignals = new ArrayList<>();
    long firstObjectAt = -1;
    long lastObjectAt = -1;
    CollectionState state = CollectionState.COLLECTING;
    /**
     * When the dataset entered {@link #state} (the journal entry's time), -1 when not seen since the supervisor
     * started: not kept by checkpoints, so {@link #stateSince()} falls back to the times that are.
     */
    private long stateSince = -1;
    /** The state {@link #stateSince} belongs to. */
    private CollectionState stateSinceOf;
    ConsumerSignal signal;
    /** dspid and epoch assigned at the first signal; kept by later signals of the same dataset. */
    int dspid = -1;
    int epoch = -1;
    long plannedAt = -1;
    /** The {@code ts} of the latest signal planned for the dataset (kept when it is superseded); -1 before any. */
    long lastSignalTs = -1;
    long sentAt = -1;
    int resignals;
    int automaticResignals;
    String lastResignalReason;
    /** FAILED reports since the signal was planned or an operator re-signalled it. */
    int failures;
    ConsumerReport lastReport;
    long lastReportAt = -1;
    long doneAt = -1;
    long deletedAt = -1;
    /** {@link #selection()} kept up to date per object instead of recomputed (decision 0035). */
    private final LiveSelection live = new LiveSelection();

    TrackedDataset(String name) {
        this.name = Objects.requireNonNull(name, "name is null");
    }

    boolean signalled() {
        return signal != null;
    }

    int objectsReported() {
        return candidates.size();
    }

    /** The objects that may still be selected, in journal order. */
    List<Candidate> validCandidates() {
        if (invalidObjects.isEmpty()) {
            return candidates;
        }
        return candidates.stream().filter(c -> !invalidObjects.containsKey(c.url())).toList();
    }

    /** The selection over every valid object (for a signalled dataset the chosen files are the signal's). */
    Selection selection() {
        return live().selection();
    }

    /**
     * Whether the selection over every valid object and {@code c} (an object not recorded yet, later than every
     * recorded one) is complete; costs {@code c}'s files, not the dataset's.
     */
    boolean completeWith(Candidate c) {
        return live().completeWith(c);
    }

    /** After a change to the objects or the manifest of an unsignalled dataset at {@code ts}: COLLECTING or HELD. */
    void refreshCollectingState(long ts) {
        if (!signalled()) {
            state = live().held() ? CollectionState.HELD : CollectionState.COLLECTING;
        }
        noteState(ts);
    }

    /** Records {@code ts} as the time the dataset entered its state when the state changed since the last note. */
    void noteState(long ts) {
        if (state != stateSinceOf) {
            stateSinceOf = state;
            stateSince = ts;
        }
    }

    /**
     * When the dataset entered its current state, in epoch milliseconds; -1 when unknown. Noted at each change since
     * the supervisor started; for a dataset restored from a checkpoint and unchanged since, the time of the entry
     * that led to the state (SIGNAL_PLANNED: planned, SIGNALLED: sent, DONE and FAILED_CONSUMER: the report,
     * COLLECTING and HELD: the first object or manifest).
     */
    long stateSince() {
        if (stateSinceOf == state && stateSince >= 0) {
            return stateSince;
        }
        return switch (state) {
            case SIGNAL_PLANNED -> plannedAt;
            case SIGNALLED -> sentAt >= 0 ? sentAt : plannedAt;
            case DONE -> doneAt >= 0 ? doneAt : lastReportAt;
            case FAILED_CONSUMER -> lastReportAt;
            case COLLECTING, HELD -> DatasetAges.firstSeen(this);
        };
    }

    /** The incremental selection, brought up to date with the manifest, the candidates and the invalid objects. */
    private LiveSelection live() {
        live.sync(manifest, candidates, invalidObjects);
        return live;
    }

    /** The signal no longer matches the selection at {@code ts}; the dataset collects again (dspid and epoch kept). */
    void supersedeSignal(long ts) {
        if (signal != null) {
            supersededSignals.add(signal.signalId());
            signal = null;
            sentAt = -1;
            plannedAt = -1;
            failures = 0;
            doneAt = -1;
            lateObjects.clear();
            lateConflicts.clear();
            state = CollectionState.COLLECTING;
            noteState(ts);
        }
    }
}
