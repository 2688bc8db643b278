package org.eventindex.lookup;

import java.util.List;
import org.eventindex.testing.CommandTreeWalk;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.eventindex.ProjectVersion;
import org.eventindex.testing.Ports;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    /** Every command its help lists, as typed: help, version, an unknown option and stray arguments. */
    @Test
    void everyListedCommandHasHelpAndVersionAndRefusesUnknownOptionsAndStrayArguments() {
        List<List<String>> visited = CommandTreeWalk.check("eventindex lookup",
                args -> CommandTreeWalk.capture((o, e) -> LookupMain.run(args,
                        new java.io.ByteArrayInputStream(new byte[0]), o, e)));
        assertTrue(visited.containsAll(List.of(List.of(),
                List.of("lookup"),
                List.of("serve"), List.of("datasets"), List.of("overlap"))), visited.toString());
    }

    @Test
    void helpDocumentsEveryOption() {
        assertEquals(0, run("--help"));
        assertEquals(0, run("serve", "--help"));
        for (String option : new String[]{"--masters", "--prefix", "--threads", "--batch", "--dataset-cache-ms",
                "--json", "--csv", "--stream-type", "--project", "--ami-tag", "--dataset", "--with-duplicates",
                "--port", "--bind", "--max-concurrent", "--max-batch", "--ready-check-seconds", "FILE|-", "--explain",
                "--supervisor-url", "--max-user-concurrent", "--max-user-events-per-minute"}) {
            assertTrue(out().contains(option), option);
        }
    }

    @Test
    void usageErrorsNameTheOption() {
        assertEquals(2, run("1 1"));
        assertTrue(err().contains("eventindex lookup: Missing required option: '--masters=M'"), err());
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
        assertTrue(err().contains("eventindex lookup serve: Missing required option: '--masters=M'"), err());
        err.reset();
        assertEquals(2, run("--masters", "m:1", "--dataset-cache-ms", "-1"));
        assertTrue(err().contains("--dataset-cache-ms must be >= 0: -1"), err());
        err.reset();
        assertEquals(2, run("serve", "--masters", "m:1", "--ready-check-seconds", "0"));
        assertTrue(err().contains("--ready-check-seconds must be within 1..3600: 0"), err());
        err.reset();
        assertEquals(2, run("--masters", "m:1", "--supervisor-url", "sup:8081", "1 1"));
        assertTrue(err().contains("--supervisor-url 'sup:8081' is not an http(s)://host:port URL"), err());
        err.reset();
        assertEquals(2, run("serve", "--masters", "m:1", "--max-batch", "1000", "--max-user-events-per-minute", "10"));
        assertTrue(err().contains("maxUserEventsPerMinute (10) must be at least maxBatch (1000)"), err());
    }

    private static String[] with(String[] prefix, String... args) {
        String[] all = Arrays.copyOf(prefix, prefix.length + args.length);
        System.arraycopy(args, 0, all, prefix.length, args.length);
        return all;
    }

    /** A wrong input file is the operator's to fix (exit 2), named with the reason, before Kudu is contacted. */
    @Test
    void aMissingInputFileIsAUsageErrorNamingTheFileAndTheReason(@TempDir Path dir) {
        Path missing = dir.resolve("events.txt");
        // no Kudu listens on port 1: the file is refused before any connection is tried
        assertEquals(2, run("--masters", "127.0.0.1:1", missing.toString()));
        assertEquals("lookup: cannot read " + missing + ": no such file or directory", err().strip());
        err.reset();
        assertEquals(2, run("--masters", "127.0.0.1:1", dir.toString()));
        assertEquals("lookup: cannot read " + dir + ": Is a directory", err().strip());
    }

    @Test
    void unreachableKuduMastersAreOneLineNamingThem() throws Exception {
        int port = Ports.free();
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
