package org.eventindex.sql;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.spark.sql.SparkSession;
import org.eventindex.kudu.KuduTablesConfig;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bin/eventindex sql}: a local SQL shell over the EventIndex Kudu tables, registered under their Impala names
 * (database {@code eventindex}, made current) by running deploy/impala/create-tables.sql through
 * {@link ImpalaToSpark} in a local Spark session. Statements from {@code -e}, {@code -f} or standard input.
 * Exit status: 0 when every statement succeeded, 1 when one failed or Kudu could not be reached, 2 on a usage error.
 */
public final class SqlMain {
    static final String USAGE = """
            Usage: bin/eventindex sql --kudu-master HOST:PORT[,HOST:PORT...] [options] [-e SQL | -f FILE]
              --kudu-master M     Kudu master address(es) (also --masters)
              --prefix P          table name prefix of the loader (default: none)
              -e SQL              run these ';'-separated statements and exit
              -f FILE             run the statements of FILE and exit (e.g. deploy/impala/queries.sql)
                                  without -e/-f: statements from standard input, each ended by ';'
                                  ('quit;' ends); an error is printed and the next statement still runs
              --var NAME=VALUE    value of ${var:NAME} in the statements (repeatable), as impala-shell --var;
                                  interactively: SET VAR:NAME=VALUE;
              --csv               CSV (header line first) instead of tables
              --max-rows N        print at most N rows per statement (default 10000; 0: all)
              --allow-writes      let INSERT through (kudu-spark writes into the Kudu tables); refused otherwise
              --timeout-seconds N give up reaching Kudu after N seconds (default 20)
              --help              this text
            Tables: eventindex.datasets, events, mcevents, duplicatedevents, eventsoverlap, triggercount and the view
            eventindex.loaded_datasets, as in Impala (docs/lookup.md). Results on stdout, timings and errors on stderr.
            """;

    private SqlMain() {
    }

    public static void main(String[] args) throws IOException {
        int status = run(args, System.in, System.out, System.err);
        System.out.flush();
        System.exit(status);
    }

    /** Parsed command line. */
    record Options(String masters, String prefix, String execute, Path file, Map<String, String> variables,
                   boolean csv, int maxRows, boolean allowWrites, int timeoutSeconds, boolean help) {

        static Options parse(String[] args) {
            String masters = null;
            String prefix = "";
            String execute = null;
            Path file = null;
            Map<String, String> vars = new LinkedHashMap<>();
            boolean csv = false;
            int maxRows = 10_000;
            boolean allowWrites = false;
            int timeout = 20;
            boolean help = false;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                String name = a;
                String inline = null;
                if (a.startsWith("--") && a.indexOf('=') > 0) {
                    name = a.substring(0, a.indexOf('='));
                    inline = a.substring(a.indexOf('=') + 1);
                }
                switch (name) {
                    case "--help", "-h" -> help = true;
                    case "--csv" -> csv = true;
                    case "--allow-writes" -> allowWrites = true;
                    case "--kudu-master", "--masters" -> masters = inline != null ? inline : value(args, ++i, name);
                    case "--prefix" -> prefix = inline != null ? inline : value(args, ++i, name);
                    case "-e", "--execute" -> execute = inline != null ? inline : value(args, ++i, name);
                    case "-f", "--file" -> file = Path.of(inline != null ? inline : value(args, ++i, name));
                    case "--max-rows" -> maxRows = number(inline != null ? inline : value(args, ++i, name), name, 0);
                    case "--timeout-seconds" -> timeout = number(inline != null ? inline : value(args, ++i, name),
                            name, 1);
                    case "--var" -> {
                        String v = inline != null ? inline : value(args, ++i, name);
                        int eq = v.indexOf('=');
                        if (eq <= 0) {
                            throw new IllegalArgumentException("--var needs NAME=VALUE, got '" + v + "'");
                        }
                        ImpalaToSpark.checkVariable(v.substring(0, eq), v.substring(eq + 1));
                        vars.put(v.substring(0, eq), v.substring(eq + 1));
                    }
                    default -> throw new IllegalArgumentException(a.startsWith("-") ? "unknown option '" + a + "'"
                            : "unexpected argument '" + a + "' (SQL goes after -e)");
                }
            }
            if (help) {
                return new Options(masters, prefix, execute, file, vars, csv, maxRows, allowWrites, timeout, true);
            }
            if (masters == null || masters.isBlank()) {
                throw new IllegalArgumentException("--kudu-master is required");
            }
            if (execute != null && file != null) {
                throw new IllegalArgumentException("give -e or -f, not both");
            }
            new KuduTablesConfig(prefix, 2, 1); // validates the prefix
            return new Options(masters, prefix, execute, file, vars, csv, maxRows, allowWrites, timeout, false);
        }

        private static String value(String[] args, int i, String option) {
            if (i >= args.length) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return args[i];
        }

        private static int number(String v, String option, int min) {
            try {
                int n = Integer.parseInt(v);
                if (n < min) {
                    throw new IllegalArgumentException(option + " must be >= " + min + ", got " + v);
                }
                return n;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + " must be a whole number, got '" + v + "'");
            }
        }
    }

    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) throws IOException {
        Options opts;
        try {
            opts = Options.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("sql: " + e.getMessage());
            err.print(USAGE);
            return 2;
        }
        if (opts.help()) {
            out.print(USAGE);
            return 0;
        }
        String script = null;
        if (opts.file() != null) {
            try {
                script = Files.readString(opts.file(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                err.println("sql: cannot read " + opts.file() + ": " + e.getMessage());
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
        try (KuduClient client = new KuduClient.KuduClientBuilder(opts.masters())
                .defaultAdminOperationTimeoutMs(timeoutMs)
                .defaultOperationTimeoutMs(timeoutMs)
                .build()) {
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
            return "cannot reach the Kudu master at " + opts.masters() + " (within " + opts.timeoutSeconds()
                    + " s): " + kuduReason(e);
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
