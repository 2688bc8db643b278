package org.eventindex.gen;

import org.eventindex.message.DatasetManifest;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What {@link DatasetGenerator#generate} wrote, and the numbers a complete, correct collection must reproduce.
 *
 * @param jobs                 every job attempt in job order, earlier attempts first
 * @param manifest             the dataset's input files (GUID and event count), in file order
 * @param expectedEvents       sum of the events of all files in the manifest (cross-file copies included)
 * @param expectedUniqueEvents distinct (run, event) across the dataset
 * @param crossFileDuplicates  events present in two files of the dataset
 * @param spbBytes             bytes of the REPORTED SPB files (duplicated attempts included, crashed ones not)
 * @param spbEvents            events in the REPORTED SPB files
 */
public record GeneratedDataset(String datasetName, List<GeneratedJob> jobs,
                               List<DatasetManifest.ManifestFile> manifest, long expectedEvents,
                               long expectedUniqueEvents, long crossFileDuplicates, long spbBytes, long spbEvents) {

    public GeneratedDataset {
        requireNonNull(datasetName, "datasetName is null");
        jobs = List.copyOf(requireNonNull(jobs, "jobs is null"));
        manifest = List.copyOf(requireNonNull(manifest, "manifest is null"));
    }

    /** The manifest as the control message that registers the dataset with the supervisor. */
    public DatasetManifest manifestMessage() {
        return new DatasetManifest(DatasetManifest.TYPE, datasetName, manifest);
    }

    /** Gzip SPB bytes per event over the REPORTED files (the experiment's files: 100-150). */
    public double bytesPerEvent() {
        return spbEvents == 0 ? 0 : (double) spbBytes / spbEvents;
    }

    /** The attempts with the given outcome, in job order. */
    public List<GeneratedJob> jobs(GeneratedJob.Outcome outcome) {
        requireNonNull(outcome, "outcome is null");
        return jobs.stream().filter(j -> j.outcome() == outcome).toList();
    }
}
