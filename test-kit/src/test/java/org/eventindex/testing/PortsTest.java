package org.eventindex.testing;

import org.junit.jupiter.api.Test;

import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

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
            assertEquals("claimed true", out.readLine(), "the other JVM's claim");
            assertFalse(Ports.claim(dir, port), "claimed here while the other JVM holds it");
            other.getOutputStream().close();
            assertTrue(other.waitFor(60, TimeUnit.SECONDS), "the other JVM did not exit");
            assertTrue(Ports.claim(dir, port), "not claimed here once the other JVM exited");
            assertFalse(Ports.claim(dir, port), "claimed twice by this JVM");
        } finally {
            other.destroyForcibly();
        }
    }
}
