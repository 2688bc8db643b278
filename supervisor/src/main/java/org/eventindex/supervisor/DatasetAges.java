package org.eventindex.supervisor;

import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * How long datasets have waited, per state that is not DONE: the age of the oldest one (since its first object or
 * manifest) and the longest time one has spent in the state (since it entered it, {@link TrackedDataset#stateSince()}).
 */
final class DatasetAges {
    private DatasetAges() {
    }

    /**
     * For each state but DONE, the age in seconds at {@code now} of its oldest dataset, counted from the dataset's
     * first object or its manifest, whichever came first (0 when no dataset is in the state, or none has a time).
     */
    static Map<CollectionState, Double> oldest(Collection<TrackedDataset> datasets, long now) {
        return longest(datasets, now, DatasetAges::firstSeen);
    }

    /**
     * For each state but DONE, the longest time in seconds at {@code now} that a dataset now in it has spent in it
     * (0 when no dataset is in the state). A backlog of datasets that each move on keeps this low however old they
     * are; one dataset that stays makes it grow.
     */
    static Map<CollectionState, Double> longestInState(Collection<TrackedDataset> datasets, long now) {
        return longest(datasets, now, TrackedDataset::stateSince);
    }

    private static Map<CollectionState, Double> longest(Collection<TrackedDataset> datasets, long now,
                                                        ToLongFunction<TrackedDataset> since) {
        Map<CollectionState, Double> out = new EnumMap<>(CollectionState.class);
        for (CollectionState s : CollectionState.values()) {
            if (s != CollectionState.DONE) {
                out.put(s, 0.0);
            }
        }
        for (TrackedDataset d : datasets) {
            long from = since.applyAsLong(d);
            if (d.state != CollectionState.DONE && from >= 0) {
                out.merge(d.state, Math.max(0, now - from) / 1000.0, Math::max);
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
