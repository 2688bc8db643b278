package org.eventindex.operator;

import org.eventindex.testing.CommandTreeWalk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command line {@code eventindex supervisor} without a broker: the tree (the daemon's commands beside the
 * operators'), usage errors, and what is refused before anything is sent.
 */
class OperatorMainTest {
    private static final String DATASET = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid12345678_00";

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return OperatorMain.run(args, new java.io.ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Map.of());
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void usageErrorsExitWith2() {
        assertEquals(2, run());
        assertTrue(err().contains("supervisor: a command is required"), err());
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
                args -> CommandTreeWalk.capture((o, e) -> OperatorMain.run(args, new java.io.ByteArrayInputStream(
                        new byte[0]), o, e, Map.of())));
        assertTrue(visited.containsAll(List.of(List.of(),
                List.of("run"),
                List.of("register-manifest"),
                List.of("resignal"),
                List.of("invalidate"),
                List.of("delete-dataset"),
                List.of("dead-letters"),
                List.of("dead-letters", "list"),
                List.of("dead-letters", "redrive"),
                List.of("rebuild-state"),
                List.of("config-keys"))), visited.toString());
    }

    /** What rebuild-state cannot work with is bad usage, said before any service is asked. */
    @Test
    void rebuildStateRefusesAConfigurationItCannotRebuildFrom() throws Exception {
        Path config = dir.resolve("supervisor.properties");
        assertEquals(2, run("rebuild-state", "--config", config.toString(), "--hdfs-uri", "hdfs://127.0.0.1:1"));
        assertTrue(err().contains(config.toString()), err());
        err.reset();
        Files.writeString(config, "supervisor.brokers=127.0.0.1:1\nsupervisor.journal.dir="
                + dir.resolve("journal") + "\nsupervisor.kudu.masters=127.0.0.1:1\n");
        assertEquals(2, run("rebuild-state", "--config", config.toString(), "--hdfs-uri", "hdfs://127.0.0.1:1"));
        assertTrue(err().contains("supervisor.s3.endpoint is not set: rebuild-state reads the bucket"), err());
    }

    @Test
    void deleteDatasetAsksToTypeTheNameAndDeletesNothingOtherwise() {
        String[] args = {"delete-dataset", "--brokers", "127.0.0.1:1", "--dataset", DATASET, "--hdfs-uri",
            "hdfs://127.0.0.1:1", "--kudu-masters", "127.0.0.1:1"};
        int code = OperatorMain.run(args, new java.io.ByteArrayInputStream(
                (DATASET + "x\n").getBytes(StandardCharsets.UTF_8)), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
        assertEquals(OperatorMain.NOT_CONFIRMED, code, err());
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
    void invalidManifestIsRefusedBeforeAnythingIsSent() throws IOException {
        Path f = dir.resolve("m.json");
        Files.writeString(f, "{\"type\":\"manifest\",\"dataset\":\"" + DATASET
                + "\",\"files\":[{\"guid\":\"G1\",\"nevents\":1},{\"guid\":\"G1\",\"nevents\":1}]}");
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

    /** A file that cannot be read is named with the reason, not only its path (which is all the JDK's message has). */
    @Test
    void unreadableManifestsAreNamedWithTheReason() {
        Path missing = dir.resolve("nope.json");
        // a missing or unreadable input file is bad usage (2), like the lookup's; no broker listens on port 1: the
        // file is read before any connection is tried
        assertEquals(2, run("register-manifest", "--brokers", "127.0.0.1:1", "--file", missing.toString()));
        assertEquals("supervisor register-manifest: cannot read manifest " + missing + ": no such file or directory",
                err().strip());
        err.reset();
        assertEquals(2, run("register-manifest", "--brokers", "127.0.0.1:1", "--file", dir.toString()));
        assertEquals("supervisor register-manifest: cannot read manifest " + dir + ": Is a directory", err().strip());
    }

    /** A password file others can read is refused naming the option that pointed at it. */
    @Test
    void anOpenPasswordFileIsRefusedNamingItsOption() throws IOException {
        Path secret = org.eventindex.config.SecretFile.write(dir.resolve("pw"), "s");
        Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        // no broker listens on port 1: the secret is refused before any connection is tried
        assertEquals(1, run("resignal", "--brokers", "127.0.0.1:1", "--dataset", DATASET, "--password-file",
                secret.toString()));
        assertTrue(err().contains("--password-file: secret file " + secret + " has mode rw-r--r--"), err());
    }
}
