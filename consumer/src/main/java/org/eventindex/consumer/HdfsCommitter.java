package org.eventindex.consumer;

import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.permission.FsPermission;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.util.EnumSet;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Puts a dataset's consolidated file in place atomically: it is written as {@code <dir>/.<dataset><suffix>.<signalId>.tmp},
 * synced, closed, then renamed over {@code <root>/<container>/<dataset><suffix>} with {@code Rename.OVERWRITE}.
 * Readers see the old file or the new one, never a partial one, and a retried signal simply replaces the file.
 */
public final class HdfsCommitter {
    private static final Logger LOG = LoggerFactory.getLogger(HdfsCommitter.class);
    private static final int BUFFER = 256 * 1024;

    private final FileContext fc;
    private final Path root;
    private final String suffix;

    public HdfsCommitter(FileContext fc, Path root, String suffix) {
        this.fc = Objects.requireNonNull(fc, "fc is null");
        this.root = Objects.requireNonNull(root, "root is null");
        this.suffix = Objects.requireNonNull(suffix, "suffix is null");
    }

    /** Where the file of {@code dataset} lives. */
    public Path finalPath(String container, String dataset) {
        return new Path(new Path(root, container), dataset + suffix);
    }

    /**
     * Removes temp files an earlier attempt for the same dataset left behind, then creates this attempt's temp file.
     * The name carries the signal id and a per-attempt nonce: two attempts of one signal (a redelivery while the first
     * consumer still works) never write, rename or delete each other's file by name.
     */
    public PendingFile begin(String container, String dataset, String signalId) throws IOException {
        Path target = finalPath(container, dataset);
        Path dir = target.getParent();
        fc.mkdir(dir, FsPermission.getDirDefault(), true);
        String tempPrefix = "." + dataset + suffix + ".";
        removeTemps(dir, tempPrefix, dataset, "of an earlier attempt");
        String nonce = Long.toHexString(ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
        Path tmp = new Path(dir, tempPrefix + safe(signalId) + "." + nonce + ".tmp");
        FSDataOutputStream out = fc.create(tmp, EnumSet.of(CreateFlag.CREATE, CreateFlag.OVERWRITE),
                Options.CreateOpts.createParent());
        return new PendingFile(tmp, target, out, tempPrefix, dataset);
    }

    /** Deletes the temp files of a dataset in {@code dir} (names {@code tempPrefix...tmp}). */
    private void removeTemps(Path dir, String tempPrefix, String dataset, String why) throws IOException {
        try {
            RemoteIterator<FileStatus> it = fc.listStatus(dir);
            while (it.hasNext()) {
                Path p = it.next().getPath();
                String name = p.getName();
                if (name.startsWith(tempPrefix) && name.endsWith(".tmp")) {
                    LOG.info("dataset {}: removing temp file {} {}", dataset, p, why);
                    fc.delete(p, false);
                }
            }
        } catch (FileNotFoundException e) {
            // a concurrent delete of the directory (or of the file); create() recreates what is needed
        }
    }

    /** Signal ids go into a file name: keep it to characters HDFS and shells take without quoting. */
    static String safe(String signalId) {
        String s = signalId.replaceAll("[^A-Za-z0-9._-]", "_");
        return s.length() > 100 ? s.substring(0, 100) : s;
    }

    /** A temp file being written; {@link #commit()} publishes it, {@link #close()} without commit deletes it. */
    public final class PendingFile implements Closeable {
        private final Path tmp;
        private final Path target;
        private final FSDataOutputStream raw;
        private final OutputStream buffered;
        private boolean done;

        private final String tempPrefix;
        private final String dataset;

        private PendingFile(Path tmp, Path target, FSDataOutputStream raw, String tempPrefix, String dataset) {
            this.tempPrefix = tempPrefix;
            this.dataset = dataset;
            this.tmp = tmp;
            this.target = target;
            this.raw = raw;
            this.buffered = new BufferedOutputStream(raw, BUFFER);
        }

        /** Where to write; do not close it. */
        public OutputStream stream() {
            return buffered;
        }

        public Path tempPath() {
            return tmp;
        }

        /** Syncs the data to the datanodes, closes, and atomically replaces the final file. */
        public Path commit() throws IOException {
            if (done) {
                throw new IllegalStateException(tmp + " was already committed or aborted");
            }
            try {
                buffered.flush();
                raw.hsync();
                raw.close();
                fc.rename(tmp, target, Options.Rename.OVERWRITE);
            } catch (IOException e) {
                abort();
                throw new IOException("cannot publish " + target + " from " + tmp + ": " + e.getMessage(), e);
            }
            done = true;
            // The dataset's file is final: a temp file still there belongs to an attempt that lost the race (it
            // fails at its close and is retried against the loaded dataset) or to a crashed one.
            removeTemps(target.getParent(), tempPrefix, dataset, "after " + target + " was published");
            return target;
        }

        @Override
        public void close() {
            if (!done) {
                abort();
            }
        }

        private void abort() {
            done = true;
            try {
                raw.close();
            } catch (IOException | RuntimeException e) {
                LOG.debug("closing abandoned {} failed: {}", tmp, e.toString());
            }
            try {
                fc.delete(tmp, false);
            } catch (IOException | RuntimeException e) {
                LOG.warn("cannot delete abandoned temp file {} (the next attempt removes it): {}", tmp, e.toString());
            }
        }
    }
}
