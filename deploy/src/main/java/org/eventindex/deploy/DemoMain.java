package org.eventindex.deploy;

import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.EventRefs;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.spb.SpbLimits;
import org.eventindex.spb.SpbReader;
import org.eventindex.spb.SpbRecord;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.StopSignals;
import org.eventindex.cli.VersionProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The demo: starts the embedded stack, generates a few datasets with retried and crashed jobs, runs the producer jar
 * once per job as a separate process, waits until every dataset is in Kudu and prints what happened. Exits 1 if any
 * count is wrong, 2 on bad arguments.
 */
@Command(name = "bin/demo", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false, description = "Runs the whole system on one machine and checks every count.",
        footer = {"", "The demo prints, per dataset: files, objects produced, objects read, duplicates skipped, events"
                + " in Kudu vs expected unique events, duplicated events, traversal time; then one event lookup.",
            "bin/demo builds first; EI_DEMO_NO_BUILD=1 runs the last build."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every count is right (also after a --keep stack was stopped)", "1:a count is wrong",
            "2:bad options"})
public final class DemoMain implements Callable<Integer> {
    private final PrintStream out;
    private final PrintStream err;
    @Spec
    private CommandSpec spec;
    @Option(names = "--work", paramLabel = "DIR",
            description = "working folder for every component's data (default: work/demo, wiped first)")
    private Path work = Path.of("work", "demo");
    @Option(names = "--scale", paramLabel = "N",
            description = "multiply the events per file of every dataset by N (default 1)")
    private int scale = 1;
    @Option(names = "--consumers", paramLabel = "N", description = "competing consumer daemons (default 1)")
    private int consumers = 1;
    @Option(names = "--parallel", paramLabel = "N", description = "producer processes run at once (default 4)")
    private int parallel = 4;
    @Option(names = "--timeout-minutes", paramLabel = "N",
            description = "give up waiting for the datasets after N minutes (default 15)")
    private int timeoutMinutes = 15;
    @Option(names = "--datasets", paramLabel = "N", description = "run the first N of the demo's 3 datasets"
            + " (default 3)")
    private int datasets = 3;
    @Option(names = "--keep", description = "after the checks, keep the stack running until Ctrl-C (SIGINT) or"
            + " SIGTERM; print every endpoint, write the logins (mode 0600) and DIR/demo.env, which a shell can source"
            + " to run producers and operator commands against the stack")
    private boolean keep;

    private DemoMain(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err));
    }

    /** Parses {@code args} and runs the demo; {@code --help}, {@code --version} and bad options return at once. */
    static int execute(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new DemoMain(out, err), args, out, err);
    }

    /** The checked options of a command line, without running anything (tests). */
    static DemoOptions parse(String... args) {
        DemoMain main = new DemoMain(System.out, System.err);
        CommandLines.of(main, System.out, System.err).parseArgs(args);
        return main.options();
    }

    @Override
    public Integer call() throws Exception {
        return run(options(), out, err);
    }

    private DemoOptions options() {
        positive("--scale", scale);
        positive("--datasets", datasets);
        positive("--consumers", consumers);
        positive("--parallel", parallel);
        positive("--timeout-minutes", timeoutMinutes);
        if (datasets > 3) {
            throw new ParameterException(spec.commandLine(), "--datasets must be 1, 2 or 3 (the demo has 3), got "
                    + datasets);
        }
        return new DemoOptions(work, scale, datasets, consumers, parallel, timeoutMinutes, keep);
    }

    private void positive(String option, int value) {
        if (value < 1) {
            throw new ParameterException(spec.commandLine(), option + " must be >= 1, got " + value);
        }
    }

    /** The three datasets of the demo: multi-file jobs, a task-output suffix, a simulation dataset. */
    static List<GeneratorSpec> demoDatasets(int scale, int count) {
        return List.of(
                new GeneratorSpec("data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824",
                        12, 2000 * scale, 1, 3, 1, 5, false, 17L),
                new GeneratorSpec("data18_13TeV.00350013.physics_Main.merge.AOD.f934_m1831_tid13500001_00",
                        10, 1500 * scale, 3, 2, 1, 3, false, 18L),
                new GeneratorSpec("mc16_13TeV.361107.PowhegPythia8EvtGen_Zmumu.merge.AOD.e3601_s3126_r10201",
                        8, 1000 * scale, 2, 1, 1, 0, true, 16L)).subList(0, count);
    }

    static int run(DemoOptions opts, PrintStream out, PrintStream log) throws Exception {
        Path producerJar = Path.of(System.getProperty("ei.producer.jar", "producer/target/eventindex-producer.jar"));
        deleteTree(opts.work());
        Files.createDirectories(opts.work());
        long t0 = System.nanoTime();
        EmbeddedStack.Options stackOptions = new EmbeddedStack.Options(opts.work().resolve("stack"), opts.consumers(),
                "eventindex", "", 64, 1);
        int status;
        try (EmbeddedStack stack = EmbeddedStack.start(stackOptions, s -> log.println("[demo] " + s))) {
            log.printf("[demo] stack up in %.1f s%n", (System.nanoTime() - t0) / 1e9);
            PipelineRun pipeline = new PipelineRun(stack, producerJar, s -> log.println("[demo] " + s));
            List<GeneratedDataset> datasets = pipeline.generate(demoDatasets(opts.scale(), opts.datasets()),
                    opts.work().resolve("spb"));
            pipeline.registerManifests(datasets);
            pipeline.runProducers(datasets, opts.parallel());
            pipeline.awaitDone(datasets, Duration.ofMinutes(opts.timeoutMinutes()));

            List<DatasetFigures> figures = new ArrayList<>();
            for (GeneratedDataset ds : datasets) {
                figures.add(pipeline.measure(ds));
            }
            printTable(figures, out);
            List<String> problems = new ArrayList<>();
            figures.forEach(f -> problems.addAll(f.problems()));
            problems.addAll(lookupOne(stack, datasets.get(0), out));
            if (!problems.isEmpty()) {
                out.println("FAILED:");
                problems.forEach(p -> out.println("  " + p));
                status = 1;
            } else {
                out.printf("OK: every dataset complete and exact (%.1f s in all)%n", (System.nanoTime() - t0) / 1e9);
                status = 0;
            }
            if (opts.keep()) {
                keepRunning(stack, datasets.get(0), opts.work(), producerJar, out, log);
            }
        }
        if (opts.keep()) {
            log.println("[demo] stack stopped");
        }
        return status;
    }

    /**
     * {@code --keep}: writes the logins and {@code work/demo.env}, prints every endpoint and the commands to use the
     * stack from outside, then blocks until SIGINT, SIGTERM or SIGHUP; the caller then stops the stack, before the JVM
     * shuts down ({@link StopSignals}).
     */
    private static void keepRunning(EmbeddedStack stack, GeneratedDataset first, Path work, Path producerJar,
                                    PrintStream out, PrintStream log) throws InterruptedException, IOException {
        StopSignals signals = StopSignals.install(List.of("INT", "TERM", "HUP"));
        EIEvent_p1 event = firstEvent(first.jobs(GeneratedJob.Outcome.REPORTED).get(0).spbFile());
        StackAccess access = StackAccess.of(stack);
        access.writeLogins(stack.brokerLogins(), EmbeddedStack.S3_SECRET_KEY);
        Path environment = access.writeEnvironment(work.toAbsolutePath().resolve("demo.env"));
        String masters = stack.kuduMasters();
        String prefix = stack.tablesConfig().prefix();
        String prefixOption = prefix.isEmpty() ? "" : " --prefix " + prefix;
        long pid = ProcessHandle.current().pid();
        out.println();
        if (signals.ignored().contains("SIGINT")) {
            out.println("Stack kept running (--keep), pid " + pid + ". This process ignores SIGINT (it was started"
                    + " in the background by a shell script?), so Ctrl-C cannot stop it: kill " + pid + " (SIGTERM) does.");
        } else {
            out.println("Stack kept running (--keep), pid " + pid + ". Ctrl-C, or kill " + pid + ", stops it.");
        }
        access.describe(environment, producerJar.toAbsolutePath().toString()).forEach(out::println);
        out.println("SQL shell:       bin/eventindex sql --kudu-master " + masters + prefixOption);
        out.println("  e.g.           bin/eventindex sql --kudu-master " + masters + prefixOption
                + " -e 'SELECT dataset, count_events, num_duplicates FROM loaded_datasets'");
        out.printf("Lookup:          echo '%08d %09d' | bin/eventindex lookup --masters %s%s%n", event.getRunNumber(),
                event.getEventNumber(), masters, prefixOption);
        out.flush();
        String signal = signals.await();
        log.println("[demo] " + signal + ": stopping the stack");
    }

    private static void printTable(List<DatasetFigures> figures, PrintStream out) {
        out.printf("%-72s %5s %8s %5s %5s %9s %9s %5s %5s %9s%n", "dataset", "files", "objects", "read", "dupl",
                "events", "expected", "dupEv", "hdfs", "traversal");
        for (DatasetFigures f : figures) {
            out.printf("%-72s %5d %8d %5d %5d %9d %9d %5d %5d %8.1fs%n", f.dataset(), f.files(), f.objectsProduced(),
                    f.objectsRead(), f.duplicatesSkipped(), f.eventsInKudu(), f.expectedUnique(), f.duplicatesInKudu(),
                    f.hdfsFiles(), f.traversal() == null ? Double.NaN : f.traversal().toMillis() / 1000.0);
        }
    }

    /** Looks up the first event of the dataset's first file in Kudu: run, event -> GUID per stage. */
    private static List<String> lookupOne(EmbeddedStack stack, GeneratedDataset ds, PrintStream out) throws IOException {
        GeneratedJob job = ds.jobs(GeneratedJob.Outcome.REPORTED).get(0);
        EIEvent_p1 event = firstEvent(job.spbFile());
        DatasetsRow record = stack.kuduQueries().dataset(ds.datasetName()).orElseThrow();
        Optional<EventRefs> refs = stack.kuduQueries().lookup(record.dspid(), event.getEventNumber(), record.rgid());
        out.printf("lookup %08d %09d:%n", event.getRunNumber(), event.getEventNumber());
        if (refs.isEmpty()) {
            return List.of("lookup of run " + event.getRunNumber() + " event " + event.getEventNumber() + " found nothing");
        }
        EventRefs r = refs.get();
        printRef(out, r, r.dbRaw(), "StreamRAW");
        printRef(out, r, r.dbEsd(), "StreamESD");
        printRef(out, r, r.dbAod(), "StreamAOD");
        boolean known = ds.manifest().stream().anyMatch(f -> f.guid().equals(r.db()));
        return known ? List.of() : List.of("lookup returned GUID " + r.db() + ", which is not a file of " + ds.datasetName());
    }

    private static void printRef(PrintStream out, EventRefs r, String guid, String type) {
        if (guid != null) {
            out.printf("  %08d %09d %s %s%n", r.runNumber(), r.eventNumber(), guid, type);
        }
    }

    private static EIEvent_p1 firstEvent(Path spb) throws IOException {
        try (SpbReader reader = SpbReader.open(spb, SpbLimits.DEFAULT)) {
            for (SpbRecord rec = reader.next(); rec != null; rec = reader.next()) {
                if (rec instanceof SpbRecord.Event e) {
                    return e.message();
                }
            }
        }
        throw new IllegalStateException(spb + " holds no event");
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** Checked command line. */
    record DemoOptions(Path work, int scale, int datasets, int consumers, int parallel, int timeoutMinutes,
                       boolean keep) {
    }
}
