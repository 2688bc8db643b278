package org.eventindex.testing;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Ports for servers that restart lie below the ephemeral range, where no outgoing connection is given one. */
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
}
