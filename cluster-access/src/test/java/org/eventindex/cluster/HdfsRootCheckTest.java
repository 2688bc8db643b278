package org.eventindex.cluster;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class HdfsRootCheckTest {
    private static final ClusterSettings SETTINGS = new ClusterSettings(Path.of("/etc/hadoop/conf"), "", null,
            ClusterSettings.Names.keys("consumer."));

    @Test
    void aLogicalNameMustBeANameserviceOfTheFolder() {
        Configuration conf = new Configuration(false);
        conf.set("dfs.nameservices", "eventindex-ns, other-ns");
        assertDoesNotThrow(() -> HdfsRootCheck.nameservice(URI.create("hdfs://eventindex-ns/x"), conf, SETTINGS));
        assertDoesNotThrow(() -> HdfsRootCheck.nameservice(URI.create("hdfs://nn.example.org:8020"), conf,
                SETTINGS));

        IOException e = assertThrows(IOException.class,
                () -> HdfsRootCheck.nameservice(URI.create("hdfs://eventindx-ns"), conf, SETTINGS));
        assertEquals("HDFS nameservice eventindx-ns of hdfs://eventindx-ns is not in dfs.nameservices [eventindex-ns,"
                + " other-ns] of the Hadoop configuration folder /etc/hadoop/conf", e.getMessage());
    }
}
