package org.eventindex.deploy.chaos;

import org.eventindex.deploy.DaemonProcesses;
import org.eventindex.testing.hosts.Host;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.time.Duration;

/**
 * Waits for a process started on a host of a network ({@link HostsCluster}, {@link ChaosCluster}), from the driver's
 * host: until it listens, until its {@code /ready} answers 200; each fails early when the process exits.
 */
final class HostProcesses {
    private HostProcesses() {
    }

    /** Waits until {@code host:port} takes a TCP connection, failing early on an exit of {@code p}. */
    static void awaitListening(ChildProcess p, Host host, int port, Duration timeout) {
        ChaosWait.until(p.name() + " listening on " + host.endpoint(port) + " (log " + p.log() + ")", timeout, () -> {
            requireAlive(p);
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host.address(), port), 1000);
                return true;
            } catch (IOException e) {
                return false;
            }
        });
    }

    /** Waits until {@code daemon}'s {@code /ready} on {@code host:port} answers 200. */
    static void awaitReady(HttpClient http, ChildProcess daemon, Host host, int port, Duration timeout) {
        ChaosWait.until(daemon.name() + " ready on " + host + " (log " + daemon.log() + ")", timeout, () -> {
            requireAlive(daemon);
            return DaemonProcesses.get(http, host.address(), port, "/ready").map(r -> r.statusCode() == 200)
                    .orElse(false);
        });
    }

    private static void requireAlive(ChildProcess p) {
        if (!p.isAlive()) {
            throw new IllegalStateException(p.name() + " exited; see " + p.log());
        }
    }
}
