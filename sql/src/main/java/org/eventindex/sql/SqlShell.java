package org.eventindex.sql;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Runs SQL statements in a Spark session and prints their results: each statement goes through
 * {@link ImpalaToSpark} (so the documented Impala queries and their {@code ${var:NAME}} variables work as they are),
 * then Spark SQL. Results go to {@code out} as a table or CSV; timings, notes and errors to {@code err}. An error is
 * one clear message, never a stack trace.
 */
public final class SqlShell {
    private static final Pattern SET_VAR = Pattern.compile("(?is)^SET\\s+VAR:([A-Za-z_][A-Za-z0-9_]*)\\s*=\\s*(.*)$");
    private static final Pattern QUIT = Pattern.compile("(?i)^(quit|exit)$");

    /**
     * @param csv         CSV instead of a table
     * @param maxRows     at most this many rows are fetched and printed per statement (0: all)
     * @param allowWrites let INSERT statements through (kudu-spark would write them into the Kudu tables)
     */
    public record Settings(boolean csv, int maxRows, boolean allowWrites) {
        public Settings {
            if (maxRows < 0) {
                throw new IllegalArgumentException("maxRows must be >= 0: " + maxRows);
            }
        }
    }

    private final SparkSession spark;
    private final Settings settings;
    private final PrintStream out;
    private final PrintStream err;
    private ImpalaToSpark translation;

    public SqlShell(SparkSession spark, ImpalaToSpark translation, Settings settings, PrintStream out,
                    PrintStream err) {
        this.spark = requireNonNull(spark, "spark is null");
        this.translation = requireNonNull(translation, "translation is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.out = requireNonNull(out, "out is null");
        this.err = requireNonNull(err, "err is null");
    }

    /** A fetched result: column names and rows (at most {@code maxRows}), and whether more rows were left. */
    public record Result(List<String> columns, List<List<Object>> rows, boolean truncated) {
    }

    /**
     * Translates and runs one statement, returning its rows (at most {@code maxRows}, 0 = all).
     *
     * @throws IllegalArgumentException for a translation problem (variable not set) or a refused write
     * Spark's exceptions (parse, analysis, execution errors) pass through undeclared; AnalysisException is one.
     */
    public Result query(String statement, int maxRows) {
        String sql = translation.translate(statement);
        if (!settings.allowWrites() && isWrite(sql)) {
            throw new IllegalArgumentException("INSERT is refused: the shell only reads the Kudu tables (start it with"
                    + " --allow-writes to write through kudu-spark)");
        }
        Dataset<Row> df = spark.sql(sql);
        List<String> columns = Arrays.asList(df.columns());
        List<Row> rows = maxRows > 0 ? df.limit(maxRows + 1).collectAsList() : df.collectAsList();
        boolean truncated = maxRows > 0 && rows.size() > maxRows;
        List<List<Object>> values = new ArrayList<>();
        for (Row r : truncated ? rows.subList(0, maxRows) : rows) {
            List<Object> v = new ArrayList<>(r.length());
            for (int i = 0; i < r.length(); i++) {
                v.add(r.get(i));
            }
            values.add(v);
        }
        return new Result(columns, values, truncated);
    }

    /** Runs one statement and prints its result or its error; true when it succeeded. */
    public boolean execute(String statement) {
        long t0 = System.nanoTime();
        try {
            Matcher set = SET_VAR.matcher(statement.strip());
            if (set.matches()) {
                translation = translation.with(set.group(1), set.group(2).strip());
                err.println("Variable " + set.group(1).toUpperCase(Locale.ROOT) + " set to " + set.group(2).strip());
                return true;
            }
            Result r = query(statement, settings.maxRows());
            double seconds = (System.nanoTime() - t0) / 1e9;
            if (r.columns().isEmpty()) {
                err.printf(Locale.ROOT, "OK (%.2f s)%n", seconds);
                return true;
            }
            if (settings.csv()) {
                ResultPrinter.csv(r.columns(), r.rows(), out);
            } else {
                ResultPrinter.table(r.columns(), r.rows(), out);
            }
            out.flush();
            err.printf(Locale.ROOT, "Fetched %d row(s) in %.2f s%s%n", r.rows().size(), seconds, r.truncated()
                    ? "; more rows were left out (--max-rows " + settings.maxRows() + ")" : "");
            return true;
        } catch (Exception e) {
            // Scala code throws AnalysisException (checked in Java) without declaring it
            out.flush();
            err.println("ERROR: " + Errors.describe(e));
            return false;
        }
    }

    /** Runs every statement of {@code text}, stopping at the first failure; 0 when all succeeded, else 1. */
    public int script(String text) {
        for (StatementSplitter.Statement s : StatementSplitter.split(text)) {
            if (QUIT.matcher(s.sql()).matches()) {
                return 0;
            }
            if (!execute(s.sql())) {
                err.println("(stopped at the statement on line " + s.line() + ")");
                return 1;
            }
        }
        return 0;
    }

    /**
     * Reads {@code ;}-terminated statements from {@code in} until end of input or {@code quit;}/{@code exit;},
     * running each as it completes; an error is printed and the next statement still runs. A last statement without
     * {@code ;} runs at end of input.
     *
     * @param prompt print prompts to {@code out} (stdin is a terminal)
     * @return 0 when every statement succeeded, else 1
     */
    public int interactive(BufferedReader in, boolean prompt) throws IOException {
        StatementSplitter splitter = new StatementSplitter();
        boolean failed = false;
        if (prompt) {
            promptFor(splitter);
        }
        String line;
        while ((line = in.readLine()) != null) {
            if (!splitter.hasPending() && !splitter.insideQuoteOrComment() && QUIT.matcher(line.strip()).matches()) {
                return failed ? 1 : 0;
            }
            for (StatementSplitter.Statement s : splitter.feed(line + "\n")) {
                if (QUIT.matcher(s.sql()).matches()) {
                    return failed ? 1 : 0;
                }
                failed |= !execute(s.sql());
            }
            if (prompt) {
                promptFor(splitter);
            }
        }
        var last = splitter.finish();
        if (last.isPresent() && !QUIT.matcher(last.get().sql()).matches()) {
            failed |= !execute(last.get().sql());
        }
        if (prompt) {
            out.println();
        }
        return failed ? 1 : 0;
    }

    private void promptFor(StatementSplitter splitter) {
        out.print(splitter.hasPending() || splitter.insideQuoteOrComment() ? "         > " : "eventindex> ");
        out.flush();
    }

    private boolean isWrite(String sql) {
        LogicalPlan plan;
        try {
            plan = spark.sessionState().sqlParser().parsePlan(sql);
        } catch (Exception e) {
            return false; // spark.sql reports the syntax error
        }
        String kind = plan.getClass().getSimpleName();
        return kind.startsWith("InsertInto") || kind.equals("OverwriteByExpression") || kind.equals("AppendData");
    }
}
