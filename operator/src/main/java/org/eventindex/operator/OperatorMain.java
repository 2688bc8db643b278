package org.eventindex.operator;

import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.cluster.ClusterConfigException;
import org.eventindex.cluster.ClusterOptions;
import org.eventindex.cluster.KdcUnreachableException;
import org.eventindex.config.SecretFile;
import org.eventindex.io.FileReason;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.names.DatasetName;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompSettings;
import org.eventindex.supervisor.DeleteCommand;
import org.eventindex.supervisor.InvalidateCommand;
import org.eventindex.supervisor.OperatorAnswer;
import org.eventindex.supervisor.OperatorRequests;
import org.eventindex.supervisor.RejectReason;
import org.eventindex.supervisor.ResignalCommand;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.supervisor.StateRebuild;
import org.eventindex.supervisor.SupervisorMain;

import org.apache.hadoop.fs.FileSystem;
import org.apache.kudu.client.KuduClient;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * The command line {@code eventindex supervisor} (picocli, {@link CommandLines}): the daemon's own commands
 * ({@code run}, {@code config-keys}: {@link SupervisorMain}) and the operators' commands to the running supervisor,
 * the broker's dead-letter queue, HDFS and Kudu:
 * <pre>
 *   supervisor run --config supervisor.properties
 *   supervisor register-manifest --brokers host:port[,host:port] --file manifest.json [--queue Q] [--user U]
 *   supervisor resignal --brokers host:port[,host:port] --dataset NAME [--queue Q] [--user U]
 *   supervisor invalidate --brokers host:port[,host:port] --dataset NAME --url s3://... --reason TEXT
 *   supervisor delete-dataset --brokers ... --dataset NAME --hdfs-uri URI --kudu-masters M [--yes]
 *   supervisor dead-letters list|redrive --brokers ...
 *   supervisor rebuild-state --config supervisor.properties --hdfs-uri URI [--dry-run] [--json]
 *   supervisor config-keys
 * </pre>
 * The STOMP passcode of the client commands comes from {@code EI_STOMP_PASSWORD} or {@code --password-file}; they
 * reach TLS brokers with {@code --tls} or {@code stomp+ssl://} entries and {@code --trust-store}
 * ({@link BrokerTlsOptions}). The commands to the supervisor wait for its answer (request and reply,
 * {@link OperatorClient}).
 * Exit codes: 0 done, 1 failed (the message says why), 2 bad usage, 3 refused by the supervisor, 4 no answer in
 * time, 5 delete not confirmed, 6 rebuild-state with undecided items, 7 delete not finished (what is left and the
 * command that finishes it printed).
 */
@Command(name = "eventindex supervisor", mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "The supervisor daemon (run) and its operator commands.",
        footer = {"", "The STOMP passcode of the client commands is read from --password-file or the environment"
                + " variable " + SupervisorConfig.ENV_STOMP_PASSWORD + ". Brokers that take STOMP over TLS only (the"
                + " production pair, port 61614): --tls (or stomp+ssl://H:P entries) and --trust-store FILE."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:done (run: after a clean stop by SIGTERM/SIGINT; a command: the supervisor answered OK)",
            "1:failed (the message says why)", "2:bad usage or configuration",
            "3:refused by the supervisor (UNKNOWN_DATASET, WRONG_STATE, BAD_REQUEST...: the message says why)",
            "4:the supervisor did not answer within --timeout", "5:delete-dataset not confirmed: nothing deleted",
            "6:rebuild-state done, with undecided items (listed, one per line)",
            "7:delete-dataset did not finish: what is left and the command that finishes it are printed"})
public final class OperatorMain implements Callable<Integer> {
    /** Exit code: the supervisor refused the request. */
    static final int REFUSED = 3;
    /** Exit code: no answer within the timeout. */
    static final int NO_ANSWER = 4;
    /** Exit code: delete-dataset was not confirmed. */
    static final int NOT_CONFIRMED = 5;
    /** Exit code: rebuild-state wrote (or would write) its entries, and some things are undecided. */
    static final int UNDECIDED = 6;
    /** Exit code: delete-dataset did not finish every step; the output says what is left and how to finish it. */
    public static final int INCOMPLETE = 7;

    private final InputStream in;
    private final PrintStream out;
    private final PrintStream err;
    private final Map<String, String> env;
    @Spec
    private CommandSpec spec;

    private OperatorMain(InputStream in, PrintStream out, PrintStream err, Map<String, String> env) {
        this.in = in;
        this.out = out;
        this.err = err;
        this.env = env;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.in, System.out, System.err, System.getenv()));
    }

    /** Runs a command; returns the exit code. {@code run} blocks until the JVM is asked to stop. */
    static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
        return run(args, InputStream.nullInputStream(), out, err, env);
    }

    /** Runs a command reading the operator's confirmation from {@code in}; returns the exit code. */
    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err,
                          Map<String, String> env) {
        // in the order of --help: the daemon, its status, the requests to it, the broker's dead letters, the keys
        List<Object> commands = List.of(SupervisorMain.runCommand(err, env), new SiteStatus(out, err),
                RegisterManifest.class, Resignal.class, Invalidate.class, DeleteDataset.class,
                DeadLettersCommand.class, RebuildState.class, SupervisorMain.configKeysCommand(out));
        return CommandLines.of(new OperatorMain(in, out, err, env), commands, out, err).execute(args);
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
        err.println("supervisor " + command + " failed: "
                + (e instanceof IOException io ? FileReason.describe(io) : e.getMessage()));
        return 1;
    }

    /** The broker, TLS and login options of the client commands. */
    static final class BrokerLogin {
        @Option(names = "--brokers", paramLabel = "[stomp+ssl://]H:P[,...]", required = true,
                description = "STOMP brokers (every address of each host name is a broker): a request goes through one,"
                        + " a random one first, the next on failure")
        private String brokers;
        @Mixin
        private BrokerTlsOptions tls;
        @Option(names = "--user", paramLabel = "U", description = "STOMP login")
        private String user;
        @Option(names = "--password-file", paramLabel = "F",
                description = "file holding the STOMP passcode (or env " + SupervisorConfig.ENV_STOMP_PASSWORD + ")")
        private Path passwordFile;

        StompSettings settings(Map<String, String> env) throws IOException {
            List<StompEndpoint> endpoints = tls.endpoints(brokers);
            String password = env.get(SupervisorConfig.ENV_STOMP_PASSWORD);
            if (passwordFile != null) {
                password = SecretFile.read(passwordFile, "--password-file");
            }
            return tls.applyTo(StompSettings.of(endpoints, user, password), brokers, env);
        }

        /** Runs {@code call} with the {@link #settings}; a failed TLS handshake names the trust store used. */
        <T> T connect(Map<String, String> env, StompCall<T> call) throws IOException {
            StompSettings settings = settings(env);
            try {
                return call.with(settings);
            } catch (IOException e) {
                throw tls.explained(e, settings.tls() != null);
            }
        }
    }

    /** Something done on the brokers. */
    @FunctionalInterface
    interface StompCall<T> {
        T with(StompSettings settings) throws IOException;
    }

    /** The options of a request to the supervisor: broker, login, control queue and how long to wait. */
    static final class StompClient {
        @Mixin
        private BrokerLogin login;
        @Option(names = "--queue", paramLabel = "Q",
                description = "control queue (default " + Queues.SUPERVISOR_CONTROL + ")")
        private String queue;
        @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "30",
                description = "how long to wait for the supervisor's answer (default: ${DEFAULT-VALUE})")
        private int timeoutSeconds;

        String queue() {
            return queue != null ? queue : Queues.SUPERVISOR_CONTROL;
        }

        /** Sends the request and waits for the answer; empty when none came within the timeout. */
        Optional<OperatorAnswer> request(Map<String, String> env, byte[] body) throws IOException {
            if (timeoutSeconds < 1) {
                throw new IllegalArgumentException("--timeout must be at least 1 second, got " + timeoutSeconds);
            }
            Duration timeout = Duration.ofSeconds(timeoutSeconds);
            return login.connect(env, s -> OperatorClient.request(s, queue(), body, timeout));
        }
    }

    /** A request's body, built and checked when the command runs. */
    @FunctionalInterface
    private interface Body {
        byte[] get() throws IOException;
    }

    /** {@link #ask} with the body {@code body} builds; a body refused or a failed send is reported, exit 1. */
    private int request(String command, StompClient stomp, Body body) {
        try {
            return ask(command, stomp, body.get());
        } catch (IOException | IllegalArgumentException | IllegalStateException e) {
            return failed(command, e);
        }
    }

    /**
     * Sends a request and reports the answer: OK on stdout (exit 0), a refusal on stderr (exit 3), no answer in
     * time on stderr (exit 4).
     */
    private int ask(String command, StompClient stomp, byte[] body) throws IOException {
        Optional<OperatorAnswer> answer = stomp.request(env, body);
        if (answer.isEmpty()) {
            err.println("supervisor " + command + ": the supervisor did not answer in " + stomp.timeoutSeconds
                    + " s; is it running and subscribed to " + stomp.queue() + " (GET /ready)? The request stays in"
                    + " the queue and is applied when the supervisor reads it.");
            return NO_ANSWER;
        }
        OperatorAnswer a = answer.get();
        if (a.isOk()) {
            out.println("OK: " + a.detail());
            return 0;
        }
        err.println("supervisor " + command + " refused: " + a.outcome()
                + (a.reason() != null && !a.reason().equals(a.outcome()) ? " (" + a.reason() + ")" : "") + ": "
                + a.detail());
        return REFUSED;
    }

    @Command(name = "register-manifest", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Checks the manifest with the supervisor's own rules, sends it"
            + " to the control queue and prints the supervisor's answer.")
    static final class RegisterManifest implements Callable<Integer> {
        @ParentCommand
        private OperatorMain main;
        @Mixin
        private StompClient stomp;
        @Option(names = "--file", paramLabel = "manifest.json", required = true,
                description = "the dataset's manifest (bin/eventindex generate writes one)")
        private Path file;

        @Override
        public Integer call() {
            byte[] body;
            try {
                body = Files.readAllBytes(file);
            } catch (IOException e) {
                // a missing or unreadable input is the operator's to fix: bad usage, as the lookup's input file
                main.err.println("supervisor register-manifest: cannot read manifest " + file + ": "
                        + FileReason.of(e));
                return CommandLines.USAGE_ERROR;
            }
            return main.request("register-manifest", stomp, () -> OperatorRequests.checkedManifest(file, body));
        }
    }

    @Command(name = "resignal", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Asks the running supervisor to send a dataset's signal again,"
            + " unchanged (same signalId): the operator's re-run. Prints the supervisor's answer.")
    static final class Resignal implements Callable<Integer> {
        @ParentCommand
        private OperatorMain main;
        @Mixin
        private StompClient stomp;
        @Option(names = "--dataset", paramLabel = "NAME", required = true, description = "the dataset")
        private String dataset;

        @Override
        public Integer call() {
            return main.request("resignal", stomp, () -> OperatorRequests.checked(ResignalCommand.of(dataset)));
        }
    }

    @Command(name = "invalidate", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Marks an object invalid: it is never selected again; the dataset is"
            + " selected again. Prints the supervisor's answer.")
    static final class Invalidate implements Callable<Integer> {
        @ParentCommand
        private OperatorMain main;
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
            return main.request("invalidate", stomp,
                    () -> OperatorRequests.checked(InvalidateCommand.of(dataset, url, reason, "operator")));
        }
    }

    @Command(name = "delete-dataset", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = {"Deletes a dataset everywhere: the supervisor forgets it (journalled; its objects are"
                + " deleted by the cleanup), then this command deletes its HDFS file and its Kudu rows (EVENTS,"
                + " MCEVENTS, DUPLICATEDEVENTS, TRIGGERCOUNT, EVENTSOVERLAP, DATASETS).",
                "Refused while a consumer may be loading the dataset (SIGNAL_PLANNED, SIGNALLED). A step that fails"
                + " (HDFS or Kudu down, permission denied) is left and said, the others are done; the supervisor lists"
                + " what is left (GET /datasets/NAME) and running the same command again finishes it (exit 7 until"
                + " then).",
                "Asks to type the dataset name unless --yes is given."})
    static final class DeleteDataset implements Callable<Integer> {
        @ParentCommand
        private OperatorMain main;
        @Spec
        private CommandSpec spec;
        @Mixin
        private StompClient stomp;
        @Option(names = "--dataset", paramLabel = "NAME", required = true, description = "the dataset")
        private String dataset;
        @Option(names = "--reason", paramLabel = "TEXT", description = "why, for the supervisor's journal")
        private String reason;
        @Option(names = "--yes", description = "do not ask for confirmation (scripts)")
        private boolean yes;
        @Option(names = "--not-in-supervisor",
                description = "go on with HDFS and Kudu when the supervisor does not know the dataset")
        private boolean notInSupervisor;
        @Mixin
        private ConsumersHdfs hdfs;
        @Mixin
        private ClusterOptions cluster;
        @Option(names = "--kudu-masters", paramLabel = "M", required = true,
                description = "Kudu master addresses, comma-separated host:port")
        private String kuduMasters;
        @Option(names = "--kudu-prefix", paramLabel = "P", defaultValue = "",
                description = "Kudu table name prefix (default: none)")
        private String kuduPrefix;
        @Option(names = "--kudu-timeout", paramLabel = "SECONDS", defaultValue = "30",
                description = "how long to wait for the Kudu masters (default: ${DEFAULT-VALUE})")
        private int kuduTimeoutSeconds;

        @Override
        public Integer call() {
            DatasetName name;
            try {
                name = DatasetName.parse(dataset);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "option --dataset: " + e.getMessage());
            }
            ClusterAccess access;
            try {
                // the configuration folder and the Kerberos login first: a wrong one is bad usage, nothing sent
                access = ClusterAccess.open(cluster.settings(main.env), null);
            } catch (ClusterConfigException e) {
                main.err.println("supervisor delete-dataset: " + e.getMessage());
                return CommandLines.USAGE_ERROR;
            }
            try (ClusterAccess ignored = access) {
                if (!yes && !main.confirmed(name)) {
                    main.err.println("supervisor delete-dataset: not confirmed; nothing deleted");
                    return NOT_CONFIRMED;
                }
                KuduTablesConfig tables = new KuduTablesConfig(kuduPrefix, KuduTablesConfig.DEFAULT_HASH_BUCKETS,
                        KuduTablesConfig.DEFAULT_REPLICAS);
                if (kuduTimeoutSeconds < 1) {
                    throw new IllegalArgumentException("--kudu-timeout must be at least 1 second, got "
                            + kuduTimeoutSeconds);
                }
                DeleteCommand.Where where = new DeleteCommand.Where(stomp.login.brokers, hdfs.uri.toString(), hdfs.root,
                        kuduMasters, kuduPrefix, access.settings().hadoopConfDir() == null ? null
                        : access.settings().hadoopConfDir().toString());
                String finishWith = where.command(name.toString());
                Optional<OperatorAnswer> answer = stomp.request(main.env,
                        OperatorRequests.checked(DeleteCommand.start(dataset, reason, where)));
                if (answer.isEmpty()) {
                    main.err.println("supervisor delete-dataset: the supervisor did not answer in "
                            + stomp.timeoutSeconds + " s; nothing deleted in HDFS or Kudu. Is it running (GET"
                            + " /ready)? Run the command again: the request stays in " + stomp.queue() + ".");
                    return NO_ANSWER;
                }
                OperatorAnswer a = answer.get();
                boolean unknownAccepted = notInSupervisor
                        && RejectReason.UNKNOWN_DATASET.name().equals(a.outcome());
                if (!a.isOk() && !unknownAccepted) {
                    main.err.println("supervisor delete-dataset refused: " + a.outcome() + ": " + a.detail()
                            + "; nothing deleted in HDFS or Kudu");
                    return REFUSED;
                }
                main.out.println((a.isOk() ? "supervisor: " : "supervisor: does not know it; going on: ")
                        + a.detail());
                // every step is tried, each accepting what is already gone: what fails is left, and said
                List<DeleteCommand.Step> done = new ArrayList<>();
                List<DeleteCommand.Step> left = new ArrayList<>();
                try {
                    List<String> files = ClusterDelete.deleteHdfsFile(access, hdfs.uri, hdfs.root, name);
                    main.out.println("HDFS: " + (files.isEmpty() ? "no file of " + name + " under " + hdfs.root
                            + "/" + name.container() : "deleted " + String.join(", ", files)));
                    done.add(DeleteCommand.Step.HDFS_FILE);
                } catch (IOException e) {
                    left.add(DeleteCommand.Step.HDFS_FILE);
                    main.err.println("HDFS: not deleted: " + e.getMessage());
                }
                try {
                    boolean rows = ClusterDelete.deleteKuduRows(access, kuduMasters, tables, name,
                            Duration.ofSeconds(kuduTimeoutSeconds));
                    main.out.println("Kudu: " + (rows ? "rows of " + name + " deleted" : name + " is not in "
                            + tables.datasetsTable() + "; no rows"));
                    done.add(DeleteCommand.Step.KUDU_ROWS);
                } catch (IOException e) {
                    left.add(DeleteCommand.Step.KUDU_ROWS);
                    main.err.println("Kudu: not deleted: " + e.getMessage());
                }
                String recorded = a.isOk() && !done.isEmpty() ? recordDone(name, done) : null;
                if (left.isEmpty() && recorded == null) {
                    main.out.println("dataset " + name + " deleted everywhere");
                    return 0;
                }
                main.err.println("supervisor delete-dataset: dataset " + name + " is NOT deleted everywhere. Left: "
                        + (left.isEmpty() ? "nothing in HDFS or Kudu" : String.join(", ", left.stream()
                        .map(Enum::name).toList())) + (recorded == null ? "" : "; " + recorded)
                        + (a.isOk() ? ". The supervisor lists what is left (GET /datasets/" + name
                        + ", eventindex status)." : ".") + " Once the cause is fixed, finish it with (and your"
                        + " broker login, TLS and Kerberos options): " + finishWith
                        + (a.isOk() ? "" : " --not-in-supervisor"));
                return INCOMPLETE;
            } catch (IOException | IllegalArgumentException | IllegalStateException e) {
                return main.failed("delete-dataset", e);
            }
        }

        /** Tells the supervisor which steps are done; null when it recorded them, else why not (for the output). */
        private String recordDone(DatasetName name, List<DeleteCommand.Step> done) {
            try {
                Optional<OperatorAnswer> a = stomp.request(main.env,
                        OperatorRequests.checked(DeleteCommand.finished(name.toString(), done)));
                if (a.isPresent() && a.get().isOk()) {
                    main.out.println("supervisor: " + a.get().detail());
                    return null;
                }
                return "the supervisor did not record " + done + " as done (" + a.map(x -> x.outcome() + ": "
                        + x.detail()).orElse("no answer in " + stomp.timeoutSeconds + " s") + ")";
            } catch (IOException | IllegalArgumentException e) {
                return "the supervisor was not told " + done + " is done: " + e.getMessage();
            }
        }
    }

    @Command(name = "rebuild-state", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = {"Offline, with the supervisor stopped: brings its journal (lost, or restored from a backup)"
                + " up to date with the sources of truth: the bucket's objects and their metadata, the HDFS"
                + " consolidated files, the Kudu DATASETS table and the catalogue (decision 0054).",
                "Refused while a supervisor holds the journal's lock, or, for a pair (supervisor.ha.enabled), the"
                + " lease (the message names it); with a pair it holds the lease itself for its run (decision 0062)."
                + " Appends what it found as journal entries, ending with STATE_RECONCILED, which the supervisor"
                + " replays at its next start; lists one line per thing it could not decide, with the reason.",
                "Progress goes to stderr; --dry-run shows the changes without writing them."})
    static final class RebuildState implements Callable<Integer> {
        @ParentCommand
        private OperatorMain main;
        @Option(names = "--config", paramLabel = "FILE", required = true,
                description = "the supervisor's configuration (journal folder, bucket, S3 endpoint and keys,"
                        + " catalogue, Kudu)")
        private Path config;
        @Mixin
        private ConsumersHdfs hdfs;
        @Mixin
        private ClusterOptions cluster;
        @Option(names = "--kudu-masters", paramLabel = "M",
                description = "Kudu master addresses (default: the configuration's supervisor.kudu.masters)")
        private String kuduMasters;
        @Option(names = "--kudu-prefix", paramLabel = "P",
                description = "Kudu table name prefix (default: the configuration's supervisor.kudu.table.prefix)")
        private String kuduPrefix;
        @Option(names = "--dry-run", description = "show what would change; write nothing")
        private boolean dryRun;
        @Option(names = "--json", description = "print the result as one JSON document on stdout")
        private boolean json;

        @Override
        public Integer call() {
            SupervisorConfig settings;
            ClusterAccess access;
            try {
                settings = SupervisorConfig.load(config, main.env);
                access = ClusterAccess.open(cluster.settings(main.env), null);
            } catch (IOException | IllegalArgumentException | ClusterConfigException e) {
                main.err.println("supervisor rebuild-state: " + (e instanceof IOException io ? FileReason.describe(io)
                        : e.getMessage()));
                return CommandLines.USAGE_ERROR;
            }
            Optional<String> refused = StateRebuild.refusal(settings);
            if (refused.isPresent()) {
                access.close();
                main.err.println("supervisor rebuild-state: " + config + ": " + refused.get());
                return CommandLines.USAGE_ERROR;
            }
            String masters = kuduMasters != null ? kuduMasters : settings.epochs().kuduMasters();
            if (masters == null || masters.isBlank()) {
                access.close();
                main.err.println("supervisor rebuild-state: no Kudu masters: give --kudu-masters or set "
                        + SupervisorConfig.KUDU_MASTERS + " in " + config);
                return CommandLines.USAGE_ERROR;
            }
            KuduTablesConfig tables = new KuduTablesConfig(kuduPrefix != null ? kuduPrefix
                    : settings.epochs().tablePrefix(), KuduTablesConfig.DEFAULT_HASH_BUCKETS,
                    KuduTablesConfig.DEFAULT_REPLICAS);
            try (ClusterAccess ignored = access;
                 KuduClient kudu = access.kuduClient(masters);
                 FileSystem fs = access.fileSystem(hdfs.uri)) {
                StateRebuild.Result r = StateRebuild.run(settings, new RebuildLoads(kudu, tables, fs, hdfs.root),
                        dryRun, Clock.systemUTC(), line -> main.err.println("rebuild-state: " + line));
                if (json) {
                    main.out.println(new String(Json.write(r), StandardCharsets.UTF_8));
                } else {
                    r.changes().forEach(c -> main.out.println((dryRun ? "would " : "") + c));
                    r.undecided().forEach(u -> main.out.println("undecided: " + u.line()));
                    main.out.println((dryRun ? "dry run, nothing written: " : "journal " + r.journal()
                            + " now at entry " + r.lastSeq() + ": ") + r.objectsListed() + " objects listed ("
                            + r.objectsKnown() + " named by the journal, " + r.objectsRecorded() + " recorded, "
                            + r.objectsOfFinishedDatasets() + " of finished datasets), " + r.datasetsChecked()
                            + " datasets compared with Kudu and HDFS (" + r.signalsRebuilt() + " loads taken from"
                            + " Kudu), " + r.undecided().size() + " undecided");
                }
                return r.undecided().isEmpty() ? 0 : UNDECIDED;
            } catch (IOException | IllegalArgumentException | IllegalStateException | ClusterConfigException
                     | KdcUnreachableException e) {
                // the last two: the Kerberos login of a pair's journal on HDFS
                return main.failed("rebuild-state", e);
            }
        }
    }

    /** Where the consumers write the consolidated files. */
    static final class ConsumersHdfs {
        @Option(names = "--hdfs-uri", paramLabel = "URI", required = true,
                description = "HDFS file system of the consumers (consumer.hdfs.uri), e.g. hdfs://nameservice")
        private URI uri;
        @Option(names = "--hdfs-root", paramLabel = "DIR", defaultValue = "/eventindex/datasets",
                description = "the consumers' consumer.hdfs.root (default: ${DEFAULT-VALUE})")
        private String root;
    }

    /** Asks the operator to type the dataset name; true when it matches. */
    private boolean confirmed(DatasetName name) throws IOException {
        err.println("This deletes dataset " + name + " everywhere: the supervisor's record of it, its objects, its"
                + " HDFS file and its Kudu rows. It cannot be undone.");
        err.print("Type the dataset name to confirm: ");
        err.flush();
        String line = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).readLine();
        return line != null && line.strip().equals(name.toString());
    }

    @Command(name = "dead-letters", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "The broker's dead-letter queue: list the messages in it, re-drive them to"
            + " the queue they came from after a fix.",
            subcommands = {DeadLettersCommand.ListLetters.class, DeadLettersCommand.Redrive.class})
    static final class DeadLettersCommand implements Callable<Integer> {
        @ParentCommand
        private OperatorMain main;
        @Spec
        private CommandSpec spec;

        @Override
        public Integer call() {
            main.err.println("supervisor dead-letters: a command is required (list, redrive)");
            spec.commandLine().usage(main.err);
            return CommandLines.USAGE_ERROR;
        }

        /** The options of both: broker, login, dead-letter queue, timeout. */
        static final class Options {
            @Mixin
            private BrokerLogin login;
            @Option(names = "--dlq", paramLabel = "Q", defaultValue = DeadLetters.DLQ,
                    description = "dead-letter queue (default: ${DEFAULT-VALUE})")
            private String dlq;
            @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "30",
                    description = "how long to wait for the broker (default: ${DEFAULT-VALUE})")
            private int timeoutSeconds;

            Duration timeout() {
                if (timeoutSeconds < 1) {
                    throw new IllegalArgumentException("--timeout must be at least 1 second, got " + timeoutSeconds);
                }
                return Duration.ofSeconds(timeoutSeconds);
            }
        }

        @Command(name = "list", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
                description = "Lists the dead-lettered messages, oldest first, without taking them off: time,"
                + " message id, original destination, the broker's reason, the first characters of the body."
                + " The operator login may read the dead-letter queue.")
        static final class ListLetters implements Callable<Integer> {
            @ParentCommand
            private DeadLettersCommand parent;
            @Mixin
            private Options options;

            @Override
            public Integer call() {
                OperatorMain main = parent.main;
                try {
                    Duration timeout = options.timeout();
                    List<DeadLetters.Letter> letters = options.login.connect(main.env,
                            s -> DeadLetters.list(s, options.dlq, timeout));
                    letters.forEach(l -> main.out.println(l.line()));
                    main.out.println(letters.size() + " dead-lettered messages in " + options.dlq);
                    return 0;
                } catch (IOException | IllegalArgumentException e) {
                    return main.failed("dead-letters list", e);
                }
            }
        }

        @Command(name = "redrive", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
                description = "Moves dead-lettered messages back to their original destination (sent, then"
                + " acknowledged: none is lost; a crash in between leaves a copy in both, which the daemons take"
                + " as a redelivery). Needs a login that may send to those queues and read the dead-letter queue"
                + " (the admin's).")
        static final class Redrive implements Callable<Integer> {
            @ParentCommand
            private DeadLettersCommand parent;
            @Mixin
            private Options options;
            @ArgGroup(exclusive = true, multiplicity = "1")
            private Which which;

            static final class Which {
                @Option(names = "--all", required = true, description = "every dead-lettered message")
                private boolean all;
                @Option(names = "--id", paramLabel = "MESSAGE-ID", required = true,
                        description = "a message id from 'dead-letters list' (repeatable)")
                private List<String> ids;
            }

            @Override
            public Integer call() {
                OperatorMain main = parent.main;
                try {
                    Duration timeout = options.timeout();
                    DeadLetters.Redriven r = options.login.connect(main.env, s -> DeadLetters.redrive(s, options.dlq,
                            which.all ? List.of() : which.ids, timeout));
                    r.moved().forEach(l -> main.out.println("re-driven " + l.messageId() + " to "
                            + l.originalDestination()));
                    r.skipped().forEach(l -> main.err.println("left " + l.messageId() + ": the broker did not record"
                            + " where it came from"));
                    r.notFound().forEach(id -> main.err.println("not in " + options.dlq + ": " + id));
                    main.out.println(r.moved().size() + " re-driven, " + r.skipped().size() + " left, "
                            + r.notFound().size() + " not found");
                    return r.skipped().isEmpty() && r.notFound().isEmpty() ? 0 : 1;
                } catch (IOException | IllegalArgumentException e) {
                    return main.failed("dead-letters redrive", e);
                }
            }
        }
    }
}
