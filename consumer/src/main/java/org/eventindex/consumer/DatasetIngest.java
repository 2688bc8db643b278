package org.eventindex.consumer;

import org.apache.hadoop.fs.Path;

import java.io.IOException;

/** Loads a dataset's consolidated HDFS file into the query store (Kudu). Must be idempotent per signal id. */
public interface DatasetIngest {

    /**
     * @param file the committed consolidated file
     * @throws IOException naming the dataset and file when the load fails; the dataset is then not marked loaded
     */
    Loaded ingest(ValidSignal signal, Path file) throws IOException;

    /**
     * @param eventsLoaded    rows of the dataset in EVENTS (or MCEVENTS) after the load
     * @param duplicateEvents rows of the dataset in DUPLICATEDEVENTS after the load
     */
    record Loaded(long eventsLoaded, long duplicateEvents) {
    }
}
