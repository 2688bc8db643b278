package org.eventindex.supervisor.journal;

import org.eventindex.message.FormatVersion;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The format rule of journal lines (decision 0055). Every line carries {@code "v"}, the journal format version a
 * reader needs to apply it (no {@code "v"}: version 1, release 0.1.0), and {@code "ignorable": true} when a reader
 * that cannot apply it may skip it and still reach a correct state. A reader applies a line of a version it reads;
 * it skips (and counts) a line of a newer version or of an event type it does not know when the line is ignorable;
 * any other such line stops it, naming the line, the version found, the version it reads and what to do.
 * <p>
 * Each event type declares both with {@link Event}: its {@code version} is the first journal format whose readers
 * apply it (a new type, or a type whose meaning changes, takes {@link #VERSION} + 1 and raises {@link #VERSION}; a
 * new optional field keeps both), and {@code ignorable} whether skipping it leaves an older supervisor correct (a fact
 * kept for operators only, yes; anything a later decision depends on, no).
 */
public final class JournalFormat {
    /** The highest journal format version this supervisor reads (and the highest any of its event types has). */
    public static final int VERSION = 1;

    /** An event type's line format; every {@link JournalEvent} type has one ({@code JournalFormatTest}). */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    public @interface Event {
        /** The journal format version a reader needs to apply this event type. */
        int version();

        /** Whether a reader that does not know the type (or its version) may skip its lines. */
        boolean ignorable();
    }

    private static final Map<Class<?>, Event> RULES = new ConcurrentHashMap<>();

    private JournalFormat() {
    }

    /** The version written on a line of this event. */
    static int version(JournalEvent e) {
        Event rule = rule(e);
        return rule == null ? VERSION : rule.version();
    }

    /** Whether a line of this event is written as ignorable. */
    static boolean ignorable(JournalEvent e) {
        Event rule = rule(e);
        return rule != null && rule.ignorable();
    }

    /** The declared rule, null for a type without one (written as the current version, not ignorable: safe). */
    static Event rule(JournalEvent e) {
        return RULES.computeIfAbsent(e.getClass(), c -> c.getAnnotation(Event.class));
    }

    /**
     * The message for a line this supervisor cannot apply and may not skip.
     *
     * @param what e.g. {@code journal F line 12 (entry 40, event type FOO)}
     */
    static String newer(String what, int found) {
        return FormatVersion.newer(what, found, VERSION, "supervisor").orElse(what + " has format version " + found
                + ", which this supervisor reads, but an event type it does not know; it was written by another"
                + " build. Run the release that wrote it (" + FormatVersion.DOCS + ")");
    }
}
