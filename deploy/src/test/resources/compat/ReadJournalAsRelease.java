import org.eventindex.supervisor.journal.Journal;
import org.eventindex.supervisor.journal.JournalEntry;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;

/**
 * Run with a release's lib/ on the class path (java -cp 'lib/*' ReadJournalAsRelease.java DIR): opens the journal
 * directory DIR as that release's supervisor does at its start (restores the checkpoint into its state, replays the
 * entries after it) and prints "checkpoint C entries N last L datasets D". The state's classes are package-private,
 * hence the reflection; nothing is written but the lock. Used by ReleasedProducerCompatIT (decision 0055).
 */
public final class ReadJournalAsRelease {
    public static void main(String[] args) throws Exception {
        Class<?> stateClass = Class.forName("org.eventindex.supervisor.SupervisorState");
        Constructor<?> create = stateClass.getDeclaredConstructor();
        create.setAccessible(true);
        Object state = create.newInstance();
        Method restoreInto = Class.forName("org.eventindex.supervisor.StateCheckpoint")
                .getDeclaredMethod("restoreInto", stateClass);
        restoreInto.setAccessible(true);
        Method apply = stateClass.getDeclaredMethod("apply", JournalEntry.class);
        apply.setAccessible(true);
        Method all = stateClass.getDeclaredMethod("all");
        all.setAccessible(true);
        long[] entries = {0};
        try (Journal j = Journal.open(Path.of(args[0]), 10, (Journal.StateReader) restoreInto.invoke(null, state),
                e -> {
                    try {
                        apply.invoke(state, e);
                    } catch (IllegalAccessException | InvocationTargetException x) {
                        throw new IllegalStateException("entry " + e.seq() + ": " + x.getCause(), x);
                    }
                    entries[0]++;
                })) {
            System.out.println("checkpoint " + j.replaySummary().checkpointSeq() + " entries " + entries[0] + " last "
                    + j.lastSeq() + " datasets " + ((java.util.Collection<?>) all.invoke(state)).size());
        }
    }
}
