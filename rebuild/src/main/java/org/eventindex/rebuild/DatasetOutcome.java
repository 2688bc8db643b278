package org.eventindex.rebuild;

import java.io.Serializable;

/**
 * What a task did with one dataset.
 *
 * @param events    events of the dataset's file
 * @param skipped   the target already held this very load (a re-run, or a task attempt after a finished one)
 * @param millis    time of this dataset's load
 * @param error     why it failed (naming the dataset and the file), or null
 */
public record DatasetOutcome(String dataset, int run, long events, boolean skipped, long millis, String error)
        implements Serializable {
    public boolean failed() {
        return error != null;
    }
}
