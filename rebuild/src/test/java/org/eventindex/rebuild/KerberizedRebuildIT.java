package org.eventindex.rebuild;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.kudu.client.KuduClient;
import org.eventindex.cluster.testing.KerberizedHdfs;
import org.eventindex.cluster.testing.KerberizedKudu;
import org.eventindex.cluster.testing.MitKdc;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.testing.ChildJvm;
import org.eventindex.testing.SparkStandalone;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code eventindex rebuild} and {@code verify} against Kerberized clusters, as a site runs them (issue 36 item 5,
 * decision 0074): a real MIT KDC, a Kerberized HDFS (a MiniDFSCluster in this JVM) and a Kerberized Kudu (its
 * binaries), the index's files readable by the job's principal only; a Spark standalone cluster of a master and two
 * workers, each its own process, with no Kerberos credentials (no krb5.conf, keytab or ticket): the executors read
 * HDFS and write Kudu with the tokens the driver obtained. Each driver is a process of its own that logs in from the
 * keytab with {@code --hadoop-conf-dir} (in this JVM, UGI's login user is the NameNode's).
 * <ol>
 *   <li>{@code rebuild --all} on the cluster (an executor on each worker), split by tablet (the default: prepare,
 *       decide, write and finish tasks): every column of every row of the six tables equals the loader's; then split
 *       by run (one executor) into other tables: the same.</li>
 *   <li>{@code verify --repair} on {@code local[2]} after rows were deleted: the damaged dataset is reported and
 *       reloaded on the driver, the others verify; the tables equal the loader's again; then {@code verify} of one
 *       dataset on the cluster.</li>
 *   <li>A principal the keytab does not hold, and a keytab that is not there: exit 2, one line naming both, no stack
 *       trace.</li>
 * </ol>
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KerberizedRebuildIT {
    private static final Duration LIFETIME = Duration.ofMinutes(10);
    private static final KuduTablesConfig SOURCE = new KuduTablesConfig("src_", 2, 1);
    private static final KuduTablesConfig TARGET = new KuduTablesConfig("dst_", 2, 1);
    private static final String USER = "eventindex";
    private static final String PRINCIPAL = MitKdc.inRealm(USER + "/localhost");
    private static final long DRIVER_TIMEOUT_SECONDS = 180;

    @TempDir
    static Path tmp;
    private static SparkStandalone spark;
    private static MitKdc kdc;
    private static KerberizedKudu kudu;
    private static KerberizedHdfs hdfs;
    private static KuduClient client;
    private static Path keytab;
    private static Path confDir;

    @BeforeAll
    static void start() throws Exception {
        // the Spark daemons start while the KDC, Kudu and HDFS do and the index is loaded
        spark = SparkStandalone.launch(tmp.resolve("spark"), 2, 1, "640m");
        kdc = MitKdc.startForThisJvm(tmp.resolve("kdc"), LIFETIME);
        keytab = kdc.keytab(USER + "/localhost", tmp.resolve("keytabs").resolve(USER + ".keytab"));
        // its authentication tokens, which the executors hold instead of a login of their own, outlast the test
        kudu = KerberizedKudu.start(kdc, Files.createDirectories(tmp.resolve("kudu")), 600);
        hdfs = KerberizedHdfs.start(kdc, tmp.resolve("hdfs"));
        confDir = hdfs.writeClientConf(tmp.resolve("hadoop-conf"));
        kudu.awaitTabletServer(PRINCIPAL, keytab, Duration.ofSeconds(60));
        client = kudu.clientAs(PRINCIPAL, keytab);
        IndexedDatasets.loadSmall(hdfs.fileSystem(), client, SOURCE);
        // the files are the principal's alone: a task reading them as anyone else is refused
        ownedBy(hdfs.fileSystem(), new org.apache.hadoop.fs.Path("/ei"), USER);
        spark.awaitWorkers(2);
    }

    @AfterAll
    static void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[]{client, spark, hdfs, kudu, kdc}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    // keep closing the others; the temp folder goes anyway
                }
            }
        }
    }

    @Test
    @Order(1)
    void rebuildOnTheClusterAsThePrincipalOfTheKeytab() throws Exception {
        List<String> args = kerberized(PRINCIPAL, keytab);
        args.addAll(List.of("--masters", kudu.masterAddresses(), "--prefix", SOURCE.prefix(), "--target-prefix",
                TARGET.prefix(), "--buckets", "2", "--replicas", "1", "--all"));
        args.addAll(onTheCluster(2));

        String out = driver("rebuild", RebuildMain.class, 0, args);

        assertTrue(out.contains("rebuild: 4 datasets (every epoch, every dataset) into 'dst_' tables"), out);
        for (String dataset : List.of(IndexedDatasets.AOD, IndexedDatasets.ESD, IndexedDatasets.LATE,
                IndexedDatasets.MC)) {
            assertTrue(out.contains("rebuilt " + dataset + ":"), out);
        }
        IndexedDatasets.assertTablesEqual(client, SOURCE, TARGET);
        // the tasks ran in executors that the workers started, processes without a Kerberos login of their own
        assertEquals(2, spark.workersWithExecutors(), "workers that started an executor, under " + spark.dir());

        KuduTablesConfig byRun = new KuduTablesConfig("run_", 2, 1);
        List<String> run = kerberized(PRINCIPAL, keytab);
        run.addAll(List.of("--masters", kudu.masterAddresses(), "--prefix", SOURCE.prefix(), "--target-prefix",
                byRun.prefix(), "--buckets", "2", "--replicas", "1", "--all", "--split", "run"));
        run.addAll(onTheCluster(1));

        String outByRun = driver("rebuild-by-run", RebuildMain.class, 0, run);

        assertTrue(outByRun.contains("rebuild: 4 datasets (every epoch, every dataset) into 'run_' tables"), outByRun);
        IndexedDatasets.assertTablesEqual(client, SOURCE, byRun);
    }

    @Test
    @Order(2)
    void verifyFindsAndRepairsLocallyAndVerifiesOnTheCluster() throws Exception {
        assertEquals(3, IndexedDatasets.deleteEvents(client, TARGET, IndexedDatasets.AOD, 3));
        List<String> args = kerberized(PRINCIPAL, keytab);
        args.addAll(List.of("--masters", kudu.masterAddresses(), "--prefix", TARGET.prefix(), "--all", "--repair",
                "--master", "local[2]", "--conf", "spark.ui.enabled=false", "--conf", "spark.driver.host=127.0.0.1"));

        String repaired = driver("verify-repair", VerifyMain.class, 0, args);

        assertTrue(repaired.contains("KUDU_DIFFERS " + IndexedDatasets.AOD), repaired);
        assertTrue(repaired.contains("Kudu holds 297 rows, the file gives 300"), repaired);
        assertTrue(repaired.contains("repaired: reloaded from "), repaired);
        for (String dataset : List.of(IndexedDatasets.ESD, IndexedDatasets.LATE, IndexedDatasets.MC)) {
            assertTrue(repaired.contains("OK " + dataset + ":"), repaired);
        }
        assertTrue(repaired.contains("verify: 4 datasets (every epoch, every dataset): 3 agree, 1 differ, 1 repaired,"
                + " 0 still differ"), repaired);
        IndexedDatasets.assertTablesEqual(client, SOURCE, TARGET);

        List<String> one = kerberized(PRINCIPAL, keytab);
        one.addAll(List.of("--masters", kudu.masterAddresses(), "--prefix", TARGET.prefix(), "--dataset",
                IndexedDatasets.MC));
        one.addAll(onTheCluster(1));

        String verified = driver("verify-cluster", VerifyMain.class, 0, one);

        assertTrue(verified.contains("OK " + IndexedDatasets.MC + ":"), verified);
        assertTrue(verified.contains("verify: 1 datasets"), verified);
    }

    @Test
    @Order(3)
    void aLoginTheKdcOrTheKeytabRefusesNamesPrincipalAndKeytab() throws Exception {
        String stranger = MitKdc.inRealm("stranger/localhost");
        List<String> args = kerberized(stranger, keytab);
        args.addAll(List.of("--masters", kudu.masterAddresses(), "--prefix", SOURCE.prefix(), "--target-prefix",
                "never_", "--all", "--master", "local[1]"));

        String refused = driver("wrong-principal", RebuildMain.class, 2, args);

        assertTrue(refused.contains("rebuild: Kerberos login of principal " + stranger + " (--kerberos-principal) with"
                + " keytab " + keytab + " (--kerberos-keytab) failed: "), refused);
        assertNoStackTrace(refused);

        Path missing = tmp.resolve("keytabs").resolve("gone.keytab");
        List<String> none = kerberized(PRINCIPAL, missing);
        none.addAll(List.of("--masters", kudu.masterAddresses(), "--prefix", TARGET.prefix(), "--all", "--master",
                "local[1]"));

        String absent = driver("missing-keytab", VerifyMain.class, 2, none);

        assertTrue(absent.contains("verify: Kerberos login of principal " + PRINCIPAL + " (--kerberos-principal) with"
                + " keytab " + missing + " (--kerberos-keytab) failed: the keytab does not exist"), absent);
        assertNoStackTrace(absent);
        assertFalse(client.tableExists("never_DATASETS"), "a refused login created no table");
    }

    private static void assertNoStackTrace(String out) {
        assertFalse(out.contains("\tat ") || out.contains("Exception in thread"), "a stack trace:\n" + out);
    }

    /** The cluster options of a driver that logs in from {@code keytab} as {@code principal}. */
    private static List<String> kerberized(String principal, Path keytab) {
        return new ArrayList<>(List.of("--hadoop-conf-dir", confDir.toString(), "--kerberos-principal", principal,
                "--kerberos-keytab", keytab.toString()));
    }

    /** {@code --master} and {@code --conf} of an application on the cluster with {@code executors} executors. */
    private static List<String> onTheCluster(int executors) {
        List<String> args = new ArrayList<>(List.of("--master", spark.masterUrl()));
        SparkStandalone.applicationSettings(executors, "512m").forEach((k, v) -> args.addAll(List.of("--conf",
                k + "=" + v)));
        return args;
    }

    /**
     * Runs {@code main} as a driver process of its own (the KDC's krb5.conf, Spark's Java options), waits for it and
     * returns its output; its exit status must be {@code expectedStatus}.
     */
    private static String driver(String name, Class<?> main, int expectedStatus, List<String> args)
            throws IOException, InterruptedException {
        List<String> options = SparkJvmOptions.get();
        options.add("-Djava.security.krb5.conf=" + kdc.krb5Conf());
        Path log = tmp.resolve(name + ".log");
        Process p = ChildJvm.main(main).heap("512m").quickStart().options(options).args(args).start(log);
        boolean ended = p.waitFor(DRIVER_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
        }
        String out = Files.readString(log);
        assertTrue(ended, name + " still running after " + DRIVER_TIMEOUT_SECONDS + " s:\n" + out);
        assertEquals(expectedStatus, p.exitValue(), name + ":\n" + out);
        return out;
    }

    /** As the HDFS superuser: {@code path} and everything under it owned by {@code user}, for the owner only. */
    private static void ownedBy(FileSystem fs, org.apache.hadoop.fs.Path path, String user) throws IOException {
        FileStatus status = fs.getFileStatus(path);
        fs.setOwner(path, user, "supergroup");
        fs.setPermission(path, new FsPermission(status.isDirectory() ? (short) 0700 : (short) 0600));
        if (status.isDirectory()) {
            for (FileStatus child : fs.listStatus(path)) {
                ownedBy(fs, child.getPath(), user);
            }
        }
    }

}
