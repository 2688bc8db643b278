package org.eventindex.supervisor.journal;

import com.fasterxml.jackson.core.JsonProcessingException;
import org.eventindex.message.Json;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * The supervisor's durable state: an append-only file of {@link JournalEntry} JSON lines in one directory.
 * <ul>
 *   <li>{@link #append} writes whole lines and returns only after {@link FileChannel#force force(true)}: a message is
 *   acknowledged only after its entries are on disk.</li>
 *   <li>{@link #open} replays every entry in order. A last line without its newline is a write torn by a crash; it
 *   was never forced, so nothing was acknowledged on its strength: it is truncated away (and logged). Any other bad
 *   line, or a gap in the sequence numbers, stops the open with the file, line and byte offset named.</li>
 *   <li>A lock file keeps a second supervisor off the same journal.</li>
 *   <li>After a failed append the journal refuses further appends (the tail may be torn); a restart repairs it.</li>
 *   <li>Writes run on a private thread: a {@link FileChannel} is closed for good when a thread writing to it is
 *   interrupted, and callers (queue workers, the signal sender) are interrupted when they are stopped.</li>
 * </ul>
 * Seam for compaction: replay feeds entries to a consumer, so a later snapshot (state as of seq N) plus the entries
 * after N can feed the same consumer without the state code changing.
 */
public final class Journal implements Closeable {
    /** The journal file's name inside the journal directory. */
    public static final String FILE_NAME = "supervisor.journal";
    /** The lock file's name inside the journal directory. */
    public static final String LOCK_NAME = "supervisor.lock";

    private static final Logger LOG = LoggerFactory.getLogger(Journal.class);

    private final Path file;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final FileChannel channel;
    private final ReplaySummary replaySummary;
    private final ExecutorService writer;
    private long size;
    private long lastSeq;
    private String failure;
    private boolean closed;

    /** What {@link #open} found: entries replayed and bytes of a torn last line that were cut off. */
    public record ReplaySummary(long entries, long tornBytesTruncated) {
    }

    private Journal(Path file, FileChannel lockChannel, FileLock lock, FileChannel channel, long size, long lastSeq,
                    ReplaySummary replaySummary) {
        this.file = file;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.channel = channel;
        this.size = size;
        this.lastSeq = lastSeq;
        this.replaySummary = replaySummary;
        this.writer = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "supervisor-journal-writer");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Opens the journal in {@code dir} (creating both if missing), takes its lock, and passes every entry to
     * {@code replay} in order before returning.
     *
     * @throws JournalException when another process holds the lock or a complete line is not a valid entry
     */
    public static Journal open(Path dir, Consumer<JournalEntry> replay) throws IOException {
        Objects.requireNonNull(dir, "dir is null");
        Objects.requireNonNull(replay, "replay is null");
        Files.createDirectories(dir);
        FileChannel lockChannel = FileChannel.open(dir.resolve(LOCK_NAME), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = lockChannel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            lockChannel.close();
            throw new JournalException("journal " + dir + " is in use by another supervisor (lock "
                    + dir.resolve(LOCK_NAME) + " is held); only one supervisor may run per journal");
        }
        Path file = dir.resolve(FILE_NAME);
        boolean created = !Files.exists(file);
        FileChannel channel = null;
        try {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            if (created) {
                forceDirectory(dir);
            }
            Scan scan = scan(file, replay);
            long torn = channel.size() - scan.validBytes;
            if (torn > 0) {
                LOG.warn("journal {}: last line ({} bytes at offset {}) is torn (the supervisor stopped while writing"
                        + " it; it was never acknowledged); truncating it", file, torn, scan.validBytes);
                channel.truncate(scan.validBytes);
                channel.force(true);
            }
            return new Journal(file, lockChannel, lock, channel, scan.validBytes, scan.lastSeq,
                    new ReplaySummary(scan.entries, Math.max(0, torn)));
        } catch (IOException | RuntimeException e) {
            if (channel != null) {
                channel.close();
            }
            lock.release();
            lockChannel.close();
            throw e;
        }
    }

    /**
     * Appends the events as consecutive entries stamped {@code tsMillis}, and forces them to disk.
     *
     * @return the entries written, with their sequence numbers
     * @throws JournalException after an earlier failed append, or when this one fails (the journal then refuses
     *                          further appends)
     */
    public synchronized List<JournalEntry> append(List<? extends JournalEvent> events, long tsMillis)
            throws IOException {
        Objects.requireNonNull(events, "events is null");
        if (closed) {
            throw new JournalException("journal " + file + " is closed");
        }
        if (failure != null) {
            throw new JournalException("journal " + file + " refuses appends after an earlier failure (" + failure
                    + "); restart the supervisor once the disk is fixed");
        }
        List<JournalEntry> entries = new ArrayList<>(events.size());
        ByteArrayOutputStream lines = new ByteArrayOutputStream();
        long seq = lastSeq;
        for (JournalEvent e : events) {
            JournalEntry entry = new JournalEntry(++seq, tsMillis, e);
            entries.add(entry);
            lines.writeBytes(Json.write(entry));
            lines.write('\n');
        }
        if (entries.isEmpty()) {
            return List.of();
        }
        byte[] bytes = lines.toByteArray();
        long at = size;
        try {
            awaitUninterruptibly(writer.submit(() -> {
                ByteBuffer buf = ByteBuffer.wrap(bytes);
                long pos = at;
                while (buf.hasRemaining()) {
                    pos += channel.write(buf, pos);
                }
                channel.force(true);
                return null;
            }));
        } catch (IOException | RuntimeException e) {
            failure = e.toString();
            throw new JournalException("cannot append to journal " + file + " at offset " + at + ": " + e
                    + "; the supervisor stops consuming until restarted", e);
        }
        size += bytes.length;
        lastSeq = seq;
        return List.copyOf(entries);
    }

    /** The sequence number of the last entry, 0 for an empty journal. */
    public synchronized long lastSeq() {
        return lastSeq;
    }

    /** Bytes of complete entries in the file. */
    public synchronized long sizeBytes() {
        return size;
    }

    /** Why appends are refused, if an append failed. */
    public synchronized Optional<String> failure() {
        return Optional.ofNullable(failure);
    }

    public Path file() {
        return file;
    }

    public ReplaySummary replaySummary() {
        return replaySummary;
    }

    /** Idempotent; releases the lock. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        writer.shutdown();
        try {
            channel.close();
        } finally {
            try {
                lock.release();
            } finally {
                lockChannel.close();
            }
        }
    }

    /** Waits for a write without ever interrupting it; keeps the caller's interrupt status. */
    private static void awaitUninterruptibly(Future<?> write) throws IOException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    write.get();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof IOException io) {
                        throw io;
                    }
                    throw new IOException("journal write failed: " + cause, cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private record Scan(long validBytes, long lastSeq, long entries) {
    }

    private static Scan scan(Path file, Consumer<JournalEntry> replay) throws IOException {
        long offset = 0;
        long validBytes = 0;
        long lastSeq = 0;
        long lineNo = 0;
        ByteArrayOutputStream line = new ByteArrayOutputStream(1024);
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            int b;
            while ((b = in.read()) >= 0) {
                offset++;
                if (b != '\n') {
                    line.write(b);
                    continue;
                }
                lineNo++;
                JournalEntry entry = parse(file, lineNo, validBytes, line.toByteArray());
                if (entry.seq() != lastSeq + 1) {
                    throw new JournalException("journal " + file + " line " + lineNo + " has sequence number "
                            + entry.seq() + ", expected " + (lastSeq + 1) + "; the file was edited or two files were"
                            + " concatenated. Restore it from a backup.");
                }
                replay.accept(entry);
                lastSeq = entry.seq();
                validBytes = offset;
                line.reset();
            }
        }
        return new Scan(validBytes, lastSeq, lineNo);
    }

    private static JournalEntry parse(Path file, long lineNo, long offset, byte[] line) throws JournalException {
        try {
            JournalEntry entry = Json.read(line, JournalEntry.class);
            if (entry == null) {
                throw new JournalException("journal " + file + " line " + lineNo + " (byte offset " + offset
                        + ") is empty");
            }
            return entry;
        } catch (JsonProcessingException | IllegalArgumentException | NullPointerException e) {
            throw new JournalException("journal " + file + " line " + lineNo + " (byte offset " + offset
                    + ") is not a valid entry: " + message(e) + ". Only a torn last line is repaired automatically;"
                    + " restore the file from a backup or move it aside and re-register the datasets.", e);
        } catch (IOException e) {
            throw new JournalException("journal " + file + " line " + lineNo + " cannot be read: " + e.getMessage(), e);
        }
    }

    private static String message(Exception e) {
        return e instanceof JsonProcessingException j ? j.getOriginalMessage() : String.valueOf(e.getMessage());
    }

    private static void forceDirectory(Path dir) {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // Not every platform can open a directory; the entry then becomes durable with the next metadata sync.
            LOG.debug("cannot fsync journal directory {}: {}", dir, e.toString());
        }
    }
}
