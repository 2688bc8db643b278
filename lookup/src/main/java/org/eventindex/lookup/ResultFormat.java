package org.eventindex.lookup;

import java.io.PrintStream;
import java.util.List;

/**
 * Output of the lookup command.
 * <ul>
 *   <li>{@link #TEXT}: the experiment's client format, one line per match on stdout: {@code run event GUID type}
 *       ({@code %08d %09d}); an event not found is {@code run event NOT_FOUND} on stderr (explained:
 *       {@code run event NOT_FOUND: why}), a failed lookup
 *       {@code run event ERROR reason} on stderr, so stdout stays machine-readable.</li>
 *   <li>{@link #CSV}: a header then one row per match on stdout, with a {@code status} column; an event not found
 *       (or failed) is one row with status NOT_FOUND (ERROR) and empty match columns; explained, a last column
 *       {@code explanation} ({@link MissExplanation#text()}, empty for a found event).</li>
 *   <li>{@link #JSON}: JSON Lines, one object per input event ({@link LookupJson}), found or not.</li>
 * </ul>
 */
public enum ResultFormat {
    TEXT, CSV, JSON;

    /** Written once before the results; with {@code explain}, CSV has a last column {@code explanation}. */
    public void header(PrintStream out, boolean explain) {
        if (this == CSV) {
            out.println("run,event,status,guid,type,token,dataset,duplicate" + (explain ? ",explanation" : ""));
        }
    }

    /** @param explain CSV: the {@code explanation} column (the header's) */
    public void write(List<LookupResult> results, PrintStream out, PrintStream err, boolean explain) {
        for (LookupResult r : results) {
            switch (this) {
                case TEXT -> text(r, out, err);
                case CSV -> csv(r, out, explain);
                case JSON -> out.println(LookupJson.toJson(r).toString());
            }
        }
    }

    private static void text(LookupResult r, PrintStream out, PrintStream err) {
        if (r.failed()) {
            err.println(r.key().text() + " ERROR " + r.error());
        } else if (!r.found()) {
            err.println(r.key().text() + " NOT_FOUND" + (r.explanation() == null ? ""
                    : ": " + r.explanation().text()));
        }
        for (LookupMatch m : r.matches()) {
            out.println(r.key().text() + " " + m.guid() + " " + m.type());
        }
    }

    private static void csv(LookupResult r, PrintStream out, boolean explain) {
        String prefix = r.key().run() + "," + Long.toUnsignedString(r.key().event()) + ",";
        if (!r.found()) {
            out.println(prefix + LookupJson.status(r) + ",,,,," + (explain ? ","
                    + cell(r.explanation() == null ? null : r.explanation().text()) : ""));
            return;
        }
        for (LookupMatch m : r.matches()) {
            out.println(prefix + "FOUND," + cell(m.guid()) + "," + cell(m.type()) + "," + cell(m.token()) + ","
                    + cell(m.dataset()) + "," + m.duplicate() + (explain ? "," : ""));
        }
    }

    /** RFC 4180 quoting when needed (tokens hold brackets and '=', never commas, but be safe). */
    private static String cell(String v) {
        if (v == null) {
            return "";
        }
        if (v.indexOf(',') >= 0 || v.indexOf('"') >= 0 || v.indexOf('\n') >= 0) {
            return '"' + v.replace("\"", "\"\"") + '"';
        }
        return v;
    }
}
