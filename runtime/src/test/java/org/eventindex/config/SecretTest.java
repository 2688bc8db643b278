package org.eventindex.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Properties;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Secret}: a file replaced as a site rotates it (a new file moved over the old one) is read again. */
class SecretTest {
    @TempDir
    Path dir;

    private Path rotate(Path file, String secret) throws IOException {
        Path next = SecretFile.write(dir.resolve(file.getFileName() + ".new"), secret);
        return Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    void aReplacedFileIsReadAgainAndAnUnchangedOneIsNot() throws IOException {
        Path f = SecretFile.write(dir.resolve("pw"), "old-secret");
        Secret s = Secret.fromFile(f, "x.password.file");
        assertEquals("old-secret", s.value());
        rotate(f, "new-secret");
        assertEquals("new-secret", s.value());
        assertEquals("new-secret", s.value());
        // rewritten in place with the same length: the modification time or the inode tells the change
        SecretFile.write(f, "new-secreT");
        assertEquals("new-secreT", s.value());
        assertEquals(0, s.reloadFailures());
        assertEquals("***", s.toString());
    }

    @Test
    void aChangedFileThatCannotBeUsedKeepsThePreviousSecretUntilItIsFixed() throws IOException {
        Path f = SecretFile.write(dir.resolve("pw"), "old-secret");
        Secret s = Secret.fromFile(f, "x.password.file");
        Files.delete(f);
        assertEquals("old-secret", s.value());
        assertEquals(1, s.reloadFailures());
        Files.writeString(f, "world-readable");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        assertEquals("old-secret", s.value());
        assertEquals(2, s.reloadFailures());
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        assertEquals("world-readable", s.value());
        assertEquals(2, s.reloadFailures());
    }

    @Test
    void configReaderGivesRotatingSecretsAndRefusesAKeyAndItsFileTogether() throws IOException {
        Path f = SecretFile.write(dir.resolve("ak"), "AK1");
        List<ConfigKey> keys = List.of(new ConfigKey("x.access.key", "", "X_AK", "d"),
                new ConfigKey("x.access.key.file", "", null, "d"), new ConfigKey("x.secret.file", "", "X_SK", "d"));
        Properties p = new Properties();
        p.setProperty("x.access.key.file", f.toString());
        ConfigReader r = new ConfigReader("x.", keys, p, Map.of("X_SK", "from-env"));
        Secret ak = r.rotatingText("x.access.key", "x.access.key.file");
        assertEquals("AK1", ak.value());
        rotate(f, "AK2");
        assertEquals("AK2", ak.value());
        assertEquals("from-env", r.rotatingSecret("x.secret.file").value());
        assertNull(new ConfigReader("x.", keys, new Properties(), Map.of()).rotatingSecret("x.secret.file"));
        assertEquals("", new ConfigReader("x.", keys, new Properties(), Map.of())
                .rotatingText("x.access.key", "x.access.key.file").value());
        p.setProperty("x.access.key", "AK0");
        ConfigReader both = new ConfigReader("x.", keys, p, Map.of());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> both.rotatingText("x.access.key", "x.access.key.file"));
        assertTrue(e.getMessage().contains("x.access.key and x.access.key.file are both set"), e.getMessage());
    }
}
