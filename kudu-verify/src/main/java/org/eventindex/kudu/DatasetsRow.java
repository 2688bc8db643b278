package org.eventindex.kudu;

import java.time.Instant;

/**
 * The loader's view of one DATASETS row. Counts and {@code insertEnd} are null until the dataset is
 * {@link LoadState#LOADED}. Serializable: a Spark rebuild sends the rows it replays to its executors.
 *
 * @param dataset         full dataset name, rebuilt from the key columns
 * @param uniqDuplEvents  distinct event numbers that occur more than once in the dataset
 * @param numDuplicates   rows in DUPLICATEDEVENTS (occurrences after the first)
 * @param signalTs        when the supervisor selected the content of the latest load (null: unknown)
 * @param contentChecksum the checksum of the rows the LOADED load wrote (null: not LOADED, or loaded by a version
 *                        that did not record it)
 */
public record DatasetsRow(String dataset, int dspid, int rgid, LoadState state, String loadId, String hdfsPath,
                            Long countEvents, Long uniqDuplEvents, Long numDuplicates, Instant insertStart,
                            Instant insertEnd, Long signalTs, Long contentChecksum) implements java.io.Serializable {

    /** A row without a recorded checksum. */
    public DatasetsRow(String dataset, int dspid, int rgid, LoadState state, String loadId, String hdfsPath,
                         Long countEvents, Long uniqDuplEvents, Long numDuplicates, Instant insertStart,
                         Instant insertEnd, Long signalTs) {
        this(dataset, dspid, rgid, state, loadId, hdfsPath, countEvents, uniqDuplEvents, numDuplicates, insertStart,
                insertEnd, signalTs, null);
    }

    /** A row without a selection time. */
    public DatasetsRow(String dataset, int dspid, int rgid, LoadState state, String loadId, String hdfsPath,
                         Long countEvents, Long uniqDuplEvents, Long numDuplicates, Instant insertStart,
                         Instant insertEnd) {
        this(dataset, dspid, rgid, state, loadId, hdfsPath, countEvents, uniqDuplEvents, numDuplicates, insertStart,
                insertEnd, null, null);
    }

    public boolean isLoaded() {
        return state == LoadState.LOADED;
    }
}
