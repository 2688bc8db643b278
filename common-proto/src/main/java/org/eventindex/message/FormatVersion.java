package org.eventindex.message;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.ProjectVersion;

import java.util.Optional;

/**
 * The format version every journal line and every message between the project's daemons carries in its field
 * {@value #FIELD} (decision 0055, docs/compatibility.md). A document without the field is {@value #FIRST}: what
 * release 0.1.0 wrote. A writer stamps the lowest version a reader needs to read the document correctly, so a change
 * that an older reader may safely ignore (a new optional field: unknown fields are ignored) keeps the version, and only
 * a change that an older reader would misread raises it. A reader refuses a version above the one it reads, saying
 * both and what to do ({@link #newer}). The producer's message is the experiment's and carries no such field.
 */
public final class FormatVersion {
    /** The JSON field holding the version. */
    public static final String FIELD = "v";
    /** The version of a document without {@value #FIELD}: the format of release 0.1.0. */
    public static final int FIRST = 1;
    /** Where operators read which versions work together. */
    public static final String DOCS = "docs/compatibility.md";

    private FormatVersion() {
    }

    /**
     * The version {@code doc} carries: its {@value #FIELD} field, {@value #FIRST} when it has none (or it is null).
     *
     * @throws IllegalArgumentException when the field is there but not an integer >= 1
     */
    public static int of(JsonNode doc) {
        JsonNode v = doc == null ? null : doc.get(FIELD);
        if (v == null || v.isNull()) {
            return FIRST;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < FIRST) {
            throw new IllegalArgumentException("field '" + FIELD + "' (format version) is " + abbreviate(v.toString())
                    + ", expected an integer >= " + FIRST);
        }
        return v.asInt();
    }

    /**
     * Why a document of version {@code found} cannot be read by a reader of version {@code reads}, or empty when it
     * can. E.g. {@code consumer signal 7f3a... has format version 2; this consumer (eventindex 0.2.0) reads format
     * versions up to 1: upgrade this consumer (docs/compatibility.md)}.
     *
     * @param what   the document, as the message names it (its kind and id)
     * @param reader the daemon or command reading it ({@code supervisor}, {@code consumer}...)
     */
    public static Optional<String> newer(String what, int found, int reads, String reader) {
        if (found <= reads) {
            return Optional.empty();
        }
        return Optional.of(what + " has format version " + found + "; this " + reader + " (eventindex "
                + ProjectVersion.get() + ") reads format versions up to " + reads + ": it was written by a newer "
                + "release; upgrade this " + reader + " to the writer's release or later (" + DOCS + ")");
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
