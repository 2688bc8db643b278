package org.eventindex.sql;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.spark.sql.SparkSession;
import org.eventindex.io.FileReason;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.cluster.ClusterSettings;
import org.eventindex.kudu.KuduTablesConfig;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code bin/eventindex sql}: a local SQL shell over the EventIndex Kudu tables, registered under their Impala names
 * (database {@code eventindex}, made current) by running deploy/impala/create-tables.sql through
 * {@link ImpalaToSpark} in a local Spark session. Statements from {@code -e}, {@code -f} or standard input.
 * Exit status: 0 when every statement succeeded, 1 when one failed or Kudu could not be reached, 2 on a usage error.
 */
@Command(name = "eventindex sql", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false,
        customSynopsis = "eventindex sql --kudu-master HOST:PORT[,HOST:PORT...] [options] [-e SQL | -f FILE]",
        description = "A local SQL shell (Spark SQL) over the EventIndex Kudu tables, under their Impala names.",
        footer = {"", "Tables: eventindex.datasets, events, mcevents, duplicatedevents, eventsoverlap, triggercount and"
                + " the view eventindex.loaded_datasets, as in Impala (docs/lookup.md). Results on stdout, timings and"
                + " errors on stderr."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:every statement succeeded", "1:a statement failed or Kudu could not be reached",
            "2:usage error"})
public final class SqlMain implements Callable<Integer> {
    private final InputStream in;
    private final PrintStream out;
    private final PrintStream err;
    @Spec
    private CommandSpec spec;
    @Option(names = {"--kudu-master", "--masters"}, paramLabel = "M", description = "Kudu master address(es)")
    private String masters;
    @Option(names = "--prefix", paramLabel = "P", description = "table name prefix of the loader (default: none)")
    private String prefix = "";
    @Option(names = {"-e", "--execute"}, paramLabel = "SQL", description = "run these ';'-separated statements and"
            + " exit")
    private String execute;
    @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = {"run the statements of FILE and exit"
            + " (e.g. deploy/impala/queries.sql)", "without -e/-f: statements from standard input, each ended by ';'"
            + " ('quit;' ends); an error is printed and the next statement still runs"})
    private Path file;
    @Option(names = "--var", paramLabel = "NAME=VALUE", description = "value of $${var:NAME} in the statements"
            + " (repeatable), as impala-shell --var; interactively: SET VAR:NAME=VALUE;")
    private List<String> vars = new ArrayList<>();
    @Option(names = "--csv", description = "CSV (header line first) instead of tables")
    private boolean csv;
    @Option(names = "--max-rows", paramLabel = "N", description = "print at most N rows per statement (default"
            + " 10000; 0: all)")
    private int maxRows = 10_000;
    @Option(names = "--allow-writes", description = "let INSERT through (kudu-spark writes into the Kudu tables);"
            + " refused otherwise")
    private boolean allowWrites;
    @Option(names = "--timeout-seconds", paramLabel = "N", description = "give up reaching Kudu after N seconds"
            + " (default 20)")
    private int timeoutSeconds = 20;
    @Parameters(hidden = true)
    private List<String> stray = new ArrayList<>();

    private SqlMain(InputStream in, PrintStream out, PrintStream err) {
        this.in = in;
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        int status = run(args, System.in, System.out, System.err);
        System.out.flush();
        System.exit(status);
    }

    /** Checked command line. */
    record Options(String masters, String prefix, String execute, Path file, Map<String, String> variables,
                   boolean csv, int maxRows, boolean allowWrites, int timeoutSeconds) {
    }

    /** The command line checked into {@link Options}; a value that does not pass is a usage error naming it. */
    private Options options() {
        if (!stray.isEmpty()) {
            throw usage("unexpected argument '" + stray.get(0) + "' (SQL goes after -e)");
        }
        if (masters == null || masters.isBlank()) {
            throw usage("--kudu-master is required");
        }
        if (execute != null && file != null) {
            throw usage("give -e or -f, not both");
        }
        if (maxRows < 0) {
            throw usage("--max-rows must be >= 0, got " + maxRows);
        }
        if (timeoutSeconds < 1) {
            throw usage("--timeout-seconds must be >= 1, got " + timeoutSeconds);
        }
        Map<String, String> variables = new LinkedHashMap<>();
        try {
            for (String v : vars) {
                int eq = v.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("--var needs NAME=VALUE, got '" + v + "'");
                }
                ImpalaToSpark.checkVariable(v.substring(0, eq), v.substring(eq + 1));
                variables.put(v.substring(0, eq), v.substring(eq + 1));
            }
            new KuduTablesConfig(prefix, 2, 1); // validates the prefix
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        return new Options(masters, prefix, execute, file, variables, csv, maxRows, allowWrites, timeoutSeconds);
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        return CommandLines.execute(new SqlMain(in, out, err), args, out, err);
    }

    @Override
    public Integer call() {
        Options opts = options();
        try {
            return run(opts, in, out, err);
        } catch (IOException e) {
            err.println("sql: " + e.getMessage());
            return 1;
        }
    }

    private static int run(Options opts, InputStream in, PrintStream out, PrintStream err) throws IOException {
        String script = null;
        if (opts.file() != null) {
            try {
                script = Files.readString(opts.file(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                err.println("sql: cannot read " + opts.file() + ": " + FileReason.of(e));
                return 2;
            }
        } else if (opts.execute() != null) {
            script = opts.execute();
        }

        List<String> problems = new ArrayList<>();
        String check = checkKudu(opts, problems);
        if (check != null) {
            err.println("sql: " + check);
            return 1;
        }
        problems.forEach(p -> err.println("sql: warning: " + p));

        boolean ownSession = SparkSession.getDefaultSession().isEmpty();
        Path warehouse = Files.createTempDirectory("eventindex-sql-");
        // Ctrl-C in the interactive shell ends the JVM without the finally below
        Thread cleanup = new Thread(() -> deleteTree(warehouse), "sql-warehouse-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        SparkSession spark = null;
        try {
            spark = EventIndexSql.startSpark(warehouse, 2);
            List<String> registered = EventIndexSql.register(spark, opts.masters(), opts.prefix(),
                    p -> err.println("sql: warning: " + p));
            spark.sql("USE " + EventIndexSql.DATABASE);
            Map<String, String> vars = new LinkedHashMap<>(opts.variables());
            SqlShell shell = new SqlShell(spark, new ImpalaToSpark(vars, opts.masters()),
                    new SqlShell.Settings(opts.csv(), opts.maxRows(), opts.allowWrites()), out, err);
            if (script != null) {
                return shell.script(script);
            }
            boolean terminal = System.console() != null && in == System.in;
            if (terminal) {
                err.println("Kudu " + opts.masters() + (opts.prefix().isEmpty() ? "" : " (prefix " + opts.prefix()
                        + ")") + ": " + String.join(", ", registered));
                err.println("Current database: " + EventIndexSql.DATABASE + ". End statements with ';', 'quit;' to"
                        + " leave. Documented queries: deploy/impala/queries.sql (SET VAR:run=...; for variables).");
            }
            return shell.interactive(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)),
                    terminal);
        } finally {
            if (spark != null && ownSession) {
                spark.stop();
            }
            deleteTree(warehouse);
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException e) {
                // already shutting down: the hook runs anyway
            }
        }
    }

    /**
     * Reaches the Kudu master and checks that the project's tables are there, before Spark starts.
     *
     * @return null when usable (missing tables added to {@code warnings}), else the reason
     */
    static String checkKudu(Options opts, List<String> warnings) {
        long timeoutMs = opts.timeoutSeconds() * 1000L;
        KuduTablesConfig config = new KuduTablesConfig(opts.prefix(), 2, 1);
        List<String> expected = List.of(config.datasetsTable(), config.eventsTable(), config.mcEventsTable(),
                config.duplicatedEventsTable(), config.eventsOverlapTable(), config.triggerCountTable());
        // no Kerberos here: Spark's Kudu reads (kudu-spark) would need the same login
        try (KuduClient client = ClusterAccess.open(ClusterSettings.defaults(), null)
                .connectedKuduClient(opts.masters(), Duration.ofMillis(timeoutMs))) {
            List<String> tables = client.getTablesList().getTablesList();
            List<String> missing = expected.stream().filter(t -> !tables.contains(t)).toList();
            if (missing.size() == expected.size()) {
                return "Kudu at " + opts.masters() + " has none of the EventIndex tables (" + String.join(", ",
                        expected) + ")" + (opts.prefix().isEmpty() ? "; is a --prefix needed?" : "")
                        + " Tables there: " + (tables.isEmpty() ? "none" : String.join(", ", tables.stream()
                        .sorted().limit(20).toList()));
            }
            missing.forEach(t -> warnings.add("Kudu table " + t + " does not exist; its Impala name stays"
                    + " unregistered"));
            return null;
        } catch (KuduException e) {
            return "cannot read the Kudu tables at " + opts.masters() + ": " + kuduReason(e);
        } catch (IOException e) {
            return e.getMessage();
        } catch (RuntimeException e) {
            return "cannot use Kudu master address '" + opts.masters() + "': " + Errors.describe(e);
        }
    }

    /** The Kudu client's message without its RPC trace summary; the cause's when the message is only that. */
    static String kuduReason(KuduException e) {
        String message = e.getMessage() == null ? e.toString() : e.getMessage().split("\n")[0];
        int rpc = message.indexOf(": KuduRpc(");
        if (rpc >= 0) {
            message = message.substring(0, rpc);
        }
        if (message.startsWith("cannot complete before timeout")) {
            message = "no master answered (wrong address, or not running?)";
        }
        return message;
    }

    private static void deleteTree(Path dir) {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
