package org.eventindex.supervisor.ha;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LeaseRecoverable;
import org.apache.hadoop.fs.Path;
import org.eventindex.supervisor.journal.HdfsJournalFiles;
import org.eventindex.supervisor.journal.JournalException;
import org.eventindex.supervisor.journal.JournalFiles;
import org.eventindex.supervisor.journal.JournalHandOver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

import static org.eventindex.EventIndexFailure.Kind.RETRIABLE;

/**
 * The supervisors' journal on HDFS ({@code supervisor.journal.hdfs.dir}), one directory per fencing token, and the
 * takeover that fences the previous writer in storage the way HBase fences a region server's write-ahead log
 * (decision 0043):
 * <ol>
 *   <li>every {@code generation-<K>} below the new token is renamed to {@code generation-<K>.sealed}: from then on a
 *   deposed writer creates nothing there (its files are created non-recursively under a path that no longer
 *   exists: a checkpoint, the next journal file after one), and nobody writes into the new token's directory but
 *   its holder;</li>
 *   <li>{@code recoverLease} on every file of the newest generation that was handed over (the source) until HDFS
 *   says it is closed: the file the deposed writer still has open is closed under it at the length its DataNodes
 *   agree on; its next {@code hsync} fails, so it can acknowledge nothing more, and nothing it writes afterwards is
 *   in the file;</li>
 *   <li>the source's checkpoint and complete journal lines are copied into {@code generation-<token>}
 *   ({@link JournalHandOver}), then a {@code handover} file is written there last: a generation without it was
 *   never used.</li>
 * </ol>
 * The token in the directory names gives the replay order: the source is always the newest generation below the
 * token that has a {@code handover} file.
 */
final class HdfsGenerations {
    static final String GENERATION = "generation-";
    static final String SEALED = ".sealed";
    static final String HANDOVER = "handover";
    /** Sealed generations kept below the current one (the operators' history). */
    static final int KEEP_GENERATIONS = 3;
    private static final Logger LOG = LoggerFactory.getLogger(HdfsGenerations.class);
    private static final Duration FIRST_POLL = Duration.ofMillis(20);
    // a NameNode call per poll: cheap, and a takeover waits for it
    private static final Duration MAX_POLL = Duration.ofMillis(200);

    /**
     * What a takeover did.
     *
     * @param files    the new token's journal directory
     * @param source   the sealed generation handed over, empty for the first one
     * @param recovery how long the lease recovery of the source's files took
     * @param copied   what was copied (the takeover point)
     */
    record HandedOver(JournalFiles files, String source, Duration recovery, JournalHandOver.Copied copied) {
    }

    private final FileSystem fs;
    private final Path root;
    private final Duration recoverTimeout;

    /**
     * @param fs             the HDFS client (as the supervisor's Kerberos principal); its owner closes it
     * @param recoverTimeout how long a file's lease recovery may take before the takeover fails (and is tried again)
     */
    HdfsGenerations(FileSystem fs, Path root, Duration recoverTimeout) {
        this.fs = Objects.requireNonNull(fs, "fs is null");
        this.root = Objects.requireNonNull(root, "root is null");
        this.recoverTimeout = Objects.requireNonNull(recoverTimeout, "recoverTimeout is null");
    }

    String location() {
        return fs.makeQualified(root).toString();
    }

    /** Seals the older generations, recovers the source's leases and hands its journal over to {@code token}. */
    HandedOver takeOver(long token, String holder) throws IOException, InterruptedException {
        fs.mkdirs(root);
        for (long k : generations(false)) {
            if (k < token) {
                Path live = generation(k, false);
                if (!fs.rename(live, generation(k, true)) && fs.exists(live)) {
                    throw new JournalException(RETRIABLE, "cannot seal journal generation " + fs.makeQualified(live)
                            + " (rename to " + GENERATION + k + SEALED + " refused)");
                }
                LOG.info("journal generation {} sealed by token {}", fs.makeQualified(live), token);
            }
        }
        Path target = generation(token, false);
        if (fs.exists(target)) {
            // an earlier attempt of this token's takeover failed half way: start it again from the source
            fs.delete(target, true);
        }
        fs.mkdirs(target);
        HdfsJournalFiles files = new HdfsJournalFiles(fs, target);
        Optional<Long> source = generations(true).stream().filter(k -> k < token)
                .filter(this::handedOver).max(Comparator.naturalOrder());
        long t0 = System.nanoTime();
        JournalHandOver.Copied copied = new JournalHandOver.Copied(0, 0, 0);
        String from = "";
        if (source.isPresent()) {
            Path dir = generation(source.get(), true);
            recoverLeases(dir);
            from = fs.makeQualified(dir).toString();
            copied = JournalHandOver.copy(new HdfsJournalFiles(fs, dir), files);
        }
        Duration recovery = Duration.ofNanos(System.nanoTime() - t0);
        try (JournalFiles.Appender marker = files.create(HANDOVER, false)) {
            marker.write(("token=" + token + "\nholder=" + holder + "\nsource=" + from + "\nsourceJournalBytes="
                    + copied.journalBytes() + "\nsourceTornBytes=" + copied.tornBytes() + "\ncheckpointBytes="
                    + copied.checkpointBytes() + "\nat=" + Instant.now() + "\n").getBytes(StandardCharsets.UTF_8));
            marker.sync();
        }
        prune(token);
        return new HandedOver(files, from, recovery, copied);
    }

    /**
     * Closes every file of {@code dir} that a writer still holds open: {@code recoverLease}, then waits until HDFS
     * says the file is closed (the DataNodes agree on its last block's length).
     */
    void recoverLeases(Path dir) throws IOException, InterruptedException {
        if (!(fs instanceof LeaseRecoverable lr)) {
            throw new JournalException(RETRIABLE, "journal " + location() + " is not on HDFS (" + fs.getScheme()
                    + "): its writer's lease cannot be recovered");
        }
        for (FileStatus f : fs.listStatus(dir)) {
            Path p = f.getPath();
            if (f.isDirectory() || lr.isFileClosed(p)) {
                continue;
            }
            long t0 = System.nanoTime();
            Duration poll = FIRST_POLL;
            boolean closed = lr.recoverLease(p);
            while (!closed) {
                if (System.nanoTime() - t0 > recoverTimeout.toNanos()) {
                    throw new JournalException(RETRIABLE, "the lease of " + fs.makeQualified(p) + " was not"
                            + " recovered within " + recoverTimeout + " (are its DataNodes up?)");
                }
                Thread.sleep(poll.toMillis()); // HDFS has no notification of a finished block recovery
                poll = poll.multipliedBy(2).compareTo(MAX_POLL) > 0 ? MAX_POLL : poll.multipliedBy(2);
                closed = lr.isFileClosed(p) || lr.recoverLease(p);
            }
            LOG.info("lease of {} recovered in {} ms: its writer is fenced, its length is final ({} bytes)",
                    fs.makeQualified(p), Duration.ofNanos(System.nanoTime() - t0).toMillis(),
                    fs.getFileStatus(p).getLen());
        }
    }

    /** The highest token whose generation was handed over, if any (for operators and tests). */
    OptionalLong newest() throws IOException {
        List<Long> all = new ArrayList<>(generations(false));
        all.addAll(generations(true));
        return all.stream().filter(this::handedOver).mapToLong(Long::longValue).max();
    }

    Path generation(long token, boolean sealed) {
        return new Path(root, GENERATION + token + (sealed ? SEALED : ""));
    }

    private boolean handedOver(long k) {
        try {
            return fs.exists(new Path(generation(k, true), HANDOVER)) || fs.exists(new Path(generation(k, false),
                    HANDOVER));
        } catch (IOException e) {
            return false;
        }
    }

    /** The tokens of the live (or sealed) generation directories. */
    private List<Long> generations(boolean sealed) throws IOException {
        List<Long> out = new ArrayList<>();
        FileStatus[] all;
        try {
            all = fs.listStatus(root);
        } catch (FileNotFoundException e) {
            return out;
        }
        for (FileStatus s : all) {
            String n = s.getPath().getName();
            if (!s.isDirectory() || !n.startsWith(GENERATION) || n.endsWith(SEALED) != sealed) {
                continue;
            }
            String digits = n.substring(GENERATION.length(), n.length() - (sealed ? SEALED.length() : 0));
            if (!digits.isEmpty() && digits.length() < 19 && digits.chars().allMatch(Character::isDigit)) {
                out.add(Long.parseLong(digits));
            }
        }
        return out;
    }

    /** Deletes the sealed generations more than {@link #KEEP_GENERATIONS} below {@code token} (logged, never thrown). */
    private void prune(long token) {
        try {
            for (long k : generations(true)) {
                if (k < token - KEEP_GENERATIONS) {
                    fs.delete(generation(k, true), true);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("old journal generations in {} could not be deleted: {}", location(), e.toString());
        }
    }
}
