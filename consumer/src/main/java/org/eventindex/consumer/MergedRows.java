package org.eventindex.consumer;

import org.eventindex.consolidated.ConsolidatedMetadata;

import java.io.IOException;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Receives the rows of a consolidated file as the merge writes them, on the merging thread, besides the file: what
 * the Kudu load overlapping the merge takes ({@link LoadFeed}). It may block the merge (a bounded hand-off).
 */
interface MergedRows {

    /**
     * Before the first row: what the file's footer will say (its counts of events, runs and simulated events, its
     * files and trigger menus; not its rows' digest, which is {@code ""} here).
     */
    void begin(ConsolidatedMetadata footer) throws IOException;

    /**
     * The next rows in file order; {@code rows} and their events are reused after the call returns.
     *
     * @param guidName the GUID of an input file by its index ({@link MergePipeline.Row#guid})
     */
    void rows(List<MergePipeline.Row> rows, IntFunction<String> guidName) throws IOException;
}
