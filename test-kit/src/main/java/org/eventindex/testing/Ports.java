package org.eventindex.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
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
     * through a restart must not be bound by another's meanwhile. JVMs given another {@code java.io.tmpdir} do not
     * see each other's claims.
     */
    static final Path CLAIMS = Path.of(System.getProperty("java.io.tmpdir"),
            "eventindex-test-ports-" + System.getProperty("user.name"));
    /**
     * The locks of the ports this JVM claimed, by lock file, held until it exits (the kernel releases them then, even
     * on a kill). A file is never opened twice here: closing a second channel to it would drop the first one's lock.
     */
    private static final Map<Path, FileLock> CLAIMED = new HashMap<>();
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    /** Channels that must not be closed: see {@link #claim}. */
    private static final List<FileChannel> KEPT_OPEN = new ArrayList<>();

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
     * when the lock cannot be taken at all (a folder of another user or that others may write, a file system without
     * locks): the port is then as safe as before claims existed.
     */
    static synchronized boolean claim(Path dir, int port) {
        FileChannel channel = null;
        try {
            Path file = ownFolder(dir).resolve(port + ".lock");
            if (CLAIMED.containsKey(file)) {
                return false;
            }
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
                return false;
            }
            CLAIMED.put(file, lock);
            return true;
        } catch (OverlappingFileLockException heldHere) {
            // this JVM holds the file's lock through another channel: closing this one would drop it (POSIX locks
            // belong to the process), so it stays open
            KEPT_OPEN.add(channel);
            return false;
        } catch (IOException | RuntimeException cannotLock) {
            close(channel);
            return true;
        }
    }

    /**
     * {@code dir}, created if missing, by its real path, when this user owns it and no one else may write it;
     * otherwise an IOException (another user's folder could hold every port's lock or plant links).
     */
    private static Path ownFolder(Path dir) throws IOException {
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        Path real = dir.toRealPath();
        PosixFileAttributes attributes = Files.readAttributes(real, PosixFileAttributes.class);
        if (!attributes.owner().getName().equals(System.getProperty("user.name"))
                || attributes.permissions().contains(PosixFilePermission.GROUP_WRITE)
                || attributes.permissions().contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IOException(real + " is not this user's own folder");
        }
        return real;
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
