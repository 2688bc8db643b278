package org.eventindex.consumer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The free space of the spool dir's file system, for the gauge {@link ConsumerMetrics#SPOOL_FREE}. */
final class SpoolSpace {
    private SpoolSpace() {
    }

    /**
     * Bytes this process may still write on the file system of {@code dir} (or of its nearest existing parent, before
     * the consumer made it); -1 when it cannot be read.
     */
    static double usableBytes(Path dir) {
        Path p = dir.toAbsolutePath();
        while (p != null && !Files.exists(p)) {
            p = p.getParent();
        }
        if (p == null) {
            return -1;
        }
        try {
            return Files.getFileStore(p).getUsableSpace();
        } catch (IOException e) {
            return -1;
        }
    }
}
