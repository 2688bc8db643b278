package org.eventindex.consumer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * A sorted run in the layout {@link RunOutput} writes and {@link RunMerger} reads: a file in the spool dir, blocks
 * of a {@link RunMemory} (runs that fit in the consumer's run memory are never written to disk), or a {@link Chain}
 * of such runs read one after the other.
 */
sealed interface SortedRun permits SortedRun.OnDisk, SortedRun.Chain, RunMemory.InMemory {

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

    /**
     * Runs read one after the other as one run: for chunks of an object that are in sort order across their
     * boundaries (each chunk's last key at most the next one's first key), so that the merge has one input for them
     * instead of several. Only the part being read is open.
     */
    record Chain(List<SortedRun> parts) implements SortedRun {
        public Chain {
            parts = List.copyOf(Objects.requireNonNull(parts, "parts is null"));
        }

        @Override
        public InputStream open() {
            return new BulkInputStream() {
                private int next;
                private InputStream in;

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    if (len == 0) {
                        return 0;
                    }
                    while (true) {
                        if (in == null) {
                            if (next == parts.size()) {
                                return -1;
                            }
                            in = parts.get(next++).open();
                        }
                        int n = in.read(b, off, len);
                        if (n >= 0) {
                            return n;
                        }
                        in.close();
                        in = null;
                    }
                }

                @Override
                public void close() throws IOException {
                    if (in != null) {
                        in.close();
                        in = null;
                    }
                    next = parts.size();
                }
            };
        }

        @Override
        public void delete() throws IOException {
            IOException failed = deleteAll(parts);
            if (failed != null) {
                throw failed;
            }
        }

        @Override
        public String toString() {
            return "chain of " + parts;
        }
    }
}
