package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;

import java.time.Duration;

/**
 * One line of {@code /datasets}: a dataset's state and progress.
 *
 * @param waitingFor       what it waits for when nothing else says it (see {@link DatasetView#waitingFor}), else null
 * @param failure          while {@code FAILED_CONSUMER}: the reason of the consumer's FAILED report, else null
 * @param permanentFailure while {@code FAILED_CONSUMER}: the consumer found the failure permanent, or it is an
 *                         internal error, so the dataset waits for an operator instead of being retried
 * @param internalError    while {@code FAILED_CONSUMER}: the failure is an internal error of the consumer (a bug):
 *                         the objects are kept, {@code resignal} re-runs it once the consumer is fixed
 */
public record DatasetSummary(
        String name,
        CollectionState state,
        int expectedFiles,
        int filesWithCandidate,
        int objectsReported,
        int selectedObjects,
        Integer dspid,
        String signalId,
        @JsonSerialize(using = ToStringSerializer.class) Duration traversalTime,
        String waitingFor,
        String failure,
        boolean permanentFailure,
        boolean internalError) {

    /** A retired dataset's line: its view has no object lists, so the number of objects read comes from it. */
    static DatasetSummary of(RetiredDataset r) {
        DatasetView v = r.view();
        return new DatasetSummary(v.name(), v.state(), v.expectedFiles(), v.filesWithCandidate(),
                v.objectsReported(), r.selectedObjects(), v.dspid(), v.signalId(), v.times().traversalTime(),
                v.waitingFor(), null, false, false);
    }

    static DatasetSummary of(DatasetView v) {
        DatasetView.ConsumerOutcome failed = v.state() == CollectionState.FAILED_CONSUMER ? v.consumer() : null;
        boolean internal = failed != null && failed.internalError();
        return new DatasetSummary(v.name(), v.state(), v.expectedFiles(), v.filesWithCandidate(), v.objectsReported(),
                v.selectedObjects().size(), v.dspid(), v.signalId(), v.times().traversalTime(), v.waitingFor(),
                failed == null ? null : failed.reason(), internal || failed != null && failed.permanent(), internal);
    }
}
