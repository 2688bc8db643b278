package org.eventindex.gen;

import org.eventindex.io.FileReason;
import org.eventindex.message.Json;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Command line for {@link DatasetGenerator} (picocli, {@link CommandLines}): writes a dataset's SPB files and its
 * manifest, prints a summary. Exit status 0 on success, 2 on a usage error, 1 when writing fails.
 */
@Command(name = "eventindex generate", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false, customSynopsis = "eventindex generate --dataset NAME --out DIR [options]",
        description = {"", "Writes one EI SPB file per grid job attempt into DIR, as the experiment's indexing jobs"
                + " would, plus DIR/<NAME>.manifest.json (the dataset's files and event counts, as a DatasetManifest"
                + " message). Output is deterministic for a given seed. Defaults are a small test dataset.", ""},
        footer = {"", "Prints progress to stderr on long runs and a summary to stdout."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:success", "1:writing failed", "2:usage error"})
public final class GeneratorMain implements Callable<Integer> {
    private final PrintStream out;
    private final PrintStream err;
    @Spec
    private CommandSpec spec;
    @Option(names = "--dataset", paramLabel = "NAME", required = true, description = "dataset name, e.g."
            + " data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824 (required; its run number is the events'"
            + " run)")
    private String dataset;
    @Option(names = "--out", paramLabel = "DIR", required = true,
            description = "output directory, created if missing (required)")
    private Path outDir;
    @Option(names = "--files", paramLabel = "N", description = "input files in the dataset (default 8)")
    private Integer files;
    @Option(names = "--events-per-file", paramLabel = "N", description = "events per input file (default 1000)")
    private Integer eventsPerFile;
    @Option(names = "--files-per-job", paramLabel = "N", description = "input files indexed by one job (default 2)")
    private Integer filesPerJob;
    @Option(names = "--duplicated-jobs", paramLabel = "N",
            description = "jobs whose earlier attempt also reported the same files (default 1)")
    private Integer duplicated;
    @Option(names = "--crashed-jobs", paramLabel = "N",
            description = "jobs with an earlier attempt killed mid-write: truncated SPB (default 1)")
    private Integer crashed;
    @Option(names = "--cross-file-duplicates", paramLabel = "N",
            description = "events of one file copied into another file (default 10)")
    private Integer crossFile;
    @Option(names = "--simulation", description = "Monte Carlo events (default: when the project starts with \"mc\")")
    private boolean simulation;
    @Option(names = "--seed", paramLabel = "N", description = "random seed (default 1)")
    private Long seed;
    @Option(names = "--event-size", paramLabel = "SIZE", description = "SEED: seed 000's sizes, about 38 bytes per"
            + " event (default); LARGE_JOB: its largest jobs, no provenance tokens, about 22 bytes per event;"
            + " HEAVY: today's heavier events, many more trigger chains, about 118 bytes per event")
    private EventSize eventSize;

    private GeneratorMain(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** The whole command; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new GeneratorMain(out, err), args, out, err);
    }

    @Override
    public Integer call() {
        GeneratorSpec spec;
        try {
            GeneratorSpec d = GeneratorSpec.defaults(dataset);
            int nfiles = or(files, d.files());
            int nevents = or(eventsPerFile, d.eventsPerFile());
            // The default copy count only applies where it can: a one-file dataset has nowhere to copy to.
            int defaultCopies = nfiles < 2 ? 0 : Math.min(d.crossFileDuplicates(), nevents);
            spec = new GeneratorSpec(dataset, nfiles, nevents, or(filesPerJob, d.filesPerJob()),
                    or(duplicated, d.duplicatedJobs()), or(crashed, d.crashedJobs()), or(crossFile, defaultCopies),
                    simulation || d.simulation(), seed == null ? d.seed() : seed,
                    eventSize == null ? d.eventSize() : eventSize);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(this.spec.commandLine(), e.getMessage());
        }
        return generate(spec, outDir, out, err);
    }

    private static int generate(GeneratorSpec spec, Path outDir, PrintStream out, PrintStream err) {
        long startNanos = System.nanoTime();
        long[] lastReport = {startNanos};
        DatasetGenerator generator = new DatasetGenerator(spec, (done, total, events, bytes) -> {
            long now = System.nanoTime();
            if (now - lastReport[0] >= TimeUnit.SECONDS.toNanos(2) || done == total && now - startNanos
                    >= TimeUnit.SECONDS.toNanos(2)) {
                lastReport[0] = now;
                err.printf(Locale.ROOT, "generated %d/%d job attempts, %,d events, %,d bytes%n", done, total, events,
                        bytes);
            }
        });
        try {
            GeneratedDataset ds = generator.generate(outDir);
            Path manifest = outDir.resolve(spec.datasetName() + ".manifest.json");
            Files.write(manifest, Json.write(ds.manifestMessage()));
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            out.printf(Locale.ROOT, "dataset            %s%n", ds.datasetName());
            out.printf(Locale.ROOT, "files              %d%n", ds.manifest().size());
            out.printf(Locale.ROOT, "jobs               %d (%d attempts: %d reported, %d crashed)%n", spec.jobs(),
                    ds.jobs().size(), ds.jobs(GeneratedJob.Outcome.REPORTED).size(),
                    ds.jobs(GeneratedJob.Outcome.CRASHED).size());
            out.printf(Locale.ROOT, "events             %d%n", ds.expectedEvents());
            out.printf(Locale.ROOT, "unique events      %d%n", ds.expectedUniqueEvents());
            out.printf(Locale.ROOT, "spb events         %d (reported files, duplicates included)%n",
                    ds.spbEvents());
            out.printf(Locale.ROOT, "spb bytes          %d%n", ds.spbBytes());
            out.printf(Locale.ROOT, "bytes/event        %.1f%n", ds.bytesPerEvent());
            out.printf(Locale.ROOT, "manifest           %s%n", manifest);
            out.printf(Locale.ROOT, "seconds            %.1f%n", seconds);
            return 0;
        } catch (IOException e) {
            boolean named = e instanceof java.nio.file.FileSystemException f && outDir.toString().equals(f.getFile());
            err.println("eventindex generate: cannot write the dataset into " + outDir + ": "
                    + (named ? FileReason.of(e) : FileReason.describe(e)));
            return 1;
        }
    }

    private static int or(Integer value, int fallback) {
        return value == null ? fallback : value;
    }
}
