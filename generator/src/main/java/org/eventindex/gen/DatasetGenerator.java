package org.eventindex.gen;

import org.eventindex.message.DatasetManifest;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.SpbWriter;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static java.util.Objects.requireNonNull;

/**
 * Writes a realistic dataset as the experiment's grid jobs would leave it: one EI SPB file per job attempt, with
 * retried jobs that reported twice, jobs killed mid-write, and events present in two files. The output is a pure
 * function of the {@link GeneratorSpec} (byte-identical files for the same seed).
 * <p>
 * Per job the attempts are, in order: a CRASHED attempt (if chosen), an extra REPORTED attempt (if chosen as
 * duplicated), then the final REPORTED attempt. Each attempt has its own PandaID and attempt number; SPB files are
 * named {@code <taskID>_<jobID>.ei.spb} in the output directory.
 */
public final class DatasetGenerator {

    /** Told after every job attempt; for progress output on big runs. */
    @FunctionalInterface
    public interface Progress {
        void attemptWritten(int attemptsDone, int attemptsTotal, long eventsWritten, long bytesWritten);
    }

    private static final String L1_MENU = "Physics_pp_v7_primaries";
    private static final String HLT_MENU = "Physics_pp_v7_primaries";
    private static final long MILLIS_PER_EVENT = 3;

    private final GeneratorSpec spec;
    private final Progress progress;

    public DatasetGenerator(GeneratorSpec spec) {
        this(spec, (done, total, events, bytes) -> { });
    }

    public DatasetGenerator(GeneratorSpec spec, Progress progress) {
        this.spec = requireNonNull(spec, "spec is null");
        this.progress = requireNonNull(progress, "progress is null");
    }

    /** Writes every attempt's SPB file into {@code outDir} (created if missing). */
    public GeneratedDataset generate(Path outDir) throws IOException {
        requireNonNull(outDir, "outDir is null");
        Files.createDirectories(outDir);
        DatasetPlan plan = new DatasetPlan(spec);
        List<EIEvent_p1> copies = copiedEvents(plan);
        Random times = new Random(spec.seed() * 31 + 7);

        int attemptsTotal = 0;
        for (int job = 0; job < spec.jobs(); job++) {
            attemptsTotal += 1 + (plan.duplicated[job] ? 1 : 0) + (plan.crashed[job] ? 1 : 0);
        }
        List<GeneratedJob> jobs = new ArrayList<>(attemptsTotal);
        long pandaId = plan.firstPandaId;
        long spbBytes = 0;
        long spbEvents = 0;
        long allBytes = 0;
        long allEvents = 0;
        for (int job = 0; job < spec.jobs(); job++) {
            List<String> guids = plan.fileGuids.subList(plan.firstFile(job), plan.endFile(job));
            List<GeneratedJob.Outcome> attempts = new ArrayList<>(3);
            if (plan.crashed[job]) {
                attempts.add(GeneratedJob.Outcome.CRASHED);
            }
            if (plan.duplicated[job]) {
                attempts.add(GeneratedJob.Outcome.REPORTED);
            }
            attempts.add(GeneratedJob.Outcome.REPORTED);
            for (int a = 0; a < attempts.size(); a++) {
                pandaId += 1 + times.nextInt(5_000);
                String jobID = pandaId + "." + (a + 1);
                Path file = outDir.resolve(plan.taskID + "_" + jobID + ".ei.spb");
                long startMillis = (plan.runStartSeconds + 2 * 86_400L + job * 300L + a * 3_600L) * 1000
                        + times.nextInt(1000);
                long events = writeJob(plan, job, jobID, file, startMillis, copies);
                long bytes;
                if (attempts.get(a) == GeneratedJob.Outcome.CRASHED) {
                    bytes = truncate(file, times);
                } else {
                    bytes = Files.size(file);
                    spbBytes += bytes;
                    spbEvents += events;
                }
                allBytes += bytes;
                allEvents += events;
                jobs.add(new GeneratedJob(plan.taskID, jobID, file, guids, attempts.get(a)));
                progress.attemptWritten(jobs.size(), attemptsTotal, allEvents, allBytes);
            }
        }
        List<DatasetManifest.ManifestFile> manifest = new ArrayList<>(spec.files());
        long expectedEvents = 0;
        for (int f = 0; f < spec.files(); f++) {
            manifest.add(new DatasetManifest.ManifestFile(plan.fileGuids.get(f), plan.eventsInFile(f)));
            expectedEvents += plan.eventsInFile(f);
        }
        long unique = (long) spec.files() * spec.eventsPerFile();
        return new GeneratedDataset(spec.datasetName(), jobs, manifest, expectedEvents, unique,
                spec.crossFileDuplicates(), spbBytes, spbEvents);
    }

    /** Writes one attempt's complete SPB file; returns the events written. */
    private long writeJob(DatasetPlan plan, int job, String jobID, Path file, long startMillis,
                          List<EIEvent_p1> copies) throws IOException {
        long now = startMillis;
        try (OutputStream out = Files.newOutputStream(file); SpbWriter w = new SpbWriter(out)) {
            w.header(Header_p1.newBuilder()
                    .setStartProcTime(now)
                    .setTaskID(plan.taskID)
                    .setJobID(jobID)
                    .setInputDsName(spec.datasetName())
                    .setProvenanceRef(plan.provenance())
                    .setTriggerInfo(true)
                    .build());
            for (int f = plan.firstFile(job); f < plan.endFile(job); f++) {
                w.beginGuid(BeginGUID_p1.newBuilder()
                        .setStartProcTime(now)
                        .setAMITag(plan.name.version())
                        .setTrigStream(plan.name.stream())
                        .setProjName(plan.name.project())
                        .setGuid(plan.fileGuids.get(f))
                        .build());
                w.triggerMenu(TriggerMenu_p1.newBuilder()
                        .setSMK(plan.smk).setL1PSK(plan.l1psk).setHLTPSK(plan.hltpsk)
                        .setL1Menu(L1_MENU).setHLTMenu(HLT_MENU)
                        .build());
                writeFileEvents(plan, f, w, f == plan.copyTargetFile ? copies : List.of());
                now += MILLIS_PER_EVENT * plan.eventsInFile(f);
                w.endGuid(now);
            }
            w.finish(now + 1_000);
            return w.events();
        }
    }

    /** The file's own events, with the cross-file copies spread evenly among them. */
    private void writeFileEvents(DatasetPlan plan, int f, SpbWriter w, List<EIEvent_p1> copies)
            throws IOException {
        FileEvents events = new FileEvents(plan, f);
        String guid = plan.fileGuids.get(f);
        int n = spec.eventsPerFile();
        int c = 0;
        long entry = 0;
        for (int j = 0; j < n; j++) {
            w.event(events.next(entry++));
            while (c < copies.size() && (int) ((long) (c + 1) * n / (copies.size() + 1)) <= j) {
                w.event(FileEvents.rehome(copies.get(c), guid, entry++));
                c++;
            }
        }
        while (c < copies.size()) {
            w.event(FileEvents.rehome(copies.get(c++), guid, entry++));
        }
    }

    /** The events copied into the target file: the first ones of the source file. */
    private List<EIEvent_p1> copiedEvents(DatasetPlan plan) {
        List<EIEvent_p1> copies = new ArrayList<>(spec.crossFileDuplicates());
        if (plan.copySourceFile >= 0) {
            FileEvents source = new FileEvents(plan, plan.copySourceFile);
            for (int i = 0; i < spec.crossFileDuplicates(); i++) {
                copies.add(source.next(i));
            }
        }
        return copies;
    }

    /** Cuts the file as a killed job leaves it: somewhere in the middle, always before the gzip trailer. */
    private static long truncate(Path file, Random random) throws IOException {
        long size = Files.size(file);
        long cut = (long) (size * (0.3 + 0.6 * random.nextDouble()));
        cut = Math.max(10, Math.min(cut, size - 9));
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(cut);
        }
        return cut;
    }
}
