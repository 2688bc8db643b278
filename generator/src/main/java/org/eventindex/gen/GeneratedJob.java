package org.eventindex.gen;

import java.nio.file.Path;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * One attempt of a grid job and the SPB file it left behind.
 *
 * @param taskID  {@code <taskNumber>.<flavor>}, e.g. {@code 12345678.G}
 * @param jobID   {@code PandaID.attemptNr}; every attempt has its own
 * @param spbFile the SPB file the indexing step wrote (truncated for {@link Outcome#CRASHED})
 * @param guids   the input files the job indexed, in file order
 * @param outcome whether a producer ran for this attempt
 */
public record GeneratedJob(String taskID, String jobID, Path spbFile, List<String> guids, Outcome outcome) {

    /** What happened to the attempt. */
    public enum Outcome {
        /** The SPB file is complete; the producer stores it and reports. */
        REPORTED,
        /** The job was killed while writing: the SPB file is cut off and no producer runs. */
        CRASHED
    }

    public GeneratedJob {
        requireNonNull(taskID, "taskID is null");
        requireNonNull(jobID, "jobID is null");
        requireNonNull(spbFile, "spbFile is null");
        guids = List.copyOf(requireNonNull(guids, "guids is null"));
        requireNonNull(outcome, "outcome is null");
    }
}
