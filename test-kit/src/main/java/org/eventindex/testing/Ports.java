package org.eventindex.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free TCP ports on the loopback address, for the services and daemons a test or the harness starts. */
public final class Ports {
    private Ports() {
    }

    /**
     * A TCP port free on 127.0.0.1 a moment ago: the caller binds it (or hands it to the process that binds it) soon
     * after, and may keep it fixed so that a restarted process gets the same one. Also a port where nothing listens,
     * for a test of a dead endpoint.
     *
     * @throws UncheckedIOException when no port can be bound
     */
    public static int free() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free TCP port on 127.0.0.1", e);
        }
    }
}
