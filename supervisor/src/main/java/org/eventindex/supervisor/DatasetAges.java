package org.eventindex.supervisor;

import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;

/** How long datasets have waited: the age of the oldest one in each state that is not DONE. */
final class DatasetAges {
    private DatasetAges() {
    }

    /**
     * For each state but DONE, the age in seconds at {@code now} of its oldest dataset, counted from the dataset's
     * first object or its manifest, whichever came first (0 when no dataset is in the state, or none has a time).
     */
    static Map<CollectionState, Double> oldest(Collection<TrackedDataset> datasets, long now) {
        Map<CollectionState, Double> out = new EnumMap<>(CollectionState.class);
        for (CollectionState s : CollectionState.values()) {
            if (s != CollectionState.DONE) {
                out.put(s, 0.0);
            }
        }
        for (TrackedDataset d : datasets) {
            long since = firstSeen(d);
            if (d.state != CollectionState.DONE && since >= 0) {
                out.merge(d.state, Math.max(0, now - since) / 1000.0, Math::max);
            }
        }
        return out;
    }

    /** The first object's or the manifest's time, whichever is earlier; -1 when neither is known. */
    static long firstSeen(TrackedDataset d) {
        if (d.firstObjectAt < 0) {
            return d.manifestAt;
        }
        return d.manifestAt < 0 ? d.firstObjectAt : Math.min(d.firstObjectAt, d.manifestAt);
    }
}
