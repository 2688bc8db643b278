package org.eventindex.preflight;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The supervisors' ZooKeeper quorum ({@code supervisor.ha.store=zookeeper}): a session is opened within the timeout
 * and the lease's znode can be read (present, or absent before the first start).
 */
final class ZooKeeperCheck {
    private ZooKeeperCheck() {
    }

    /**
     * @throws IOException naming the servers when none answered within three quarters of {@code timeout}
     */
    static void probe(String connect, String root, Duration timeout) throws Exception {
        // within the check's own timeout, so that the failure says which servers did not answer
        int millis = (int) Math.max(500, timeout.toMillis() * 3 / 4);
        try (CuratorFramework zk = CuratorFrameworkFactory.builder().connectString(connect)
                .sessionTimeoutMs(Math.max(millis, 4000)).connectionTimeoutMs(millis)
                .retryPolicy(new RetryOneTime(100)).build()) {
            zk.start();
            if (!zk.blockUntilConnected(millis, TimeUnit.MILLISECONDS)) {
                throw new IOException("no ZooKeeper server of " + connect + " answered within " + millis + " ms");
            }
            zk.checkExists().forPath(root);
        }
    }
}
