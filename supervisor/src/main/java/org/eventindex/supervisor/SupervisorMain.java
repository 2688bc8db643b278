package org.eventindex.supervisor;

import org.eventindex.message.Json;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;

import org.eventindex.config.SecretFile;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.eventindex.cluster.ClusterConfigException;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.message.Queues;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * Command line of the supervisor (picocli, {@link CommandLines}):
 * <pre>
 *   supervisor run --config supervisor.properties
 *   supervisor register-manifest --brokers host:port[,host:port] --file manifest.json [--queue Q] [--user U]
 *   supervisor resignal --brokers host:port[,host:port] --dataset NAME [--queue Q] [--user U]
 *   supervisor invalidate --brokers host:port[,host:port] --dataset NAME --url s3://... --reason TEXT
 *   supervisor config-keys
 * </pre>
 * The STOMP passcode of the client commands comes from {@code EI_STOMP_PASSWORD} or {@code --password-file}.
 * Exit codes: 0 done, 1 failed (the message says why), 2 bad usage.
 */
@Command(name = "supervisor", mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "The supervisor daemon (run) and its operator commands.",
        subcommands = {SupervisorMain.Run.class, SupervisorMain.RegisterManifest.class, SupervisorMain.Resignal.class,
            SupervisorMain.Invalidate.class, SupervisorMain.ConfigKeys.class},
        footer = {"", "The STOMP passcode of the client commands is read from --password-file or the environment"
                + " variable " + SupervisorConfig.ENV_STOMP_PASSWORD + "."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:done (run: after a clean stop by SIGTERM/SIGINT)", "1:failed (the message says why)",
            "2:bad usage or configuration"})
public final class SupervisorMain implements Callable<Integer> {
    private final PrintStream out;
    private final PrintStream err;
    private final Map<String, String> env;
    @Spec
    private CommandSpec spec;

    private SupervisorMain(PrintStream out, PrintStream err, Map<String, String> env) {
        this.out = out;
        this.err = err;
        this.env = env;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err, System.getenv()));
    }

    /** Runs a command; returns the exit code. {@code run} blocks until the JVM is asked to stop. */
    static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
        return CommandLines.execute(new SupervisorMain(out, err, env), args, out, err);
    }

    /** No command given. */
    @Override
    public Integer call() {
        err.println("supervisor: a command is required");
        spec.commandLine().usage(err);
        return CommandLines.USAGE_ERROR;
    }

    /** Reports a failed client command: exit 1. */
    private int failed(String command, Exception e) {
        err.println("supervisor " + command + " failed: " + e.getMessage());
        return 1;
    }

    @Command(name = "run", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Runs the daemon until SIGTERM/SIGINT (a shutdown hook stops it cleanly).")
    static final class Run implements Callable<Integer> {
        @ParentCommand
        private SupervisorMain main;
        @Option(names = "--config", paramLabel = "FILE", required = true,
                description = "the supervisor's properties file (keys: config-keys)")
        private Path config;

        @Override
        public Integer call() {
            SupervisorConfig loaded;
            try {
                loaded = SupervisorConfig.load(config, main.env);
            } catch (IOException | RuntimeException e) {
                // exit 2, like the consumer: the operator's file is wrong, not the machine
                main.err.println("supervisor: bad configuration: " + e.getMessage());
                return 2;
            }
            try {
                return daemon(loaded);
            } catch (ClusterConfigException e) {
                main.err.println("supervisor: bad configuration: " + e.getMessage());
                return 2;
            } catch (IOException | IllegalArgumentException | IllegalStateException e) {
                return main.failed("run", e);
            }
        }
    }

    /** The broker options of the client commands. */
    static final class StompClient {
        @Option(names = "--brokers", paramLabel = "H:P[,H:P]", required = true, description = "STOMP brokers")
        private String brokers;
        @Option(names = "--queue", paramLabel = "Q",
                description = "control queue (default " + Queues.SUPERVISOR_CONTROL + ")")
        private String queue;
        @Option(names = "--user", paramLabel = "U", description = "STOMP login")
        private String user;
        @Option(names = "--password-file", paramLabel = "F",
                description = "file holding the STOMP passcode (or env " + SupervisorConfig.ENV_STOMP_PASSWORD + ")")
        private Path passwordFile;

        String queue() {
            return queue != null ? queue : SupervisorConfig.defaultOf(SupervisorConfig.QUEUE_CONTROL);
        }

        void send(Map<String, String> env, byte[] body) throws IOException {
            List<StompEndpoint> endpoints = StompEndpoint.parseList(brokers);
            String password = env.get(SupervisorConfig.ENV_STOMP_PASSWORD);
            if (passwordFile != null) {
                password = SecretFile.read(passwordFile, "--password-file");
            }
            try (StompSender sender = new StompSender(StompSettings.of(endpoints, user, password))) {
                sender.send(queue(), body, Map.of("content-type", "application/json"));
            }
        }
    }

    @Command(name = "register-manifest", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Checks the manifest with the supervisor's own rules, then"
            + " sends it (persistent, with receipt) to the control queue.")
    static final class RegisterManifest implements Callable<Integer> {
        @ParentCommand
        private SupervisorMain main;
        @Mixin
        private StompClient stomp;
        @Option(names = "--file", paramLabel = "manifest.json", required = true,
                description = "the dataset's manifest (bin/eventindex generate writes one)")
        private Path file;

        @Override
        public Integer call() {
            try {
                registerManifest(file, stomp, main.env, main.out);
                return 0;
            } catch (IOException | IllegalArgumentException | IllegalStateException e) {
                return main.failed("register-manifest", e);
            }
        }
    }

    @Command(name = "resignal", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Asks the running supervisor to send a dataset's signal again,"
            + " unchanged (same signalId): the operator's re-run.")
    static final class Resignal implements Callable<Integer> {
        @ParentCommand
        private SupervisorMain main;
        @Mixin
        private StompClient stomp;
        @Option(names = "--dataset", paramLabel = "NAME", required = true, description = "the dataset")
        private String dataset;

        @Override
        public Integer call() {
            try {
                resignal(dataset, stomp, main.env, main.out);
                return 0;
            } catch (IOException | IllegalArgumentException | IllegalStateException e) {
                return main.failed("resignal", e);
            }
        }
    }

    @Command(name = "invalidate", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Marks an object invalid: it is never selected again; the dataset is"
            + " selected again.")
    static final class Invalidate implements Callable<Integer> {
        @ParentCommand
        private SupervisorMain main;
        @Mixin
        private StompClient stomp;
        @Option(names = "--dataset", paramLabel = "NAME", required = true, description = "the dataset")
        private String dataset;
        @Option(names = "--url", paramLabel = "s3://host:port/bucket/key", required = true,
                description = "the object to invalidate")
        private String url;
        @Option(names = "--reason", paramLabel = "TEXT", required = true, description = "why, for the journal")
        private String reason;

        @Override
        public Integer call() {
            try {
                invalidate(dataset, url, reason, stomp, main.env, main.out);
                return 0;
            } catch (IOException | IllegalArgumentException | IllegalStateException e) {
                return main.failed("invalidate", e);
            }
        }
    }

    @Command(name = "config-keys", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Prints every configuration key with its default and meaning.")
    static final class ConfigKeys implements Callable<Integer> {
        @ParentCommand
        private SupervisorMain main;

        @Override
        public Integer call() {
            for (org.eventindex.config.ConfigKey k : SupervisorConfig.KEYS) {
                main.out.println(k.name() + " = " + k.defaultValue() + "\n    " + k.doc()
                        + (k.envVar() == null ? "" : " (environment: " + k.envVar() + ")"));
            }
            return 0;
        }
    }

    private static int daemon(SupervisorConfig config) throws IOException {
        Supervisor supervisor = new Supervisor(config, Clock.systemUTC());
        CountDownLatch down = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            supervisor.stop();
            down.countDown();
        }, "supervisor-shutdown"));
        supervisor.start();
        try {
            down.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            supervisor.stop();
        }
        return 0;
    }

    private static void registerManifest(Path file, StompClient stomp, Map<String, String> env, PrintStream out)
            throws IOException {
        byte[] body;
        try {
            body = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IOException("cannot read manifest " + file + ": " + e.getMessage(), e);
        }
        Inbound checked = new MessageValidator("-").control(body, file.toString());
        if (checked instanceof Inbound.Rejected r) {
            throw new IllegalArgumentException("manifest " + file + " is refused: " + r.rejection().reason() + ": "
                    + r.rejection().detail());
        }
        if (!(checked instanceof Inbound.Manifest m)) {
            throw new IllegalArgumentException("manifest " + file + " is not a manifest (its type must be \"manifest\")");
        }
        stomp.send(env, body);
        out.println("manifest of dataset " + m.manifest().dataset() + " (" + m.manifest().files().size()
                + " files) sent to " + stomp.queue());
    }

    private static void resignal(String dataset, StompClient stomp, Map<String, String> env, PrintStream out)
            throws IOException {
        byte[] body = Json.write(ResignalCommand.of(dataset));
        Inbound checked = new MessageValidator("-").control(body, "command line");
        if (checked instanceof Inbound.Rejected r) {
            throw new IllegalArgumentException(r.rejection().detail());
        }
        stomp.send(env, body);
        out.println("resignal of dataset " + dataset + " sent; the supervisor log and /datasets/" + dataset
                + " show the outcome");
    }

    private static void invalidate(String dataset, String url, String reason, StompClient stomp,
                                   Map<String, String> env, PrintStream out) throws IOException {
        byte[] body = Json.write(InvalidateCommand.of(dataset, url, reason, "operator"));
        Inbound checked = new MessageValidator("-").control(body, "command line");
        if (checked instanceof Inbound.Rejected r) {
            throw new IllegalArgumentException(r.rejection().detail());
        }
        stomp.send(env, body);
        out.println("invalidation of object " + url + " of dataset " + dataset + " sent; /datasets/" + dataset
                + " shows the new selection");
    }
}
