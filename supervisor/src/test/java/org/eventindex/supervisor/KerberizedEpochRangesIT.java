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
import org.eventindex.ops.DependencyWait;
import org.eventindex.testing.Await;
import org.eventindex.testing.DaemonProcess;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.Ports;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
    private static final Duration WAIT = Duration.ofSeconds(90);
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
    /**
     * A KDC that does not answer when the supervisor starts (a power cut during its maintenance) is waited for: the
     * process stays up, {@code /health} 200, {@code /ready} 503 naming Kerberos, the failed attempts counted; it
     * becomes ready by itself once the KDC answers.
     */
    @Test
    void aKdcDownAtStartIsWaitedForAndTheSupervisorBecomesReadyWhenItAnswers() throws Exception {
        int port = Ports.free();
        try (EmbeddedBroker broker = EmbeddedBroker.start(dir.resolve("broker"))) {
            Path config = Files.writeString(dir.resolve("supervisor.properties"),
                    SupervisorConfig.BROKERS + " = " + broker.stompEndpoints() + "\n"
                            + SupervisorConfig.JOURNAL_DIR + " = " + dir.resolve("journal") + "\n"
                            + SupervisorConfig.HTTP_PORT + " = " + port + "\n"
                            + SupervisorConfig.KUDU_MASTERS + " = " + kudu.masterAddresses() + "\n"
                            + SupervisorConfig.KERBEROS_PRINCIPAL + " = " + PRINCIPAL + "\n"
                            + SupervisorConfig.KERBEROS_KEYTAB + " = " + keytab + "\n");
            kdc.stop();
            try (DaemonProcess supervisor = DaemonProcess.start(SupervisorMain.class, dir.resolve("kdc-down.log"),
                    List.of("-Djava.security.krb5.conf=" + kdc.krb5Conf()), "run", "--config", config.toString())) {
                HttpClient http = HttpClient.newHttpClient();
                supervisor.awaitHttpOk(port, "/health", WAIT);
                Await.until("/ready naming the KDC", WAIT, () -> {
                    HttpResponse<String> r = get(http, port, "/ready");
                    return r.statusCode() == 503 && r.body().contains("waiting for kerberos: Kerberos login of"
                            + " principal " + PRINCIPAL) && r.body().contains("no KDC of the realm answered");
                });
                assertTrue(supervisor.isAlive(), supervisor.log());
                assertTrue(get(http, port, "/metrics").body().contains(DependencyWait.FAILURES
                        + "{dependency=\"kerberos\"}"), "the failed attempts are counted");

                kdc.restart();
                supervisor.awaitHttpOk(port, "/ready", WAIT);
                assertTrue(supervisor.log().contains("logged in to Kerberos as " + PRINCIPAL), supervisor.log());
            } finally {
                kdc.restart();
            }
        }
    }

    private static HttpResponse<String> get(HttpClient http, int port, String path) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
