package org.eventindex.gen;

import org.eventindex.names.DatasetName;

import static java.util.Objects.requireNonNull;

/**
 * What {@link DatasetGenerator} produces: one dataset of {@code files} input files with {@code eventsPerFile} events
 * each, indexed by grid jobs of {@code filesPerJob} files, some of which misbehave the way real jobs do.
 *
 * @param datasetName         a valid dataset name ({@link DatasetName}); its run number becomes the events' run
 *                            (or, with {@code simulation}, their {@code mcChannelNumber})
 * @param files               input files in the dataset (at least 1)
 * @param eventsPerFile       events in each input file before cross-file duplicates are added (at least 1)
 * @param filesPerJob         input files indexed by one job (the last job may have fewer)
 * @param duplicatedJobs      jobs with an extra earlier attempt that also reported (same GUIDs and events)
 * @param crashedJobs         jobs with an earlier attempt killed mid-write (truncated SPB, never reported)
 * @param crossFileDuplicates events of one file copied into another file (same run and event number)
 * @param simulation          Monte Carlo events ({@code isSimulation}, {@code mcChannelNumber}, {@code mcEventWeight})
 * @param seed                everything generated is a function of the spec, this included
 * @param eventSize           the seed's event sizes or today's heavier events
 */
public record GeneratorSpec(String datasetName, int files, int eventsPerFile, int filesPerJob, int duplicatedJobs,
                            int crashedJobs, int crossFileDuplicates, boolean simulation, long seed,
                            EventSize eventSize) {

    /** @throws IllegalArgumentException naming the parameter and why it is out of range */
    public GeneratorSpec {
        requireNonNull(datasetName, "datasetName is null");
        requireNonNull(eventSize, "eventSize is null");
        DatasetName.parse(datasetName);
        positive("files", files);
        positive("eventsPerFile", eventsPerFile);
        positive("filesPerJob", filesPerJob);
        int jobs = (files + filesPerJob - 1) / filesPerJob;
        range("duplicatedJobs", duplicatedJobs, jobs, "the number of jobs");
        range("crashedJobs", crashedJobs, jobs, "the number of jobs");
        if (crossFileDuplicates != 0 && files < 2) {
            throw new IllegalArgumentException("crossFileDuplicates needs at least 2 files, the spec has " + files);
        }
        range("crossFileDuplicates", crossFileDuplicates, eventsPerFile, "eventsPerFile");
        if ((long) files * eventsPerFile + crossFileDuplicates > 0xffffffffL) {
            throw new IllegalArgumentException("files * eventsPerFile must fit an SPB uint32 count");
        }
    }

    /** A spec with the seed's event sizes ({@link EventSize#SEED}). */
    public GeneratorSpec(String datasetName, int files, int eventsPerFile, int filesPerJob, int duplicatedJobs,
                         int crashedJobs, int crossFileDuplicates, boolean simulation, long seed) {
        this(datasetName, files, eventsPerFile, filesPerJob, duplicatedJobs, crashedJobs, crossFileDuplicates,
                simulation, seed, EventSize.SEED);
    }

    /**
     * A small, realistic dataset for tests and demos: 8 files of 1,000 events, 2 files per job (4 jobs), one
     * duplicated and one crashed job, 10 cross-file duplicates, seed 1. Simulation when the project starts with
     * {@code mc}. SPB bytes per event are the seed's ({@link EventSize#SEED}).
     */
    public static GeneratorSpec defaults(String datasetName) {
        requireNonNull(datasetName, "datasetName is null");
        boolean simulation = DatasetName.parse(datasetName).project().startsWith("mc");
        return new GeneratorSpec(datasetName, 8, 1_000, 2, 1, 1, 10, simulation, 1L);
    }

    /** Jobs the files are grouped into. */
    public int jobs() {
        return (files + filesPerJob - 1) / filesPerJob;
    }

    public GeneratorSpec withFaults(int newDuplicatedJobs, int newCrashedJobs, int newCrossFileDuplicates) {
        return new GeneratorSpec(datasetName, files, eventsPerFile, filesPerJob, newDuplicatedJobs, newCrashedJobs,
                newCrossFileDuplicates, simulation, seed, eventSize);
    }

    public GeneratorSpec withSeed(long newSeed) {
        return new GeneratorSpec(datasetName, files, eventsPerFile, filesPerJob, duplicatedJobs, crashedJobs,
                crossFileDuplicates, simulation, newSeed, eventSize);
    }

    public GeneratorSpec withEventSize(EventSize newEventSize) {
        return new GeneratorSpec(datasetName, files, eventsPerFile, filesPerJob, duplicatedJobs, crashedJobs,
                crossFileDuplicates, simulation, seed, newEventSize);
    }

    private static void positive(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, was " + value);
        }
    }

    private static void range(String name, int value, int max, String maxName) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(name + " must be between 0 and " + maxName + " (" + max + "), was "
                    + value);
        }
    }
}
