package org.eventindex.cluster;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.eventindex.testing.Ports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Real HDFS and Kudu clients against a port nobody listens on, and an HDFS nameservice nobody defined. */
class ClusterErrorsTest {
    private static Configuration noRetries() {
        Configuration conf = new Configuration();
        conf.setInt("ipc.client.connect.max.retries", 0);
        conf.setInt("ipc.client.connect.max.retries.on.timeouts", 0);
        return conf;
    }

    @Test
    void unreachableNameNodeIsNamed() throws Exception {
        int port = Ports.free();
        URI uri = URI.create("hdfs://127.0.0.1:" + port + "/");
        ClusterAccess access = ClusterAccess.unsecured(noRetries());
        try (FileSystem fs = access.fileSystem(uri)) {
            IOException e = assertThrows(IOException.class,
                    () -> access.hdfsCall(uri, () -> fs.getFileStatus(new Path("/eventindex"))));
            assertTrue(e.getMessage().startsWith("HDFS NameNode 127.0.0.1:" + port + " of " + uri + " unreachable"),
                    e.getMessage());
            assertTrue(e.getMessage().contains("Connection refused"), e.getMessage());
            assertFalse(e.getMessage().contains("\n") || e.getMessage().contains("at org."), e.getMessage());
        }
    }

    @Test
    void unknownNameserviceHintsAtTheConfigurationFolder() {
        URI uri = URI.create("hdfs://eventindex-ns-undefined/eventindex");
        ClusterSettings settings = ClusterSettings.of(null, "", "", Map.of(), ClusterSettings.Names.keys("consumer."));
        ClusterAccess access = ClusterAccess.open(settings, noRetries(), null);
        IOException e = assertThrows(IOException.class, () -> {
            try (FileSystem fs = access.fileSystem(uri)) {
                access.hdfsCall(uri, () -> fs.getFileStatus(new Path("/")));
            }
        });
        assertTrue(e.getMessage().contains("unknown host or nameservice 'eventindex-ns-undefined'"), e.getMessage());
        assertTrue(e.getMessage().contains("consumer.hadoop.conf.dir or HADOOP_CONF_DIR (now: none given)"),
                e.getMessage());
        assertTrue(e.getMessage().contains("dfs.ha.namenodes.eventindex-ns-undefined"), e.getMessage());
    }

    @Test
    void unreachableKuduMastersAreNamedWithTheWait() throws Exception {
        int a = Ports.free();
        int b = Ports.free();
        String masters = "127.0.0.1:" + a + ",127.0.0.1:" + b;
        ClusterAccess access = ClusterAccess.unsecured(new Configuration());
        long start = System.nanoTime();
        IOException e = assertThrows(IOException.class, () -> access.connectedKuduClient(masters,
                Duration.ofSeconds(3)));
        long waited = Duration.ofNanos(System.nanoTime() - start).toSeconds();
        assertTrue(waited >= 3 && waited < 30, "waited the timeout: " + waited + " s");
        assertTrue(e.getMessage().matches("Kudu masters " + masters + " unreachable after [34] s \\(connection"
                + " refused\\)"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }

    @Test
    void mastersAreAskedWhyWhenKuduNamesNoReason() throws Exception {
        String closed = "127.0.0.1:" + Ports.free() + ",127.0.0.1:" + Ports.free();
        assertEquals(Optional.of("connection refused"), ClusterErrors.refusedByEveryMaster(closed));
        assertEquals(Optional.of("unknown host"), ClusterErrors.refusedByEveryMaster("no-such-host.invalid:7051"));
        try (ServerSocket listening = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            // one master accepts connections: it may be slow rather than down, so no reason is made up
            assertEquals(Optional.empty(), ClusterErrors.refusedByEveryMaster("127.0.0.1:" + Ports.free()
                    + ",127.0.0.1:" + listening.getLocalPort()));
        }
        assertEquals(Optional.empty(), ClusterErrors.refusedByEveryMaster("no-port-given"));
    }
}
