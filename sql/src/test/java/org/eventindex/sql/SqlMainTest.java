package org.eventindex.sql;

import java.util.List;
import org.eventindex.testing.CommandTreeWalk;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.eventindex.ProjectVersion;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The SQL shell's command line without Kudu or Spark: help, version and usage errors (SqlShellIT runs queries). */
class SqlMainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return SqlMain.run(args, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true,
                StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void helpDocumentsEveryOptionAndExitsZero() {
        assertEquals(0, run("--help"));
        String help = out.toString(StandardCharsets.UTF_8);
        assertTrue(help.startsWith("Usage: eventindex sql --kudu-master"), help);
        for (String option : new String[]{"--kudu-master", "--masters", "--prefix", "-e", "-f", "--var",
                "${var:NAME}", "--csv", "--max-rows", "--allow-writes", "--timeout-seconds", "--help", "--version"}) {
            assertTrue(help.contains(option), option + " in " + help);
        }
    }

    @Test
    void versionPrintsTheProjectVersion() {
        assertEquals(0, run("--version"));
        assertEquals("eventindex sql " + ProjectVersion.describe(), out.toString(StandardCharsets.UTF_8).strip());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--kudu-master m:1 --bogus                | Unknown option: '--bogus'",
        "-e x                                     | --kudu-master is required",
        "--kudu-master m:1 --max-rows lots        | Invalid value for option '--max-rows': 'lots' is not an int",
        "--kudu-master m:1 --max-rows -1          | --max-rows must be >= 0, got -1",
        "--kudu-master m:1 --timeout-seconds 0    | --timeout-seconds must be >= 1, got 0",
        "--kudu-master m:1 SELECT                 | unexpected argument 'SELECT' (SQL goes after -e)",
        "--kudu-master m:1 --var x                | --var needs NAME=VALUE, got 'x'",
        "--kudu-master                            | Missing required parameter for option '--kudu-master' (M)",
    })
    void usageErrorsExitTwoNamingTheOption(String line, String message) {
        assertEquals(2, run(line.split(" ")));
        String text = err.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("eventindex sql: " + message), text);
        assertTrue(text.contains("Run 'eventindex sql --help' for the options."), text);
    }

    /** As typed: help, version, an unknown option and stray arguments (no subcommands). */
    @Test
    void helpVersionUnknownOptionAndStrayArgumentsAsTyped() {
        assertEquals(List.of(List.of()), CommandTreeWalk.check("eventindex sql",
                args -> CommandTreeWalk.capture((o, e) -> SqlMain.run(args, new ByteArrayInputStream(new byte[0]), o,
                        e))));
    }

    /** -f names the file and the reason, before Kudu or Spark is touched (no Kudu listens on port 1). */
    @Test
    void anUnreadableScriptIsAUsageErrorNamingTheFileAndTheReason(@TempDir Path dir) {
        Path missing = dir.resolve("queries.sql");
        assertEquals(2, run("--kudu-master", "127.0.0.1:1", "-f", missing.toString()));
        assertEquals("sql: cannot read " + missing + ": no such file or directory",
                err.toString(StandardCharsets.UTF_8).strip());
    }

}
