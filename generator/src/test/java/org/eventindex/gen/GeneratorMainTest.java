package org.eventindex.gen;

import org.eventindex.testing.CommandTreeWalk;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.Json;
import org.eventindex.ProjectVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GeneratorMainTest {
    private static final String DATA = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return GeneratorMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void helpDocumentsEveryOption() {
        assertEquals(0, run("--help"));
        String help = out.toString(StandardCharsets.UTF_8);
        for (String option : List.of("--dataset", "--out", "--files", "--events-per-file", "--files-per-job",
                "--duplicated-jobs", "--crashed-jobs", "--cross-file-duplicates", "--simulation", "--seed", "--event-size", "--help",
                "--version")) {
            assertTrue(help.contains(option), option);
        }
    }

    @Test
    void writesFilesManifestAndSummary() throws IOException {
        assertEquals(0, run("--dataset", DATA, "--out", dir.toString(), "--files", "3", "--events-per-file", "20",
                "--files-per-job", "1", "--duplicated-jobs", "1", "--crashed-jobs", "0",
                "--cross-file-duplicates", "2", "--seed", "7"), err.toString(StandardCharsets.UTF_8));
        String summary = out.toString(StandardCharsets.UTF_8);
        assertTrue(summary.contains("files              3"), summary);
        assertTrue(summary.contains("events             62"), summary);
        assertTrue(summary.contains("unique events      60"), summary);
        assertTrue(summary.contains("bytes/event"), summary);
        DatasetManifest m = Json.read(Files.readAllBytes(dir.resolve(DATA + ".manifest.json")),
                DatasetManifest.class);
        assertEquals(DATA, m.dataset());
        assertEquals(3, m.files().size());
        try (var files = Files.list(dir)) {
            assertEquals(4, files.filter(p -> p.toString().endsWith(".ei.spb")).count());
        }
    }

    @Test
    void eventSizeFlagWritesHeavierEvents() throws IOException {
        assertEquals(0, run("--dataset", DATA, "--out", dir.resolve("seed").toString(), "--files", "1",
                "--events-per-file", "2000"), err.toString(StandardCharsets.UTF_8));
        assertEquals(0, run("--dataset", DATA, "--out", dir.resolve("heavy").toString(), "--files", "1",
                "--events-per-file", "2000", "--event-size", "HEAVY"), err.toString(StandardCharsets.UTF_8));
        assertTrue(spbBytes(dir.resolve("heavy")) > 2 * spbBytes(dir.resolve("seed")));
        assertEquals(2, run("--dataset", DATA, "--out", dir.toString(), "--event-size", "HUGE"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("HUGE"), err.toString(StandardCharsets.UTF_8));
    }

    private static long spbBytes(Path d) throws IOException {
        long total = 0;
        try (var files = Files.list(d)) {
            for (Path p : files.filter(p -> p.toString().endsWith(".ei.spb")).toList()) {
                total += Files.size(p);
            }
        }
        return total;
    }

    @Test
    void oneFileDatasetNeedsNoCopyOption() {
        assertEquals(0, run("--dataset", DATA, "--out", dir.toString(), "--files", "1", "--events-per-file", "5"),
                err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void usageErrors() {
        assertEquals(2, run("--out", dir.toString()));
        assertTrue(err().contains("eventindex generate: Missing required option: '--dataset=NAME'"), err());
        assertEquals(2, run("--dataset", DATA, "--out", dir.toString(), "--files", "many"));
        assertTrue(err().contains("Invalid value for option '--files': 'many' is not an int"), err());
        assertEquals(2, run("--dataset", "not-a-dataset", "--out", dir.toString()));
        assertTrue(err().contains("not-a-dataset"), err());
        assertEquals(2, run("--bogus"));
        assertTrue(err().contains("eventindex generate: Unknown option: '--bogus'"), err());
        assertTrue(err().contains("Run 'eventindex generate --help' for the options."), err());
        assertEquals(2, run("--dataset"));
        assertTrue(err().contains("Missing required parameter for option '--dataset' (NAME)"), err());
    }

    @Test
    void versionPrintsTheProjectVersion() {
        assertEquals(0, run("--version"));
        assertEquals("eventindex generate " + ProjectVersion.describe(), out.toString(StandardCharsets.UTF_8).strip());
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** As typed: help, version, an unknown option and stray arguments (no subcommands). */
    @Test
    void helpVersionUnknownOptionAndStrayArgumentsAsTyped() {
        assertEquals(List.of(List.of()), CommandTreeWalk.check("eventindex generate",
                args -> CommandTreeWalk.capture((o, e) -> GeneratorMain.run(args, o, e))));
    }

    @Test
    void anOutputThatCannotBeWrittenIsNamedWithTheReason() throws IOException {
        Path file = Files.writeString(dir.resolve("not-a-dir"), "x");
        assertEquals(1, run("--dataset", DATA, "--out", file.toString()));
        assertEquals("eventindex generate: cannot write the dataset into " + file + ": it already exists",
                err().strip());
    }

}
