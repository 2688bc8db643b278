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
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Kerberized HDFS (MiniDFSCluster) and a Kerberized Kudu ({@code --rpc_authentication=required}) on a real MIT KDC
 * with ordinary 10-minute tickets, and a client in a process of its own ({@link ClusterProbeMain}, with
 * {@code -Djava.security.krb5.conf}) logged in through {@link ClusterAccess} from a keytab, its renewal decided against
 * a clock the probe moves past the renewal point three times. After each renewal the same HDFS and Kudu clients keep
 * working and authenticate to their servers again with the new ticket: HDFS connections close after 200 ms idle, Kudu's
 * servers close idle connections after 200 ms and its authentication tokens last 2 s, so that both negotiate with
 * Kerberos again within seconds.
 */
class KerberizedClustersIT {
    private static final Duration LIFETIME = Duration.ofMinutes(10);
    private static final int RENEWALS = 3;
    /** Between the probe's rounds after a renewal: longer than the idle time after which connections close. */
    private static final Duration PACE = Duration.ofMillis(500);
    private static final Duration IDLE = Duration.ofMillis(200);
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
        kudu = KerberizedKudu.start(kdc, Files.createDirectories(dir.resolve("kudu")), 2, IDLE);
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

    private static Path clientConf(String name) throws IOException {
        return hdfs.writeClientConf(dir.resolve(name), Map.of("ipc.client.connection.maxidletime",
                String.valueOf(IDLE.toMillis())));
    }

    private static Process probe(Path confDir, String principal, Path keytab, Path out, String... mode)
            throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.security.krb5.conf=" + kdc.krb5Conf(), "-cp", System.getProperty("java.class.path"),
                ClusterProbeMain.class.getName(), mode[0], confDir.toString(), principal, keytab.toString(),
                hdfs.uri() + "/eventindex/probe", kudu.masterAddresses()));
        cmd.addAll(List.of(mode).subList(1, mode.length));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    }

    @Test
    void theSameHdfsAndKuduClientsAuthenticateWithEachRenewedTicket() throws Exception {
        Path out = dir.resolve("probe.out");
        long issued = kdc.ticketsIssued(MitKdc.inRealm("eventindex/localhost"));
        Process p = probe(clientConf("client-conf"), MitKdc.inRealm("eventindex/localhost"), clientKeytab, out,
                "renewals", String.valueOf(RENEWALS), String.valueOf(PACE.toMillis()));
        boolean done = p.waitFor(240, TimeUnit.SECONDS);
        String log = Files.readString(out, StandardCharsets.UTF_8);
        // kept for reading after the run (the temp folder goes)
        Files.copy(out, Files.createDirectories(Path.of("target")).resolve("kerberized-probe.out"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        if (!done) {
            p.destroyForcibly();
        }
        assertTrue(done, "the probe finished: " + log);
        assertEquals(0, p.exitValue(), "every round and renewal worked: " + log);
        for (int renewal = 1; renewal <= RENEWALS; renewal++) {
            assertTrue(log.contains("renewal " + renewal + ": a new ticket-granting ticket"), log);
            assertTrue(log.contains("renewal " + renewal + ": HDFS and Kudu authenticated again with the renewed"
                    + " ticket"), log);
        }
        assertTrue(log.lines().filter(l -> l.contains("renewed from keytab")).count() >= RENEWALS, log);
        // one AS exchange for the login and one per renewal: each renewal got its ticket from the KDC
        assertTrue(kdc.ticketsIssued(MitKdc.inRealm("eventindex/localhost")) >= issued + 1 + RENEWALS,
                "tickets issued by the KDC");
        long rounds = log.lines().filter(l -> l.matches("round \\d+ ok.*")).count();
        assertTrue(rounds >= 1 + RENEWALS, log);
        assertEquals(0, log.lines().filter(l -> l.matches("round \\d+ failed.*")).count(), log);
        for (int round = 0; round < rounds; round++) {
            assertTrue(hdfs.fileSystem().exists(new org.apache.hadoop.fs.Path("/eventindex/probe/round-" + round)),
                    "file of " + round);
        }
        assertEquals("eventindex", hdfs.fileSystem().getFileStatus(
                new org.apache.hadoop.fs.Path("/eventindex/probe/round-0")).getOwner());
        try (KuduClient admin = kudu.clientAs(MitKdc.inRealm("eventindex/localhost"), clientKeytab)) {
            KuduTable table = admin.openTable("probe");
            KuduScanner scanner = admin.newScannerBuilder(table).build();
            int rows = 0;
            while (scanner.hasMoreRows()) {
                rows += scanner.nextRows().getNumRows();
            }
            assertEquals(rounds, rows, "a Kudu row per round");
        }
    }

    @Test
    void aWrongKeytabStopsTheClientWithExitCode2NamingPrincipalAndKeytab() throws Exception {
        Path out = dir.resolve("probe-wrong.out");
        String stranger = MitKdc.inRealm("stranger/localhost");
        Process p = probe(clientConf("client-conf-2"), stranger, clientKeytab, out, "renewals", "1",
                String.valueOf(PACE.toMillis()));
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the probe stopped");
        String log = Files.readString(out, StandardCharsets.UTF_8);
        assertEquals(2, p.exitValue(), log);
        assertTrue(log.contains(stranger) && log.contains(clientKeytab.toString()), log);
    }
}
