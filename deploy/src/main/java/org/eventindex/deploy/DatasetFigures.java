package org.eventindex.deploy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What the demo measured for one dataset, each figure taken from the component that owns it (the generator's plan,
 * the S3 server's GET counts, HDFS listings, Kudu row counts, the supervisor's timeline), and the checks between them.
 *
 * @param objectsProduced   producer objects stored (one per reporting job attempt, retries included)
 * @param objectsRead       objects the S3 server served to consumers at least once
 * @param objectsSelected   objects the supervisor signalled
 * @param hdfsFiles         files in the dataset's container directory whose name is the dataset's
 * @param eventsInKudu      EVENTS (MCEVENTS for simulation) rows of the dataset
 * @param expectedUnique    distinct (run, event) of the dataset, from the generator
 * @param duplicatesInKudu  DUPLICATEDEVENTS rows of the dataset
 * @param expectedDuplicates events present twice in the dataset (across files), from the generator
 */
public record DatasetFigures(String dataset, int files, int objectsProduced, int objectsRead, int objectsSelected,
                             int hdfsFiles, long eventsInKudu, long expectedUnique, long duplicatesInKudu,
                             long expectedDuplicates, Duration traversal) {

    /** Each disagreement, in words; empty when every count is right. */
    public List<String> problems() {
        List<String> p = new ArrayList<>();
        if (hdfsFiles != 1) {
            p.add(dataset + ": " + hdfsFiles + " HDFS files, expected exactly 1");
        }
        if (eventsInKudu != expectedUnique) {
            p.add(dataset + ": " + eventsInKudu + " EVENTS/MCEVENTS rows, expected " + expectedUnique + " unique events");
        }
        if (duplicatesInKudu != expectedDuplicates) {
            p.add(dataset + ": " + duplicatesInKudu + " DUPLICATEDEVENTS rows, expected " + expectedDuplicates);
        }
        if (objectsRead != objectsSelected) {
            p.add(dataset + ": " + objectsRead + " objects read from S3, but " + objectsSelected + " were selected");
        }
        return p;
    }

    public int duplicatesSkipped() {
        return objectsProduced - objectsRead;
    }
}
