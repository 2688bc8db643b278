package org.eventindex.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

final class ConfigFileTest {
    @TempDir
    Path dir;

    @Test
    void readsWhatPropertiesReadsWithTheLineOfEachKey() throws IOException {
        String text = "# a comment\n! another\n\na.one = 1\na.two: two words \\\n   continued\n"
                + "a.three 3\na\\:four=x\\ty\n  # indented comment \\\na.five=\\u00e9\n";
        Path f = Files.writeString(dir.resolve("a.properties"), text);
        ConfigFile cf = ConfigFile.load(f, "test");
        Properties expected = new Properties();
        expected.load(new java.io.StringReader(text));
        assertEquals(expected, cf);
        assertEquals(Set.of("a.one", "a.two", "a.three", "a:four", "a.five"), cf.stringPropertyNames());
        assertEquals(OptionalInt.of(4), cf.line("a.one"));
        assertEquals(OptionalInt.of(5), cf.line("a.two"));
        assertEquals(OptionalInt.of(7), cf.line("a.three"));
        assertEquals(OptionalInt.of(8), cf.line("a:four"));
        assertEquals(OptionalInt.of(10), cf.line("a.five"));
        assertEquals(f + ":7", cf.where("a.three"));
        assertEquals(f.toString(), cf.where("a.none"));
    }

    @Test
    void aDuplicateKeyIsRefusedWithBothLines() throws IOException {
        Path f = Files.writeString(dir.resolve("dup.properties"), "a.one=1\n# x\na.two=2\na.one = 3\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ConfigFile.load(f, "t"));
        assertEquals(f + ":4: duplicate key 'a.one' (first set on line 1); keep one of the two lines",
                e.getMessage());
    }

    @Test
    void aMissingFileIsNamed() {
        Path f = dir.resolve("none.properties");
        IOException e = assertThrows(IOException.class, () -> ConfigFile.load(f, "supervisor"));
        assertEquals("cannot read supervisor configuration " + f + ": no such file or directory", e.getMessage());
        assertInstanceOf(NoSuchFileException.class, e.getCause());
    }
}
