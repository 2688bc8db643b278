package org.eventindex.consumer;

import org.junit.jupiter.api.Test;
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

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return ConsumerMain.run(args, new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void badUsageExitsWith2() {
        assertEquals(2, run());
        assertEquals(2, run("start", "--config", "x"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("usage: ConsumerMain run --config"));
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
