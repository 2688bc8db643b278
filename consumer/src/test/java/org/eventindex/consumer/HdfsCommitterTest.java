package org.eventindex.consumer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The commit protocol against the local Hadoop file system (the integration test runs it on HDFS). */
class HdfsCommitterTest {
    @TempDir
    java.nio.file.Path tmp;

    private HdfsCommitter committer;
    private java.nio.file.Path containerDir;

    @BeforeEach
    void setUp() throws IOException {
        FileContext fc = FileContext.getLocalFSFileContext(new Configuration());
        committer = new HdfsCommitter(fc, new Path(tmp.toUri()), ".parquet");
        containerDir = tmp.resolve("cont");
    }

    private List<String> names() throws IOException {
        try (Stream<java.nio.file.Path> s = Files.list(containerDir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".crc")).sorted().toList();
        }
    }

    private Path write(String signalId, String content) throws IOException {
        try (HdfsCommitter.PendingFile p = committer.begin("cont", "ds", signalId)) {
            p.stream().write(content.getBytes(StandardCharsets.UTF_8));
            return p.commit();
        }
    }

    @Test
    void publishesUnderTheContainerAndReplacesAnEarlierFile() throws IOException {
        Path first = write("s1", "first");
        assertEquals(committer.finalPath("cont", "ds"), first);
        assertEquals(List.of("ds.parquet"), names());
        write("s1", "second");
        assertEquals(List.of("ds.parquet"), names());
        assertEquals("second", Files.readString(containerDir.resolve("ds.parquet")));
    }

    @Test
    void closingWithoutCommitRemovesTheTempFileAndKeepsThePublishedOne() throws IOException {
        write("s1", "published");
        try (HdfsCommitter.PendingFile p = committer.begin("cont", "ds", "s2")) {
            p.stream().write(new byte[]{1, 2, 3});
            assertTrue(names().stream().anyMatch(n -> n.matches("\\.ds\\.parquet\\.s2\\.[0-9a-f]+\\.tmp")),
                    names().toString());
        }
        assertEquals(List.of("ds.parquet"), names());
        assertEquals("published", Files.readString(containerDir.resolve("ds.parquet")));
    }

    @Test
    void aNewAttemptRemovesStaleTempFilesOfTheSameDatasetOnly() throws IOException {
        Files.createDirectories(containerDir);
        Files.writeString(containerDir.resolve(".ds.parquet.crashed-attempt.tmp"), "x");
        Files.writeString(containerDir.resolve(".ds_tid12345678_00.parquet.other.tmp"), "y");
        try (HdfsCommitter.PendingFile p = committer.begin("cont", "ds", "s/3 x")) {
            assertEquals(committer.finalPath("cont", "ds").getParent(), p.tempPath().getParent());
            assertTrue(p.tempPath().getName().matches("\\.ds\\.parquet\\.s_3_x\\.[0-9a-f]+\\.tmp"),
                    p.tempPath().getName());
            assertEquals(List.of(p.tempPath().getName(), ".ds_tid12345678_00.parquet.other.tmp"), names());
            p.commit();
        }
        assertEquals(List.of(".ds_tid12345678_00.parquet.other.tmp", "ds.parquet"), names());
    }

    /**
     * A redelivered signal processed by two consumers at once: each attempt has its own temp file, the first commit
     * publishes its own bytes and removes the other's temp file, whose commit then fails; nothing is left behind.
     */
    @Test
    void twoAttemptsOfOneSignalNeverShareATempFileAndLeaveNoneBehind() throws IOException {
        try (HdfsCommitter.PendingFile a = committer.begin("cont", "ds", "s9");
             HdfsCommitter.PendingFile b = committer.begin("cont", "ds", "s9")) {
            assertNotEquals(a.tempPath(), b.tempPath());
            b.stream().write("from b".getBytes(StandardCharsets.UTF_8));
            b.commit();
            assertEquals(List.of("ds.parquet"), names());
            a.stream().write("from a".getBytes(StandardCharsets.UTF_8));
            assertThrows(IOException.class, a::commit);
        }
        assertEquals(List.of("ds.parquet"), names());
        assertEquals("from b", Files.readString(containerDir.resolve("ds.parquet")));
    }
}
