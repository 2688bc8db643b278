package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;

import java.time.Duration;

/**
 * One line of {@code /datasets}: a dataset's state and progress.
 *
 * @param waitingFor what it waits for when nothing else says it (see {@link DatasetView#waitingFor}), else null
 */
public record DatasetSummary(
        String name,
        DatasetState state,
        int expectedFiles,
        int filesWithCandidate,
        int objectsReported,
        int selectedObjects,
        Integer dspid,
        String signalId,
        @JsonSerialize(using = ToStringSerializer.class) Duration traversalTime,
        String waitingFor) {

    /** A retired dataset's line: its view has no object lists, so the number of objects read comes from it. */
    static DatasetSummary of(RetiredDataset r) {
        DatasetView v = r.view();
        return new DatasetSummary(v.name(), v.state(), v.expectedFiles(), v.filesWithCandidate(),
                v.objectsReported(), r.selectedObjects(), v.dspid(), v.signalId(), v.times().traversalTime(),
                v.waitingFor());
    }

    static DatasetSummary of(DatasetView v) {
        return new DatasetSummary(v.name(), v.state(), v.expectedFiles(), v.filesWithCandidate(), v.objectsReported(),
                v.selectedObjects().size(), v.dspid(), v.signalId(), v.times().traversalTime(), v.waitingFor());
    }
}
