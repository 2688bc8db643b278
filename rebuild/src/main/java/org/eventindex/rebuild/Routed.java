package org.eventindex.rebuild;

import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.StagedReplay;

import java.io.Serializable;

/**
 * What a decide task hands to Spark's shuffle: a chunk of decided rows of one tablet (keyed by its number, so the
 * chunk goes to the write task of that tablet), or, once a dataset is decided, what {@link StagedReplay#finish}
 * needs (keyed apart from the tablets, passed through by the write task to the driver).
 *
 * @param key     the tablet's number ({@link TabletRoutes}), or a negative key for a decided dataset
 * @param table   the rows' table ({@link TabletRoutes#table})
 * @param rows    encoded rows of that tablet ({@link RowCodec}), or null
 * @param decided the decided dataset, or null
 */
record Routed(int key, int table, byte[][] rows, Decision decided) implements Serializable {

    /**
     * A dataset decided: what its file gave ({@code decided}), or why it failed ({@code error}, naming the dataset and
     * its file), and the time spent on it so far.
     */
    record Decision(DatasetsRow row, int run, StagedReplay.Decided decided, long millis, String error)
            implements Serializable {
    }
}
