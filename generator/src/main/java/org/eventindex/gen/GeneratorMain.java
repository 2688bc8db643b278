package org.eventindex.gen;

import org.eventindex.message.Json;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Command line for {@link DatasetGenerator}: writes a dataset's SPB files and its manifest, prints a summary.
 * Exit status 0 on success, 2 on a usage error, 1 when writing fails.
 */
public final class GeneratorMain {
    private static final String USAGE = """
            Usage: GeneratorMain --dataset NAME --out DIR [options]

            Writes one EI SPB file per grid job attempt into DIR, as the experiment's indexing jobs would, plus
            DIR/<NAME>.manifest.json (the dataset's files and event counts, as a DatasetManifest message).
            Output is deterministic for a given seed. Defaults are a small test dataset.

              --dataset NAME               dataset name, e.g. data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824
                                           (required; its run number is the events' run)
              --out DIR                    output directory, created if missing (required)
              --files N                    input files in the dataset (default 8)
              --events-per-file N          events per input file (default 1000)
              --files-per-job N            input files indexed by one job (default 2)
              --duplicated-jobs N          jobs whose earlier attempt also reported the same files (default 1)
              --crashed-jobs N             jobs with an earlier attempt killed mid-write: truncated SPB (default 1)
              --cross-file-duplicates N    events of one file copied into another file (default 10)
              --simulation                 Monte Carlo events (default: when the project starts with "mc")
              --seed N                     random seed (default 1)
              --help                       this text

            Prints progress to stderr on long runs and a summary to stdout.
            """;

    private GeneratorMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** The whole command; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        String dataset = null;
        Path outDir = null;
        Integer files = null;
        Integer eventsPerFile = null;
        Integer filesPerJob = null;
        Integer duplicated = null;
        Integer crashed = null;
        Integer crossFile = null;
        boolean simulation = false;
        Long seed = null;
        GeneratorSpec spec;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--help", "-h" -> {
                        out.print(USAGE);
                        return 0;
                    }
                    case "--dataset" -> dataset = value(args, ++i, a);
                    case "--out" -> outDir = Path.of(value(args, ++i, a));
                    case "--files" -> files = intValue(args, ++i, a);
                    case "--events-per-file" -> eventsPerFile = intValue(args, ++i, a);
                    case "--files-per-job" -> filesPerJob = intValue(args, ++i, a);
                    case "--duplicated-jobs" -> duplicated = intValue(args, ++i, a);
                    case "--crashed-jobs" -> crashed = intValue(args, ++i, a);
                    case "--cross-file-duplicates" -> crossFile = intValue(args, ++i, a);
                    case "--simulation" -> simulation = true;
                    case "--seed" -> seed = longValue(args, ++i, a);
                    default -> throw new IllegalArgumentException("unknown option '" + a + "'");
                }
            }
            if (dataset == null || outDir == null) {
                throw new IllegalArgumentException("--dataset and --out are required");
            }
            GeneratorSpec d = GeneratorSpec.defaults(dataset);
            int nfiles = or(files, d.files());
            int nevents = or(eventsPerFile, d.eventsPerFile());
            // The default copy count only applies where it can: a one-file dataset has nowhere to copy to.
            int defaultCopies = nfiles < 2 ? 0 : Math.min(d.crossFileDuplicates(), nevents);
            spec = new GeneratorSpec(dataset, nfiles, nevents, or(filesPerJob, d.filesPerJob()),
                    or(duplicated, d.duplicatedJobs()), or(crashed, d.crashedJobs()), or(crossFile, defaultCopies),
                    simulation || d.simulation(), seed == null ? d.seed() : seed);
        } catch (IllegalArgumentException e) {
            err.println("error: " + e.getMessage());
            err.println("Run with --help for the options.");
            return 2;
        }

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
            err.println("error: cannot write the dataset into " + outDir + ": " + e);
            return 1;
        }
    }

    private static int or(Integer value, int fallback) {
        return value == null ? fallback : value;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int intValue(String[] args, int i, String option) {
        String v = value(args, i, option);
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " needs a whole number, got '" + v + "'");
        }
    }

    private static long longValue(String[] args, int i, String option) {
        String v = value(args, i, option);
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " needs a whole number, got '" + v + "'");
        }
    }
}
