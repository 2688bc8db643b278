package org.eventindex.supervisor.journal;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;

import static org.eventindex.EventIndexFailure.Kind.FATAL;

/**
 * A takeover's copy of another writer's journal into a new, empty journal directory: the checkpoint as it is and the
 * journal file's complete lines as they are now. This is the takeover point: lines the old writer adds afterwards
 * stay in its own directory and are never read again. Called only after the old writer was fenced, so the lines it
 * may still add were not acknowledged (it checks the fence after every fsync, before acknowledging).
 * <p>
 * A checkpoint the old writer finishes during the copy (it renames the checkpoint, then moves the journal file
 * aside) would pair an old checkpoint with a new journal file; the copy sees the checkpoint file change under it and
 * starts again.
 */
public final class JournalHandOver {
    private static final int ATTEMPTS = 10;

    private JournalHandOver() {
    }

    /**
     * What was copied.
     *
     * @param journalBytes    complete lines of the old journal file copied (the takeover point within it)
     * @param tornBytes       bytes after the last complete line, left behind (a write in progress)
     * @param checkpointBytes size of the checkpoint copied, 0 without one
     */
    public record Copied(long journalBytes, long tornBytes, long checkpointBytes) {
    }

    /**
     * Copies the journal state of {@code source} into {@code target} (created if missing, must hold no journal) and
     * forces it to disk.
     *
     * @throws JournalException when the target already holds a journal or the source keeps changing
     */
    public static Copied copy(Path source, Path target) throws IOException {
        Objects.requireNonNull(source, "source is null");
        Objects.requireNonNull(target, "target is null");
        Files.createDirectories(target);
        return copy(new LocalJournalFiles(source), new LocalJournalFiles(target));
    }

    /** {@link #copy(Path, Path)} between directories of any store (HDFS's; the target directory must exist). */
    public static Copied copy(JournalFiles source, JournalFiles target) throws IOException {
        Objects.requireNonNull(source, "source is null");
        Objects.requireNonNull(target, "target is null");
        if (target.exists(Journal.FILE_NAME) || target.exists(CheckpointFile.NAME)) {
            throw new JournalException(FATAL, "cannot hand the journal over into " + target.location() + ": it"
                    + " already holds one");
        }
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Object before = source.identity(CheckpointFile.NAME);
            byte[] checkpoint = readIfExists(source, CheckpointFile.NAME);
            byte[] journal = readIfExists(source, Journal.FILE_NAME);
            if (!Objects.equals(before, source.identity(CheckpointFile.NAME))) {
                continue; // a checkpoint was written during the copy: take both again
            }
            int complete = journal.length;
            while (complete > 0 && journal[complete - 1] != '\n') {
                complete--;
            }
            write(target, Journal.FILE_NAME, journal, complete);
            if (checkpoint.length > 0) {
                write(target, CheckpointFile.NAME, checkpoint, checkpoint.length);
            }
            return new Copied(complete, journal.length - complete, checkpoint.length);
        }
        throw new JournalException(FATAL, "cannot hand the journal of " + source.location() + " over: its checkpoint"
                + " changed during " + ATTEMPTS + " copies (is its writer still running unfenced?)");
    }

    private static byte[] readIfExists(JournalFiles files, String name) throws IOException {
        if (files.identity(name) == null) {
            return new byte[0];
        }
        try (InputStream in = files.read(name, 0)) {
            return in.readAllBytes();
        } catch (FileNotFoundException | NoSuchFileException e) {
            return new byte[0];
        }
    }

    private static void write(JournalFiles files, String name, byte[] bytes, int length) throws IOException {
        try (JournalFiles.Appender out = files.create(name, false)) {
            out.write(length == bytes.length ? bytes : java.util.Arrays.copyOf(bytes, length));
            out.sync();
        }
    }
}
