package org.eventindex.lookup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.eventindex.cli.ProjectVersion;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The lookup's command line without Kudu: help, version and usage errors (LookupMainIT runs lookups). */
class LookupMainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return LookupMain.run(args, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** Every command: --help prints its usage, --version the project version (exit 0); unknown options exit 2. */
    @ParameterizedTest
    @ValueSource(strings = {"", "lookup", "serve"})
    void everyCommandHasHelpAndVersionAndRefusesUnknownOptions(String command) {
        String name = command.isEmpty() ? "lookup" : "lookup " + command;
        String[] prefix = command.isEmpty() ? new String[0] : new String[]{command};
        assertEquals(0, run(with(prefix, "--help")), err());
        assertTrue(out().startsWith("Usage: " + name), out());
        assertTrue(out().contains("--masters=M"), out());
        out.reset();
        assertEquals(0, run(with(prefix, "--version")), err());
        assertEquals(name + " " + ProjectVersion.get(), out().strip());
        assertEquals(2, run(with(prefix, "--masters", "m:1", "--colour", "red")));
        assertTrue(err().contains("Unknown option") && err().contains("'--colour'"), err());
        assertTrue(err().contains("Run '" + name + " --help' for the options."), err());
    }

    @Test
    void helpDocumentsEveryOption() {
        assertEquals(0, run("--help"));
        assertEquals(0, run("serve", "--help"));
        for (String option : new String[]{"--masters", "--prefix", "--threads", "--batch", "--dataset-cache-ms",
                "--json", "--csv", "--stream-type", "--project", "--ami-tag", "--dataset", "--with-duplicates",
                "--port", "--bind", "--max-concurrent", "--max-batch", "FILE|-"}) {
            assertTrue(out().contains(option), option);
        }
    }

    @Test
    void usageErrorsNameTheOption() {
        assertEquals(2, run("1 1"));
        assertTrue(err().contains("lookup: Missing required option: '--masters=M'"), err());
        err.reset();
        assertEquals(2, run("--masters", "m:1", "--threads", "many"));
        assertTrue(err().contains("Invalid value for option '--threads': 'many' is not an int"), err());
        err.reset();
        assertEquals(2, run("--masters", "m:1", "--json", "--csv"));
        assertTrue(err().contains("--json and --csv exclude each other"), err());
        err.reset();
        assertEquals(2, run("serve", "--masters", "m:1", "--port"));
        assertTrue(err().contains("serve: Missing required parameter for option '--port' (N)"), err());
        err.reset();
        // the options of serve follow it (docs/lookup.md); before it they are the lookup's
        assertEquals(2, run("--masters", "m:1", "serve"));
        assertTrue(err().contains("lookup serve: Missing required option: '--masters=M'"), err());
        err.reset();
        assertEquals(2, run("--masters", "m:1", "--dataset-cache-ms", "-1"));
        assertTrue(err().contains("--dataset-cache-ms must be >= 0: -1"), err());
    }

    private static String[] with(String[] prefix, String... args) {
        String[] all = Arrays.copyOf(prefix, prefix.length + args.length);
        System.arraycopy(args, 0, all, prefix.length, args.length);
        return all;
    }

    @Test
    void unreachableKuduMastersAreOneLineNamingThem() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        assertEquals(1, run("--masters", "127.0.0.1:" + port, "--kudu-timeout", "2"));
        assertEquals("lookup: failed: Kudu masters 127.0.0.1:" + port + " unreachable after 2 s (connection refused)",
                err().strip());
    }

    @Test
    void aMissingKeytabIsAConfigurationError() {
        assertEquals(2, run("--masters", "127.0.0.1:1", "--kerberos-principal", "ei@EXAMPLE.ORG", "--kerberos-keytab",
                "/nonexistent/ei.keytab"));
        assertEquals("lookup: Kerberos login of principal ei@EXAMPLE.ORG (--kerberos-principal) with keytab"
                + " /nonexistent/ei.keytab (--kerberos-keytab) failed: the keytab does not exist", err().strip());
    }
}
