package org.eventindex.consumer;

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
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("Usage: consumer [-hV] [COMMAND]"), err.toString(
                StandardCharsets.UTF_8));
        assertEquals(2, run("start", "--config", "x"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("consumer: Unmatched argument"));
        assertEquals(2, run("run"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("run: Missing required option: '--config=FILE'"));
    }

    /** Every command: --help prints its usage, --version the project version (exit 0); unknown options exit 2. */
    @ParameterizedTest
    @ValueSource(strings = {"", "run"})
    void everyCommandHasHelpAndVersionAndRefusesUnknownOptions(String command) {
        String name = command.isEmpty() ? "consumer" : "consumer " + command;
        String[] prefix = command.isEmpty() ? new String[0] : new String[]{command};
        assertEquals(0, run(with(prefix, "--help")));
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("Usage: " + name), out.toString(
                StandardCharsets.UTF_8));
        out.reset();
        assertEquals(0, run(with(prefix, "--version")));
        assertEquals(name + " " + ProjectVersion.get(), out.toString(StandardCharsets.UTF_8).strip());
        assertEquals(2, run(with(prefix, "--frobnicate")));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("Unknown option: '--frobnicate'"),
                err.toString(StandardCharsets.UTF_8));
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
}
