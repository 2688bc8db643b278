package org.eventindex.cluster;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduTable;
import org.eventindex.cluster.testing.ClusterProbeMain;
import org.eventindex.cluster.testing.KerberizedHdfs;
import org.eventindex.cluster.testing.KerberizedKudu;
import org.eventindex.cluster.testing.MitKdc;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Kerberized HDFS (MiniDFSCluster) and a Kerberized Kudu ({@code --rpc_authentication=required}) on a real MIT KDC
 * with 30-second tickets, and a client in a process of its own ({@link ClusterProbeMain}, with
 * {@code -Djava.security.krb5.conf}) logged in through {@link ClusterAccess} from a keytab, writing an HDFS file and a
 * Kudu row every 5 s across more than three ticket lifetimes; Kudu's authentication tokens last 10 s, and its
 * servers close idle connections after 3 s, so the Kudu client authenticates with Kerberos again and again.
 */
class KerberizedClustersIT {
    private static final Duration LIFETIME = Duration.ofSeconds(30);
    private static final int ROUNDS = 21;
    private static final Duration INTERVAL = Duration.ofSeconds(5);
    @TempDir
    static Path dir;
    static MitKdc kdc;
    static KerberizedHdfs hdfs;
    static KerberizedKudu kudu;
    static Path clientKeytab;

    @BeforeAll
    static void start() throws Exception {
        kdc = MitKdc.startForThisJvm(dir.resolve("kdc"), LIFETIME);
        clientKeytab = kdc.keytab("eventindex/localhost", dir.resolve("eventindex.keytab"));
        hdfs = KerberizedHdfs.start(kdc, dir.resolve("hdfs"));
        hdfs.mkdirFor("/eventindex", "eventindex");
        kudu = KerberizedKudu.start(kdc, Files.createDirectories(dir.resolve("kudu")), 10);
        kudu.awaitTabletServer(MitKdc.inRealm("eventindex/localhost"), clientKeytab, Duration.ofSeconds(60));
    }

    @AfterAll
    static void stop() {
        if (kudu != null) {
            kudu.close();
        }
        if (hdfs != null) {
            hdfs.close();
        }
        if (kdc != null) {
            kdc.close();
        }
    }

    private static KuduClient kuduAdmin() throws Exception {
        return kudu.clientAs(MitKdc.inRealm("eventindex/localhost"), clientKeytab);
    }

    private static Process probe(Path confDir, String principal, Path keytab, int rounds, Path out)
            throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.security.krb5.conf=" + kdc.krb5Conf(), "-cp", System.getProperty("java.class.path"),
                ClusterProbeMain.class.getName(), confDir.toString(), principal, keytab.toString(),
                hdfs.uri() + "/eventindex/probe", kudu.masterAddresses(), String.valueOf(rounds),
                String.valueOf(INTERVAL.toMillis())));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    }

    @Test
    void aClientProcessKeepsWritingToHdfsAndKuduAcrossThreeTicketLifetimes() throws Exception {
        Path confDir = hdfs.writeClientConf(dir.resolve("client-conf"));
        Path out = dir.resolve("probe.out");
        Process p = probe(confDir, MitKdc.inRealm("eventindex/localhost"), clientKeytab, ROUNDS, out);
        boolean done = p.waitFor(INTERVAL.multipliedBy(ROUNDS).plusSeconds(90).toSeconds(), TimeUnit.SECONDS);
        String log = Files.readString(out, StandardCharsets.UTF_8);
        // kept for reading after the run (the temp folder goes)
        Files.copy(out, Files.createDirectories(Path.of("target")).resolve("kerberized-probe.out"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        if (!done) {
            p.destroyForcibly();
        }
        assertTrue(done, "the probe finished: " + log);
        assertEquals(0, p.exitValue(), "every round worked: " + log);
        long renewals = log.lines().filter(l -> l.contains("renewed from keytab")).count();
        assertTrue(renewals >= 3, "renewed at least three times: " + log);
        // Kudu tokens last 10 s: the Kudu client got new ones with the renewed tickets of the same subject
        long tokens = log.lines().filter(l -> l.contains("received a new authn token")).count();
        assertTrue(tokens >= 3, "the Kudu client authenticated with Kerberos again: " + log);
        for (int round = 0; round < ROUNDS; round++) {
            assertTrue(log.contains("round " + round + " ok"), "round " + round + ": " + log);
            assertTrue(hdfs.fileSystem().exists(new org.apache.hadoop.fs.Path("/eventindex/probe/round-" + round)),
                    "file of " + round);
        }
        assertEquals("eventindex", hdfs.fileSystem().getFileStatus(
                new org.apache.hadoop.fs.Path("/eventindex/probe/round-0")).getOwner());
        try (KuduClient admin = kuduAdmin()) {
            KuduTable table = admin.openTable("probe");
            KuduScanner scanner = admin.newScannerBuilder(table).build();
            int rows = 0;
            while (scanner.hasMoreRows()) {
                rows += scanner.nextRows().getNumRows();
            }
            assertEquals(ROUNDS, rows, "a Kudu row per round");
        }
    }

    @Test
    void aWrongKeytabStopsTheClientWithExitCode2NamingPrincipalAndKeytab() throws Exception {
        Path confDir = hdfs.writeClientConf(dir.resolve("client-conf-2"));
        Path out = dir.resolve("probe-wrong.out");
        String stranger = MitKdc.inRealm("stranger/localhost");
        Process p = probe(confDir, stranger, clientKeytab, 1, out);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the probe stopped");
        String log = Files.readString(out, StandardCharsets.UTF_8);
        assertEquals(2, p.exitValue(), log);
        assertTrue(log.contains(stranger) && log.contains(clientKeytab.toString()), log);
    }
}
