package org.eventindex.kudu;

import java.util.List;
import org.eventindex.testing.CommandTreeWalk;
import org.eventindex.ProjectVersion;
import org.eventindex.testing.Ports;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KuduLoaderMainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return KuduLoaderMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void helpDocumentsEveryCommandAndOption() {
        assertEquals(0, run("--help"));
        StringBuilder help = new StringBuilder(out.toString(StandardCharsets.UTF_8));
        for (String command : new String[]{"create-tables", "load", "delete"}) {
            assertTrue(help.toString().contains(command), command);
            out.reset();
            assertEquals(0, run(command, "--help"));
            help.append(out.toString(StandardCharsets.UTF_8));
        }
        for (String option : new String[]{"--masters", "--prefix", "--buckets", "--replicas", "--epoch", "--file",
                "--hdfs", "--dataset", "--dspid", "--load-id", "--buffer", "--threads", "--help", "--version",
                "--kudu-timeout",
                "--hadoop-conf-dir", "--kerberos-principal", "--kerberos-keytab"}) {
            assertTrue(help.toString().contains(option), option);
        }
    }

    /** Every command its help lists, as typed: help, version, an unknown option and stray arguments. */
    @Test
    void everyListedCommandHasHelpAndVersionAndRefusesUnknownOptionsAndStrayArguments() {
        List<List<String>> visited = CommandTreeWalk.check("eventindex kudu-loader",
                args -> CommandTreeWalk.capture((o, e) -> KuduLoaderMain.run(args, o, e)));
        assertTrue(visited.containsAll(List.of(List.of(),
                List.of("create-tables"),
                List.of("load"),
                List.of("delete"),
                List.of("help"))), visited.toString());
    }

    private static String[] with(String[] prefix, String... args) {
        String[] all = java.util.Arrays.copyOf(prefix, prefix.length + args.length);
        System.arraycopy(args, 0, all, prefix.length, args.length);
        return all;
    }

    @Test
    void helpCommandPrintsTheUsageOfTheLoaderOrOfACommand() {
        assertEquals(0, run("help"));
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("Usage: eventindex kudu-loader"), out.toString(
                StandardCharsets.UTF_8));
        out.reset();
        assertEquals(0, run("help", "load"));
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("Usage: eventindex kudu-loader load"), out.toString(
                StandardCharsets.UTF_8));
    }

    @Test
    void noArgumentsIsAUsageError() {
        assertEquals(2, run());
        assertTrue(err().contains("Usage"));
    }

    @Test
    void usageErrorsNameTheProblem() {
        assertEquals(2, run("drop-tables"));
        assertTrue(err().contains("eventindex kudu-loader: Unmatched argument at index 0: 'drop-tables'"), err());
        assertEquals(2, run("load", "--masters", "m:1", "--file", "f", "--dspid", "1", "--epoch", "0"));
        assertTrue(err().contains("load: Missing required option: '--dataset=NAME'"), err());
        assertEquals(2, run("load", "--masters", "m:1", "--dataset",
                "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824", "--dspid", "x"));
        assertTrue(err().contains("Invalid value for option '--dspid': 'x' is not an int"), err());
        assertEquals(2, run("load", "--masters", "m:1", "--dataset",
                "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824", "--dspid", "1", "--epoch", "0",
                "--file", "f.parquet", "--threads", "0"));
        assertTrue(err().contains("--threads must be between 1 and 64: 0"), err());
        assertEquals(2, run("load", "--masters", "m:1", "--dataset",
                "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824", "--dspid", "1", "--epoch", "0",
                "--file", "f.parquet", "--buffer", "99"));
        assertTrue(err().contains("--buffer must be between 100 and 100000: 99"), err());
        assertEquals(2, run("create-tables", "--masters", "m:1", "--colour", "red"));
        assertTrue(err().contains("Unknown options: '--colour', 'red'"), err());
        assertEquals(2, run("create-tables", "--masters", "m:1", "--replicas", "2"));
        assertTrue(err().contains("odd"), err());
        assertEquals(2, run("create-tables", "--masters"));
        assertTrue(err().contains("Missing required parameter for option '--masters' (M)"), err());
        assertEquals(2, run("delete", "--masters", "m:1", "--dataset", "../../etc"));
        assertTrue(err().contains("option --dataset: invalid dataset name '../../etc'"), err());
    }

    /** One first epoch: the range create-tables adds is the one the supervisor signals its first datasets into. */
    @Test
    void createTablesStartsAtTheSupervisorsFirstEpoch() {
        KuduLoaderMain.CreateTables command = new KuduLoaderMain.CreateTables();
        new picocli.CommandLine(command).parseArgs("--masters", "m:1");
        assertEquals(KuduTablesConfig.FIRST_EPOCH, command.epoch);
        assertEquals(0, run("create-tables", "--help"));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("(default: " + KuduTablesConfig.FIRST_EPOCH + ","),
                out.toString(StandardCharsets.UTF_8));
    }


    /** Named with the reason before Kudu is asked anything (no Kudu listens on port 1). */
    @Test
    void aLocalFileThatCannotBeReadIsNamedWithTheReason(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        java.nio.file.Path missing = dir.resolve("x.parquet");
        assertEquals(1, run("load", "--masters", "127.0.0.1:1", "--file", missing.toString(), "--dataset",
                "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824", "--dspid", "1", "--epoch", "1"));
        assertTrue(err().contains("kudu-loader: load failed: cannot read dataset file " + missing
                + ": no such file or directory"), err());
    }

    @Test
    void unreachableKuduMastersAreNamedWithTheWaitAndNoTrace() throws Exception {
        String masters = "127.0.0.1:" + Ports.free();
        assertEquals(1, run("create-tables", "--masters", masters, "--kudu-timeout", "2", "--replicas", "1"));
        assertEquals("kudu-loader: create-tables failed: Kudu masters " + masters + " unreachable after 2 s"
                + " (connection refused)", err().strip());
    }

    @Test
    void aMissingConfigurationFolderOrKeytabIsAConfigurationError(@org.junit.jupiter.api.io.TempDir
                                                                  java.nio.file.Path dir) {
        java.nio.file.Path folder = dir.resolve("no-conf");
        assertEquals(2, run("delete", "--masters", "127.0.0.1:1", "--dataset", "data17_13TeV.00327636.physics_Main"
                + ".merge.AOD.f838_m1824_tid12345678_00", "--hadoop-conf-dir", folder.toString()));
        assertEquals("kudu-loader: Hadoop configuration folder " + folder + " from --hadoop-conf-dir (else"
                + " HADOOP_CONF_DIR) does not exist", err().strip());
        err.reset();
        java.nio.file.Path keytab = dir.resolve("ei.keytab");
        assertEquals(2, run("delete", "--masters", "127.0.0.1:1", "--dataset", "data17_13TeV.00327636.physics_Main"
                + ".merge.AOD.f838_m1824_tid12345678_00", "--kerberos-principal", "ei@EXAMPLE.ORG",
                "--kerberos-keytab", keytab.toString()));
        assertEquals("kudu-loader: Kerberos login of principal ei@EXAMPLE.ORG (--kerberos-principal) with keytab "
                + keytab + " (--kerberos-keytab) failed: the keytab does not exist", err().strip());
    }
}
