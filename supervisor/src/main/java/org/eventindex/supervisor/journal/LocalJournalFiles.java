package org.eventindex.supervisor.journal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

import static org.eventindex.EventIndexFailure.Kind.FATAL;

/** A local journal directory (created if missing): writes forced with {@code fsync}, the directory too. */
public final class LocalJournalFiles implements JournalFiles {
    private static final Logger LOG = LoggerFactory.getLogger(LocalJournalFiles.class);
    private final Path dir;

    public LocalJournalFiles(Path dir) {
        this.dir = Objects.requireNonNull(dir, "dir is null");
    }

    public Path dir() {
        return dir;
    }

    @Override
    public String location() {
        return dir.toString();
    }

    @Override
    public String describe(String name) {
        return dir.resolve(name).toString();
    }

    @Override
    public boolean exists(String name) {
        return Files.exists(dir.resolve(name));
    }

    @Override
    public long size(String name) throws IOException {
        return Files.size(dir.resolve(name));
    }

    @Override
    public InputStream read(String name, long offset) throws IOException {
        FileChannel ch = FileChannel.open(dir.resolve(name), StandardOpenOption.READ);
        ch.position(offset);
        return Channels.newInputStream(ch);
    }

    @Override
    public Appender create(String name, boolean replace) throws IOException {
        Files.createDirectories(dir);
        FileChannel ch = FileChannel.open(dir.resolve(name), replace ? StandardOpenOption.CREATE
                : StandardOpenOption.CREATE_NEW, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        syncDirectory();
        return new ChannelAppender(ch, 0);
    }

    @Override
    public Appender append(String name, long keep) throws IOException {
        FileChannel ch = FileChannel.open(dir.resolve(name), StandardOpenOption.WRITE);
        try {
            if (ch.size() > keep) {
                ch.truncate(keep);
                ch.force(true);
            }
            return new ChannelAppender(ch, keep);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    @Override
    public void rename(String from, String to) throws IOException {
        Files.move(dir.resolve(from), dir.resolve(to), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
        syncDirectory();
    }

    @Override
    public void deleteIfExists(String name) throws IOException {
        Files.deleteIfExists(dir.resolve(name));
    }

    @Override
    public List<String> list() throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).toList();
        }
    }

    @Override
    public Object identity(String name) throws IOException {
        try {
            BasicFileAttributes a = Files.readAttributes(dir.resolve(name), BasicFileAttributes.class);
            return List.of(String.valueOf(a.fileKey()), a.size(), a.lastModifiedTime().toMillis());
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    @Override
    public Closeable lock() throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(Journal.LOCK_NAME);
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        if (lock == null) {
            ch.close();
            throw new JournalException(FATAL, "journal " + dir + " is in use by another supervisor (lock " + file
                    + " is held" + holder(file) + "); only one supervisor (or one rebuild-state) may use a journal at"
                    + " a time: stop it first");
        }
        try {
            // who holds it, for the message of the next one refused (the lock, not this text, is what excludes)
            ch.truncate(0);
            ch.write(java.nio.ByteBuffer.wrap(("process " + ProcessHandle.current().pid() + " on "
                    + java.net.InetAddress.getLocalHost().getHostName() + " since " + java.time.Instant.now() + "\n")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8)), 0);
        } catch (IOException e) {
            LOG.debug("cannot write the holder into lock {}: {}", file, e.toString());
        }
        FileLock held = lock;
        return () -> {
            try {
                held.release();
            } finally {
                ch.close();
            }
        };
    }

    /** ", by <who>" as the lock file names its holder; empty when it names none. */
    private static String holder(Path file) {
        try {
            String who = Files.readString(file).strip();
            return who.isEmpty() ? "" : " by " + who;
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** Makes the directory's entries (a new or renamed file) durable. */
    void syncDirectory() {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // Not every platform can open a directory; the entry then becomes durable with the next metadata sync.
            LOG.debug("cannot fsync journal directory {}: {}", dir, e.toString());
        }
    }

    /** Positional writes, so that an interrupted caller cannot move the position (and forces with metadata). */
    private static final class ChannelAppender implements Appender {
        private final FileChannel channel;
        private long position;

        ChannelAppender(FileChannel channel, long position) {
            this.channel = channel;
            this.position = position;
        }

        @Override
        public void write(byte[] bytes) throws IOException {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining()) {
                position += channel.write(buf, position);
            }
        }

        @Override
        public void sync() throws IOException {
            channel.force(true);
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
