package org.eventindex.supervisor.journal;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;

import java.io.Closeable;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import static org.eventindex.EventIndexFailure.Kind.FATAL;

/**
 * A journal directory on HDFS (decision 0043). Files are only ever created inside a directory that exists
 * ({@code createNonRecursive}): once a takeover has renamed a generation's directory away (sealed it), a deposed
 * writer can create nothing in it, and the file it had open was closed under it by {@code recoverLease}. A write is
 * durable once {@link Appender#sync()} ({@code hsync}: on the disks of every DataNode of the pipeline) returns.
 * There is no lock: the lease in ZooKeeper decides who writes, HDFS's single-writer lease and the sealing keep a
 * deposed writer out.
 */
public final class HdfsJournalFiles implements JournalFiles {
    private final FileSystem fs;
    private final Path dir;

    /** @param fs the HDFS client (its owner closes it); {@code dir} must exist before files are created in it */
    public HdfsJournalFiles(FileSystem fs, Path dir) {
        this.fs = Objects.requireNonNull(fs, "fs is null");
        this.dir = Objects.requireNonNull(dir, "dir is null");
    }

    public Path dir() {
        return dir;
    }

    @Override
    public String location() {
        return fs.makeQualified(dir).toString();
    }

    @Override
    public boolean exists(String name) throws IOException {
        return fs.exists(path(name));
    }

    @Override
    public long size(String name) throws IOException {
        return fs.getFileStatus(path(name)).getLen();
    }

    @Override
    public InputStream read(String name, long offset) throws IOException {
        FSDataInputStream in = fs.open(path(name));
        try {
            in.seek(offset);
            return in;
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }

    @Override
    public Appender create(String name, boolean replace) throws IOException {
        Path p = path(name);
        @SuppressWarnings("deprecation") // the non-recursive create is the fence: see the class comment
        FSDataOutputStream out = fs.createNonRecursive(p, replace, 1 << 16, fs.getDefaultReplication(p),
                fs.getDefaultBlockSize(p), null);
        return new StreamAppender(out);
    }

    @Override
    public Appender append(String name, long keep) throws IOException {
        long size = size(name);
        if (size != keep) {
            // a generation's journal is written by one token's holder and opened once, when it was handed over with
            // complete lines only: a torn tail here means someone else wrote into it
            throw new JournalException(FATAL, "journal " + describe(name) + " has " + size + " bytes, of which "
                    + keep + " are complete lines; an HDFS journal is never reopened with a torn tail. Move the"
                    + " generation aside and restart the supervisors.");
        }
        return new StreamAppender(fs.append(path(name)));
    }

    @Override
    public void rename(String from, String to) throws IOException {
        if (fs instanceof DistributedFileSystem dfs) {
            dfs.rename(path(from), path(to), Options.Rename.OVERWRITE);
            return;
        }
        fs.delete(path(to), false);
        if (!fs.rename(path(from), path(to))) {
            throw new IOException("cannot rename " + describe(from) + " to " + to);
        }
    }

    @Override
    public void deleteIfExists(String name) throws IOException {
        fs.delete(path(name), false);
    }

    @Override
    public List<String> list() throws IOException {
        List<String> names = new ArrayList<>();
        try {
            for (FileStatus s : fs.listStatus(dir)) {
                names.add(s.getPath().getName());
            }
        } catch (FileNotFoundException e) {
            return List.of();
        }
        return names;
    }

    @Override
    public Object identity(String name) throws IOException {
        try {
            FileStatus s = fs.getFileStatus(path(name));
            return List.of(s.getLen(), s.getModificationTime());
        } catch (FileNotFoundException e) {
            return null;
        }
    }

    @Override
    public Closeable lock() {
        return () -> { };
    }

    private Path path(String name) {
        return new Path(dir, name);
    }

    private static final class StreamAppender implements Appender {
        private final FSDataOutputStream out;

        StreamAppender(FSDataOutputStream out) {
            this.out = out;
        }

        @Override
        public void write(byte[] bytes) throws IOException {
            out.write(bytes);
        }

        @Override
        public void sync() throws IOException {
            out.hsync();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }
}
