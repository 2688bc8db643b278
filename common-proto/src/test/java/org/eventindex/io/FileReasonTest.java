package org.eventindex.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileReasonTest {
    @TempDir
    Path dir;

    @Test
    void aMissingFileSaysSoWhereTheJdkGivesOnlyThePath() {
        Path missing = dir.resolve("nope.json");
        IOException e = assertThrows(IOException.class, () -> Files.readAllBytes(missing));
        assertEquals(missing.toString(), e.getMessage()); // what the messages used to add
        assertEquals("no such file or directory", FileReason.of(e));
        assertEquals(missing + ": no such file or directory", FileReason.describe(e));
    }

    @Test
    void aDirectoryAndAnAccessDeniedAreNamed() {
        IOException e = assertThrows(IOException.class, () -> Files.readAllBytes(dir));
        assertEquals("Is a directory", FileReason.of(e));
        // root reads every file, so a real one cannot be made unreadable here: the JDK's own exception
        assertEquals("/etc/x: permission denied", FileReason.describe(new AccessDeniedException("/etc/x")));
    }

    @Test
    void aFileWhereADirectoryIsNeededIsNamed() throws IOException {
        Path file = Files.writeString(dir.resolve("out"), "x");
        IOException e = assertThrows(IOException.class, () -> Files.createDirectory(file));
        assertEquals(file + ": it already exists", FileReason.describe(e));
        IOException under = assertThrows(IOException.class, () -> Files.createDirectories(file.resolve("sub")));
        assertEquals(file.resolve("sub") + ": Not a directory", FileReason.describe(under));
    }

    @Test
    void anotherIoExceptionKeepsItsMessage() {
        assertEquals("broken pipe", FileReason.of(new IOException("broken pipe")));
        assertEquals("IOException", FileReason.of(new IOException()));
    }
}
