package org.eventindex.supervisor;

import java.util.List;
import org.eventindex.testing.CommandTreeWalk;
import org.eventindex.testing.ConfigKeysFileCheck;
import org.eventindex.message.Json;
import org.junit.jupiter.api.Test;
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
        assertTrue(err().contains("eventindex supervisor: Unmatched argument at index 0: 'frobnicate'"), err());
        assertEquals(2, run("run"));
        assertTrue(err().contains("run: Missing required option: '--config=FILE'"), err());
        assertEquals(2, run("register-manifest", "--brokers"));
        assertTrue(err().contains("Missing required parameter for option '--brokers'"), err());
    }

    /** Every command its help lists, as typed: help, version, an unknown option and stray arguments. */
    @Test
    void everyListedCommandHasHelpAndVersionAndRefusesUnknownOptionsAndStrayArguments() {
        List<List<String>> visited = CommandTreeWalk.check("eventindex supervisor",
                args -> CommandTreeWalk.capture((o, e) -> SupervisorMain.run(args, o, e, Map.of())));
        assertTrue(visited.containsAll(List.of(List.of(),
                List.of("run"),
                List.of("register-manifest"),
                List.of("resignal"),
                List.of("invalidate"),
                List.of("delete-dataset"),
                List.of("dead-letters"),
                List.of("dead-letters", "list"),
                List.of("dead-letters", "redrive"),
                List.of("config-keys"))), visited.toString());
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

    /** The Kerberos options of kudu-loader and lookup; a wrong login is bad usage before anything is sent. */
    @Test
    void deleteDatasetTakesTheClusterOptionsAndAMissingKeytabIsAConfigurationError() {
        Path keytab = dir.resolve("ei.keytab");
        // no broker listens on port 1: the login must be refused before a connection or a question
        assertEquals(2, run("delete-dataset", "--brokers", "127.0.0.1:1", "--dataset", DATASET, "--hdfs-uri",
                "hdfs://127.0.0.1:1", "--kudu-masters", "127.0.0.1:1", "--kerberos-principal", "ei@EXAMPLE.ORG",
                "--kerberos-keytab", keytab.toString()));
        assertEquals("supervisor delete-dataset: Kerberos login of principal ei@EXAMPLE.ORG (--kerberos-principal)"
                + " with keytab " + keytab + " (--kerberos-keytab) failed: the keytab does not exist", err().strip());
        err.reset();
        Path folder = dir.resolve("no-conf");
        assertEquals(2, run("delete-dataset", "--brokers", "127.0.0.1:1", "--dataset", DATASET, "--hdfs-uri",
                "hdfs://127.0.0.1:1", "--kudu-masters", "127.0.0.1:1", "--hadoop-conf-dir", folder.toString()));
        assertEquals("supervisor delete-dataset: Hadoop configuration folder " + folder + " from --hadoop-conf-dir"
                + " (else HADOOP_CONF_DIR) does not exist", err().strip());
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

    @Test
    void configKeysPrintsAPropertiesFileOfEveryKeyWithItsDefaultThatTheSupervisorReads() throws IOException {
        assertEquals(0, run("config-keys"), err());
        java.util.Properties loaded = ConfigKeysFileCheck.assertValid(out.toString(StandardCharsets.UTF_8),
                SupervisorConfig.KEYS.stream().map(k -> new ConfigKeysFileCheck.Key(k.name(), k.defaultValue(), k.envVar(),
                        k.doc())).toList());
        assertEquals(SupervisorConfig.fromProperties(new java.util.Properties(), Map.of()),
                SupervisorConfig.fromProperties(loaded, Map.of()));
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
    void unreadableConfigurationIsNamed() throws IOException {
        Path cfg = dir.resolve("supervisor.properties");
        Files.writeString(cfg, "supervisor.kudu.epoch = minus one\n");
        assertEquals(2, run("run", "--config", cfg.toString()));
        assertTrue(err().contains("bad configuration") && err().contains("supervisor.kudu.epoch")
                && err().contains(cfg.toString()), err());
    }

    /** A file that cannot be read is named with the reason, not only its path (which is all the JDK's message has). */
    @Test
    void unreadableFilesAreNamedWithTheReason() {
        Path missing = dir.resolve("nope.json");
        // a missing or unreadable input file is bad usage (2), like the lookup's; no broker listens on port 1: the
        // file is read before any connection is tried
        assertEquals(2, run("register-manifest", "--brokers", "127.0.0.1:1", "--file", missing.toString()));
        assertEquals("supervisor register-manifest: cannot read manifest " + missing + ": no such file or directory",
                err().strip());
        err.reset();
        assertEquals(2, run("run", "--config", missing.toString()));
        assertTrue(err().contains("cannot read supervisor configuration " + missing + ": no such file or directory"),
                err());
        err.reset();
        assertEquals(2, run("register-manifest", "--brokers", "127.0.0.1:1", "--file", dir.toString()));
        assertEquals("supervisor register-manifest: cannot read manifest " + dir + ": Is a directory", err().strip());
    }


    /** A secret file others can read is refused naming what pointed at it: the option, or the configuration key. */
    @Test
    void anOpenSecretFileIsRefusedNamingItsOptionOrKey() throws IOException {
        Path secret = org.eventindex.config.SecretFile.write(dir.resolve("pw"), "s");
        Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        // no broker listens on port 1: the secret is refused before any connection is tried
        assertEquals(1, run("resignal", "--brokers", "127.0.0.1:1", "--dataset", DATASET, "--password-file",
                secret.toString()));
        assertTrue(err().contains("--password-file: secret file " + secret + " has mode rw-r--r--"), err());
        err.reset();
        for (String key : List.of(SupervisorConfig.STOMP_PASSWORD_FILE, SupervisorConfig.S3_SECRET_KEY_FILE,
                SupervisorConfig.CATALOGUE_PASSWORD_FILE)) {
            Path config = Files.writeString(dir.resolve("s.properties"), key + " = " + secret + "\n"
                    + SupervisorConfig.JOURNAL_DIR + " = " + dir.resolve("journal") + "\n");
            assertEquals(2, run("run", "--config", config.toString()));
            assertTrue(err().contains(key + ": secret file " + secret + " has mode rw-r--r--"), err());
            err.reset();
        }
    }

}
