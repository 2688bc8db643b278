package org.eventindex.supervisor.ha;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The layout two supervisors share in {@code supervisor.journal.dir} (a shared file system):
 * <ul>
 *   <li>{@code fence-<N>}: created once, exclusively ({@code O_CREAT|O_EXCL}), by the supervisor that takes token
 *   {@code N}. The highest one names the holder. Its existence is the fence: the holder of {@code N} checks for
 *   {@code fence-<N+1>} before it journals, after each fsync and before it acknowledges or signals.</li>
 *   <li>{@code generation-<N>/}: the journal directory of token {@code N} (journal, checkpoint, archived segments,
 *   lock file), seeded at the takeover from the previous generation; a writer fenced out can only write into its
 *   own generation, which nobody reads again.</li>
 *   <li>{@code generation-<N>/lease}: rewritten (atomically, by rename) by the holder at every renewal; a standby that
 *   sees it unchanged for the lease time takes token {@code N+1}. {@code state=released} is a clean stop.</li>
 *   <li>{@code generation-<N>/handover}: written last by the takeover; a generation without it was never used.</li>
 * </ul>
 */
final class SharedJournalDir {
    static final String FENCE = "fence-";
    static final String GENERATION = "generation-";
    static final String LEASE = "lease";
    static final String HANDOVER = "handover";
    /** Generations kept below the current one (the previous ones are the operators' history). */
    static final int KEEP_GENERATIONS = 3;
    private static final Logger LOG = LoggerFactory.getLogger(SharedJournalDir.class);

    private final Path root;

    SharedJournalDir(Path root) {
        this.root = Objects.requireNonNull(root, "root is null");
    }

    Path root() {
        return root;
    }

    /** The highest token taken so far, 0 when no supervisor ever took one here. */
    long currentToken() throws IOException {
        return tokens(FENCE).stream().mapToLong(Long::longValue).max().orElse(0);
    }

    /** Whether a supervisor has taken the token after {@code token}: the holder of {@code token} is fenced. */
    boolean fencedOut(long token) {
        return Files.exists(root.resolve(FENCE + (token + 1)));
    }

    /**
     * Takes {@code token} if no one did: creates {@code fence-<token>} exclusively and makes it durable.
     *
     * @return false when another supervisor created it first
     */
    boolean tryTake(long token, String holder) throws IOException {
        Files.createDirectories(root);
        Path fence = root.resolve(FENCE + token);
        try (FileChannel c = FileChannel.open(fence, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            c.write(java.nio.ByteBuffer.wrap(("holder=" + holder + "\nat=" + java.time.Instant.now() + "\n")
                    .getBytes(StandardCharsets.UTF_8)));
            c.force(true);
        } catch (FileAlreadyExistsException e) {
            return false;
        }
        forceDirectory(root);
        return true;
    }

    Path generation(long token) {
        return root.resolve(GENERATION + token);
    }

    /** The lease file's text of {@code token}'s generation, empty when there is none yet. */
    Optional<String> lease(long token) throws IOException {
        try {
            return Optional.of(Files.readString(generation(token).resolve(LEASE), StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** Replaces the lease of {@code token} at once (a reader sees the old or the new text, never a mix). */
    void writeLease(long token, String text) throws IOException {
        Path dir = generation(token);
        Path temp = dir.resolve(LEASE + ".tmp");
        Files.writeString(temp, text, StandardCharsets.UTF_8);
        Files.move(temp, dir.resolve(LEASE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * Where the state to take over is: the newest generation below {@code token} that was handed over, else the
     * journal directory itself (a journal written before the standby was enabled, or none).
     */
    Path handOverSource(long token) throws IOException {
        return tokens(GENERATION).stream().filter(t -> t < token).sorted((a, b) -> Long.compare(b, a))
                .map(this::generation).filter(d -> Files.exists(d.resolve(HANDOVER))).findFirst().orElse(root);
    }

    /** Deletes the generations more than {@link #KEEP_GENERATIONS} below {@code token} (logged, never thrown). */
    void prune(long token) {
        try {
            for (long t : tokens(GENERATION)) {
                if (t < token - KEEP_GENERATIONS) {
                    deleteTree(generation(t));
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("old journal generations in {} could not be deleted: {}", root, e.toString());
        }
    }

    private List<Long> tokens(String prefix) throws IOException {
        List<Long> out = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return out;
        }
        try (DirectoryStream<Path> names = Files.newDirectoryStream(root, prefix + "*")) {
            for (Path p : names) {
                String n = p.getFileName().toString().substring(prefix.length());
                if (!n.isEmpty() && n.length() < 19 && n.chars().allMatch(Character::isDigit)) {
                    out.add(Long.parseLong(n));
                }
            }
        }
        return out;
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    static void forceDirectory(Path dir) {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            LOG.debug("cannot fsync directory {}: {}", dir, e.toString());
        }
    }
}
