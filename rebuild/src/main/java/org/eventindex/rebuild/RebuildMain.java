package org.eventindex.rebuild;

import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.kudu.KuduTablesConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;

/**
 * {@code eventindex rebuild}: a Spark application (spark-submit, or {@code --master local[*]}) that loads the selected
 * datasets of the catalogue again, from their consolidated files in HDFS, into other Kudu tables (docs/rebuild.md).
 */
@Command(name = "eventindex rebuild", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false,
        description = {"Loads the datasets of the catalogue (the source DATASETS table) again from their consolidated"
                + " files in HDFS into other Kudu tables, on Spark: each dataset's recorded load replayed with the"
                + " loader's own code, its rows written by tasks that each own a share of the tablets, so the target"
                + " rows are the source rows. Safe to run again:"
                + " a dataset already rebuilt is skipped, an interrupted one is loaded again from a clean slate."},
        footer = {"", "Example: eventindex rebuild --masters kudu1:7051 --target-prefix e7_ --epoch 7 --master local[*]",
            "On a cluster, through spark-submit: docs/rebuild.md.",
            "Taking the rebuilt tables live: eventindex rebuild catch-up|swap|swap-back|drop-old --help."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every selected dataset rebuilt", "1:a dataset failed or the job failed (the message"
                + " says which and why)", "2:usage error"})
public final class RebuildMain implements Callable<Integer> {
    private final PrintStream out;
    private final PrintStream err;
    @Spec
    private CommandSpec spec;

    @Mixin
    JobOptions job;
    @Option(names = "--target-prefix", paramLabel = "P", required = true,
            description = "prefix of the tables to write, created if missing; must differ from --prefix (required)")
    String targetPrefix;
    @Option(names = "--buckets", paramLabel = "N",
            description = "HASH(eventnumber) buckets per epoch of the target tables (default: 64)")
    int buckets = KuduTablesConfig.DEFAULT_HASH_BUCKETS;
    @Option(names = "--replicas", paramLabel = "N",
            description = "tablet replicas of the target tables, odd (default: 3; 1 on a single server)")
    int replicas = KuduTablesConfig.DEFAULT_REPLICAS;
    @Option(names = "--max-tasks", paramLabel = "N",
            description = "at most N Spark tasks per stage (default: one per run or dataset, one write task per"
                    + " core); the throttle that keeps"
                    + " lookups' p99 during a rebuild (docs/rebuild.md)")
    int maxTasks = Integer.MAX_VALUE;
    @Option(names = "--split", paramLabel = "HOW",
            description = "how the work becomes tasks: tablet (each dataset's rows decided by one task, written by"
                    + " tasks that each own a share of the tablets) or run (one task per run decides and writes its"
                    + " datasets); default: tablet")
    String split = "tablet";
    @Option(names = "--wave-events", paramLabel = "N",
            description = "with --split tablet: whole runs rebuilt in waves of about N events, one after the other"
                    + " (default: 20000000); a wave's rows are what the shuffle holds, and what a killed job redoes")
    long waveEvents = RebuildJob.Tasks.DEFAULT_WAVE_EVENTS;
    @Option(names = "--load-threads", paramLabel = "N",
            description = "with --split run: Kudu sessions writing one dataset within a task (default: 1; the tasks"
                    + " are the parallelism)")
    int loadThreads = 1;
    @Option(names = "--epoch-max-events", paramLabel = "N",
            description = "assign the epochs anew, N events at most each (a new epoch size): the selected datasets, in"
                    + " dataset id order, fill epochs as the supervisor fills them (default: each keeps its epoch)")
    Long epochMaxEvents;
    @Option(names = "--first-epoch", paramLabel = "E",
            description = "with --epoch-max-events: the first epoch to fill (default: the lowest epoch of the selected"
                    + " datasets)")
    Integer firstEpoch;

    private RebuildMain(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length > 0 && ShadowMain.COMMANDS.contains(args[0])) {
            return ShadowMain.run(args, out, err);
        }
        return CommandLines.execute(new RebuildMain(out, err), args, out, err);
    }

    @Override
    public Integer call() {
        DatasetSelection selection = job.selection(spec);
        RebuildTarget target;
        KuduTablesConfig source;
        try {
            target = new RebuildTarget(job.masters, targetPrefix, buckets, replicas, loadThreads, null);
            source = new KuduTablesConfig(job.prefix, buckets, replicas);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (maxTasks < 1) {
            throw new ParameterException(spec.commandLine(), "--max-tasks must be at least 1: " + maxTasks);
        }
        RebuildJob.Split how = switch (split) {
            case "tablet" -> RebuildJob.Split.TABLET;
            case "run" -> RebuildJob.Split.RUN;
            default -> throw new ParameterException(spec.commandLine(), "--split is tablet or run, not '" + split
                    + "'");
        };
        if (waveEvents < 1) {
            throw new ParameterException(spec.commandLine(), "--wave-events must be at least 1: " + waveEvents);
        }
        if (firstEpoch != null && epochMaxEvents == null) {
            throw new ParameterException(spec.commandLine(), "--first-epoch goes with --epoch-max-events");
        }
        Optional<NewEpochs> newEpochs;
        try {
            newEpochs = epochMaxEvents == null ? Optional.empty() : Optional.of(new NewEpochs(
                    firstEpoch == null ? OptionalInt.empty() : OptionalInt.of(firstEpoch), epochMaxEvents));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--epoch-max-events/--first-epoch: " + e.getMessage());
        }
        RebuildJob.Tasks tasks = new RebuildJob.Tasks(maxTasks, how, waveEvents);
        if (job.prefix.equals(targetPrefix)) {
            throw new ParameterException(spec.commandLine(), "--target-prefix '" + targetPrefix + "' names the source"
                    + " tables: a rebuild writes into other tables, then swaps them in (docs/rebuild.md)");
        }
        RebuildTarget unsigned = target;
        return job.run(spec, err, "rebuild", "eventindex rebuild " + selection, (client, spark, credentials) ->
                report(new RebuildJob(spark, client, tasks)
                        .run(source, unsigned.withCredentials(credentials), selection, newEpochs),
                        selection, newEpochs));
    }

    private int report(RebuildJob.Summary summary, DatasetSelection selection, Optional<NewEpochs> newEpochs) {
        for (DatasetOutcome o : summary.outcomes()) {
            if (o.failed()) {
                err.println("rebuild: FAILED " + o.error());
            } else {
                out.println((o.skipped() ? "already rebuilt " : "rebuilt ") + o.dataset() + ": " + o.events()
                        + " events in " + o.millis() + " ms");
            }
        }
        long seconds = Math.max(1, summary.millis());
        out.printf("rebuild: %d datasets (%s) into '%s' tables: %d events in %.1f s (%.0f events/s), %d failed%n",
                summary.outcomes().size(), selection, targetPrefix, summary.events(), summary.millis() / 1000.0,
                summary.events() * 1000.0 / seconds, summary.failures().size());
        if (newEpochs.isPresent() && !summary.epochs().isEmpty()) {
            out.printf("rebuild: epochs assigned anew, %d events at most each: %d to %d%n",
                    newEpochs.get().maxEvents(), summary.epochs().first(), summary.epochs().last());
        }
        return summary.failures().isEmpty() ? 0 : 1;
    }
}
