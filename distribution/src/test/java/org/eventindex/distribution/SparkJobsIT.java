package org.eventindex.distribution;

import org.apache.hadoop.fs.FileSystem;
import org.apache.kudu.ColumnSchema;
import org.apache.kudu.client.Delete;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.OperationResponse;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.RowResult;
import org.apache.kudu.client.RowResultIterator;
import org.eventindex.ProjectVersion;
import org.eventindex.consolidated.ConsolidatedFileWriter;
import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.names.DatasetName;
import org.eventindex.names.PoolToken;
import org.eventindex.names.TriggerMask;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.EmbeddedKudu;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code eventindex rebuild} and {@code verify} of the unpacked tarball on a site's Spark (decision 0080): SPARK_HOME is
 * a Spark install of Spark's own jars only (spark-home/target/spark-home: Spark's core and Hadoop's client, as the
 * rebuild module resolves them), so the job runs on what the tarball's spark/ ships and nothing else. A dataset's
 * consolidated file in a real HDFS, loaded into a real Kudu by the tarball's {@code kudu-loader load}; {@code verify
 * --master local[2]} finds it OK, and KUDU_DIFFERS once a row is deleted. Also: spark/ holds none of Spark's jars;
 * {@code --help} and {@code --version} need no Spark; without SPARK_HOME, or with one that is not a Spark install,
 * exit 2 naming it.
 */
final class SparkJobsIT {
    private static final Path SPARK_HOME = Path.of(System.getProperty("ei.spark.home",
            "../spark-home/target/spark-home")).toAbsolutePath().normalize();
    private static final String DATASET = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
    private static final int EVENTS = 2_000;
    private static final int DUPLICATES = 20;
    private static final String CLID = "D82968A1-CF91-4320-B2DD-E0F739CBC7E6";

    @TempDir
    Path temp;

    @Test
    void verifyRunsFromTheUnpackedTarballOnTheSitesSpark() throws Exception {
        assertTrue(Files.isDirectory(SPARK_HOME.resolve("jars")), "no Spark install " + SPARK_HOME
                + ": build with mvn -DskipTests package -pl distribution -am (module spark-home)");
        List<String> sparkJars = jarNames(SPARK_HOME.resolve("jars"));
        assertTrue(sparkJars.stream().anyMatch(n -> n.startsWith("spark-core_2.12-")), "SPARK_HOME: " + sparkJars);
        InstalledTree tree = InstalledTree.unpack(Files.createDirectories(temp.resolve("opt")));

        // spark/: the application; the jars of its class path that Spark does not provide, from lib/ (spark/lib.jars)
        // or, when lib/ lacks one, spark/ itself
        Path spark = tree.home().resolve("spark");
        List<String> fromLib = List.of(Files.readString(spark.resolve("lib.jars")).strip().split(":"));
        List<String> shipped = new ArrayList<>(jarNames(spark));
        shipped.addAll(fromLib);
        for (String expected : List.of("eventindex-rebuild-" + InstalledTree.VERSION + ".jar",
                "eventindex-kudu-loader-" + InstalledTree.VERSION + ".jar",
                "eventindex-consolidated-file-" + InstalledTree.VERSION + ".jar")) {
            assertTrue(shipped.contains(expected), "spark/ lacks " + expected + ": " + shipped);
        }
        assertTrue(shipped.stream().anyMatch(n -> n.startsWith("kudu-client-")), "no kudu-client: " + shipped);
        assertTrue(shipped.stream().anyMatch(n -> n.startsWith("protobuf-java-")), "no protobuf-java: " + shipped);
        for (String name : fromLib) {
            assertTrue(Files.isRegularFile(tree.home().resolve("lib").resolve(name)), "spark/lib.jars names " + name
                    + ", which lib/ lacks");
        }
        for (String name : shipped) {
            assertFalse(sparkJars.contains(name) || name.startsWith("spark-") || name.startsWith("scala-")
                    || name.startsWith("hadoop-client-"), "spark/ ships " + name + ", which Spark provides");
        }

        Map<String, String> noSpark = Map.of("JAVA_HOME", System.getProperty("java.home"));
        InstalledTree.Run help = tree.run(noSpark, temp.resolve("help.log"), 2, "rebuild", "--help");
        assertEquals(0, help.exit(), help.output());
        assertTrue(help.output().startsWith("Usage: eventindex rebuild ") && help.output().contains("--target-prefix"),
                help.output());
        InstalledTree.Run swapHelp = tree.run(noSpark, temp.resolve("swap-help.log"), 2, "rebuild", "swap", "-h");
        assertEquals(0, swapHelp.exit(), swapHelp.output());
        assertTrue(swapHelp.output().startsWith("Usage: eventindex rebuild swap ")
                && swapHelp.output().contains("--retired-prefix"), swapHelp.output());
        InstalledTree.Run version = tree.run(noSpark, temp.resolve("version.log"), 2, "verify", "--version");
        assertEquals(new InstalledTree.Run(0, "eventindex verify " + ProjectVersion.describe() + "\n"), version);

        String[] verifyAll = {"verify", "--masters", "127.0.0.1:7051", "--all", "--master", "local[2]"};
        InstalledTree.Run unset = tree.run(noSpark, temp.resolve("unset.log"), 2, verifyAll);
        assertEquals(2, unset.exit(), unset.output());
        assertTrue(unset.output().startsWith("eventindex verify: SPARK_HOME is not set: "), unset.output());
        Path notSpark = Files.createDirectories(temp.resolve("not-spark/jars"));
        InstalledTree.Run wrong = tree.run(Map.of("JAVA_HOME", System.getProperty("java.home"),
                "SPARK_HOME", notSpark.getParent().toString()), temp.resolve("wrong.log"), 2, verifyAll);
        assertEquals(2, wrong.exit(), wrong.output());
        assertTrue(wrong.output().startsWith("eventindex verify: SPARK_HOME is " + notSpark.getParent()
                + ", which holds no jars/spark-core_2.12-*.jar"), wrong.output());

        try (EmbeddedHdfs hdfs = EmbeddedHdfs.start(temp.resolve("hdfs"));
             EmbeddedKudu kudu = EmbeddedKudu.start(temp.resolve("kudu"), 1)) {
            String file = writeConsolidatedFile(hdfs.fs());
            Map<String, String> env = Map.of("JAVA_HOME", System.getProperty("java.home"),
                    "SPARK_HOME", SPARK_HOME.toString());
            InstalledTree.Run created = tree.run(env, temp.resolve("create.log"), 3, "kudu-loader", "create-tables",
                    "--masters", kudu.masterAddresses(), "--buckets", "2", "--replicas", "1", "--epoch", "1");
            assertEquals(0, created.exit(), created.output());
            InstalledTree.Run loaded = tree.run(env, temp.resolve("load.log"), 3, "kudu-loader", "load",
                    "--masters", kudu.masterAddresses(), "--hdfs", hdfs.uri().toString(), "--file", file,
                    "--dataset", DATASET, "--dspid", "11", "--epoch", "1");
            assertEquals(0, loaded.exit(), loaded.output());

            String[] verify = {"verify", "--masters", kudu.masterAddresses(), "--all", "--master", "local[2]"};
            InstalledTree.Run ok = tree.run(env, temp.resolve("verify.log"), 4, verify);
            assertEquals(0, ok.exit(), ok.output());
            assertTrue(ok.output().contains("OK " + DATASET + ":"), ok.output());
            assertTrue(ok.output().contains("verify: 1 datasets"), ok.output());

            deleteOneEvent(kudu.client());
            InstalledTree.Run differs = tree.run(env, temp.resolve("verify-again.log"), 4, verify);
            assertEquals(1, differs.exit(), differs.output());
            assertTrue(differs.output().contains("KUDU_DIFFERS " + DATASET), differs.output());
        }
    }

    private static List<String> jarNames(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".jar")).sorted().toList();
        }
    }

    /** {@value #EVENTS} events of one run, the first {@value #DUPLICATES} twice, as the consumer writes them. */
    private static String writeConsolidatedFile(FileSystem fs) throws IOException {
        DatasetName name = DatasetName.parse(DATASET);
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("/ei/" + name.container() + "/" + DATASET
                + ".parquet");
        String guid = "0000000A-5555-4000-8000-00000000000A";
        try (OutputStream out = fs.create(file, true)) {
            ConsolidatedFileWriter w = new ConsolidatedFileWriter(out);
            for (long e = 1; e <= EVENTS; e++) {
                for (int copy = 0; copy < (e <= DUPLICATES ? 2 : 1); copy++) {
                    BitSet l1 = new BitSet();
                    l1.set((int) (e % 7));
                    EIEvent_p1 event = EIEvent_p1.newBuilder().setRunNumber(327636).setEventNumber(e)
                            .setLumiBlock((int) (e / 50) + 1).setTimeStamp(1_500_000_000 + (int) e)
                            .setTimeStampNSOffset(7).setBcid(11).setIsSimulation(false).setIsCalibration(false)
                            .setIsTestBeam(false)
                            .setL1PassedTrigMask(TriggerMask.encodeL1(l1, new BitSet(), l1))
                            .setEFPassedTrigMask(TriggerMask.encodeHlt(l1, new BitSet(), new BitSet()))
                            .addEitoken(EItoken_p1.newBuilder().setName("StreamAOD").setToken(new PoolToken(guid,
                                    "POOLContainer(DataHeader)", CLID, 0x202, 0x10L, e).format()))
                            .build();
                    w.write(event, guid);
                }
            }
            w.finish(new ConsolidatedMetadata(DATASET, "sig-11",
                    new ConsolidatedMetadata.HeaderInfo(1, "consolidated", "sig-11", true, true),
                    List.of("s3://eventindex/11"), List.of(), List.of(), w.events(), List.of(327636L), 0, 1,
                    w.finishDigest()).toKeyValues());
        }
        return file.toString();
    }

    /** Deletes the first row a scan of EVENTS returns: Kudu no longer holds what the file says. */
    private static void deleteOneEvent(KuduClient client) throws IOException {
        KuduTable events = client.openTable("EVENTS");
        KuduScanner scanner = client.newScannerBuilder(events).build();
        RowResult row = null;
        while (row == null && scanner.hasMoreRows()) {
            RowResultIterator rows = scanner.nextRows();
            row = rows.hasNext() ? rows.next() : null;
        }
        scanner.close();
        assertTrue(row != null, "EVENTS is empty");
        Delete delete = events.newDelete();
        PartialRow key = delete.getRow();
        for (ColumnSchema column : events.getSchema().getPrimaryKeyColumns()) {
            key.addObject(column.getName(), row.getObject(column.getName()));
        }
        KuduSession session = client.newSession();
        OperationResponse response = session.apply(delete);
        session.close();
        assertFalse(response.hasRowError(), "the delete of one EVENTS row: " + response.getRowError());
    }
}
