package org.eventindex.ops;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a daemon made of a credential file (a key store's key manager, a trust store's trust manager), made again when
 * the file changes (modification time, size, inode; one {@code stat} per {@link #get()}). A changed file that cannot
 * be used (half written, wrong password, empty) keeps the previous value, logs one WARN per change and counts one
 * failure ({@link #failures()}, in {@value CredentialFiles#RELOAD_FAILURES}); a later change is tried again. A file
 * missing for an instant (between two steps of a copy) keeps the value without counting.
 *
 * @param <T> what is made of the file
 */
final class WatchedFile<T> {
    private static final Logger LOG = LoggerFactory.getLogger(WatchedFile.class);

    /** Makes the value of the file; a file that cannot be used is an exception naming why. */
    interface Loader<T> {
        T load(Path file) throws IOException, GeneralSecurityException;
    }

    private final Path file;
    private final String what;
    private final String kind;
    private final String effect;
    private final Loader<T> loader;
    private final AtomicLong failures = new AtomicLong();
    private volatile T current;
    private volatile Object stamp;
    private volatile Object refused;

    /**
     * Loads {@code file} now.
     *
     * @param what   the configuration key naming the file, for the log
     * @param kind   what the file is, e.g. {@code key store}
     * @param effect what a successful reload changes, for the INFO line
     */
    WatchedFile(Path file, String what, String kind, String effect, Loader<T> loader)
            throws IOException, GeneralSecurityException {
        this.file = Objects.requireNonNull(file, "file is null");
        this.what = Objects.requireNonNull(what, "what is null");
        this.kind = Objects.requireNonNull(kind, "kind is null");
        this.effect = Objects.requireNonNull(effect, "effect is null");
        this.loader = Objects.requireNonNull(loader, "loader is null");
        this.stamp = stamp(file);
        this.current = loader.load(file);
    }

    /** The value of the file as it is now (made again once per change). */
    T get() {
        Object now;
        try {
            now = stamp(file);
        } catch (IOException e) {
            return current; // moved away for an instant, or gone: the value in use stays
        }
        if (now.equals(stamp) || now.equals(refused)) {
            return current;
        }
        synchronized (this) {
            if (!now.equals(stamp) && !now.equals(refused)) {
                try {
                    current = loader.load(file);
                    stamp = now;
                    refused = null;
                    LOG.info("{}: {} {} changed; {}", what, kind, file, effect);
                } catch (IOException | GeneralSecurityException | RuntimeException e) {
                    refused = now;
                    failures.incrementAndGet();
                    LOG.warn("{}: {} {} changed but cannot be used ({}); the previous one stays in use until the"
                            + " file is fixed", what, kind, file, e.toString());
                }
            }
        }
        return current;
    }

    /** The value in use, without looking at the file. */
    T current() {
        return current;
    }

    /** Changes of the file that could not be used. */
    long failures() {
        return failures.get();
    }

    /** The configuration key naming the file. */
    String what() {
        return what;
    }

    private static Object stamp(Path file) throws IOException {
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
        return List.of(a.lastModifiedTime().toInstant(), a.size(), String.valueOf(a.fileKey()));
    }
}
