package org.eventindex.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A secret (broker passcode, S3 key) that can be rotated while the daemon runs: one read from a file is read again
 * when the file changes (its modification time, size, inode or mode, checked on every {@link #value()}, so the next
 * connection or request after a rotation uses the new secret). A changed file that cannot be used (missing for a
 * moment, empty, readable by group or others) keeps the last secret, is logged once per change and counted in
 * {@link #reloadFailures()}; a later change is tried again. A secret from the environment is {@linkplain #of fixed}.
 * Never printed: {@link #toString()} is {@code ***}.
 */
public final class Secret {
    private static final Logger LOG = LoggerFactory.getLogger(Secret.class);

    private final Path file;
    private final String what;
    private final AtomicLong reloadFailures = new AtomicLong();
    private String value;
    private Object stamp;

    private Secret(Path file, String what, String value, Object stamp) {
        this.file = file;
        this.what = what;
        this.value = value;
        this.stamp = stamp;
    }

    /** A secret that never changes (from the environment or a test); null stays null. */
    public static Secret of(String value) {
        return value == null ? null : new Secret(null, "", value, null);
    }

    /**
     * Reads {@code file} now (its errors are the daemon's start-up errors, see {@link SecretFile#read}) and again
     * whenever it changes.
     *
     * @param what the configuration key or option naming the file, for the messages
     */
    public static Secret fromFile(Path file, String what) throws IOException {
        Objects.requireNonNull(file, "file is null");
        Objects.requireNonNull(what, "what is null");
        Object stamp;
        try {
            stamp = stamp(file); // before the read: a change in between is seen at the next use
        } catch (IOException e) {
            SecretFile.read(file, what); // throws the error naming the key, the file and the reason
            throw new IOException(what + ": cannot read secret file " + file + ": " + e.getMessage(), e);
        }
        return new Secret(file, what, SecretFile.read(file, what), stamp);
    }

    /** The secret as the file holds it now (or the last one that could be read). */
    public synchronized String value() {
        if (file == null) {
            return value;
        }
        Object now;
        try {
            now = stamp(file);
        } catch (IOException e) {
            now = "unreadable: " + e.getMessage();
        }
        if (!now.equals(stamp)) {
            stamp = now;
            try {
                value = SecretFile.read(file, what);
                LOG.info("{}: secret file {} changed; the new secret is used from now on", what, file);
            } catch (IOException | IllegalArgumentException e) {
                reloadFailures.incrementAndGet();
                LOG.warn("{}: secret file {} changed but cannot be used, the previous secret stays in use until it"
                        + " is fixed: {}", what, file, e.getMessage());
            }
        }
        return value;
    }

    /** The file this secret is read from; empty for a fixed secret. */
    public Optional<Path> file() {
        return Optional.ofNullable(file);
    }

    /** The configuration key or option naming the file (empty for a fixed secret). */
    public String what() {
        return what;
    }

    /** Changes of the file that could not be used (the previous secret stayed). */
    public long reloadFailures() {
        return reloadFailures.get();
    }

    /** What tells a change: modification time, size, inode and mode (a {@code chmod 600} that fixes the file). */
    private static Object stamp(Path file) throws IOException {
        if (Files.getFileAttributeView(file, PosixFileAttributeView.class) != null) {
            PosixFileAttributes a = Files.readAttributes(file, PosixFileAttributes.class);
            return List.of(a.lastModifiedTime().toInstant(), a.size(), String.valueOf(a.fileKey()),
                    a.permissions());
        }
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
        return List.of(a.lastModifiedTime().toInstant(), a.size(), String.valueOf(a.fileKey()));
    }

    /** Equal when both hold the same secret now (configuration records compare their secrets this way). */
    @Override
    public boolean equals(Object o) {
        return o instanceof Secret s && value().equals(s.value());
    }

    @Override
    public int hashCode() {
        return value().hashCode();
    }

    @Override
    public String toString() {
        return "***";
    }
}
