package org.eventindex.preflight;

import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.cluster.ClusterConfigException;
import org.eventindex.cluster.ClusterOptions;
import org.eventindex.cluster.ClusterSettings;
import org.eventindex.consumer.ConsumerConfig;
import org.eventindex.io.FileReason;
import org.eventindex.ops.Preflight;
import org.eventindex.producer.ProducerArgs;
import org.eventindex.producer.ProducerCli;
import org.eventindex.producer.ProducerException;
import org.eventindex.producer.ProducerOptions;
import org.eventindex.producer.UploadPlan;
import org.eventindex.producer.UploadSettings;
import org.eventindex.stomp.StompSettings;
import org.eventindex.supervisor.SupervisorConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

import javax.net.ssl.TrustManager;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * {@code eventindex check}: a daemon's configuration read as the daemon reads it, then every dependency tried with
 * its credentials, one line per check (OK or FAIL, the thing, the reason and the fix), exit 1 when one fails.
 */
@Command(name = "eventindex check", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false,
        subcommands = {CheckMain.Supervisor.class, CheckMain.Consumer.class, CheckMain.Lookup.class,
            CheckMain.KuduLoader.class, CheckMain.Producer.class, HelpCommand.class},
        description = "Before a start: reads a daemon's configuration as the daemon does and tries every dependency"
                + " with its credentials (Kerberos, each broker of the alias, the S3 bucket, the HDFS folder, the Kudu"
                + " tables, ZooKeeper), or the producer's options as the producer parses them; one line per check: OK"
                + " or FAIL, the thing, the reason, the fix.",
        footer = {"", "Run 'eventindex check COMMAND --help' for the options of a daemon's check."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every check passed", "1:a check failed (its line says what and how to fix it)",
            "2:usage error, or a configuration the daemon would refuse"})
public final class CheckMain implements Callable<Integer> {
    /** Exit status when a check failed. */
    public static final int FAILED = 1;

    private final PrintStream out;
    private final PrintStream err;
    private final Map<String, String> env;
    @Spec
    private CommandSpec spec;

    CheckMain(PrintStream out, PrintStream err, Map<String, String> env) {
        this.out = out;
        this.err = err;
        this.env = env;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err, System.getenv()));
    }

    static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
        return CommandLines.execute(new CheckMain(out, err, env), args, out, err);
    }

    @Override
    public Integer call() {
        err.println("check: a daemon is required (supervisor, consumer, lookup, kudu-loader or producer)");
        spec.commandLine().usage(err);
        return CommandLines.USAGE_ERROR;
    }

    /** What every check command takes. */
    static final class Output {
        @Option(names = "--json", description = "one JSON document instead of the lines")
        boolean json;
        @Option(names = "--timeout", paramLabel = "SECONDS", description = "time each check has to answer before it"
                + " fails naming what did not answer (default: 10)")
        int timeoutSeconds = 10;

        @Spec(Spec.Target.MIXEE)
        CommandSpec command;

        /** @throws ParameterException (a usage error, exit 2) for a timeout under 1 s */
        Duration timeout() {
            if (timeoutSeconds < 1) {
                throw new ParameterException(command.commandLine(), "--timeout must be at least 1 second: "
                        + timeoutSeconds);
            }
            return Duration.ofSeconds(timeoutSeconds);
        }
    }

    private int report(Output o, List<Preflight.Result> results) {
        out.print(o.json ? Preflight.json(results) + System.lineSeparator() : Preflight.text(results));
        out.flush();
        return Preflight.allOk(results) ? CommandLines.OK : FAILED;
    }

    /** A daemon's reader of its configuration file. */
    @FunctionalInterface
    interface Reader<C> {
        C load(Path file, Map<String, String> env) throws IOException;
    }

    /**
     * Reads {@code file} with the daemon's reader, then runs the checks {@code checks} builds from it. A configuration
     * the daemon refuses stops here, as it would stop the daemon (exit 2).
     */
    private <C> int file(Path file, Output o, Reader<C> reader, Function<C, ClusterSettings> cluster,
                         BiFunction<C, ClusterSession, List<Preflight.Check>> checks) throws IOException {
        C config;
        try {
            config = reader.load(file, env);
        } catch (IOException | IllegalArgumentException | ClusterConfigException e) {
            // what the daemon's run refuses with exit 2: a file it cannot read, a key or value it does not take
            err.println("check: " + (e instanceof IOException io ? FileReason.describe(io) : e.getMessage()));
            err.println("The daemon would refuse " + file + " at start (exit 2): fix the file, then check again.");
            return CommandLines.USAGE_ERROR;
        }
        Duration timeout = o.timeout();
        try (ClusterSession session = new ClusterSession(cluster.apply(config), timeout)) {
            return report(o, Preflight.run(checks.apply(config, session), timeout));
        }
    }

    /** A daemon's check from its configuration file. */
    abstract static class FileCheck implements Callable<Integer> {
        @ParentCommand
        CheckMain main;
        @Option(names = "--config", paramLabel = "FILE", required = true,
                description = "the daemon's properties file, as its 'run --config' takes it")
        Path config;
        @Mixin
        Output output;
    }

    @Command(name = "supervisor", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "The supervisor's configuration file: the brokers (subscribe to the producer, control and"
                    + " heartbeat queues, send to the consumers' and quarantine queues), the cleanup's bucket"
                    + " (delete), the Kudu tables of the epochs (read), ZooKeeper and the journal's HDFS folder"
                    + " (supervisor.ha.store=zookeeper), the Kerberos login.")
    static final class Supervisor extends FileCheck {
        @Override
        public Integer call() throws IOException {
            return main.file(config, output, SupervisorConfig::load, c -> c.epochs().kerberos(),
                    (c, cluster) -> DaemonChecks.supervisor(c, cluster, output.timeout()));
        }
    }

    @Command(name = "consumer", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "The consumer's configuration file: the brokers (subscribe to the signal queue, send to the"
                    + " report and heartbeat queues), the bucket (read), the HDFS root (owner, write), the Kudu"
                    + " tables (schema, read, write), the Kerberos login.")
    static final class Consumer extends FileCheck {
        @Override
        public Integer call() throws IOException {
            return main.file(config, output, ConsumerConfig::load, ConsumerConfig::cluster, DaemonChecks::consumer);
        }
    }

    /** The options {@code lookup serve} and {@code kudu-loader} reach Kudu with. */
    static final class KuduOptions {
        @Option(names = "--masters", paramLabel = "M", required = true,
                description = "Kudu master addresses, comma-separated host:port (required)")
        String masters;
        @Option(names = "--prefix", paramLabel = "P", description = "table name prefix (default: none)")
        String prefix = "";
        @Mixin
        ClusterOptions cluster;
    }

    private int kudu(KuduOptions o, Output output, boolean write) {
        Duration timeout = output.timeout();
        try (ClusterSession cluster = new ClusterSession(o.cluster.settings(env), timeout)) {
            return report(output, Preflight.run(DaemonChecks.kuduCommand(cluster, o.masters, o.prefix, write),
                    timeout));
        }
    }

    /** A Kudu-only check: the options of {@link KuduOptions}, and whether the command writes. */
    abstract static class KuduCheck implements Callable<Integer> {
        @ParentCommand
        CheckMain main;
        @Mixin
        KuduOptions kudu;
        @Mixin
        Output output;

        abstract boolean writes();

        @Override
        public Integer call() {
            return main.kudu(kudu, output, writes());
        }
    }

    @Command(name = "producer", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            customSynopsis = {"eventindex check producer [--json] [--timeout=SECONDS] FILE.ei.spb --brokers LIST",
                "         --s3-endpoint URL --bucket BUCKET [the producer's other options]"},
            description = {"The producer's own command line (see 'eventindex producer --help'), parsed by the"
                    + " producer's parser, with the same secrets (files or environment): each broker of --brokers"
                    + " (send to --queue) and the bucket (a multipart upload created and aborted at once under the"
                    + " key prefix of FILE's object: s3:PutObject and s3:AbortMultipartUpload). FILE is a valid SPB"
                    + " file of the job; nothing is stored, nothing is delivered.", ""})
    static final class Producer implements Callable<Integer> {
        @ParentCommand
        CheckMain main;
        @Mixin
        Output output;
        @Unmatched
        List<String> producerArgs = new ArrayList<>();

        @Override
        public Integer call() {
            return main.producer(producerArgs, output);
        }
    }

    private int producer(List<String> args, Output output) {
        Duration timeout = output.timeout();
        ProducerOptions options;
        StompSettings stomp;
        TrustManager[] s3Trust;
        UploadPlan plan;
        try {
            options = ProducerArgs.parse(args, env);
            if (options.dryRun()) {
                err.println("check producer: --dry-run contacts nothing, so there is nothing to check: drop it");
                return CommandLines.USAGE_ERROR;
            }
            stomp = ProducerCli.stompSettings(options);
            s3Trust = ProducerCli.s3TrustManagers(options);
            plan = ProducerCli.plan(options, UploadSettings.DEFAULT, System.currentTimeMillis());
        } catch (ProducerException e) {
            err.println("check producer: " + e.getMessage());
            err.println("The producer would refuse these options (exit " + e.exitCode().code() + ", "
                    + e.exitCode().description() + "): fix them, then check again.");
            return CommandLines.USAGE_ERROR;
        }
        return report(output, Preflight.run(DaemonChecks.producer(options, stomp, plan, s3Trust), timeout));
    }

    @Command(name = "lookup", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "The Kudu options of 'lookup serve' (lookup.env): the Kerberos login, the masters, the"
                    + " tables (schema) and the right to read them.")
    static final class Lookup extends KuduCheck {
        @Override
        boolean writes() {
            return false;
        }
    }

    @Command(name = "kudu-loader", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "The options of 'kudu-loader' (kudu-loader.env): the Kerberos login, the masters, the"
                    + " tables (schema) and the rights to read and write them.")
    static final class KuduLoader extends KuduCheck {
        @Override
        boolean writes() {
            return true;
        }
    }
}
