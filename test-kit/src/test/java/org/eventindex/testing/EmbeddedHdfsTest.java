package org.eventindex.testing;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

class EmbeddedHdfsTest {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedHdfsTest.class);

    @Test
    void writesAndReadsAFile(@TempDir Path dir) throws Exception {
        try (EmbeddedHdfs hdfs = EmbeddedHdfs.start(dir)) {
            LOG.info("HDFS mini cluster up in {} ms at {}", hdfs.startTime().toMillis(), hdfs.uri());
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
}
