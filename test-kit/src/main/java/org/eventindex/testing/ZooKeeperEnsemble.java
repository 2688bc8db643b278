package org.eventindex.testing;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A ZooKeeper ensemble of real servers (Curator's {@link TestingCluster}: each server a full quorum peer, in this
 * JVM), on ports from {@link Ports}, its data under a test's folder. Needs {@code curator-test} on the test class path.
 */
public final class ZooKeeperEnsemble implements AutoCloseable {
    /** The servers' tick: a session timeout is bounded to 2 to 20 ticks. */
    public static final int TICK_MILLIS = 500;
    private final TestingCluster cluster;
    private final Duration startTime;

    private ZooKeeperEnsemble(TestingCluster cluster, Duration startTime) {
        this.cluster = cluster;
        this.startTime = startTime;
    }

    /** Starts {@code servers} servers (3 for a quorum that survives one down) and waits until they serve. */
    public static ZooKeeperEnsemble start(Path dir, int servers) {
        requireNonNull(dir, "dir is null");
        long t0 = System.nanoTime();
        try {
            List<InstanceSpec> specs = new ArrayList<>();
            for (int i = 1; i <= servers; i++) {
                Path data = Files.createDirectories(dir.toAbsolutePath().resolve("zk" + i));
                // a 500 ms tick: sessions may be as short as 1 s (2 ticks), so that tests of a takeover are quick
                specs.add(new InstanceSpec(data.toFile(), Ports.free(), Ports.free(), Ports.free(), true, i,
                        TICK_MILLIS, -1));
            }
            TestingCluster cluster = new TestingCluster(specs);
            cluster.start();
            return new ZooKeeperEnsemble(cluster, Duration.ofNanos(System.nanoTime() - t0));
        } catch (IOException e) {
            throw new UncheckedIOException("ZooKeeper ensemble under " + dir + " did not start", e);
        } catch (Exception e) {
            throw new IllegalStateException("ZooKeeper ensemble under " + dir + " did not start: " + e, e);
        }
    }

    /** {@code 127.0.0.1:p1,127.0.0.1:p2,...}. */
    public String connectString() {
        return cluster.getConnectString();
    }

    /** Stops server {@code i} (0-based); the others keep the quorum while a majority is up. */
    public void stopServer(int i) {
        try {
            cluster.killServer(cluster.getInstances().stream().toList().get(i));
        } catch (Exception e) {
            throw new IllegalStateException("could not stop ZooKeeper server " + i + ": " + e, e);
        }
    }

    /** Wall time {@link #start} took. */
    public Duration startTime() {
        return startTime;
    }

    @Override
    public void close() {
        try {
            cluster.close();
        } catch (IOException e) {
            throw new UncheckedIOException("ZooKeeper ensemble did not stop", e);
        }
    }
}
