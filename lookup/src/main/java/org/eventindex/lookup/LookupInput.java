package org.eventindex.lookup;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Parsed lookup input: lines {@code run event} (whitespace separated, decimal, as the experiment's client writes
 * them with {@code %08d %09d}). Blank lines and lines starting with {@code #} are skipped. A malformed line becomes a
 * {@link LineError} naming the line and the reason; the other lines are still looked up.
 */
public record LookupInput(List<EventKey> keys, List<LineError> errors) {
    /** A refused input line. */
    public record LineError(String source, long lineNumber, String line, String reason) {
        /** {@code source:line: 'text': reason} */
        public String message() {
            String shown = line.length() > 80 ? line.substring(0, 80) + "..." : line;
            return source + ":" + lineNumber + ": '" + shown + "': " + reason;
        }
    }

    public LookupInput {
        keys = List.copyOf(keys);
        errors = List.copyOf(errors);
    }

    /**
     * Reads every line of {@code in}.
     *
     * @param source   named in error messages (a file name, {@code stdin}, {@code request})
     * @param maxLines more event lines than this fail with {@link TooManyLinesException} (0: no limit)
     */
    public static LookupInput read(Reader in, String source, int maxLines) throws IOException {
        requireNonNull(in, "in is null");
        List<EventKey> keys = new ArrayList<>();
        List<LineError> errors = new ArrayList<>();
        BufferedReader r = in instanceof BufferedReader b ? b : new BufferedReader(in);
        long n = 0;
        for (String line = r.readLine(); line != null; line = r.readLine()) {
            n++;
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                continue;
            }
            if (maxLines > 0 && keys.size() + errors.size() >= maxLines) {
                throw new TooManyLinesException(source + " has more than " + maxLines + " lookup lines");
            }
            try {
                keys.add(parseLine(t));
            } catch (IllegalArgumentException e) {
                errors.add(new LineError(source, n, line, e.getMessage()));
            }
        }
        return new LookupInput(keys, errors);
    }

    /**
     * Parses {@code run event}.
     *
     * @throws IllegalArgumentException saying what is wrong
     */
    public static EventKey parseLine(String line) {
        String[] f = line.strip().split("\\s+");
        if (f.length != 2) {
            throw new IllegalArgumentException("expected 2 fields 'run event', found " + f.length);
        }
        return new EventKey(parseRun(f[0]), parseEvent(f[1]));
    }

    /** @throws IllegalArgumentException when not a run number 0..2147483647 */
    public static int parseRun(String text) {
        if (!text.matches("[0-9]{1,10}")) {
            throw new IllegalArgumentException("run '" + text + "' is not a decimal number");
        }
        long run = Long.parseLong(text);
        if (run > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("run " + text + " is above " + Integer.MAX_VALUE);
        }
        return (int) run;
    }

    /** @throws IllegalArgumentException when not an unsigned 64-bit decimal */
    public static long parseEvent(String text) {
        if (!text.matches("[0-9]{1,20}")) {
            throw new IllegalArgumentException("event '" + text + "' is not a decimal number");
        }
        try {
            return Long.parseUnsignedLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("event " + text + " is above 2^64-1");
        }
    }

    /** More lines than the caller accepts in one batch: the same input is refused the same way. */
    public static final class TooManyLinesException extends IOException implements org.eventindex.EventIndexFailure {
        private static final long serialVersionUID = 1L;

        public TooManyLinesException(String message) {
            super(message);
        }

        @Override
        public Kind kind() {
            return Kind.FATAL;
        }
    }
}
