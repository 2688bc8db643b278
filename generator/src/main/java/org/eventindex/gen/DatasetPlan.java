package org.eventindex.gen;

import org.eventindex.names.DatasetName;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;

/**
 * Everything about a dataset that is fixed before any job runs, drawn once from the spec's seed: file GUIDs, the
 * task, the trigger menu, the run's start time, which jobs misbehave and which events are copied between files.
 * Every per-file stream is seeded from here, so a retried job regenerates exactly the same events.
 */
final class DatasetPlan {
    /** MC16a's run number: simulated events carry it, and the dataset's number as mcChannelNumber. */
    static final int MC_RUN_NUMBER = 284500;
    private static final long MIX = 0x9E3779B97F4A7C15L;

    final GeneratorSpec spec;
    final DatasetName name;
    final String taskID;
    final long taskNumber;
    final List<String> fileGuids;
    final int smk;
    final int l1psk;
    final int hltpsk;
    final TriggerModel triggers;
    final long runStartSeconds;
    final long firstEventNumber;
    final long firstPandaId;
    final boolean[] duplicated;
    final boolean[] crashed;
    /** Cross-file duplicates: the first {@code spec.crossFileDuplicates()} events of this file... */
    final int copySourceFile;
    /** ...are copied into this one (-1 when there are none). */
    final int copyTargetFile;

    DatasetPlan(GeneratorSpec spec) {
        this.spec = spec;
        this.name = DatasetName.parse(spec.datasetName());
        Random r = new Random(spec.seed());
        // A task output dataset names its task: use that number so object keys and names agree.
        this.taskNumber = name.suffix().startsWith("_tid")
                ? Long.parseLong(name.suffix().substring(4, 12))
                : 10_000_000 + r.nextInt(30_000_000);
        this.taskID = taskNumber + ".G";
        List<String> guids = new ArrayList<>(spec.files());
        for (int i = 0; i < spec.files(); i++) {
            guids.add(guid(r));
        }
        this.fileGuids = List.copyOf(guids);
        this.smk = 2000 + r.nextInt(1000);
        this.l1psk = 1 + r.nextInt(20000);
        this.hltpsk = 1 + r.nextInt(20000);
        this.triggers = new TriggerModel(new Random(r.nextLong()), spec.eventSize());
        // Mid-2017 to early 2018, when the seed papers' datasets were taken.
        this.runStartSeconds = 1_496_000_000L + r.nextInt(20_000_000);
        this.firstEventNumber = 1 + r.nextInt(50_000_000);
        this.firstPandaId = 3_400_000_000L + r.nextInt(300_000_000);
        this.duplicated = choose(r, spec.jobs(), spec.duplicatedJobs());
        this.crashed = choose(r, spec.jobs(), spec.crashedJobs());
        if (spec.crossFileDuplicates() > 0) {
            copySourceFile = r.nextInt(spec.files());
            copyTargetFile = (copySourceFile + 1 + r.nextInt(spec.files() - 1)) % spec.files();
        } else {
            copySourceFile = -1;
            copyTargetFile = -1;
        }
    }

    boolean simulation() {
        return spec.simulation();
    }

    /** Whether events carry their ESD and RAW tokens besides their own (the header's provenanceRef). */
    boolean provenance() {
        return spec.eventSize() != EventSize.LARGE_JOB;
    }

    /** The run number written into events. */
    int runNumber() {
        return simulation() ? MC_RUN_NUMBER : name.runNumber();
    }

    /** Events the file holds, cross-file copies included. */
    int eventsInFile(int file) {
        return spec.eventsPerFile() + (file == copyTargetFile ? spec.crossFileDuplicates() : 0);
    }

    /** Seed of one file's event stream: independent of which job or attempt writes it. */
    long fileSeed(int file) {
        long h = (spec.seed() + 1) * MIX + file;
        h ^= h >>> 31;
        h *= MIX;
        return h ^ (h >>> 29);
    }

    /** Input files of one job, as indexes into {@link #fileGuids}. */
    int firstFile(int job) {
        return job * spec.filesPerJob();
    }

    int endFile(int job) {
        return Math.min(spec.files(), (job + 1) * spec.filesPerJob());
    }

    static String guid(Random r) {
        return new UUID(r.nextLong(), r.nextLong()).toString().toUpperCase(Locale.ROOT);
    }

    private static boolean[] choose(Random r, int n, int k) {
        List<Integer> order = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            order.add(i);
        }
        Collections.shuffle(order, r);
        boolean[] chosen = new boolean[n];
        for (int i = 0; i < k; i++) {
            chosen[order.get(i)] = true;
        }
        return chosen;
    }
}
