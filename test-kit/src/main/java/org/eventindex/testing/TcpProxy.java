package org.eventindex.testing;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fault-injecting TCP proxy for tests: listens on 127.0.0.1 (free port) and forwards every connection to one target.
 * It counts connections and occurrences of byte patterns per direction, and can cut a connection (both sockets
 * closed, the triggering bytes never forwarded) the first time a pattern passes, optionally running an action first
 * (e.g. stopping the broker behind it). Patterns are found across read boundaries.
 *
 * <p>For chaos runs it also injects latency (every chunk forwarded after a delay, in both directions) and resets
 * (every open connection aborted with a TCP RST, as a crashed middlebox or a flapping network would); the proxy itself
 * keeps accepting, so clients that reconnect get through.
 */
public final class TcpProxy implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(TcpProxy.class);

    /** Which way bytes travel. */
    public enum Direction { CLIENT_TO_SERVER, SERVER_TO_CLIENT }

    private final InetSocketAddress target;
    private final ServerSocket server;
    private final AtomicInteger connections = new AtomicInteger();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<Watch> watches = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong resets = new AtomicLong();
    private volatile long latencyNanos;

    private TcpProxy(InetSocketAddress target, ServerSocket server) {
        this.target = target;
        this.server = server;
    }

    /** Starts forwarding to {@code host:port}, listening on 127.0.0.1 (a free port). */
    public static TcpProxy start(String host, int port) {
        return start(InetAddress.getLoopbackAddress(), 0, host, port);
    }

    /**
     * Starts forwarding to {@code host:port}, listening on {@code listen:listenPort} (0 for a free port): a proxy on
     * a host of a {@link org.eventindex.testing.hosts.HostNetwork}, reached at that host's address.
     */
    public static TcpProxy start(InetAddress listen, int listenPort, String host, int port) {
        requireNonNull(listen, "listen is null");
        requireNonNull(host, "host is null");
        try {
            ServerSocket s = new ServerSocket(listenPort, 50, listen);
            TcpProxy proxy = new TcpProxy(new InetSocketAddress(host, port), s);
            Thread t = new Thread(proxy::acceptLoop, "tcp-proxy-" + s.getLocalPort());
            t.setDaemon(true);
            t.start();
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a proxy port for " + host + ":" + port, e);
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    /** {@code ADDRESS:PORT} it listens on ({@code 127.0.0.1:PORT} unless started on another address). */
    public String endpoint() {
        return server.getInetAddress().getHostAddress() + ":" + port();
    }

    /** Connections accepted so far. */
    public int connections() {
        return connections.get();
    }

    /** Counts from now on how often {@code pattern} (UTF-8) passes in {@code direction}. */
    public AtomicLong count(Direction direction, String pattern) {
        Watch w = new Watch(direction, bytes(pattern), null, false);
        watches.add(w);
        return w.count;
    }

    /**
     * The first time {@code pattern} passes in {@code direction}, the bytes read with it are dropped, {@code action}
     * runs (on the proxy's thread, before anything else is forwarded) and the connection is cut.
     *
     * @return how many times the cut happened (0 or 1)
     */
    public AtomicLong cutOnce(Direction direction, String pattern, Runnable action) {
        Watch w = new Watch(direction, bytes(pattern), requireNonNull(action, "action is null"), true);
        watches.add(w);
        return w.count;
    }

    /**
     * The first time {@code pattern} passes in {@code direction}, {@code action} runs on the proxy's thread before the
     * bytes read with it are forwarded (they are forwarded once it returns; the connection stays): an action that
     * blocks holds that connection's bytes back at that moment, e.g. an S3 upload's response while a test cuts its
     * client from elsewhere.
     *
     * @return how many times the action ran (0 or 1)
     */
    public AtomicLong holdOnce(Direction direction, String pattern, Runnable action) {
        Watch w = new Watch(direction, bytes(pattern), requireNonNull(action, "action is null"), false);
        watches.add(w);
        return w.count;
    }

    /** Delays every chunk forwarded from now on by {@code delay} (both directions); {@code Duration.ZERO} lifts it. */
    public void latency(java.time.Duration delay) {
        requireNonNull(delay, "delay is null");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative: " + delay);
        }
        latencyNanos = delay.toNanos();
    }

    /** The latency currently injected. */
    public java.time.Duration latency() {
        return java.time.Duration.ofNanos(latencyNanos);
    }

    /**
     * Aborts every open connection: both sockets closed with SO_LINGER 0, so each peer sees a TCP RST. New
     * connections are still accepted.
     *
     * @return the number of sockets aborted (two per proxied connection)
     */
    public int resetAll() {
        // Snapshot first: closing one side makes its pump close and forget the other side concurrently.
        List<Socket> open = sockets.stream().filter(s -> !s.isClosed()).toList();
        for (Socket s : open) {
            try {
                s.setSoLinger(true, 0);
            } catch (IOException e) {
                LOG.debug("SO_LINGER on {} failed", s, e);
            }
        }
        for (Socket s : open) {
            closeQuietly(s);
            sockets.remove(s);
        }
        resets.addAndGet(open.size());
        return open.size();
    }

    /** Sockets aborted by {@link #resetAll()} so far. */
    public long resets() {
        return resets.get();
    }

    /** Proxied connections open right now. */
    public int openConnections() {
        return (int) sockets.stream().filter(s -> !s.isClosed()).count() / 2;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        closeQuietly(server);
        sockets.forEach(TcpProxy::closeQuietly);
    }

    private void acceptLoop() {
        while (!closed.get()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (!closed.get()) {
                    LOG.warn("proxy to {} stopped accepting: {}", target, e.toString());
                }
                return;
            }
            connections.incrementAndGet();
            sockets.add(client);
            Socket upstream = new Socket();
            try {
                upstream.connect(target, 5000);
            } catch (IOException e) {
                // Like a dead server behind a live address: the client sees its connection closed.
                closeQuietly(client);
                closeQuietly(upstream);
                sockets.remove(client);
                continue;
            }
            sockets.add(upstream);
            pump(client, upstream, Direction.CLIENT_TO_SERVER);
            pump(upstream, client, Direction.SERVER_TO_CLIENT);
        }
    }

    private void pump(Socket from, Socket to, Direction direction) {
        Thread t = new Thread(() -> {
            int keep = watches.stream().mapToInt(w -> w.pattern.length).max().orElse(1) - 1;
            byte[] tail = new byte[0];
            byte[] buf = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    byte[] window = new byte[tail.length + n];
                    System.arraycopy(tail, 0, window, 0, tail.length);
                    System.arraycopy(buf, 0, window, tail.length, n);
                    if (inspect(direction, window, tail.length)) {
                        break;
                    }
                    long delay = latencyNanos;
                    if (delay > 0) {
                        // The injected fault itself: this connection's bytes are held back, others flow on.
                        java.util.concurrent.locks.LockSupport.parkNanos(delay);
                    }
                    out.write(buf, 0, n);
                    out.flush();
                    int k = Math.min(keep, window.length);
                    tail = java.util.Arrays.copyOfRange(window, window.length - k, window.length);
                }
            } catch (IOException e) {
                LOG.debug("proxy {} pump ended: {}", direction, e.toString());
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "tcp-proxy-" + port() + "-" + direction);
        t.setDaemon(true);
        t.start();
    }

    /** @return true when the connection must be cut */
    private boolean inspect(Direction direction, byte[] window, int newFrom) {
        boolean cut = false;
        for (Watch w : watches) {
            if (w.direction != direction) {
                continue;
            }
            int found = occurrences(window, w.pattern, newFrom);
            if (found == 0) {
                continue;
            }
            if (!w.cut && w.action == null) {
                w.count.addAndGet(found);
            } else if (!w.cut) {
                if (w.fired.compareAndSet(false, true)) {
                    w.count.incrementAndGet();
                    w.action.run();
                }
            } else if (w.fired.compareAndSet(false, true)) {
                w.count.incrementAndGet();
                w.action.run();
                cut = true;
            }
        }
        return cut;
    }

    /** Occurrences of {@code pattern} in {@code window} that end at or after index {@code newFrom}. */
    private static int occurrences(byte[] window, byte[] pattern, int newFrom) {
        int n = 0;
        for (int i = Math.max(0, newFrom - pattern.length + 1); i + pattern.length <= window.length; i++) {
            int j = 0;
            while (j < pattern.length && window[i + j] == pattern[j]) {
                j++;
            }
            if (j == pattern.length) {
                n++;
            }
        }
        return n;
    }

    private static byte[] bytes(String pattern) {
        requireNonNull(pattern, "pattern is null");
        if (pattern.isEmpty()) {
            throw new IllegalArgumentException("pattern is empty");
        }
        return pattern.getBytes(StandardCharsets.UTF_8);
    }

    private static void closeQuietly(Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            LOG.debug("close failed", e);
        }
    }

    private static final class Watch {
        final Direction direction;
        final byte[] pattern;
        final Runnable action;
        final boolean cut;
        final AtomicLong count = new AtomicLong();
        final AtomicBoolean fired = new AtomicBoolean();

        Watch(Direction direction, byte[] pattern, Runnable action, boolean cut) {
            this.direction = requireNonNull(direction, "direction is null");
            this.pattern = pattern;
            this.action = action;
            this.cut = cut;
        }
    }
}
