package org.eventindex.lookup;

import java.util.List;
import java.util.Set;

/**
 * The datasets the supervisor tracks that are not queryable yet (collecting, held, signalled, failed), for explaining
 * a miss: a dataset that would cover the event may be on its way.
 */
interface PendingDatasets {
    /**
     * One dataset not yet done at the supervisor.
     *
     * @param state   the supervisor's state (COLLECTING, HELD, SIGNAL_PLANNED, SIGNALLED, FAILED_CONSUMER)
     * @param missing   what it still waits for, in words
     * @param queryable the supervisor's estimate of when it will be loaded ({@code /progress}), null when it has none
     * @param estimate  how the supervisor estimated it, or why it has none; null from a supervisor without
     *                  {@code /progress}
     */
    record Pending(String name, int run, String state, String missing, java.time.Instant queryable,
                   String estimate) {
    }

    /**
     * What the supervisor said about {@code runs}.
     *
     * @param caveat null when the supervisor answered; else why it is not known (not configured, not answering)
     */
    record Answer(List<Pending> datasets, String caveat) {
        public Answer {
            datasets = List.copyOf(datasets);
        }
    }

    /** The pending datasets of these runs (DATASETS run numbers: the dataset number for simulation). */
    Answer pending(Set<Integer> runs);

    /** No supervisor configured. */
    PendingDatasets NONE = runs -> new Answer(List.of(), "datasets still collecting at the supervisor are not known:"
            + " no --supervisor-url");
}
