package org.eventindex.supervisor;

import org.eventindex.ProjectVersion;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.StopSignals;
import org.eventindex.cli.VersionProvider;
import org.eventindex.cluster.ClusterConfigException;
import org.eventindex.config.ConfigKeysFile;
import org.eventindex.io.FileReason;
import org.eventindex.supervisor.ha.Leadership;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import static java.util.Objects.requireNonNull;

/**
 * The daemon's command line (picocli, {@link CommandLines}):
 * <pre>
 *   supervisor run --config supervisor.properties
 *   supervisor config-keys
 * </pre>
 * {@code bin/eventindex supervisor} runs the operators' command line ({@code org.eventindex.operator.OperatorMain},
 * module operator), which holds these two commands ({@link #runCommand}, {@link #configKeysCommand}) beside the
 * requests to the running supervisor; this class is the daemon's entry point without them, for the tests and
 * harnesses that start the daemon as a process.
 * Exit codes: 0 stopped cleanly, 1 failed (the message says why), 2 bad usage or configuration.
 */
@Command(name = "eventindex supervisor", mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "The supervisor daemon (run) and its configuration keys (config-keys).",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:done (run: after a clean stop by SIGTERM/SIGINT)", "1:failed (the message says why)",
            "2:bad usage or configuration"})
public final class SupervisorMain implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(SupervisorMain.class);

    private final PrintStream err;
    @Spec
    private CommandSpec spec;

    private SupervisorMain(PrintStream err) {
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err, System.getenv()));
    }

    /** Runs a command; returns the exit code. {@code run} blocks until the JVM is asked to stop. */
    public static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
        return CommandLines.of(new SupervisorMain(err), List.of(runCommand(err, env), configKeysCommand(out)), out, err)
                .execute(args);
    }

    /** The command {@code run}, for a command tree that holds it (the operators' {@code eventindex supervisor}). */
    public static Object runCommand(PrintStream err, Map<String, String> env) {
        return new Run(err, env);
    }

    /** The command {@code config-keys}, for a command tree that holds it. */
    public static Object configKeysCommand(PrintStream out) {
        return new ConfigKeys(out);
    }

    /** No command given. */
    @Override
    public Integer call() {
        err.println("supervisor: a command is required");
        spec.commandLine().usage(err);
        return CommandLines.USAGE_ERROR;
    }

    @Command(name = "run", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Runs the daemon until SIGTERM or SIGINT, then stops it cleanly and exits 0.")
    static final class Run implements Callable<Integer> {
        private final PrintStream err;
        private final Map<String, String> env;
        @Option(names = "--config", paramLabel = "FILE", required = true,
                description = "the supervisor's properties file (keys: config-keys)")
        private Path config;

        Run(PrintStream err, Map<String, String> env) {
            this.err = requireNonNull(err, "err is null");
            this.env = requireNonNull(env, "env is null");
        }

        @Override
        public Integer call() {
            LOG.info(ProjectVersion.startLine("supervisor"));
            SupervisorConfig loaded;
            try {
                loaded = SupervisorConfig.load(config, env);
            } catch (IOException | RuntimeException e) {
                // exit 2, like the consumer: the operator's file is wrong, not the machine
                err.println("supervisor: bad configuration: " + e.getMessage());
                return 2;
            }
            try {
                return daemon(loaded, err);
            } catch (ClusterConfigException e) {
                err.println("supervisor: bad configuration: " + e.getMessage());
                return 2;
            } catch (IOException | IllegalArgumentException | IllegalStateException e) {
                err.println("supervisor run failed: "
                        + (e instanceof IOException io ? FileReason.describe(io) : e.getMessage()));
                return 1;
            }
        }
    }

    @Command(name = "config-keys", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Prints every configuration key with its default and meaning, as a commented properties"
            + " file (a starting supervisor.properties).")
    static final class ConfigKeys implements Callable<Integer> {
        private final PrintStream out;

        ConfigKeys(PrintStream out) {
            this.out = requireNonNull(out, "out is null");
        }

        @Override
        public Integer call() {
            ConfigKeysFile.print("The supervisor's configuration (eventindex supervisor run --config FILE): every key"
                    + " with its default; docs/supervisor.md.", SupervisorConfig.KEYS, out);
            return 0;
        }
    }

    /**
     * Runs until SIGTERM or SIGINT, then stops the supervisor cleanly and returns 0 (the JVM's own handling of them
     * would exit 143 or 130). The shutdown hook still stops it on any other exit of the JVM.
     */
    private static int daemon(SupervisorConfig config, PrintStream err) throws IOException {
        Supervisor supervisor = new Supervisor(config, Clock.systemUTC());
        // a stop signal while the start waits for the KDC ends the wait: the start fails, the daemon exits 0
        StopSignals signals = StopSignals.daemon("supervisor", supervisor::stopWaiting);
        // Fenced out by the standby: end now, without the shutdown hook's checkpoint; started again it is a standby.
        supervisor.onFenced(why -> {
            err.println("supervisor: fenced out (" + why + "); exiting " + Leadership.EXIT_FENCED);
            err.flush();
            Runtime.getRuntime().halt(Leadership.EXIT_FENCED);
        });
        supervisor.onActivationFailure(e -> {
            err.println("supervisor: took the lease but could not start: " + e.getMessage());
            System.exit(1);
        });
        Runtime.getRuntime().addShutdownHook(new Thread(supervisor::stop, "supervisor-shutdown"));
        try {
            supervisor.start();
        } catch (IOException e) {
            if (signals.received() != null) {
                err.println("supervisor: " + signals.received() + " received while starting, stopping");
                supervisor.stop();
                return 0;
            }
            throw e;
        }
        try {
            String signal = signals.await();
            err.println("supervisor: " + signal + " received, stopping");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        supervisor.stop();
        return 0;
    }
}
