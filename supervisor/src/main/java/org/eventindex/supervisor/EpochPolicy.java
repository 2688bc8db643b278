package org.eventindex.supervisor;

import org.eventindex.kudu.EpochRule;

/**
 * Which Kudu range (epoch) a dataset signalled for the first time goes to. Pure: the state's current epoch and the
 * events already assigned to it come from the journal fold, so a restart continues the same epoch.
 * <p>
 * A dataset goes to the current epoch (at least {@code initialEpoch}), or opens the next one, by {@link EpochRule}
 * with {@code maxEvents}. Datasets signalled again keep their epoch.
 */
final class EpochPolicy {
    private final int initialEpoch;
    private final long maxEvents;

    EpochPolicy(int initialEpoch, long maxEvents) {
        if (initialEpoch < 0 || maxEvents < 1) {
            throw new IllegalArgumentException("initial epoch must be >= 0 and max events >= 1: " + initialEpoch
                    + ", " + maxEvents);
        }
        this.initialEpoch = initialEpoch;
        this.maxEvents = maxEvents;
    }

    int epochFor(int currentEpoch, long eventsInCurrent, long expectedEvents) {
        if (currentEpoch < initialEpoch) {
            return initialEpoch;
        }
        if (EpochRule.opensNext(eventsInCurrent, expectedEvents, maxEvents)) {
            return currentEpoch + 1;
        }
        return currentEpoch;
    }
}
