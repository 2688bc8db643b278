package org.eventindex.kudu;

import org.eventindex.kudu.TestDatasetFiles.InputFile;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.EmbeddedKudu;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line against a real Kudu and HDFS: create the tables, load a file from HDFS, load it again. */
class KuduLoaderMainIT {
    private static final String DATASET = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid00000002_00";
    private static final int EVENTS_PER_FILE = 25_000;

    @TempDir
    static Path dir;
    private static EmbeddedKudu kudu;
    private static EmbeddedHdfs hdfs;

    @BeforeAll
    static void start() {
        kudu = EmbeddedKudu.start(dir.resolve("kudu"), 1);
        hdfs = EmbeddedHdfs.start(dir.resolve("hdfs"));
    }

    @AfterAll
    static void stop() {
        try {
            if (hdfs != null) {
                hdfs.close();
            }
        } finally {
            if (kudu != null) {
                kudu.close();
            }
        }
    }

    @Test
    void createsTablesAndLoadsAFileFromHdfsOnce() throws Exception {
        Result created = run("create-tables", "--masters", kudu.masterAddresses(), "--prefix", "cli_",
                "--buckets", "8", "--replicas", "1", "--epoch", "4");
        assertEquals(0, created.status(), created.err());

        // Two files; the second repeats the first's last 1,000 event numbers.
        long[] first = LongStream.range(0, EVENTS_PER_FILE).toArray();
        long[] second = LongStream.range(EVENTS_PER_FILE - 1_000, 2L * EVENTS_PER_FILE - 1_000).toArray();
        Path local = TestDatasetFiles.write(dir.resolve("ds.parquet"), DATASET, List.of(
                new InputFile(TestDatasetFiles.guid(1, 0), first), new InputFile(TestDatasetFiles.guid(2, 0), second)));
        org.apache.hadoop.fs.Path remote = new org.apache.hadoop.fs.Path("/ei/" + DATASET + ".parquet");
        hdfs.fs().copyFromLocalFile(new org.apache.hadoop.fs.Path(local.toUri()), remote);

        String[] load = {"load", "--masters", kudu.masterAddresses(), "--prefix", "cli_", "--replicas", "1",
                "--hdfs", hdfs.uri().toString(), "--file", remote.toString(), "--dataset", DATASET,
                "--dspid", "7", "--epoch", "4"};
        Result loaded = run(load);
        assertEquals(0, loaded.status(), loaded.err());
        assertTrue(loaded.out().contains("50000 events, 49000 in EVENTS, 1000 in DUPLICATEDEVENTS"), loaded.out());
        assertTrue(loaded.err().contains("events/s"), "progress on stderr: " + loaded.err());

        DatasetQueries queries = new DatasetQueries(kudu.client(), new KuduTablesConfig("cli_", 8, 1));
        assertEquals(new EventCounts(49_000, 1_000), queries.countEvents(7, 4));
        DatasetsRow row = queries.dataset(DATASET).orElseThrow();
        assertEquals(LoadState.LOADED, row.state());
        assertTrue(row.hdfsPath().startsWith("hdfs://127.0.0.1:"), row.hdfsPath());

        Result again = run(load);
        assertEquals(0, again.status(), again.err());
        assertTrue(again.out().contains("already loaded"), again.out());

        Result deleted = run("delete", "--masters", kudu.masterAddresses(), "--prefix", "cli_", "--dataset", DATASET);
        assertEquals(0, deleted.status(), deleted.err());
        assertTrue(deleted.out().contains("deleted"), deleted.out());
        assertEquals(new EventCounts(0, 0), queries.countEvents(7, 4));
        assertTrue(queries.dataset(DATASET).isEmpty());
        Result twice = run("delete", "--masters", kudu.masterAddresses(), "--prefix", "cli_", "--dataset", DATASET);
        assertEquals(0, twice.status(), twice.err());
        assertTrue(twice.out().contains("nothing to delete"), twice.out());
    }

    @Test
    void loadIntoMissingTablesSaysToCreateThem() throws Exception {
        Path local = TestDatasetFiles.write(dir.resolve("x.parquet"), DATASET, List.of(
                new InputFile(TestDatasetFiles.guid(3, 0), 1)));
        Result r = run("load", "--masters", kudu.masterAddresses(), "--prefix", "none_", "--file", local.toString(),
                "--dataset", DATASET, "--dspid", "1", "--epoch", "0");
        assertEquals(1, r.status());
        assertTrue(r.err().contains("none_DATASETS does not exist") && r.err().contains("create-tables"), r.err());
    }

    @Test
    void aConsolidatedSpbFileIsRefusedNamingTheFileAndWhy() throws Exception {
        Result created = run("create-tables", "--masters", kudu.masterAddresses(), "--prefix", "old_",
                "--buckets", "2", "--replicas", "1");
        assertEquals(0, created.status(), created.err());
        Path spb = TestDatasetFiles.writeConsolidatedSpb(dir.resolve(DATASET + ".ei.spb"), DATASET,
                new InputFile(TestDatasetFiles.guid(4, 0), 1, 2, 3));

        Result r = run("load", "--masters", kudu.masterAddresses(), "--prefix", "old_", "--replicas", "1",
                "--file", spb.toString(), "--dataset", DATASET, "--dspid", "1", "--epoch", "1");
        assertEquals(1, r.status(), r.err());
        assertTrue(r.err().contains(spb.toUri().toString() + " is not a Parquet file: it is gzip data, as a"
                + " consolidated SPB file (.ei.spb) of an earlier version is; such files are no longer loaded: re-run"
                + " the dataset's signal (supervisor resignal)"), r.err());
        assertEquals("", r.out());
        assertTrue(new DatasetQueries(kudu.client(), new KuduTablesConfig("old_", 2, 1)).dataset(DATASET).isEmpty(),
                "nothing written to DATASETS");
    }

    private record Result(int status, String out, String err) {
    }

    private static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = KuduLoaderMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
