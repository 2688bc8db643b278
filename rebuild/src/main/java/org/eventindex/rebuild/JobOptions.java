package org.eventindex.rebuild;

import org.apache.hadoop.conf.Configuration;
import org.apache.kudu.client.KuduClient;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.deploy.SparkHadoopUtil;
import org.eventindex.cli.CommandLines;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.cluster.ClusterConfigException;
import org.eventindex.cluster.ClusterOptions;
import org.eventindex.io.FileReason;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The options {@code eventindex rebuild} and {@code eventindex verify} share: the Kudu cluster and the catalogue's
 * tables, which datasets, and the Spark master and settings.
 */
final class JobOptions {
    /** The job itself, given the driver's Kudu client, the Spark context and what the tasks get from the driver. */
    @FunctionalInterface
    interface Work {
        /**
         * @param grants the Hadoop folder's settings, HDFS delegation tokens and Kudu credentials for the tasks
         * @return the exit status
         */
        int run(KuduClient client, JavaSparkContext spark, TaskAccess.Grants grants) throws IOException;
    }

    @Option(names = "--masters", paramLabel = "M", required = true,
            description = "Kudu master addresses, comma-separated host:port (required)")
    String masters;
    @Option(names = "--prefix", paramLabel = "P", description = "prefix of the tables whose DATASETS is the"
            + " catalogue (default: none)")
    String prefix = "";
    @Option(names = "--epoch", paramLabel = "N", description = "the datasets of this epoch only")
    Integer epoch;
    @Option(names = "--dataset", paramLabel = "GLOB", description = "the datasets whose name matches this glob, e.g."
            + " 'data17_13TeV.*.AOD.*'")
    String glob;
    @Option(names = "--all", description = "every LOADED dataset (one of --epoch, --dataset, --all is required)")
    boolean all;
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

    /** The datasets asked for. */
    DatasetSelection selection(CommandSpec spec) {
        if (!all && epoch == null && glob == null) {
            throw new ParameterException(spec.commandLine(), "say which datasets: --epoch N, --dataset GLOB or --all");
        }
        if (all && (epoch != null || glob != null)) {
            throw new ParameterException(spec.commandLine(), "--all takes every dataset: not with --epoch or"
                    + " --dataset");
        }
        if (kuduTimeoutSeconds < 1) {
            throw new ParameterException(spec.commandLine(), "--kudu-timeout must be at least 1: "
                    + kuduTimeoutSeconds);
        }
        try {
            return new DatasetSelection(epoch == null ? OptionalInt.empty() : OptionalInt.of(epoch), glob);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /**
     * The Spark settings of the job named {@code appName}: {@code --conf}, then {@code --master}; speculation off (two
     * attempts of one task at once would each clear what the other wrote).
     */
    SparkConf sparkConf(CommandSpec spec, String appName) {
        SparkConf conf = new SparkConf().setAppName(appName).set("spark.speculation", "false");
        sparkSettings.forEach(conf::set);
        if (sparkMaster != null) {
            conf.setMaster(sparkMaster);
        }
        if (!conf.contains("spark.master")) {
            throw new ParameterException(spec.commandLine(), "no Spark master: give --master (local[*],"
                    + " spark://host:7077) or run under spark-submit");
        }
        return conf;
    }

    /**
     * Runs {@code work} as Spark application {@code appName}: the Kerberos login of the options (if any), a Kudu
     * client whose masters answered, a Spark context; each closed after. Failures are printed after
     * {@code command}: {@code 2} for a configuration to fix, {@code 1} for a failed job.
     */
    int run(CommandSpec spec, PrintStream err, String command, String appName, Work work) {
        SparkConf conf = sparkConf(spec, appName);
        // Spark's Hadoop utilities, when first used (by the Spark context), set UGI's configuration from Spark's
        // settings, without Kerberos: first, so that the login below has the last word (else HDFS sees SIMPLE)
        SparkHadoopUtil.get();
        ClusterAccess access;
        try {
            access = cluster.open();
        } catch (ClusterConfigException e) {
            err.println(command + ": " + e.getMessage());
            return CommandLines.USAGE_ERROR;
        }
        Configuration hadoop = access.configuration();
        try (ClusterAccess ignored = access;
             KuduClient client = access.connectedKuduClient(masters, Duration.ofSeconds(kuduTimeoutSeconds));
             JavaSparkContext spark = new JavaSparkContext(conf);
             TokenRenewal renewal = new TokenRenewal(token -> access.asUser(() -> token.renew(hadoop)),
                     Clock.systemUTC(), line -> err.println(command + ": " + line))) {
            // the tasks act as this principal through its tokens, with no keytab of their own (decision 0074), the
            // tokens renewed while the job runs (decision 0082)
            return work.run(client, spark, paths -> TaskAccess.grant(access, client, paths, renewal));
        } catch (IOException e) {
            err.println(command + ": failed: " + FileReason.describe(e));
            return 1;
        } catch (RuntimeException e) {
            err.println(command + ": failed: " + e.getMessage());
            return 1;
        }
    }
}
