package org.eventindex.supervisor.journal;

import org.eventindex.message.Json;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import static org.eventindex.EventIndexFailure.Kind.FATAL;
import static org.eventindex.EventIndexFailure.Kind.RETRIABLE;

/**
 * The supervisor's durable state: an append-only file of {@link JournalEntry} JSON lines in one directory, local or
 * on HDFS ({@link JournalFiles}).
 * <ul>
 *   <li>{@link #append} writes whole lines and returns only after {@link JournalFiles.Appender#sync sync} (fsync
 *   locally, {@code hsync} on HDFS): a message is
 *   acknowledged only after its entries are on disk. {@link #write} and {@link #awaitDurable} are its two halves, for
 *   callers that let several messages share one force (group commit).</li>
 *   <li>{@link #open} replays every entry in order. A last line without its newline is a write torn by a crash; it
 *   was never forced, so nothing was acknowledged on its strength: it is truncated away (and logged). Any other bad
 *   line, or a gap in the sequence numbers, stops the open with the file, line and byte offset named.</li>
 *   <li>A lock file keeps a second supervisor off the same journal.</li>
 *   <li>After a failed append the journal refuses further appends (the tail may be torn); a restart repairs it.</li>
 *   <li>Writes run on a private thread: a {@code FileChannel} is closed for good when a thread writing to it is
 *   interrupted, and callers (queue workers, the signal sender) are interrupted when they are stopped.</li>
 * </ul>
 * <p>
 * Checkpoints keep the start time bounded by the state rather than by its history: {@link #checkpoint} writes the
 * state as of the last entry (the caller's bytes, see {@link CheckpointFile}) and then moves the journal file aside as
 * an archived segment {@code supervisor.journal.<last seq>} (the newest {@code keepSegments} are kept for operators);
 * appends go on in a new, empty journal file. {@link #open} restores the checkpoint, then replays the entries after
 * it. A crash between the two steps leaves a journal whose entries up to the checkpoint's are skipped at the next
 * open.
 */
public final class Journal implements Closeable {
    /** The journal file's name inside the journal directory. */
    public static final String FILE_NAME = "supervisor.journal";
    /** The lock file's name inside the journal directory. */
    public static final String LOCK_NAME = "supervisor.lock";

    private static final Logger LOG = LoggerFactory.getLogger(Journal.class);

    private final JournalFiles files;
    private final String file;
    private final Closeable lock;
    private final ReplaySummary replaySummary;
    private final ExecutorService writer;
    private final int keepSegments;
    /** Assigned on the writer thread (a new file after a checkpoint), read there and by {@link #close}. */
    private volatile JournalFiles.Appender channel;
    private long size;
    private long lastSeq;
    private long checkpointSeq;
    private String failure;
    private boolean closed;
    /** Group commit (decision 0035): the last entry known to be on disk, and the force queued or running. */
    private final Object durability = new Object();
    private long durableSeq;
    private Future<Long> forcing;
    /** The last entry written to the file; read and written on the writer thread only. */
    private long writtenSeq;
    /** Why a write failed on the writer thread; later writes and forces refuse to run. */
    private volatile String writeFailure;
    private final AtomicLong forces = new AtomicLong();
    private volatile Guard guard = () -> { };

    /**
     * A check run before a write or a checkpoint writes anything ({@link #check}: throws to refuse, never blocks, for
     * it runs under the journal's lock) and once an entry is on disk, before {@link #awaitDurable} (and so
     * {@link #append}) returns ({@link #awaitHeld}: may wait, for the entry is written and applied by then). A standby
     * supervisor's fence: a writer fenced out stops there, one whose lease is suspended writes nothing new and waits
     * with what it wrote until the lease is confirmed again or lost (docs/operations.md, decision 0048).
     */
    @FunctionalInterface
    public interface Guard {
        void check() throws IOException;

        /** After an entry is on disk: returns when the caller may act on it, throws when it never may. */
        default void awaitHeld() throws IOException {
            check();
        }
    }

    /**
     * What {@link #open} found.
     *
     * @param entries            entries replayed from the journal file (after the checkpoint)
     * @param tornBytesTruncated bytes of a torn last line that were cut off
     * @param checkpointSeq      the entry the restored checkpoint holds the state of, 0 without one
     * @param skippedEntries     entries found in the journal file that the checkpoint already held (a crash came
     *                           between writing a checkpoint and starting the next journal file)
     */
    public record ReplaySummary(long entries, long tornBytesTruncated, long checkpointSeq, long skippedEntries) {
    }

    /** Writes the caller's state, as of the journal's last entry, into a checkpoint. */
    @FunctionalInterface
    public interface StateWriter {
        void writeTo(OutputStream out) throws IOException;
    }

    /** Restores the caller's state from a checkpoint's body, which holds the state as of entry {@code seq}. */
    @FunctionalInterface
    public interface StateReader {
        void readFrom(long seq, InputStream in) throws IOException;
    }

    /**
     * What {@link #checkpoint} did.
     *
     * @param seq      the entry whose state the checkpoint holds
     * @param bytes    size of the checkpoint's state
     * @param archived the journal file moved aside, holding the entries up to {@code seq} (its name in the directory)
     */
    public record CheckpointResult(long seq, long bytes, String archived) {
    }

    private Journal(JournalFiles files, Closeable lock, JournalFiles.Appender channel, long size, long lastSeq,
                    long checkpointSeq, int keepSegments, ReplaySummary replaySummary) {
        this.files = files;
        this.file = files.describe(FILE_NAME);
        this.lock = lock;
        this.channel = channel;
        this.size = size;
        this.lastSeq = lastSeq;
        this.durableSeq = lastSeq;
        this.writtenSeq = lastSeq;
        this.checkpointSeq = checkpointSeq;
        this.keepSegments = keepSegments;
        this.replaySummary = replaySummary;
        this.writer = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "supervisor-journal-writer");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Opens a journal that has no checkpoint (one is refused), keeping no archived segments.
     *
     * @see #open(Path, int, StateReader, Consumer)
     */
    public static Journal open(Path dir, Consumer<JournalEntry> replay) throws IOException {
        return open(dir, 0, (seq, in) -> {
            throw new JournalException(FATAL, "journal " + dir + " has a checkpoint, which this reader cannot restore");
        }, replay);
    }

    /**
     * Opens the journal in {@code dir} (creating both if missing), takes its lock, passes the checkpoint's state (if
     * there is one) to {@code restore} and then every later entry to {@code replay}, in order, before returning.
     *
     * @param keepSegments archived journal segments that {@link #checkpoint} keeps (the newest); 0 keeps none
     * @throws JournalException when another process holds the lock, the checkpoint is damaged, a complete line is not
     *                          a valid entry, or entries are missing
     */
    public static Journal open(Path dir, int keepSegments, StateReader restore, Consumer<JournalEntry> replay)
            throws IOException {
        Objects.requireNonNull(dir, "dir is null");
        return open(new LocalJournalFiles(dir), keepSegments, restore, replay);
    }

    /** {@link #open(Path, int, StateReader, Consumer)} in a directory of any store (HDFS's). */
    public static Journal open(JournalFiles files, int keepSegments, StateReader restore,
                               Consumer<JournalEntry> replay) throws IOException {
        Objects.requireNonNull(files, "files is null");
        Objects.requireNonNull(restore, "restore is null");
        Objects.requireNonNull(replay, "replay is null");
        if (keepSegments < 0) {
            throw new IllegalArgumentException("keepSegments must be >= 0: " + keepSegments);
        }
        Closeable lock = files.lock();
        JournalFiles.Appender channel = null;
        try {
            long base = CheckpointFile.read(files, restore).map(CheckpointFile.Trailer::seq).orElse(0L);
            boolean created = !files.exists(FILE_NAME);
            JournalScan scan = created ? new JournalScan(0, 0, 0, 0, 0) : JournalScan.scan(files, base, replay);
            long torn = created ? 0 : files.size(FILE_NAME) - scan.validBytes();
            if (torn > 0) {
                LOG.warn("journal {}: last line ({} bytes at offset {}) is torn (the supervisor stopped while writing"
                        + " it; it was never acknowledged); truncating it", files.describe(FILE_NAME), torn,
                        scan.validBytes());
            }
            channel = created ? files.create(FILE_NAME, false) : files.append(FILE_NAME, scan.validBytes());
            return new Journal(files, lock, channel, scan.validBytes(), Math.max(base, scan.lastSeq()), base,
                    keepSegments, new ReplaySummary(scan.replayed(), Math.max(0, torn), base, scan.skipped()));
        } catch (IOException | RuntimeException e) {
            if (channel != null) {
                channel.close();
            }
            lock.close();
            throw e;
        }
    }

    /**
     * Appends the events as consecutive entries stamped {@code tsMillis}, and forces them to disk: {@link #write}
     * then {@link #awaitDurable}.
     *
     * @return the entries written, with their sequence numbers
     * @throws JournalException after an earlier failed append, or when this one fails (the journal then refuses
     *                          further appends)
     */
    public List<JournalEntry> append(List<? extends JournalEvent> events, long tsMillis) throws IOException {
        List<JournalEntry> entries = write(events, tsMillis);
        if (!entries.isEmpty()) {
            awaitDurable(entries.get(entries.size() - 1).seq());
        }
        return entries;
    }

    /**
     * Appends the events as consecutive entries stamped {@code tsMillis} without waiting for the disk: the lines are
     * handed to the writer thread in order and the entries numbered at once. Nothing may be acknowledged or sent on the
     * strength of these entries before {@link #awaitDurable} with the last one's number returns (group commit: one
     * force then covers the entries of every caller that wrote meanwhile).
     *
     * @return the entries, with their sequence numbers
     * @throws JournalException when the journal is closed or an earlier write or force failed
     */
    public synchronized List<JournalEntry> write(List<? extends JournalEvent> events, long tsMillis)
            throws IOException {
        Objects.requireNonNull(events, "events is null");
        if (closed) {
            throw new JournalException(FATAL, "journal " + file + " is closed");
        }
        if (failure == null && writeFailure != null) {
            failure = writeFailure;
        }
        if (failure != null) {
            throw new JournalException(FATAL, "journal " + file + " refuses appends after an earlier failure ("
                    + failure + "); restart the supervisor once the disk is fixed");
        }
        guard.check();
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
        long last = seq;
        try {
            writer.submit(() -> {
                if (writeFailure != null) {
                    throw new IOException("not written after an earlier failure: " + writeFailure);
                }
                try {
                    channel.write(bytes);
                    writtenSeq = last;
                } catch (IOException | RuntimeException e) {
                    writeFailure = "cannot append to journal " + file + " at offset " + at + ": " + e;
                    throw e;
                }
                return null;
            });
        } catch (RejectedExecutionException e) {
            failure = e.toString();
            throw new JournalException(FATAL, "journal " + file + " is closing: " + e, e);
        }
        size += bytes.length;
        lastSeq = seq;
        return List.copyOf(entries);
    }

    /**
     * Returns once entry {@code seq} (and so every entry before it) is on disk. Callers waiting together share one
     * {@link JournalFiles.Appender#sync sync}: the first starts it, the others wait for it, and whoever wrote after it
     * started starts the next one when it ends, covering everything written meanwhile.
     *
     * @throws JournalException when the write or the force fails (the journal then refuses further appends; the
     *                          entries' callers must not acknowledge anything)
     */
    public void awaitDurable(long seq) throws IOException {
        while (true) {
            Future<Long> force;
            synchronized (durability) {
                if (durableSeq >= seq) {
                    break;
                }
                if (forcing == null) {
                    try {
                        forcing = writer.submit(this::forceWritten);
                    } catch (RejectedExecutionException e) {
                        throw new JournalException(FATAL, "journal " + file + " closed before entry " + seq
                                + " was on disk", e);
                    }
                }
                force = forcing;
            }
            long covered;
            try {
                covered = await(force);
            } catch (IOException | RuntimeException e) {
                synchronized (durability) {
                    if (forcing == force) {
                        forcing = null;
                    }
                }
                synchronized (this) {
                    if (failure == null) {
                        failure = e.toString();
                    }
                }
                throw new JournalException(FATAL, "cannot append to journal " + file + " (entry " + seq + " not on"
                        + " disk): " + e + "; the supervisor stops consuming until restarted", e);
            }
            synchronized (durability) {
                if (forcing == force) {
                    forcing = null;
                }
                durableSeq = Math.max(durableSeq, covered);
            }
        }
        // after the entry is on disk and before the caller acknowledges or sends anything on its strength: a writer
        // fenced out meanwhile stops here (the standby's takeover point is before or after this entry, see Guard); one
        // suspended meanwhile waits here (not under the journal's lock)
        guard.awaitHeld();
    }

    /** On the writer thread: forces every line written so far; returns the last entry it covers. */
    private long forceWritten() throws IOException {
        if (writeFailure != null) {
            throw new IOException(writeFailure);
        }
        long covered = writtenSeq;
        channel.sync();
        forces.incrementAndGet();
        return covered;
    }

    /** The last entry known to be on disk (forced, or held by the checkpoint). */
    public long durableSeq() {
        synchronized (durability) {
            return durableSeq;
        }
    }

    /** Forces of the journal file since it was opened (each covers one or more appends). */
    public long forces() {
        return forces.get();
    }

    /** Sets the check every append and checkpoint passes (see {@link Guard}); none by default. */
    public void guard(Guard check) {
        guard = Objects.requireNonNull(check, "check is null");
    }

    /** The sequence number of the last entry, 0 for an empty journal. */
    public synchronized long lastSeq() {
        return lastSeq;
    }

    /** Why appends are refused, if an append failed. */
    public synchronized Optional<String> failure() {
        return Optional.ofNullable(failure);
    }

    /** The journal file, as messages name it (a path or an HDFS URI). */
    public String file() {
        return file;
    }

    public ReplaySummary replaySummary() {
        return replaySummary;
    }

    /** The entry the current checkpoint holds the state of, 0 without one. */
    public synchronized long checkpointSeq() {
        return checkpointSeq;
    }

    /** Entries appended since the current checkpoint (all of them without one). */
    public synchronized long entriesSinceCheckpoint() {
        return lastSeq - checkpointSeq;
    }

    /**
     * Writes a checkpoint of the state as of the last entry, then starts a new journal file; the old one becomes the
     * archived segment {@code supervisor.journal.<seq>} and the oldest segments beyond {@code keepSegments} are
     * deleted. The caller must keep its state from changing until this returns (no append may come in between, so
     * the state is exactly the fold of the entries up to {@link #lastSeq()}).
     *
     * @return what was done, or empty when no entry was appended since the last checkpoint
     * @throws JournalException when the journal is closed or failed, or the checkpoint cannot be written (the journal
     *                          then goes on in the same file; only a failure to start the new file after the old one
     *                          was moved aside fails the journal)
     */
    public synchronized Optional<CheckpointResult> checkpoint(StateWriter state, long tsMillis) throws IOException {
        Objects.requireNonNull(state, "state is null");
        if (closed) {
            throw new JournalException(FATAL, "journal " + file + " is closed");
        }
        if (failure != null) {
            throw new JournalException(FATAL, "journal " + file + " refuses checkpoints after an earlier failure ("
                    + failure + ")");
        }
        if (failure == null && writeFailure != null) {
            failure = writeFailure;
            throw new JournalException(FATAL, "journal " + file + " refuses checkpoints after a failed write ("
                    + failure + ")");
        }
        guard.check();
        if (lastSeq == checkpointSeq) {
            return Optional.empty();
        }
        long seq = lastSeq;
        CheckpointFile.Trailer written;
        try {
            written = await(writer.submit(() -> CheckpointFile.write(files, seq, tsMillis, state)));
        } catch (IOException | RuntimeException e) {
            throw new JournalException(RETRIABLE, "cannot write the checkpoint of journal " + file + " at entry " + seq
                    + ": " + e + "; the journal goes on in the same file", e);
        }
        checkpointSeq = seq;
        String archived = ArchivedSegments.of(seq);
        try {
            await(writer.submit(() -> startNewFile(archived)));
        } catch (IOException | RuntimeException e) {
            throw new JournalException(failure == null ? RETRIABLE : FATAL, "checkpoint of journal " + file
                    + " written at entry " + seq + ", but the"
                    + " journal cannot start its next file (" + e + "); " + (failure == null
                    ? "it goes on in the same file" : "appends are refused until a restart"), e);
        }
        size = 0;
        synchronized (durability) {
            // the entries up to seq are in the checkpoint, forced before it was renamed into place
            durableSeq = Math.max(durableSeq, seq);
        }
        ArchivedSegments.prune(files, keepSegments);
        return Optional.of(new CheckpointResult(seq, written.bodyBytes(), archived));
    }

    /** On the writer thread: moves the journal file aside and opens an empty one in its place. */
    private JournalFiles.Appender startNewFile(String archived) throws IOException {
        files.rename(FILE_NAME, archived);
        JournalFiles.Appender next;
        try {
            next = files.create(FILE_NAME, false);
        } catch (IOException | RuntimeException e) {
            try {
                files.rename(archived, FILE_NAME);
            } catch (IOException | RuntimeException back) {
                // appends would land in the archived file, which a restart does not read after the checkpoint
                failure = "journal file moved to " + files.describe(archived) + " and not back: " + back;
                e.addSuppressed(back);
            }
            throw e;
        }
        channel.close();
        channel = next; // on the writer thread, so that no write or force queued after this uses the old file
        return next;
    }

    /** Idempotent; releases the lock. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        try {
            awaitDurable(lastSeq); // entries written by callers that gave up waiting (a stop) reach the disk
        } catch (IOException e) {
            LOG.warn("journal {}: the last entries could not be forced at close: {}", file, e.getMessage());
        }
        closed = true;
        writer.shutdown();
        try {
            channel.close();
        } finally {
            lock.close();
        }
    }

    /** Waits for a write without ever interrupting it; keeps the caller's interrupt status. */
    private static <T> T await(Future<T> write) throws IOException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return write.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof IOException io) {
                        throw io;
                    }
                    if (cause instanceof RuntimeException re) {
                        throw re;
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
}
