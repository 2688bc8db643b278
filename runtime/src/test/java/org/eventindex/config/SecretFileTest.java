package org.eventindex.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SecretFileTest {
    private static final String SECRET = "hunter2-very-secret";

    @TempDir
    Path dir;

    @Test
    void ownerOnlyFileIsRead() throws IOException {
        Path f = SecretFile.write(dir.resolve("ok"), SECRET + "\n");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        assertEquals(SECRET, SecretFile.read(f, "x.password.file"));
    }

    @Test
    void groupOrWorldReadableFilesAreRefusedWithTheFixAndWithoutTheSecret() throws IOException {
        for (String mode : List.of("rw-r--r--", "rw-r-----", "rw----r--", "rw--w----")) {
            Path f = Files.writeString(dir.resolve("open-" + mode.replace('-', '_')), SECRET);
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> SecretFile.read(f, "x.password.file"));
            assertTrue(e.getMessage().contains("x.password.file: secret file " + f + " has mode " + mode),
                    e.getMessage());
            assertTrue(e.getMessage().contains("chmod 600 " + f), e.getMessage());
            assertFalse(e.getMessage().contains(SECRET), e.getMessage());
        }
    }

    @Test
    void unreadableOrMissingFileErrorsNameTheKeyButNotTheSecret() throws IOException {
        Path f = SecretFile.write(dir.resolve("unreadable"), SECRET);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("-w-------"));
        if (Files.isReadable(f)) {
            return; // running as root: the read succeeds regardless of the mode
        }
        IOException e = assertThrows(IOException.class, () -> SecretFile.read(f, "x.password.file"));
        assertTrue(e.getMessage().startsWith("x.password.file: cannot read secret file " + f), e.getMessage());
        assertFalse(e.getMessage().contains(SECRET), e.getMessage());
        IOException missing = assertThrows(IOException.class, () -> SecretFile.read(dir.resolve("none"), "k"));
        assertTrue(missing.getMessage().contains("does not exist"), missing.getMessage());
    }

    @Test
    void configReaderRefusesAnOpenSecretFileNamingTheKey() throws IOException {
        Path f = Files.writeString(dir.resolve("open"), SECRET);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-rw-"));
        Properties p = new Properties();
        p.setProperty("d.secret.file", f.toString());
        ConfigReader r = new ConfigReader("d.", List.of(new ConfigKey("d.secret.file", "", "D_SECRET", "doc")), p,
                Map.of());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> r.secret("d.secret.file"));
        assertTrue(e.getMessage().startsWith("d.secret.file: secret file"), e.getMessage());
        assertFalse(e.getMessage().contains(SECRET), e.getMessage());
    }
}
