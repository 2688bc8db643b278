package org.eventindex.kudu;

import org.eventindex.names.DatasetName;

import static java.util.Objects.requireNonNull;

/**
 * One dataset to load into Kudu.
 *
 * @param dataset the dataset, {@code _tid}/{@code _sub} suffix included (it is part of the DATASETS key)
 * @param dspid   dataset id assigned by the supervisor; the first key column of EVENTS
 * @param epoch   the range (rgid) the events go to
 * @param loadId  identifies the content being loaded (the consumer signal id): loading the same dataset again with
 *                the same loadId after it is LOADED does nothing
 * @param source  the consolidated dataset file
 * @param selectedAt when the supervisor selected this content (the signal's {@code ts}, ms); a load of an older
 *                selection than the one DATASETS holds is refused ({@link DatasetLoader}). 0 when unknown (the
 *                kudu-loader command): no ordering check, and the stored selection time is left as it is
 */
public record LoadRequest(DatasetName dataset, int dspid, int epoch, String loadId, DatasetSource source,
                          long selectedAt) {
    /** A load without a selection time (an operator's reload from HDFS). */
    public LoadRequest(DatasetName dataset, int dspid, int epoch, String loadId, DatasetSource source) {
        this(dataset, dspid, epoch, loadId, source, 0);
    }

    public LoadRequest {
        if (selectedAt < 0) {
            throw new IllegalArgumentException("selectedAt is negative for dataset " + dataset + ": " + selectedAt);
        }
        requireNonNull(dataset, "dataset is null");
        requireNonNull(loadId, "loadId is null");
        requireNonNull(source, "source is null");
        if (loadId.isBlank()) {
            throw new IllegalArgumentException("loadId is blank for dataset " + dataset);
        }
        KuduTables.checkEpoch(epoch);
    }
}
