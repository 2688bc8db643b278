package org.eventindex.testing;

import org.junit.jupiter.api.Test;

import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Ports for servers that restart lie below the ephemeral range, where no outgoing connection is given one, and are
 * claimed by one JVM of the machine at a time.
 */
class PortsTest {
    @Test
    void aPortForARestartIsBelowTheEphemeralRangeAndFree() throws IOException {
        int low = Ports.ephemeralLow();
        for (int i = 0; i < 20; i++) {
            int port = Ports.freeForRestart();
            assertTrue(port >= 1024 && port < low, port + " is not in [1024, " + low + ")");
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                assertEquals(port, s.getLocalPort());
            }
        }
    }

    @Test
    void aPortAnotherJvmClaimedIsNotClaimedHereUntilThatJvmExits(@TempDir Path dir) throws Exception {
        int port = 20_000 + (int) (ProcessHandle.current().pid() % 10_000); // a lock file's name only: nothing binds
        Process other = ChildJvm.main(PortClaimHolder.class).quickStart().args(dir.toString(), String.valueOf(port))
                .builder().redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(other.getInputStream(),
                    StandardCharsets.UTF_8));
            // the JVM may print lines of its own first (a "Picked up JAVA_TOOL_OPTIONS", a VM warning)
            String claimed = CompletableFuture.supplyAsync(() -> {
                try {
                    String line;
                    while ((line = out.readLine()) != null && !line.startsWith("claimed ")) {
                        // not the holder's
                    }
                    return line;
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).get(60, TimeUnit.SECONDS);
            assertEquals("claimed true", claimed, "the other JVM's claim");
            assertFalse(Ports.claim(dir, port), "claimed here while the other JVM holds it");
            other.getOutputStream().close();
            assertTrue(other.waitFor(60, TimeUnit.SECONDS), "the other JVM did not exit");
            assertTrue(Ports.claim(dir, port), "not claimed here once the other JVM exited");
            assertFalse(Ports.claim(dir, port), "claimed twice by this JVM");
        } finally {
            other.destroyForcibly();
        }
    }

    /** A folder others may write could hold every port's lock or plant links: it is not used, as if locks failed. */
    @Test
    void aFolderOthersMayWriteIsNotUsed(@TempDir Path parent) throws IOException {
        Path shared = Files.createDirectory(parent.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        int port = 20_000 + (int) (ProcessHandle.current().pid() % 10_000);
        assertTrue(Ports.claim(shared, port));
        assertTrue(Ports.claim(shared, port), "a claim was held in a folder others may write");
        try (Stream<Path> files = Files.list(shared)) {
            assertEquals(0, files.count(), "a lock file was made in a folder others may write");
        }
    }
}
