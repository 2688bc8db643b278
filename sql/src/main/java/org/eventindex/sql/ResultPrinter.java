package org.eventindex.sql;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.List;

/** Prints a result as a box table (impala-shell's layout) or as CSV (RFC 4180, header line first). */
final class ResultPrinter {
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS")
            .withZone(ZoneOffset.UTC);

    private ResultPrinter() {
    }

    /** A value as text: NULL for null, timestamps in UTC with microseconds, doubles without exponent. */
    static String text(Object v) {
        if (v == null) {
            return "NULL";
        }
        if (v instanceof Instant t) {
            return TIMESTAMP.format(t);
        }
        if (v instanceof java.sql.Timestamp t) {
            return TIMESTAMP.format(t.toInstant());
        }
        if (v instanceof Double d) {
            return d.isNaN() || d.isInfinite() ? d.toString() : BigDecimal.valueOf(d).toPlainString();
        }
        if (v instanceof Float f) {
            return f.isNaN() || f.isInfinite() ? f.toString() : new BigDecimal(f.toString()).toPlainString();
        }
        if (v instanceof byte[] b) {
            return HexFormat.of().formatHex(b);
        }
        if (v instanceof scala.collection.Seq<?> s) {
            return s.mkString("[", ", ", "]");
        }
        return v.toString();
    }

    static void table(List<String> columns, List<List<Object>> rows, PrintStream out) {
        int[] width = new int[columns.size()];
        for (int c = 0; c < columns.size(); c++) {
            width[c] = columns.get(c).length();
        }
        String[][] cells = new String[rows.size()][columns.size()];
        for (int r = 0; r < rows.size(); r++) {
            for (int c = 0; c < columns.size(); c++) {
                cells[r][c] = text(rows.get(r).get(c)).replace("\n", "\\n");
                width[c] = Math.max(width[c], cells[r][c].length());
            }
        }
        StringBuilder rule = new StringBuilder("+");
        for (int w : width) {
            rule.append("-".repeat(w + 2)).append('+');
        }
        out.println(rule);
        out.println(line(columns.toArray(String[]::new), width));
        out.println(rule);
        for (String[] row : cells) {
            out.println(line(row, width));
        }
        out.println(rule);
    }

    private static String line(String[] cells, int[] width) {
        StringBuilder b = new StringBuilder("|");
        for (int c = 0; c < cells.length; c++) {
            b.append(' ').append(cells[c]).append(" ".repeat(width[c] - cells[c].length())).append(" |");
        }
        return b.toString();
    }

    static void csv(List<String> columns, List<List<Object>> rows, PrintStream out) {
        out.println(String.join(",", columns.stream().map(ResultPrinter::csvField).toList()));
        for (List<Object> row : rows) {
            StringBuilder b = new StringBuilder();
            for (int c = 0; c < row.size(); c++) {
                if (c > 0) {
                    b.append(',');
                }
                // NULL is an empty field, as in the lookup's CSV
                b.append(row.get(c) == null ? "" : csvField(text(row.get(c))));
            }
            out.println(b);
        }
    }

    static String csvField(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
