package org.eventindex.testing;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
