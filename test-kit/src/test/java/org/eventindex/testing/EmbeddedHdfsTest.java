package org.eventindex.testing;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EmbeddedHdfsTest {
    @Test
    void writesAndReadsAFile(@TempDir Path dir) throws Exception {
        try (EmbeddedHdfs hdfs = EmbeddedHdfs.start(dir)) {
            assertEquals("hdfs", hdfs.uri().getScheme());
            assertEquals("127.0.0.1", hdfs.uri().getHost());
            org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/c/hello.txt");
            try (FSDataOutputStream out = hdfs.fs().create(file)) {
                out.write("hello".getBytes(StandardCharsets.UTF_8));
            }
            try (FileSystem other = FileSystem.newInstance(hdfs.uri(), hdfs.conf());
                 FSDataInputStream in = other.open(file)) {
                assertEquals("hello", new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
    }

    @Test
    void theNameNodeAndTheDataNodeComeBackOnTheirPortsBelowTheEphemeralRange(@TempDir Path dir) throws Exception {
        try (EmbeddedHdfs hdfs = EmbeddedHdfs.start(dir)) {
            int nameNode = hdfs.uri().getPort();
            int dataNode = hdfs.dataNodePort();
            int low = Ports.ephemeralLow();
            assertTrue(nameNode < low && dataNode < low, "NameNode port " + nameNode + ", DataNode port " + dataNode
                    + ": a restarted server's port must lie below the ephemeral range, from " + low);
            hdfs.stopDataNode();
            hdfs.restartDataNode();
            assertEquals(dataNode, hdfs.dataNodePort());
            hdfs.stopNameNode();
            hdfs.restartNameNode();
            org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/after-restarts.txt");
            try (FSDataOutputStream out = hdfs.fs().create(file)) {
                out.write(1);
            }
            assertEquals(1, hdfs.fs().getFileStatus(file).getLen());
            assertEquals(nameNode, hdfs.uri().getPort());
        }
    }
}
