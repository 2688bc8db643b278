package org.eventindex.supervisor;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.kudu.client.KuduClient;
import org.eventindex.cluster.ClusterConfigException;
import org.eventindex.cluster.KerberosLogin;
import org.eventindex.cluster.testing.KerberizedKudu;
import org.eventindex.cluster.testing.MitKdc;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.ops.DaemonMetrics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The supervisor's epoch ranges on a Kerberized Kudu ({@code --rpc_authentication=required}) as the principal of
 * {@code supervisor.kerberos.principal}/{@code .keytab}, on a real MIT KDC; and a principal not in the keytab, refused
 * with one error naming both keys.
 */
class KerberizedEpochRangesIT {
    private static final String PRINCIPAL = MitKdc.inRealm("supervisor/localhost");
    @TempDir
    static Path dir;
    static MitKdc kdc;
    static KerberizedKudu kudu;
    static Path keytab;

    @BeforeAll
    static void start() throws Exception {
        kdc = MitKdc.startForThisJvm(dir.resolve("kdc"), Duration.ofMinutes(2));
        keytab = kdc.keytab("supervisor/localhost", dir.resolve("supervisor.keytab"));
        kudu = KerberizedKudu.start(kdc, Files.createDirectories(dir.resolve("kudu")), 60);
        kudu.awaitTabletServer(PRINCIPAL, keytab, Duration.ofSeconds(60));
    }

    @AfterAll
    static void stop() {
        if (kudu != null) {
            kudu.close();
        }
        if (kdc != null) {
            kdc.close();
        }
    }

    private static SupervisorConfig.Epochs epochs(String principal) {
        return new SupervisorConfig.Epochs(100, kudu.masterAddresses(), "sup_", 2, 1,
                SupervisorConfig.Epochs.kerberos(principal, keytab.toString()));
    }

    @Test
    void addsRangesAsTheConfiguredPrincipal() throws Exception {
        KuduTablesConfig config = new KuduTablesConfig("sup_", 2, 1);
        try (KuduClient admin = kudu.clientAs(PRINCIPAL, keytab)) {
            new KuduTables(admin, config).createOrVerify(1);
        }
        PrometheusRegistry registry = new PrometheusRegistry();
        try (KuduEpochRanges ranges = new KuduEpochRanges(epochs(PRINCIPAL))) {
            ranges.registerMetrics(registry);
            ranges.ensure(2);
            ranges.ensure(3);
        }
        assertEquals(0, DaemonMetrics.value(registry, KerberosLogin.LOGIN_FAILURES));
        assertTrue(DaemonMetrics.value(registry, KerberosLogin.TICKET_END) > System.currentTimeMillis() / 1000.0);
        try (KuduClient admin = kudu.clientAs(PRINCIPAL, keytab)) {
            assertEquals(List.of(1, 2, 3), new KuduTables(admin, config).epochs(config.eventsTable()));
        }
    }

    @Test
    void aPrincipalNotInTheKeytabIsAConfigurationErrorNamingBothKeys() {
        String stranger = MitKdc.inRealm("stranger/localhost");
        ClusterConfigException e = assertThrows(ClusterConfigException.class,
                () -> new KuduEpochRanges(epochs(stranger)));
        assertTrue(e.getMessage().startsWith("Kerberos login of principal " + stranger
                + " (supervisor.kerberos.principal) with keytab " + keytab + " (supervisor.kerberos.keytab) failed:"),
                e.getMessage());
    }
}
