package org.eventindex.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import org.eventindex.io.FileReason;

/**
 * Reads a secret (passcode, S3 secret key, trust store password) from a file that only its owner can read. A file
 * that group or others can read or write is refused: the secret may already have leaked, and the operator must fix
 * the mode ({@code chmod 600}) rather than the daemon silently using it. Errors name the file and never the content.
 */
public final class SecretFile {
    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private SecretFile() {
    }

    /**
     * @param what the configuration key or option that names the file, for the error messages
     * @throws IOException              when the file cannot be read (the message names the file and the reason)
     * @throws IllegalArgumentException when the file is readable by group or others, or is empty
     */
    public static String read(Path file, String what) throws IOException {
        Objects.requireNonNull(file, "file is null");
        Objects.requireNonNull(what, "what is null");
        requireOwnerOnly(file, what, "secret file");
        String s;
        try {
            s = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            // The exception's own message is only the path and a reason; the content is never part of it.
            throw new IOException(what + ": cannot read secret file " + file + ": " + FileReason.of(e), e);
        }
        if (s.isEmpty()) {
            throw new IllegalArgumentException(what + ": secret file " + file + " is empty");
        }
        return s;
    }

    /**
     * Refuses a file that group or others may access (read, write or execute), as a secret file or a keytab must
     * be; on a file system without POSIX modes nothing is checked.
     *
     * @param what the configuration key or option that names the file
     * @param kind what the file is, e.g. {@code "keytab"}, for the message
     * @throws IOException              when the file's mode cannot be read (e.g. it does not exist)
     * @throws IllegalArgumentException naming the file, its mode and the fix ({@code chmod 600})
     */
    public static void requireOwnerOnly(Path file, String what, String kind) throws IOException {
        PosixFileAttributeView posix = Files.getFileAttributeView(file, PosixFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS);
        if (posix == null) {
            return;
        }
        Set<PosixFilePermission> perms;
        try {
            perms = Files.getPosixFilePermissions(file);
        } catch (NoSuchFileException e) {
            throw new IOException(what + ": cannot read " + kind + " " + file + ": it does not exist", e);
        } catch (IOException e) {
            throw new IOException(what + ": cannot read " + kind + " " + file + ": " + FileReason.of(e), e);
        }
        Set<PosixFilePermission> open = EnumSet.noneOf(PosixFilePermission.class);
        open.addAll(perms);
        open.retainAll(OTHERS);
        if (!open.isEmpty()) {
            throw new IllegalArgumentException(what + ": " + kind + " " + file + " has mode "
                    + PosixFilePermissions.toString(perms) + "; group and others must have no access"
                    + " (run: chmod 600 " + file + ")");
        }
    }

    /** Writes a secret file with mode 0600 from the start (for tools and tests that provision secrets). */
    public static Path write(Path file, String secret) throws IOException {
        Objects.requireNonNull(secret, "secret is null");
        Files.deleteIfExists(file);
        Set<PosixFilePermission> ownerOnly = PosixFilePermissions.fromString("rw-------");
        if (Files.getFileStore(file.toAbsolutePath().getParent()).supportsFileAttributeView(PosixFileAttributeView.class)) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(ownerOnly));
        } else {
            Files.createFile(file);
        }
        return Files.writeString(file, secret, StandardCharsets.UTF_8);
    }
}
