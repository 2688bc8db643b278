package org.eventindex.consumer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.MiniDFSNNTopology;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.cluster.ClusterSettings;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The consumer's HDFS commit to {@code hdfs://eventindex-ns/...}, a nameservice known only from the hdfs-site.xml of
 * a Hadoop configuration folder ({@code consumer.hadoop.conf.dir}), on a MiniDFSCluster HA pair; the active NameNode
 * changes between two commits.
 */
class HaNameserviceCommitTest {
    private static final String NS = "eventindex-ns";
    @TempDir
    static java.nio.file.Path tmp;
    static MiniDFSCluster cluster;
    static java.nio.file.Path confDir;

    @BeforeAll
    static void startHaPair() throws IOException {
        Configuration conf = new Configuration();
        conf.set("dfs.namenode.safemode.extension", "0");
        cluster = new MiniDFSCluster.Builder(conf, tmp.resolve("dfs").toFile())
                .nnTopology(MiniDFSNNTopology.simpleHATopology()).numDataNodes(1).build();
        cluster.waitActive();
        cluster.transitionToActive(0);
        confDir = Files.createDirectories(tmp.resolve("hadoop-conf"));
        InetSocketAddress nn1 = cluster.getNameNode(0).getNameNodeAddress();
        InetSocketAddress nn2 = cluster.getNameNode(1).getNameNodeAddress();
        Files.writeString(confDir.resolve("core-site.xml"), site(Map.of("fs.defaultFS", "hdfs://" + NS)));
        Files.writeString(confDir.resolve("hdfs-site.xml"), site(Map.of(
                "dfs.nameservices", NS,
                "dfs.ha.namenodes." + NS, "nn1,nn2",
                "dfs.namenode.rpc-address." + NS + ".nn1", "127.0.0.1:" + nn1.getPort(),
                "dfs.namenode.rpc-address." + NS + ".nn2", "127.0.0.1:" + nn2.getPort(),
                "dfs.client.failover.proxy.provider." + NS,
                "org.apache.hadoop.hdfs.server.namenode.ha.ConfiguredFailoverProxyProvider",
                // a failover finds the standby first: retry quickly
                "dfs.client.failover.sleep.base.millis", "50",
                "dfs.client.failover.sleep.max.millis", "500")));
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.shutdown();
        }
    }

    private static String site(Map<String, String> properties) {
        StringBuilder b = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
        properties.forEach((k, v) -> b.append("  <property><name>").append(k).append("</name><value>").append(v)
                .append("</value></property>\n"));
        return b.append("</configuration>\n").toString();
    }

    private static Path commit(HdfsCommitter committer, String dataset, String content) throws IOException {
        try (HdfsCommitter.PendingFile p = committer.begin("cont", dataset, "sig-" + dataset)) {
            p.stream().write(content.getBytes(StandardCharsets.UTF_8));
            return p.commit();
        }
    }

    @Test
    void commitsThroughTheNameserviceOfTheConfigurationFolderAcrossAFailover() throws Exception {
        ClusterSettings settings = ClusterSettings.of(confDir.toString(), "", "", Map.of(),
                ClusterSettings.Names.keys("consumer."));
        URI uri = URI.create("hdfs://" + NS);
        try (ClusterAccess access = ClusterAccess.open(settings, null)) {
            FileContext fc = access.fileContext(uri, Consumer.hdfsClientConf(access.configuration()));
            HdfsCommitter committer = new HdfsCommitter(fc, new Path("hdfs://" + NS + "/eventindex/datasets"),
                    ".parquet");
            Path first = commit(committer, "ds1", "before the failover");
            assertEquals("hdfs://" + NS + "/eventindex/datasets/cont/ds1.parquet", first.toString());

            cluster.transitionToStandby(0);
            cluster.transitionToActive(1);
            Path second = commit(committer, "ds2", "after the failover");

            try (FileSystem fs = access.fileSystem(uri)) {
                assertEquals("before the failover".length(), fs.getFileStatus(first).getLen());
                assertEquals("after the failover".length(), fs.getFileStatus(second).getLen());
            }
            // what the second NameNode, now active, holds: both files
            FileSystem active = cluster.getFileSystem(1);
            assertTrue(active.exists(new Path("/eventindex/datasets/cont/ds1.parquet")));
            assertTrue(active.exists(new Path("/eventindex/datasets/cont/ds2.parquet")));
        }
    }
}
