package org.eventindex.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/** Free TCP ports on the loopback address, for the services and daemons a test or the harness starts. */
public final class Ports {
    /** The ports {@link #freeForRestart()} has given in this JVM: never given twice. */
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
    /** The kernel's ephemeral range starts here, read once: it does not change while the tests run. */
    private static final int EPHEMERAL_LOW = readEphemeralLow();
    /**
     * Where each JVM of the machine that hands out ports for restarts claims them, one lock file per port: the tests
     * of two modules ({@code mvn -T 2}) and the forks of one module run at once, and a port one JVM's server holds
     * through a restart must not be bound by another's meanwhile.
     */
    static final Path CLAIMS = Path.of(System.getProperty("java.io.tmpdir"),
            "eventindex-test-ports-" + System.getProperty("user.name"));
    /**
     * The locks of the ports this JVM claimed, by lock file, held until it exits (the kernel releases them then, even
     * on a kill). A file is never opened twice here: closing a second channel to it would drop the first one's lock.
     */
    private static final Map<Path, FileLock> CLAIMED = new HashMap<>();

    private Ports() {
    }

    /**
     * A TCP port free on 127.0.0.1 a moment ago: the caller binds it (or hands it to the process that binds it) soon
     * after. Also a port where nothing listens, for a test of a dead endpoint. A server that is stopped and started
     * again on the same port takes {@link #freeForRestart()} instead.
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

    /**
     * A TCP port free on 127.0.0.1 a moment ago and below the kernel's ephemeral range
     * ({@code net.ipv4.ip_local_port_range}), for a server a test stops and starts again on the same port. A port
     * from {@link #free()} lies in that range: while its server is down the kernel may give it to any outgoing
     * connection of the machine (a whole suite makes many), and the restart cannot bind it (a ZooKeeper server then
     * exits the JVM it runs in). No outgoing connection is given a port below the range, this JVM never hands out
     * the same one twice, and no other JVM of the machine that takes its ports here hands out one this JVM did
     * ({@link #claim}).
     *
     * @throws UncheckedIOException when no port can be bound
     */
    public static int freeForRestart() {
        int low = ephemeralLow();
        int from = Math.max(1024, low - 16384);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 256 && from < low; attempt++) {
            int port = random.nextInt(from, low);
            if (!HANDED_OUT.add(port)) {
                continue; // given to another server of this JVM, which may not have bound it yet or be down
            }
            if (!claim(CLAIMS, port)) {
                continue; // another JVM of the machine gave it to one of its servers
            }
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
                return port;
            } catch (IOException taken) {
                // another one
            }
        }
        return free();
    }

    /**
     * Claims {@code port} for this JVM among the JVMs that claim ports in {@code dir}: a lock on {@code dir/PORT.lock},
     * kept until the JVM exits. False when another process, or this JVM already, holds it. True, without a claim,
     * when the lock cannot be taken at all (a folder of another user, a file system without locks): the port is then
     * as safe as before claims existed.
     */
    static synchronized boolean claim(Path dir, int port) {
        Path file = dir.resolve(port + ".lock").toAbsolutePath();
        if (CLAIMED.containsKey(file)) {
            return false;
        }
        FileChannel channel = null;
        try {
            Files.createDirectories(dir);
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
                return false;
            }
            CLAIMED.put(file, lock);
            return true;
        } catch (IOException | RuntimeException cannotLock) {
            close(channel);
            return true;
        }
    }

    private static void close(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // it held nothing
            }
        }
    }

    /** The first port of the kernel's ephemeral range; 32768 (Linux's default) when it cannot be read. */
    static int ephemeralLow() {
        return EPHEMERAL_LOW;
    }

    private static int readEphemeralLow() {
        try {
            // read as lines: Files.readString of this proc file returns its first byte only (its size reads as 0)
            String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0);
            return Integer.parseInt(range.trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32768;
        }
    }
}
