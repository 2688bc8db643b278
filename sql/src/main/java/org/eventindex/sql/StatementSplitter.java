package org.eventindex.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Splits SQL text into {@code ;}-terminated statements, as impala-shell does: a {@code ;} inside a quoted string
 * ({@code '...'}, {@code "..."}, {@code `...`}), a {@code --} line comment or a block comment does not end a
 * statement. Text can be fed in pieces (the interactive shell feeds one line at a time); a statement completes when
 * its {@code ;} arrives.
 * <p>
 * Each statement keeps the {@code --} comment lines directly above it ({@link Statement#comment()}), so a documented
 * query file can name its queries ({@code -- Q1. Event picking ...}). Text holding only comments and blanks is no
 * statement.
 */
public final class StatementSplitter {
    private static final Pattern LABEL = Pattern.compile("^(Q[0-9]+[a-z]?)\\.");

    /**
     * One statement.
     *
     * @param sql     the statement text without the terminating {@code ;} and without the comment lines above it
     * @param comment the {@code --} comment lines directly above it (no blank line between), markers removed,
     *                joined by newlines; empty if none
     * @param line    1-based line of the statement's first SQL line in the fed text
     */
    public record Statement(String sql, String comment, int line) {
        /** The label of a documented query ({@code Q1} from a comment starting {@code Q1.}), or null. */
        public String label() {
            Matcher m = LABEL.matcher(comment);
            return m.find() ? m.group(1) : null;
        }
    }

    private enum Mode { CODE, SINGLE, DOUBLE, BACKTICK, LINE_COMMENT, BLOCK_COMMENT }

    private final StringBuilder chunk = new StringBuilder();
    private Mode mode = Mode.CODE;
    private int line = 1;
    private int chunkLine = 1;
    private boolean hasCode;

    /** Splits a whole text; a last statement without {@code ;} is returned too. */
    public static List<Statement> split(String text) {
        StatementSplitter s = new StatementSplitter();
        List<Statement> out = new ArrayList<>(s.feed(text));
        s.finish().ifPresent(out::add);
        return out;
    }

    /** Feeds more text; returns the statements it completed, in order. */
    public List<Statement> feed(String text) {
        List<Statement> done = new ArrayList<>();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            char next = i + 1 < text.length() ? text.charAt(i + 1) : '\0';
            if (mode == Mode.CODE && c == ';') {
                complete().ifPresent(done::add);
                continue;
            }
            chunk.append(c);
            if (c == '\n') {
                line++;
            }
            switch (mode) {
                case CODE -> {
                    if (c == '-' && next == '-') {
                        mode = Mode.LINE_COMMENT;
                    } else if (c == '/' && next == '*') {
                        mode = Mode.BLOCK_COMMENT;
                        chunk.append(next);
                        i++;
                    } else {
                        if (c == '\'') {
                            mode = Mode.SINGLE;
                        } else if (c == '"') {
                            mode = Mode.DOUBLE;
                        } else if (c == '`') {
                            mode = Mode.BACKTICK;
                        }
                        hasCode |= !Character.isWhitespace(c);
                    }
                }
                case SINGLE, DOUBLE -> {
                    if (c == '\\' && next != '\0') {
                        // a backslash escapes the next character in Impala and Spark string literals
                        chunk.append(next);
                        if (next == '\n') {
                            line++;
                        }
                        i++;
                    } else if (c == (mode == Mode.SINGLE ? '\'' : '"')) {
                        mode = Mode.CODE;
                    }
                }
                case BACKTICK -> {
                    if (c == '`') {
                        mode = Mode.CODE;
                    }
                }
                case LINE_COMMENT -> {
                    if (c == '\n') {
                        mode = Mode.CODE;
                    }
                }
                case BLOCK_COMMENT -> {
                    if (c == '*' && next == '/') {
                        chunk.append(next);
                        i++;
                        mode = Mode.CODE;
                    }
                }
            }
        }
        return done;
    }

    /** True when an unfinished statement (more than blanks and comments) is pending. */
    public boolean hasPending() {
        return hasCode;
    }

    /** True while the pending text ends inside a quoted string or block comment. */
    public boolean insideQuoteOrComment() {
        return mode != Mode.CODE && mode != Mode.LINE_COMMENT;
    }

    /** Ends the input: the pending statement, if any, as if it had been terminated by {@code ;}. */
    public Optional<Statement> finish() {
        Optional<Statement> s = complete();
        mode = Mode.CODE;
        return s;
    }

    /** Forgets the pending text (the interactive shell after Ctrl-C). */
    public void reset() {
        chunk.setLength(0);
        mode = Mode.CODE;
        hasCode = false;
        chunkLine = line;
    }

    private Optional<Statement> complete() {
        String text = chunk.toString();
        int first = chunkLine;
        boolean code = hasCode;
        chunk.setLength(0);
        hasCode = false;
        chunkLine = line;
        if (!code) {
            return Optional.empty();
        }
        String[] lines = text.split("\n", -1);
        List<String> comment = new ArrayList<>();
        int i = 0;
        for (; i < lines.length; i++) {
            String l = lines[i].strip();
            if (l.isEmpty()) {
                comment.clear();
            } else if (l.startsWith("--")) {
                comment.add(l.substring(2).strip());
            } else {
                break;
            }
        }
        String sql = String.join("\n", java.util.Arrays.asList(lines).subList(i, lines.length)).strip();
        return Optional.of(new Statement(sql, String.join("\n", comment), first + i));
    }
}
