package org.eventindex.lookup;

import org.apache.kudu.client.KuduClient;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.StopSignals;
import org.eventindex.ProjectVersion;
import org.eventindex.cli.VersionProvider;
import org.eventindex.io.FileReason;
import org.eventindex.kudu.KuduProbe;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.cluster.ClusterConfigException;
import org.eventindex.cluster.ClusterOptions;
import org.eventindex.cluster.KdcUnreachableException;
import org.eventindex.ops.DependencyWait;
import org.eventindex.ops.HttpAccess;
import org.eventindex.kudu.KuduTablesConfig;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.Callable;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.Set;

/**
 * Command line of the event lookup (picocli, {@link CommandLines}): {@code lookup} (the default) reads
 * {@code run event} lines from a file or stdin and prints the files holding each event; {@code serve} runs the HTTP
 * server. Exit status: 0 when every line was parsed and looked up (found or not), 1 when a line was malformed or a
 * lookup failed, 2 on a usage error.
 */
@Command(name = "eventindex lookup", mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class, sortOptions = false,
        subcommands = {LookupMain.Lookup.class, LookupMain.Serve.class, DatasetCommands.Datasets.class,
            DatasetCommands.Overlap.class},
        customSynopsis = {
            "eventindex lookup [lookup] --masters M [--prefix P] [--threads N] [--batch N] [--dataset-cache-ms N]",
            "                  [--json|--csv] [--explain] [--stream-type T[,T...]] [--project P] [--ami-tag GLOB]",
            "                  [--dataset GLOB] [--with-duplicates] [--supervisor-url URL] [FILE|-]",
            "eventindex lookup serve --masters M [--prefix P] [--port N] [--bind ADDR] [--threads N]",
            "                  [--dataset-cache-ms N] [--max-concurrent N] [--max-batch N] [--max-user-concurrent N]",
            "                  [--max-user-events-per-minute N] [--with-duplicates] [--supervisor-url URL]",
            "eventindex lookup datasets --masters M [--prefix P] [--supervisor-url URL] [--json] [PATTERN]",
            "eventindex lookup overlap --masters M [--prefix P] [--limit N] [--json] (DATASET DATASET...|--pattern P)"},
        description = {"",
            "lookup   input lines 'run event' (e.g. '%%08d %%09d', whitespace separated; '#' comments) from FILE or"
                + " stdin. Text output, one line per match on stdout: 'run event GUID type' (type StreamAOD,"
                + " StreamESD, StreamRAW...: the event's own file, then its provenance). An event not found is"
                + " 'run event NOT_FOUND' on stderr; a malformed line is reported on stderr with its line number and"
                + " the others continue. --csv: a header and a 'status' column (FOUND/NOT_FOUND/ERROR) on stdout;"
                + " --json: one JSON object per event on stdout. 'run' is the DATASETS run number: the run for real"
                + " data, the dataset number for simulation.",
            "serve    HTTP: GET /events/{run}/{event} (200 JSON, 404 when absent), POST /lookup ('run event' lines),"
                + " GET /health, /ready (Kudu and its tables, checked in the background), /metrics. Prints"
                + " 'listening on http://ADDR:PORT' and serves until stopped. Also GET /datasets, /datasets/{name},"
                + " /overlap (the two commands below).",
            "datasets where each dataset matching PATTERN is in the flow, its stage times and when it should be"
                + " queryable (with --supervisor-url); overlap: the events two or more LOADED datasets share.",
            "", "Options of lookup (serve --help for those of serve):"},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every line parsed and looked up (found or not)",
            "1:a line was malformed or a lookup failed", "2:usage error"})
public final class LookupMain implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(LookupMain.class);
    /** Default TTL of the per-run DATASETS cache ({@link DatasetCache}). */
    static final int DEFAULT_DATASET_CACHE_MS = (int) EventLookup.DEFAULT_DATASET_CACHE_TTL.toMillis();
    /** How long the supervisor may take to answer an explanation's question. */
    static final Duration SUPERVISOR_TIMEOUT = Duration.ofSeconds(2);
    /** How long one answer of the supervisor is reused for explanations. */
    static final Duration SUPERVISOR_TTL = Duration.ofSeconds(1);

    private final InputStream stdin;
    final PrintStream out;
    final PrintStream err;
    @Spec
    private CommandSpec spec;
    @Mixin
    private Kudu kudu;
    @Mixin
    private Picking picking;

    private LookupMain(InputStream stdin, PrintStream out, PrintStream err) {
        this.stdin = stdin;
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.in, System.out, System.err));
    }

    /** Runs the lookup command; {@code serve} blocks until SIGTERM or SIGINT. Returns the exit status. */
    static int run(String[] args, InputStream stdin, PrintStream out, PrintStream err) {
        return CommandLines.execute(new LookupMain(stdin, out, err), args, out, err);
    }

    /** The default command: a lookup. */
    @Override
    public Integer call() {
        return lookup(spec, kudu, picking, this);
    }

    /** The Kudu tables and how they are read: both commands. */
    static final class Kudu {
        @Option(names = "--masters", paramLabel = "M",
                description = "Kudu master addresses, comma-separated host:port (required)")
        String masters;
        @Option(names = "--prefix", paramLabel = "P", description = "table name prefix (default: none)")
        String prefix = "";
        @Option(names = "--threads", paramLabel = "N", description = "parallel Kudu point scans (default: 8)")
        int threads = 8;
        @Option(names = "--dataset-cache-ms", paramLabel = "N", description = "reuse a run's LOADED datasets for N ms"
                + " (default: 1000; 0: read DATASETS for every lookup); a deleted or reloaded dataset is seen at most"
                + " N ms late")
        int datasetCacheMs = DEFAULT_DATASET_CACHE_MS;
        @Option(names = "--with-duplicates", description = "also report the later copies of an event"
                + " (DUPLICATEDEVENTS)")
        boolean withDuplicates;
        @Option(names = "--kudu-timeout", paramLabel = "S",
                description = "seconds an attempt to reach the Kudu masters waits for their answer (default: 30): a"
                        + " lookup then fails, serve tries again with a backoff up to 30 s, /ready naming Kudu")
        int kuduTimeoutSeconds = 30;
        @Option(names = "--supervisor-url", paramLabel = "URL[,URL...]", description = "the supervisor's information"
                + " service (http://host:port; an active and standbys, comma-separated, the first answering is used):"
                + " an event not found is explained with the datasets still collecting or signalled there (default:"
                + " none; without it only DATASETS is read)")
        String supervisorUrl;
        @Mixin
        ClusterOptions cluster;

        /** The supervisors of {@code --supervisor-url}, null without it. */
        SupervisorDatasets supervisor(CommandSpec spec) {
            if (supervisorUrl == null) {
                return null;
            }
            try {
                return new SupervisorDatasets(SupervisorDatasets.parseUrls(supervisorUrl), SUPERVISOR_TIMEOUT,
                        SUPERVISOR_TTL, System::nanoTime);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }

        /** The options' values, as usage errors (picocli's, for the exit status 2). */
        void check(CommandSpec spec) {
            if (masters == null || masters.isBlank()) {
                throw new ParameterException(spec.commandLine(), "Missing required option: '--masters=M'");
            }
            if (supervisorUrl != null) {
                try {
                    SupervisorDatasets.parseUrls(supervisorUrl);
                } catch (IllegalArgumentException e) {
                    throw new ParameterException(spec.commandLine(), e.getMessage());
                }
            }
            if (datasetCacheMs < 0) {
                throw new ParameterException(spec.commandLine(), "--dataset-cache-ms must be >= 0: " + datasetCacheMs);
            }
            if (kuduTimeoutSeconds < 1) {
                throw new ParameterException(spec.commandLine(), "--kudu-timeout must be at least 1: "
                        + kuduTimeoutSeconds);
            }
        }

        /** Opens the lookup; usage errors are thrown as picocli's, for the exit status 2. */
        Opened open(CommandSpec spec) throws IOException {
            try {
                return open(spec, null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while opening the lookup", e);
            }
        }

        /**
         * Opens the lookup; with {@code wait}, a KDC that does not answer the login and Kudu masters that do not
         * answer within {@code --kudu-timeout} are tried again with its backoff instead of failing.
         */
        Opened open(CommandSpec spec, DependencyWait wait) throws IOException, InterruptedException {
            check(spec);
            KuduTablesConfig config;
            try {
                config = new KuduTablesConfig(prefix, KuduTablesConfig.DEFAULT_HASH_BUCKETS, 1);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            ClusterAccess access = wait == null ? cluster.open()
                    : wait.await("kerberos", cluster::open, KdcUnreachableException.class::isInstance);
            KuduClient client;
            try {
                // an unreachable cluster is said at start, in one line naming the masters
                DependencyWait.Attempt<KuduClient, IOException> connect = () -> access.connectedKuduClient(masters,
                        java.time.Duration.ofSeconds(kuduTimeoutSeconds));
                client = wait == null ? connect.run() : wait.await("kudu", connect, IOException.class::isInstance);
            } catch (IOException | InterruptedException | RuntimeException e) {
                access.close();
                throw e;
            }
            DatasetQueries datasets = null;
            try {
                SupervisorDatasets supervisor = supervisor(spec);
                datasets = new DatasetQueries(client, config, supervisor, Math.max(1, threads / 2),
                        java.time.Clock.systemUTC());
                return new Opened(access, client, new EventLookup(client, config, threads, withDuplicates,
                        java.time.Duration.ofMillis(datasetCacheMs), supervisor == null ? PendingDatasets.NONE
                        : supervisor), datasets);
            } catch (IOException | RuntimeException e) {
                if (datasets != null) {
                    datasets.close();
                }
                closeQuietly(client);
                access.close();
                throw e;
            }
        }
    }

    /** A lookup, the Kudu client it reads with and the Kerberos login, closed together. */
    record Opened(ClusterAccess access, KuduClient client, EventLookup lookup, DatasetQueries datasets)
            implements AutoCloseable {
        @Override
        public void close() throws IOException {
            try {
                lookup.close();
                datasets.close();
                client.close();
            } finally {
                access.close();
            }
        }
    }

    /** What a lookup reads and prints. */
    static final class Picking {
        @Option(names = "--batch", paramLabel = "N", description = "lines looked up per batch (default: 1000)")
        int batch = 1000;
        @Option(names = "--json", description = "one JSON object per event on stdout")
        boolean json;
        @Option(names = "--csv", description = "a header and a 'status' column (FOUND/NOT_FOUND/ERROR) on stdout")
        boolean csv;
        @Option(names = "--explain", description = "say why each event not found is missing (no dataset of the run,"
                + " outside the datasets' event ranges, a dataset not yet queryable, excluded by the filters);"
                + " always on with --json")
        boolean explain;
        @Option(names = "--stream-type", paramLabel = "T", split = ",",
                description = "report only these file types, e.g. StreamRAW")
        List<String> streamTypes = new ArrayList<>();
        @Option(names = "--project", paramLabel = "P", description = "only datasets of this project, e.g."
                + " data17_13TeV")
        String project;
        @Option(names = "--ami-tag", paramLabel = "GLOB", description = "only datasets whose version (AMI tags)"
                + " matches, e.g. 'f838_*'")
        String amiTag;
        @Option(names = "--dataset", paramLabel = "GLOB", description = "only datasets whose full name matches, e.g."
                + " '*.physics_Main.*'")
        String dataset;
        @Parameters(paramLabel = "FILE|-", arity = "0..1", description = "'run event' lines (default: stdin)")
        String file = "-";

        LookupFilter filter() {
            Set<String> types = new LinkedHashSet<>();
            for (String t : streamTypes) {
                if (!t.isBlank()) {
                    types.add(t.strip());
                }
            }
            return new LookupFilter(types, project, amiTag, dataset);
        }
    }

    /** The HTTP server's options. */
    static final class Server {
        @Option(names = "--port", paramLabel = "N", description = "HTTP port, 0 for a free one (default: 8080)")
        int port = 8080;
        @Option(names = "--bind", paramLabel = "ADDR", description = "HTTP address (default: 127.0.0.1)")
        String bind = "127.0.0.1";
        @Option(names = "--max-concurrent", paramLabel = "N", description = "lookups in progress at once before 503"
                + " (default: 64)")
        int maxConcurrent = 64;
        @Option(names = "--max-batch", paramLabel = "N", description = "lines in one POST /lookup before 413"
                + " (default: 1000)")
        int maxBatch = ServerLimits.DEFAULT_MAX_BATCH;
        @Option(names = "--max-user-concurrent", paramLabel = "N", description = "lookup requests one user (its"
                + " authenticated principal, else its address) may have in progress before 429 (default: 4)")
        int maxUserConcurrent = ServerLimits.DEFAULT_MAX_USER_CONCURRENT;
        @Option(names = "--max-user-events-per-minute", paramLabel = "N", description = "events one user may look up"
                + " per minute before 429 with Retry-After (at least --max-batch; default: 60000)")
        int maxUserEventsPerMinute = ServerLimits.DEFAULT_MAX_USER_EVENTS_PER_MINUTE;
        @Option(names = "--ready-check-seconds", paramLabel = "N", description = "check every N s, in the"
                + " background, that Kudu answers and the tables exist; GET /ready serves the last verdict"
                + " (default: 10)")
        int readyCheckSeconds = 10;
        @Option(names = "--http-config", paramLabel = "FILE", description = "properties file of the lookup.http.*"
                + " keys: TLS, authentication (Kerberos SPNEGO, client certificates) and a separate /metrics bind"
                + " (docs/lookup.md); without it plain HTTP with no authentication")
        Path httpConfig;

        /** The access rules of {@code --http-config}, or plain HTTP without it. */
        HttpAccess access() throws IOException {
            return httpConfig == null ? HttpAccess.open() : HttpAccess.load(httpConfig, "lookup.");
        }
    }

    @Command(name = "lookup", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            sortOptions = false, description = "Looks up 'run event' lines from FILE or stdin"
            + " (the default command).")
    static final class Lookup implements Callable<Integer> {
        @ParentCommand
        private LookupMain main;
        @Spec
        private CommandSpec spec;
        @Mixin
        private Kudu kudu;
        @Mixin
        private Picking picking;

        @Override
        public Integer call() {
            return lookup(spec, kudu, picking, main);
        }
    }

    @Command(name = "serve", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            sortOptions = false, description = "Runs the HTTP server until SIGTERM or SIGINT, then exits 0 (also when"
            + " the signal comes while it still waits for the Kudu masters at start).")
    static final class Serve implements Callable<Integer> {
        @ParentCommand
        private LookupMain main;
        @Spec
        private CommandSpec spec;
        @Mixin
        private Kudu kudu;
        @Mixin
        private Server server;

        @Override
        public Integer call() {
            LOG.info(ProjectVersion.startLine("lookup"));
            ServerLimits limits;
            try {
                limits = ServerLimits.of(server.maxConcurrent, server.maxBatch).perUser(server.maxUserConcurrent,
                        server.maxUserEventsPerMinute);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            if (server.readyCheckSeconds < 1 || server.readyCheckSeconds > 3600) {
                throw new ParameterException(spec.commandLine(), "--ready-check-seconds must be within 1..3600: "
                        + server.readyCheckSeconds);
            }
            kudu.check(spec);
            HttpAccess access;
            try {
                access = server.access();
            } catch (IOException | IllegalArgumentException e) {
                main.err.println("lookup: --http-config: " + (e instanceof IOException io ? FileReason.describe(io)
                        : e.getMessage()));
                return CommandLines.USAGE_ERROR;
            }
            // the ops server first: /health answers and /ready says what the service waits for (the KDC, Kudu),
            // lookups answer 503 until Kudu is open; a SIGTERM or SIGINT during the wait ends it and exits 0
            DependencyWait wait = new DependencyWait();
            AtomicReference<Opened> open = new AtomicReference<>();
            Thread serving = Thread.currentThread();
            StopSignals signals = StopSignals.daemon("lookup serve", () -> {
                wait.close();
                if (open.get() == null) {
                    serving.interrupt(); // an attempt in progress (up to --kudu-timeout) ends too
                }
            });
            InetSocketAddress address = new InetSocketAddress(server.bind, server.port);
            List<String> tables = readTables(kudu.prefix);
            try (LookupServer http = LookupServer.start(address, (keys, filter) -> open.get().lookup()
                            .explained(keys, filter), limits,
                    Map.of("kudu", () -> KuduProbe.check(opened(open, wait).client(), tables)),
                    Duration.ofSeconds(server.readyCheckSeconds), () -> open.get() != null ? Optional.empty()
                            : Optional.of("waiting for " + wait.waitingFor().orElse("kudu: connecting to the masters "
                            + kudu.masters)), access, AccessLog.to(LookupServer.ACCESS_LOG),
                    new DatasetFigures(() -> open.get().client(), tables(kudu.prefix)))) {
                wait.register(http.metrics());
                http.serve(new DatasetResources(() -> open.get().datasets()));
                String url = access.scheme() + "://" + address.getHostString() + ":" + http.port();
                main.out.println("listening on " + url + http.metricsPort().map(p -> " (/health, /ready, /metrics"
                        + " also on http://" + (access.metricsHost().isEmpty() ? address.getHostString()
                        : access.metricsHost()) + ":" + p + ")").orElse(""));
                main.out.flush();
                LOG.info("lookup service listening on {} ({}); waiting for the Kudu masters {}", url, access,
                        kudu.masters);
                try {
                    open.set(kudu.open(spec, wait));
                    // the Kerberos login's renewal failures and ticket end, like the other daemons (none without it)
                    open.get().access().register(http.metrics());
                    EventLookup lookups = open.get().lookup();
                    CounterWithCallback.builder().name(LookupServer.TABLE_SWITCHES)
                            .help("Times the lookups moved to other tables: a rebuild's swap put them under the"
                                    + " configured names (checked once a second).")
                            .callback(cb -> cb.call(lookups.tableSwitches())).register(http.metrics());
                } catch (InterruptedException | IOException | RuntimeException e) {
                    if (signals.received() == null) {
                        throw e;
                    }
                    main.err.println("lookup serve: " + signals.received() + " received while waiting for Kudu,"
                            + " stopping");
                    return 0;
                }
                Thread.interrupted(); // a signal that came as the wait ended is in signals.await()
                LOG.info("lookup service ready: Kudu masters {} answered", kudu.masters);
                main.err.println("lookup serve: " + signals.await() + " received, stopping");
                return 0;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            } catch (IOException | RuntimeException e) {
                return main.failed(e);
            } finally {
                // after the server: no lookup in progress uses the client any more
                Opened o = open.get();
                if (o != null) {
                    try {
                        o.close();
                    } catch (IOException | RuntimeException e) {
                        LOG.warn("closing the Kudu client of {} failed: {}", kudu.masters, e.toString());
                    }
                }
            }
        }
    }

    /** The opened lookup, or the reason it is not open yet (the dependency check's failure). */
    private static Opened opened(AtomicReference<Opened> open, DependencyWait wait) throws IOException {
        Opened o = open.get();
        if (o == null) {
            throw new IOException("not connected yet: " + wait.waitingFor().orElse("connecting"));
        }
        return o;
    }

    int failed(Exception e) {
        if (e instanceof ParameterException p) {
            throw p;
        }
        if (e instanceof IllegalArgumentException || e instanceof ClusterConfigException) {
            err.println("lookup: " + e.getMessage());
            return 2;
        }
        err.println("lookup: failed: " + (e instanceof IOException io ? FileReason.describe(io) : e.getMessage()));
        return 1;
    }

    private static int lookup(CommandSpec spec, Kudu kudu, Picking o, LookupMain main) {
        if (o.json && o.csv) {
            throw new ParameterException(spec.commandLine(), "--json and --csv exclude each other");
        }
        if (o.batch < 1) {
            throw new ParameterException(spec.commandLine(), "--batch must be >= 1: " + o.batch);
        }
        kudu.check(spec);
        if (!o.file.equals("-")) {
            // the input is checked before Kudu is: a wrong file name is the operator's to fix, not a failed lookup
            try (Reader r = Files.newBufferedReader(Path.of(o.file), StandardCharsets.UTF_8)) {
                r.read();
            } catch (IOException e) {
                main.err.println("lookup: cannot read " + o.file + ": " + FileReason.of(e));
                return CommandLines.USAGE_ERROR;
            }
        }
        try (Opened opened = kudu.open(spec)) {
            return lookup(o, opened.lookup(), main.stdin, main.out, main.err);
        } catch (IOException | RuntimeException e) {
            return main.failed(e);
        }
    }

    private static int lookup(Picking o, EventLookup lookup, InputStream stdin, PrintStream out, PrintStream err)
            throws IOException {
        ResultFormat format = o.json ? ResultFormat.JSON : o.csv ? ResultFormat.CSV : ResultFormat.TEXT;
        LookupFilter filter = o.filter();
        int batch = o.batch;
        String file = o.file;
        LookupInput input;
        try (Reader r = file.equals("-") ? new InputStreamReader(stdin, StandardCharsets.UTF_8)
                : Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8)) {
            input = LookupInput.read(r, file.equals("-") ? "stdin" : file, 0);
        }
        input.errors().forEach(e -> err.println("lookup: " + e.message()));
        boolean explain = o.explain || o.json;
        format.header(out, explain);
        boolean failed = false;
        List<EventKey> keys = input.keys();
        for (int i = 0; i < keys.size(); i += batch) {
            List<EventKey> part = keys.subList(i, Math.min(keys.size(), i + batch));
            List<LookupResult> results = explain ? lookup.explained(part, filter) : lookup.lookup(part, filter);
            format.write(results, out, err, explain);
            failed |= results.stream().anyMatch(LookupResult::failed);
        }
        out.flush();
        return failed || !input.errors().isEmpty() ? 1 : 0;
    }

    /** The tables a lookup reads. */
    private static KuduTablesConfig tables(String prefix) {
        return new KuduTablesConfig(prefix, KuduTablesConfig.DEFAULT_HASH_BUCKETS, 1);
    }

    static List<String> readTables(String prefix) {
        KuduTablesConfig t = tables(prefix);
        return List.of(t.datasetsTable(), t.eventsTable(), t.mcEventsTable(), t.duplicatedEventsTable());
    }

    private static void closeQuietly(KuduClient client) {
        try {
            client.close();
        } catch (Exception e) {
            // the lookup could not be built; its client's close failure adds nothing
        }
    }
}
