package org.eventindex.sql;

import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.catalyst.parser.ParseException;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Turns the exceptions of a statement into the message a user reads (no stack trace). */
final class Errors {
    /** Spark's "Lost task 1.0 in stage 0.0 (TID 1) (host executor driver): " before the task's own exception. */
    private static final Pattern TASK_FAILURE = Pattern.compile("\\(TID \\d+\\) \\([^)]*\\): (.*)$", Pattern.DOTALL);
    private static final Pattern WRAPPER = Pattern.compile("^(?:java\\.lang\\.RuntimeException: |"
            + "org\\.apache\\.spark\\.SparkException: )+");
    /** The Kudu client appends the RPC and its trace summary to a timeout's message. */
    private static final Pattern KUDU_RPC = Pattern.compile(": (?:KuduRpc|[A-Za-z]+Request)\\(.*$", Pattern.DOTALL);
    private static final String KUDU_PACKAGE = "org.apache.kudu.client.";

    private Errors() {
    }

    /**
     * A syntax error: Spark's message with the position and the statement marked. An analysis error (unknown table
     * or column, wrong types): its message without the logical plan Spark appends. A failed Spark task (a Kudu scan
     * that timed out): the task's exception, its first line, without the RPC trace. Anything else: the deepest
     * cause's class and message, first lines only.
     */
    static String describe(Throwable e) {
        if (e instanceof ParseException p) {
            return p.getMessage().strip();
        }
        if (e instanceof AnalysisException a) {
            return a.getSimpleMessage().strip();
        }
        if (e instanceof IllegalArgumentException && e.getCause() == null) {
            return e.getMessage();
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String kind = root.getClass().getSimpleName();
        String message = root.getMessage() == null ? "" : root.getMessage().strip();
        Matcher task = TASK_FAILURE.matcher(message);
        if (task.find()) {
            kind = "a Spark task failed";
            message = WRAPPER.matcher(task.group(1)).replaceFirst("");
        }
        message = KUDU_RPC.matcher(message).replaceFirst("");
        if (message.startsWith(KUDU_PACKAGE)) {
            message = "Kudu " + message.substring(KUDU_PACKAGE.length());
        }
        String[] lines = message.split("\n");
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < Math.min(lines.length, 5); i++) {
            String l = lines[i];
            // Spark's failure messages carry a stack trace after the first lines
            if (l.startsWith("\tat ") || l.startsWith("Driver stacktrace")) {
                break;
            }
            b.append(i == 0 ? "" : "\n").append(l);
        }
        return (kind + (b.isEmpty() ? "" : ": " + b.toString().strip())).strip();
    }
}
