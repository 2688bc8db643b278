package org.eventindex.supervisor;

import org.eventindex.message.Json;
import org.eventindex.cli.ProjectVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.eventindex.supervisor.Fixtures.DATASET;
import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.manifest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SupervisorMainTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return SupervisorMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void usageErrorsExitWith2() {
        assertEquals(2, run());
        assertEquals(2, run("frobnicate"));
        assertTrue(err().contains("supervisor: Unmatched argument at index 0: 'frobnicate'"), err());
        assertEquals(2, run("run"));
        assertTrue(err().contains("run: Missing required option: '--config=FILE'"), err());
        assertEquals(2, run("register-manifest", "--brokers"));
        assertTrue(err().contains("Missing required parameter for option '--brokers'"), err());
    }

    /** Every command: --help prints its usage, --version the project version (exit 0); unknown options exit 2. */
    @ParameterizedTest
    @ValueSource(strings = {"", "run", "register-manifest", "resignal", "invalidate", "delete-dataset", "dead-letters",
        "dead-letters list", "dead-letters redrive", "config-keys"})
    void everyCommandHasHelpAndVersionAndRefusesUnknownOptions(String command) {
        String[] prefix = command.isEmpty() ? new String[0] : command.split(" ");
        assertEquals(0, run(with(prefix, "--help")), err());
        String usage = out.toString(StandardCharsets.UTF_8);
        assertTrue(usage.startsWith("Usage: supervisor" + (command.isEmpty() ? "" : " " + command)), usage);
        out.reset();
        assertEquals(0, run(with(prefix, "--version")), err());
        assertEquals("supervisor" + (command.isEmpty() ? "" : " " + command) + " " + ProjectVersion.get(),
                out.toString(StandardCharsets.UTF_8).strip());
        assertEquals(2, run(with(prefix, "--frobnicate", "x")));
        assertTrue(err().contains("Unknown option") && err().contains("'--frobnicate'"), err());
        assertTrue(err().contains("--help' for the options."), err());
    }

    @Test
    void deleteDatasetAsksToTypeTheNameAndDeletesNothingOtherwise() {
        String[] args = {"delete-dataset", "--brokers", "127.0.0.1:1", "--dataset", DATASET, "--hdfs-uri",
            "hdfs://127.0.0.1:1", "--kudu-masters", "127.0.0.1:1"};
        int code = SupervisorMain.run(args, new java.io.ByteArrayInputStream(
                (DATASET + "x\n").getBytes(StandardCharsets.UTF_8)), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
        assertEquals(SupervisorMain.NOT_CONFIRMED, code, err());
        assertTrue(err().contains("Type the dataset name to confirm:"), err());
        assertTrue(err().contains("not confirmed; nothing deleted"), err());
        assertEquals(2, run("delete-dataset", "--brokers", "127.0.0.1:1", "--dataset", "nonsense", "--hdfs-uri",
                "hdfs://127.0.0.1:1", "--kudu-masters", "127.0.0.1:1", "--yes"));
        assertTrue(err().contains("option --dataset: "), err());
    }

    @Test
    void redriveNeedsAllOrIds() {
        assertEquals(2, run("dead-letters", "redrive", "--brokers", "127.0.0.1:1"));
        assertTrue(err().contains("Missing required argument"), err());
        assertEquals(2, run("dead-letters", "redrive", "--brokers", "127.0.0.1:1", "--all", "--id", "x"));
        assertTrue(err().contains("mutually exclusive"), err());
        assertEquals(2, run("dead-letters"));
        assertTrue(err().contains("a command is required (list, redrive)"), err());
    }

    private static String[] with(String[] prefix, String... args) {
        String[] all = java.util.Arrays.copyOf(prefix, prefix.length + args.length);
        System.arraycopy(args, 0, all, prefix.length, args.length);
        return all;
    }

    @Test
    void configKeysListsEveryKey() {
        assertEquals(0, run("config-keys"));
        for (org.eventindex.config.ConfigKey k : SupervisorConfig.KEYS) {
            assertTrue(out.toString(StandardCharsets.UTF_8).contains(k.name()), k.name());
        }
    }

    @Test
    void invalidManifestIsRefusedBeforeAnythingIsSent() throws IOException {
        Path f = dir.resolve("m.json");
        Files.write(f, Json.write(manifest(DATASET, file("G1", 1), file("G1", 1))));
        // No broker listens on port 1: the manifest must be refused before any connection is tried.
        assertEquals(1, run("register-manifest", "--brokers", "127.0.0.1:1", "--file", f.toString()));
        assertTrue(err().contains("DUPLICATE_GUID") && err().contains(f.toString()), err());
    }

    @Test
    void invalidateNeedsAUrlAndAReasonAndRefusesABadDatasetName() {
        assertEquals(2, run("invalidate", "--brokers", "127.0.0.1:1", "--dataset", DATASET, "--reason", "x"));
        assertTrue(err().contains("invalidate: Missing required option: '--url="), err());
        assertEquals(1, run("invalidate", "--brokers", "127.0.0.1:1", "--dataset", "nonsense", "--url",
                "s3://h:1/b/k", "--reason", "wrong attempt"));
        assertTrue(err().contains("nonsense"), err());
    }

    @Test
    void missingManifestFileIsNamed() {
        Path f = dir.resolve("absent.json");
        assertEquals(1, run("register-manifest", "--brokers", "127.0.0.1:1", "--file", f.toString()));
        assertTrue(err().contains("cannot read manifest " + f), err());
    }

    @Test
    void unreadableConfigurationIsNamed() throws IOException {
        Path cfg = dir.resolve("supervisor.properties");
        Files.writeString(cfg, "supervisor.kudu.epoch = minus one\n");
        assertEquals(2, run("run", "--config", cfg.toString()));
        assertTrue(err().contains("bad configuration") && err().contains("supervisor.kudu.epoch")
                && err().contains(cfg.toString()), err());
    }
}
