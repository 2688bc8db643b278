package org.eventindex.supervisor.journal;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * The directory a {@link Journal} keeps its files in (the journal file, its checkpoint, archived segments): a local
 * directory ({@link LocalJournalFiles}, one supervisor, or two on a shared file system) or an HDFS directory
 * ({@link HdfsJournalFiles}, two supervisors with their lease in ZooKeeper, decision 0043). Names are plain file
 * names inside the directory; every write is made durable by {@link Appender#sync()} or by the call itself.
 */
public interface JournalFiles {

    /** One file being written, from its current end. */
    interface Appender extends Closeable {
        void write(byte[] bytes) throws IOException;

        /** Returns once every byte written is durable (fsync locally, {@code hsync} on HDFS). */
        void sync() throws IOException;
    }

    /** The directory, as messages name it (a path or an HDFS URI). */
    String location();

    /** The full name of one file, for messages. */
    default String describe(String name) {
        return location() + "/" + name;
    }

    boolean exists(String name) throws IOException;

    /** The file's length in bytes. */
    long size(String name) throws IOException;

    /** Reads the file from {@code offset}; the caller closes the stream. */
    InputStream read(String name, long offset) throws IOException;

    /** A new, empty file ({@code replace}: over one that exists; else one that exists is an error). */
    Appender create(String name, boolean replace) throws IOException;

    /**
     * Appends to an existing file after its first {@code keep} bytes: bytes beyond them (a torn last line) are cut
     * off first, or refused where the store cannot cut them.
     */
    Appender append(String name, long keep) throws IOException;

    /** Renames {@code from} to {@code to} at once, replacing {@code to}; durable when it returns. */
    void rename(String from, String to) throws IOException;

    void deleteIfExists(String name) throws IOException;

    /** The names of the files in the directory. */
    List<String> list() throws IOException;

    /** What stays the same while nobody changes the file (size, time, identity), or null when it does not exist. */
    Object identity(String name) throws IOException;

    /**
     * Exclusive use of the directory by this process, until closed.
     *
     * @throws JournalException when another process holds it
     */
    Closeable lock() throws IOException;
}
