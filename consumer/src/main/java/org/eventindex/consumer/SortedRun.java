package org.eventindex.consumer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A sorted run in the layout {@link RunOutput} writes and {@link RunMerger} reads: a file in the spool dir, or blocks
 * of a {@link RunMemory} (runs that fit in the consumer's run memory are never written to disk).
 */
sealed interface SortedRun permits SortedRun.OnDisk, RunMemory.InMemory {

    /** Opens the run for reading from its start. */
    InputStream open() throws IOException;

    /** Deletes the file or gives the memory back; a second call does nothing. */
    void delete() throws IOException;

    /**
     * Deletes every run, going on after a failure (so that in-memory runs give their memory back even when a file
     * cannot be deleted).
     *
     * @return the first failure, or null
     */
    static IOException deleteAll(Iterable<? extends SortedRun> runs) {
        IOException failed = null;
        for (SortedRun r : runs) {
            try {
                r.delete();
            } catch (IOException e) {
                failed = failed == null ? e : failed;
            }
        }
        return failed;
    }

    /** A run written to a file. */
    static SortedRun file(Path file) {
        return new OnDisk(file);
    }

    /** A run file; its path names it in errors. */
    record OnDisk(Path file) implements SortedRun {
        public OnDisk {
            Objects.requireNonNull(file, "file is null");
        }

        @Override
        public InputStream open() throws IOException {
            return Files.newInputStream(file);
        }

        @Override
        public void delete() throws IOException {
            Files.deleteIfExists(file);
        }

        @Override
        public String toString() {
            return file.toString();
        }
    }
}
