package org.eventindex.testing;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The proxy's chaos modes against a one-byte echo server: latency delays each round trip, resets abort connections. */
class TcpProxyTest {
    private ServerSocket echo;
    private TcpProxy proxy;

    @BeforeEach
    void startEcho() throws IOException {
        echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!echo.isClosed()) {
                try {
                    Socket s = echo.accept();
                    Thread c = new Thread(() -> {
                        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                            int b;
                            while ((b = in.read()) >= 0) {
                                out.write(b);
                                out.flush();
                            }
                        } catch (IOException e) {
                            // the client went away
                        }
                    });
                    c.setDaemon(true);
                    c.start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
        proxy = TcpProxy.start("127.0.0.1", echo.getLocalPort());
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        echo.close();
    }

    private static int roundTrip(Socket s, int value) throws IOException {
        s.getOutputStream().write(value);
        s.getOutputStream().flush();
        return s.getInputStream().read();
    }

    @Test
    void latencyDelaysEveryRoundTripInBothDirectionsAndCanBeLifted() throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            assertEquals(7, roundTrip(s, 7));
            proxy.latency(Duration.ofMillis(150));
            long t0 = System.nanoTime();
            assertEquals(8, roundTrip(s, 8));
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(tookMs >= 300, "a round trip crosses the proxy twice, 150 ms each way; took " + tookMs + " ms");
            proxy.latency(Duration.ZERO);
            assertEquals(Duration.ZERO, proxy.latency());
            assertEquals(9, roundTrip(s, 9));
        }
        assertThrows(IllegalArgumentException.class, () -> proxy.latency(Duration.ofMillis(-1)));
    }

    @Test
    void resetAbortsOpenConnectionsButNewOnesGetThrough() throws IOException {
        Socket a = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
        Socket b = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
        try (a; b) {
            assertEquals(1, roundTrip(a, 1));
            assertEquals(2, roundTrip(b, 2));
            Await.until("two proxied connections", Duration.ofSeconds(10), () -> proxy.openConnections() == 2);
            assertEquals(4, proxy.resetAll(), "client and upstream socket of each connection");
            assertEquals(4, proxy.resets());
            // The peer sees the abort: a reset (exception) or end of stream, never the echo.
            int got;
            try {
                got = roundTrip(a, 3);
            } catch (SocketException expected) {
                got = -1;
            }
            assertEquals(-1, got, "the reset connection must not deliver data");
        }
        try (Socket c = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            assertEquals(5, roundTrip(c, 5));
        }
        assertEquals(3, proxy.connections());
    }

    @Test
    void holdOnceHoldsTheMatchingBytesUntilItsActionReturnsThenForwardsThemOnTheSameConnection() throws Exception {
        java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicLong held = proxy.holdOnce(TcpProxy.Direction.SERVER_TO_CLIENT, "A", () -> {
            holding.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            s.getOutputStream().write('A');
            s.getOutputStream().flush();
            assertTrue(holding.await(10, java.util.concurrent.TimeUnit.SECONDS), "the echo of A reached the watch");
            assertEquals(0, s.getInputStream().available(), "nothing forwarded while the action runs");
            release.countDown();
            assertEquals('A', s.getInputStream().read(), "forwarded once the action returned");
            assertEquals('A', roundTrip(s, 'A'), "the connection stays, and the watch fires once only");
        }
        assertEquals(1, held.get());
    }
}
