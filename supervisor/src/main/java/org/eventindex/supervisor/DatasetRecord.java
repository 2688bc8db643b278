package org.eventindex.supervisor;

import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest.ManifestFile;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What the supervisor knows of one dataset. Mutable, owned by {@link SupervisorState} and changed only by replaying
 * journal entries; read under the engine's lock. Times are epoch milliseconds from journal entries, -1 when unset.
 */
final class DatasetRecord {
    final String name;
    List<ManifestFile> manifest;
    long manifestAt = -1;
    /** Objects reported while the dataset was collecting, in journal order: the selection's input. */
    final List<Candidate> candidates = new ArrayList<>();
    /** Objects reported after the dataset was signalled: recorded, never read. */
    final List<String> lateObjects = new ArrayList<>();
    final Set<String> urls = new HashSet<>();
    long firstObjectAt = -1;
    long lastObjectAt = -1;
    DatasetState state = DatasetState.COLLECTING;
    ConsumerSignal signal;
    long plannedAt = -1;
    long sentAt = -1;
    int resignals;
    ConsumerReport lastReport;
    long lastReportAt = -1;
    long doneAt = -1;

    DatasetRecord(String name) {
        this.name = Objects.requireNonNull(name, "name is null");
    }

    boolean signalled() {
        return signal != null;
    }

    int objectsReported() {
        return candidates.size() + lateObjects.size();
    }

    /** The selection over the objects reported before the signal (for a signalled dataset: the signalled one). */
    Selection selection() {
        return DatasetSelection.select(manifest, candidates);
    }
}
