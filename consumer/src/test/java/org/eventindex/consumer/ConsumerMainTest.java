package org.eventindex.consumer;

import java.util.List;
import java.util.Map;
import org.eventindex.testing.CommandTreeWalk;
import org.eventindex.testing.ConfigKeysFileCheck;
import org.eventindex.ProjectVersion;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ConsumerMainTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return ConsumerMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void badUsageExitsWith2() {
        assertEquals(2, run());
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("Usage: eventindex consumer [-hV] [COMMAND]"),
                err.toString(StandardCharsets.UTF_8));
        assertEquals(2, run("start", "--config", "x"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("eventindex consumer: Unmatched argument"));
        assertEquals(2, run("run"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("run: Missing required option: '--config=FILE'"));
    }

    /** Every command its help lists, as typed: help, version, an unknown option and stray arguments. */
    @Test
    void everyListedCommandHasHelpAndVersionAndRefusesUnknownOptionsAndStrayArguments() {
        List<List<String>> visited = CommandTreeWalk.check("eventindex consumer",
                args -> CommandTreeWalk.capture((o, e) -> ConsumerMain.run(args, o, e)));
        assertTrue(visited.containsAll(List.of(List.of(),
                List.of("run"),
                List.of("config-keys"))), visited.toString());
    }

    private static String[] with(String[] prefix, String... args) {
        String[] all = java.util.Arrays.copyOf(prefix, prefix.length + args.length);
        System.arraycopy(args, 0, all, prefix.length, args.length);
        return all;
    }

    @Test
    void badConfigurationExitsWith2NamingTheProblem() throws IOException {
        Path file = Files.writeString(dir.resolve("c.properties"), "consumer.fetch.threads = 0\n");
        assertEquals(2, run("run", "--config", file.toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("consumer.fetch.threads must be in 1..256"),
                err.toString(StandardCharsets.UTF_8));
        assertEquals(2, run("run", "--config", dir.resolve("missing.properties").toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("cannot read consumer configuration"));
    }

    /** A known cluster error (here an unknown HDFS nameservice) is one ERROR line, without the stack trace. */
    @Test
    void aKnownClusterErrorAtTheStartIsLoggedInOneLineWithoutTheTrace() throws IOException {
        Path file = Files.writeString(dir.resolve("c.properties"),
                "consumer.hdfs.uri = hdfs://eventindex-ns-undefined\nconsumer.spool.dir = " + dir.resolve("spool")
                + "\nconsumer.http.port = 0\n");
        java.io.PrintStream original = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        int code;
        // slf4j-simple writes each line to the System.err of the moment
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
        try {
            code = run("run", "--config", file.toString());
        } finally {
            System.setErr(original);
        }
        String logged = log.toString(StandardCharsets.UTF_8);
        original.print(logged);
        assertEquals(1, code, err.toString(StandardCharsets.UTF_8));
        String printed = err.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("unknown host or nameservice 'eventindex-ns-undefined'"), printed);
        java.util.List<String> lines = logged.lines().toList();
        int at = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("could not start")) {
                at = i;
            }
        }
        assertTrue(at >= 0, logged);
        assertTrue(lines.get(at).contains("ERROR") && lines.get(at).contains("unknown host or nameservice"
                + " 'eventindex-ns-undefined'"), lines.get(at));
        // no trace after it: the next line, if any, is not a stack frame or a cause
        assertTrue(at + 1 == lines.size() || !lines.get(at + 1).startsWith("\tat ")
                && !lines.get(at + 1).startsWith("Caused by") && !lines.get(at + 1).startsWith("java."), logged);
    }

    @Test
    void aSecretFileOthersCanReadStopsTheStartWithoutShowingTheSecret() throws IOException {
        String secret = "s3-secret-" + System.nanoTime();
        Path sk = Files.writeString(dir.resolve("s3.secret"), secret);
        Files.setPosixFilePermissions(sk, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        Path file = Files.writeString(dir.resolve("c.properties"), "consumer.s3.secret.key.file = " + sk + "\n");
        assertEquals(2, run("run", "--config", file.toString()));
        String text = err.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("consumer.s3.secret.key.file: secret file " + sk + " has mode rw-r--r--"), text);
        assertTrue(text.contains("chmod 600 " + sk), text);
        assertTrue(!text.contains(secret), text);
    }

    @Test
    void configKeysPrintsAPropertiesFileOfEveryKeyWithItsDefaultThatTheConsumerReads() throws IOException {
        assertEquals(0, run("config-keys"), err.toString(StandardCharsets.UTF_8));
        java.util.Properties loaded = ConfigKeysFileCheck.assertValid(out.toString(StandardCharsets.UTF_8),
                ConsumerConfig.KEYS.stream().map(k -> new ConfigKeysFileCheck.Key(k.name(), k.defaultValue(), k.envVar(),
                        k.doc())).toList());
        assertEquals(ConsumerConfig.fromProperties(new java.util.Properties(), Map.of()).toString(),
                ConsumerConfig.fromProperties(loaded, Map.of()).toString());
    }


    @Test
    void anUnreadableConfigurationIsNamedWithTheReason() {
        Path missing = dir.resolve("nope.properties");
        assertEquals(2, run("run", "--config", missing.toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("cannot read consumer configuration " + missing
                + ": no such file or directory"), err.toString(StandardCharsets.UTF_8));
    }

}
