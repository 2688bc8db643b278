package org.eventindex.rebuild;

import org.apache.kudu.client.KuduClient;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.cluster.ClusterConfigException;
import org.eventindex.cluster.ClusterOptions;
import org.eventindex.io.FileReason;
import org.eventindex.kudu.KuduTablesConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.Callable;

/**
 * {@code eventindex rebuild}: a Spark application (spark-submit, or {@code --master local[*]}) that loads the selected
 * datasets of the catalogue again, from their consolidated files in HDFS, into other Kudu tables (docs/rebuild.md).
 */
@Command(name = "eventindex rebuild", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false,
        description = {"Loads the datasets of the catalogue (the source DATASETS table) again from their consolidated"
                + " files in HDFS into other Kudu tables, on Spark: one task per run, each dataset's recorded load"
                + " replayed with the loader's own code, so the target rows are the source rows. Safe to run again:"
                + " a dataset already rebuilt is skipped, an interrupted one is loaded again from a clean slate."},
        footer = {"", "Example: spark-submit --class org.eventindex.rebuild.RebuildMain eventindex-rebuild.jar"
                + " --masters kudu1:7051 --target-prefix e7_ --epoch 7"},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every selected dataset rebuilt", "1:a dataset failed or the job failed (the message"
                + " says which and why)", "2:usage error"})
public final class RebuildMain implements Callable<Integer> {
    private final PrintStream out;
    private final PrintStream err;
    @Spec
    private CommandSpec spec;

    @Option(names = "--masters", paramLabel = "M", required = true,
            description = "Kudu master addresses, comma-separated host:port (required)")
    String masters;
    @Option(names = "--prefix", paramLabel = "P", description = "prefix of the source tables, whose DATASETS is the"
            + " catalogue (default: none)")
    String prefix = "";
    @Option(names = "--target-prefix", paramLabel = "P", required = true,
            description = "prefix of the tables to write, created if missing; must differ from --prefix (required)")
    String targetPrefix;
    @Option(names = "--epoch", paramLabel = "N", description = "rebuild the datasets of this epoch only")
    Integer epoch;
    @Option(names = "--dataset", paramLabel = "GLOB", description = "rebuild the datasets whose name matches this"
            + " glob, e.g. 'data17_13TeV.*.AOD.*'")
    String glob;
    @Option(names = "--all", description = "rebuild every LOADED dataset (one of --epoch, --dataset, --all is"
            + " required)")
    boolean all;
    @Option(names = "--buckets", paramLabel = "N",
            description = "HASH(eventnumber) buckets per epoch of the target tables (default: 64)")
    int buckets = KuduTablesConfig.DEFAULT_HASH_BUCKETS;
    @Option(names = "--replicas", paramLabel = "N",
            description = "tablet replicas of the target tables, odd (default: 3; 1 on a single server)")
    int replicas = KuduTablesConfig.DEFAULT_REPLICAS;
    @Option(names = "--load-threads", paramLabel = "N",
            description = "Kudu sessions writing one dataset within a task (default: 1; the tasks are the parallelism)")
    int loadThreads = 1;
    @Option(names = "--master", paramLabel = "URL", description = "Spark master, e.g. local[*] or spark://host:7077"
            + " (default: the one spark-submit sets)")
    String sparkMaster;
    @Option(names = "--conf", paramLabel = "KEY=VALUE", description = "a Spark setting, as spark-submit's --conf"
            + " (repeatable), e.g. spark.executor.memory=1g")
    Map<String, String> sparkSettings = new LinkedHashMap<>();
    @Option(names = "--kudu-timeout", paramLabel = "S",
            description = "seconds to wait for the Kudu masters to answer (default: 30)")
    int kuduTimeoutSeconds = 30;
    @Mixin
    ClusterOptions cluster;

    private RebuildMain(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new RebuildMain(out, err), args, out, err);
    }

    @Override
    public Integer call() {
        DatasetSelection selection = selection();
        RebuildTarget target;
        try {
            target = new RebuildTarget(masters, targetPrefix, buckets, replicas, loadThreads, null);
            new KuduTablesConfig(prefix, buckets, replicas);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        if (prefix.equals(targetPrefix)) {
            throw new ParameterException(spec.commandLine(), "--target-prefix '" + targetPrefix + "' names the source"
                    + " tables: a rebuild writes into other tables, then swaps them in (docs/rebuild.md)");
        }
        if (kuduTimeoutSeconds < 1) {
            throw new ParameterException(spec.commandLine(), "--kudu-timeout must be at least 1: "
                    + kuduTimeoutSeconds);
        }
        SparkConf conf = new SparkConf().setAppName("eventindex rebuild " + selection)
                // two attempts of one run's task at once would each clear what the other wrote
                .set("spark.speculation", "false");
        sparkSettings.forEach(conf::set);
        if (sparkMaster != null) {
            conf.setMaster(sparkMaster);
        }
        if (!conf.contains("spark.master")) {
            throw new ParameterException(spec.commandLine(), "no Spark master: give --master (local[*],"
                    + " spark://host:7077) or run under spark-submit");
        }
        ClusterAccess access;
        try {
            access = cluster.open();
        } catch (ClusterConfigException e) {
            err.println("rebuild: " + e.getMessage());
            return CommandLines.USAGE_ERROR;
        }
        try (ClusterAccess ignored = access;
             KuduClient client = access.connectedKuduClient(masters, Duration.ofSeconds(kuduTimeoutSeconds));
             JavaSparkContext spark = new JavaSparkContext(conf)) {
            if (access.login().isPresent()) {
                // the executors act as this principal through its Kudu token, as kudu-spark's do
                target = new RebuildTarget(masters, targetPrefix, buckets, replicas, loadThreads,
                        client.exportAuthenticationCredentials());
            }
            RebuildJob.Summary summary = new RebuildJob(spark, client)
                    .run(new KuduTablesConfig(prefix, buckets, replicas), target, selection);
            return report(summary, selection);
        } catch (IOException e) {
            err.println("rebuild: failed: " + FileReason.describe(e));
            return 1;
        } catch (RuntimeException e) {
            err.println("rebuild: failed: " + e.getMessage());
            return 1;
        }
    }

    private DatasetSelection selection() {
        if (!all && epoch == null && glob == null) {
            throw new ParameterException(spec.commandLine(), "say what to rebuild: --epoch N, --dataset GLOB or --all");
        }
        if (all && (epoch != null || glob != null)) {
            throw new ParameterException(spec.commandLine(), "--all takes every dataset: not with --epoch or"
                    + " --dataset");
        }
        try {
            return new DatasetSelection(epoch == null ? OptionalInt.empty() : OptionalInt.of(epoch), glob);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private int report(RebuildJob.Summary summary, DatasetSelection selection) {
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
        return summary.failures().isEmpty() ? 0 : 1;
    }
}
