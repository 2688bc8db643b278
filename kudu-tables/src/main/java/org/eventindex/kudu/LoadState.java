package org.eventindex.kudu;

/**
 * The {@code state} column of DATASETS. Readers (lookups, SQL views, overlap jobs) must treat a dataset as present
 * only when its state is {@link #LOADED}: in any other state its EVENTS/DUPLICATEDEVENTS rows may be partial.
 */
public enum LoadState {
    /** A load is in progress or was interrupted; the rows of its (dspid, rgid) are incomplete. */
    LOADING,
    /** Every event of the file named by {@code load_id}/{@code hdfs_path} is in EVENTS or DUPLICATEDEVENTS. */
    LOADED
}
