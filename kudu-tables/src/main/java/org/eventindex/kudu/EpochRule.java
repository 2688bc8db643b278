package org.eventindex.kudu;

/**
 * How epochs fill: a dataset goes to the current epoch unless that epoch already holds events and the dataset would
 * take it past the epoch's size; then the next epoch is opened. A single dataset bigger than the size gets an epoch of
 * its own. The supervisor places new datasets by it ({@code supervisor.kudu.epoch.max.events}); a rebuild that assigns
 * epochs anew places the loaded ones by it ({@code eventindex rebuild --epoch-max-events}).
 */
public final class EpochRule {
    private EpochRule() {
    }

    /**
     * @param eventsInCurrent events already in the current epoch
     * @param datasetEvents   events of the dataset to place
     * @param maxEvents       the epoch size
     * @return true when the dataset opens the next epoch
     */
    public static boolean opensNext(long eventsInCurrent, long datasetEvents, long maxEvents) {
        return eventsInCurrent > 0 && eventsInCurrent + datasetEvents > maxEvents;
    }
}
