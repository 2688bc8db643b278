package org.eventindex.supervisor;

import org.eventindex.message.DatasetManifest;
import org.eventindex.supervisor.journal.JournalEntry;
import org.eventindex.supervisor.journal.JournalEvent;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Turns journal entries into the {@link StateChange}s of the live stream; file-list comparison. Pure helpers. */
final class StateChanges {
    private StateChanges() {
    }

    /** The change an entry (already applied to {@code state}) made. */
    static StateChange of(JournalEntry e, SupervisorState state) {
        JournalEvent ev = e.event();
        String dataset = datasetOf(ev, state);
        SupervisorState.Lookup found = dataset == null ? SupervisorState.Lookup.UNKNOWN : state.lookup(dataset);
        CollectionState s = found.live().map(d -> d.state)
                .or(() -> found.retired().map(r -> CollectionState.DONE)).orElse(null);
        String detail = ev instanceof JournalEvent.MessageRejected r ? r.reason() + ": " + r.detail()
                : ev instanceof JournalEvent.ResignalRequested r ? r.reason()
                : ev instanceof JournalEvent.ObjectInvalidated r ? r.url() + ": " + r.reason()
                : ev instanceof JournalEvent.DatasetDeleted r ? (r.stepsDone().isEmpty() ? r.reason()
                        : "delete-dataset finished " + String.join(", ", r.stepsDone()))
                : ev instanceof JournalEvent.RequestAnswered r ? r.outcome() + ": " + r.detail() + " (from "
                        + new Issuer(r.brokerLogin(), r.claimedUser(), r.httpUser()).describe() + ")"
                : ev instanceof JournalEvent.ObjectReported o ? lateConflicts(o, state) : null;
        return new StateChange(e.seq(), Instant.ofEpochMilli(e.tsMillis()), ev.getClass().getSimpleName(), dataset, s,
                detail);
    }

    /** For a late object that disagrees with the signal: its conflicts; else null. */
    private static String lateConflicts(JournalEvent.ObjectReported o, SupervisorState state) {
        String url = o.info().url();
        List<String> conflicts = state.find(o.info().inputDsName()).map(d -> d.lateConflicts.stream()
                .filter(c -> c.url().equals(url)).map(LateConflict::describe).toList()).orElse(List.of());
        return conflicts.isEmpty() ? null : "late object " + url + " disagrees with the signal: "
                + String.join("; ", conflicts);
    }

    private static String datasetOf(JournalEvent ev, SupervisorState state) {
        if (ev instanceof JournalEvent.ObjectReported o) {
            return o.info().inputDsName();
        } else if (ev instanceof JournalEvent.ManifestRegistered m) {
            return m.manifest().dataset();
        } else if (ev instanceof JournalEvent.SignalPlanned p) {
            return p.signal().dataset();
        } else if (ev instanceof JournalEvent.SignalSent p) {
            return p.dataset();
        } else if (ev instanceof JournalEvent.ReportReceived r) {
            return state.findBySignal(r.report().signalId()).map(d -> d.name).orElse(r.report().dataset());
        } else if (ev instanceof JournalEvent.ResignalRequested r) {
            return r.dataset();
        } else if (ev instanceof JournalEvent.MessageRejected r) {
            return r.dataset();
        } else if (ev instanceof JournalEvent.ObjectInvalidated r) {
            return r.dataset();
        } else if (ev instanceof JournalEvent.ObjectsDeleted r) {
            return r.dataset();
        } else if (ev instanceof JournalEvent.DatasetDeleted r) {
            return r.dataset();

        } else if (ev instanceof JournalEvent.RequestAnswered r) {
            return r.dataset();
        }
        return null;
    }

    /** Same files with the same counts, in any order (a catalogue may list them in another order each time). */
    static boolean sameFiles(List<DatasetManifest.ManifestFile> a, List<DatasetManifest.ManifestFile> b) {
        if (a == null || b == null || a.size() != b.size()) {
            return a == b;
        }
        Map<String, Long> m = new HashMap<>();
        a.forEach(f -> m.put(f.guid(), f.nevents()));
        for (DatasetManifest.ManifestFile f : b) {
            if (!Long.valueOf(f.nevents()).equals(m.get(f.guid()))) {
                return false;
            }
        }
        return true;
    }
}
