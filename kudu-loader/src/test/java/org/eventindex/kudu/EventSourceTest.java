package org.eventindex.kudu;

import org.eventindex.consolidated.ConsolidatedFileWriter;
import org.eventindex.kudu.TestDatasetFiles.InputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Opening a dataset file: a consolidated Parquet file is read, anything else is refused naming the file and why. */
class EventSourceTest {
    private static final String DATASET = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";

    @TempDir
    Path dir;

    @Test
    void readsTheConsolidatedFileInFileOrderWithEachFilesMenu() throws Exception {
        Path file = TestDatasetFiles.write(dir.resolve("ds.parquet"), DATASET, List.of(
                new InputFile(TestDatasetFiles.guid(1, 0), 3, 1),
                new InputFile(TestDatasetFiles.guid(2, 0), 2, 3)));
        List<String> rows = new ArrayList<>();
        try (EventSource source = EventSource.open(DatasetSource.local(file), DATASET)) {
            assertTrue(source.adjacentDuplicates(), "one run");
            assertFalse(source.simulation());
            while (source.next()) {
                rows.add(source.event.eventNumber + "@" + source.event.guid + " smk " + source.menu.getSMK());
            }
        }
        String one = TestDatasetFiles.guid(1, 0);
        String two = TestDatasetFiles.guid(2, 0);
        assertEquals(List.of("1@" + one + " smk 2711", "2@" + two + " smk 2711", "3@" + one + " smk 2711",
                "3@" + two + " smk 2711"), rows);
    }

    @Test
    void aConsolidatedSpbFileIsRefusedSayingWhatToDo() throws Exception {
        Path spb = TestDatasetFiles.writeConsolidatedSpb(dir.resolve(DATASET + ".ei.spb"), DATASET,
                new InputFile(TestDatasetFiles.guid(1, 0), 1, 2));
        DatasetLoadException e = refused(spb);
        assertEquals("dataset " + DATASET + ": " + spb.toUri() + " is not a Parquet file: it is gzip data, as a"
                + " consolidated SPB file (.ei.spb) of an earlier version is; such files are no longer loaded: re-run"
                + " the dataset's signal (supervisor resignal) so that a consumer writes its .parquet file",
                e.getMessage());
        assertFalse(e.retriable(), "the same file is refused every time");
    }

    @Test
    void otherFilesThatAreNotParquetAreRefusedNamingTheReason() throws Exception {
        assertReason(write("empty.parquet", new byte[0]), "it is empty");
        assertReason(write("text.parquet", "run,event\n327636,1\n".getBytes(StandardCharsets.US_ASCII)),
                "it does not begin with the Parquet magic number PAR1");
        assertReason(write("short.parquet", "PAR1PAR1".getBytes(StandardCharsets.US_ASCII)),
                "it is 8 bytes long, shorter than any Parquet file");
        Path whole = TestDatasetFiles.write(dir.resolve("whole.parquet"), DATASET, List.of(
                new InputFile(TestDatasetFiles.guid(1, 0), 1, 2, 3)));
        byte[] bytes = Files.readAllBytes(whole);
        assertReason(write("cut.parquet", Arrays.copyOf(bytes, bytes.length / 2)),
                "it begins with PAR1 but does not end with it (cut short, or still being written)");
    }

    @Test
    void aParquetFileWithoutTheConsolidatedFootersMetadataIsRefusedNamingIt() throws Exception {
        Path file = dir.resolve("plain.parquet");
        try (OutputStream out = Files.newOutputStream(file)) {
            ConsolidatedFileWriter w = new ConsolidatedFileWriter(out);
            w.write(TestDatasetFiles.event(1, TestDatasetFiles.guid(1, 0), TestDatasetFiles.guid(1, 1),
                    TestDatasetFiles.guid(1, 2)).build(), TestDatasetFiles.guid(1, 0));
            w.finish(Map.of());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EventSource.open(DatasetSource.local(file), DATASET).close());
        assertTrue(e.getMessage().startsWith(file.toUri() + " is not an EventIndex consolidated file"),
                e.getMessage());
    }

    private Path write(String name, byte[] bytes) throws IOException {
        return Files.write(dir.resolve(name), bytes);
    }

    private static void assertReason(Path file, String reason) {
        assertEquals("dataset " + DATASET + ": " + file.toUri() + " is not a Parquet file: " + reason,
                refused(file).getMessage());
    }

    private static DatasetLoadException refused(Path file) {
        return assertThrows(DatasetLoadException.class,
                () -> EventSource.open(DatasetSource.local(file), DATASET).close());
    }
}
