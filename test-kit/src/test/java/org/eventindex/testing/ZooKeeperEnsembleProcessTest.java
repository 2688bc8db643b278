package org.eventindex.testing;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.eventindex.testing.hosts.Host;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Three ZooKeeper servers as processes (on this machine's loopback: the hosts of a network need root, and
 * {@code SupervisorPartitionIT} runs them there): a quorum with one leader; a write survives the leader's stop, the
 * two left elect a new one and serve it; the stopped server comes back as a follower with the data; a paused server
 * answers nothing until it is resumed; with two of three stopped there is no quorum.
 */
class ZooKeeperEnsembleProcessTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void serversAsProcessesStopStartAndPauseOneAtATime() throws Exception {
        try (ZooKeeperEnsemble zk = ZooKeeperEnsemble.startProcesses(dir, List.of(Host.local(), Host.local(),
                Host.local()))) {
            assertEquals(3, zk.size());
            assertEquals(1, IntStream.range(0, 3).filter(i -> zk.mode(i).equals("leader")).count());
            byte[] value = "kept".getBytes(StandardCharsets.UTF_8);
            try (ZooKeeper client = connect(zk.connectString())) {
                client.create("/kept", value, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            }
            int leader = IntStream.range(0, 3).filter(i -> zk.mode(i).equals("leader")).findFirst().orElseThrow();
            zk.stopServer(leader);
            assertEquals("", zk.mode(leader));
            zk.awaitQuorum(TIMEOUT);
            int other = (leader + 1) % 3;
            try (ZooKeeper client = connect(zk.host(other).endpoint(zk.clientPort(other)))) {
                assertArrayEquals(value, client.getData("/kept", false, null));
            }
            zk.startServer(leader);
            zk.awaitQuorum(TIMEOUT);
            assertEquals("follower", zk.mode(leader), "a server that comes back follows the new leader");

            zk.pauseServer(leader);
            assertEquals("", zk.mode(leader), "a paused server answers nothing");
            zk.resumeServer(leader);
            Await.until("the resumed server answering", TIMEOUT, () -> !zk.mode(leader).isEmpty());

            zk.stopServer(leader);
            zk.stopServer(other);
            int last = 3 - leader - other;
            Await.until("the last server out of the quorum", TIMEOUT, () -> zk.mode(last).isEmpty());
        }
    }

    private static ZooKeeper connect(String connect) throws Exception {
        ZooKeeper client = new ZooKeeper(connect, 5000, e -> { });
        Await.until("a ZooKeeper session with " + connect, TIMEOUT, () -> client.getState().isConnected());
        return client;
    }
}
