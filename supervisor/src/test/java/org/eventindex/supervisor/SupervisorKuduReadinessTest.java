package org.eventindex.supervisor;

import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.ops.OpsHttpServer;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedKudu;
import org.eventindex.testing.HttpGets;
import org.eventindex.testing.MetricsText;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A supervisor that manages the epochs' ranges in Kudu is not ready while the Kudu masters do not answer: {@code /ready}
 * names Kudu and {@code eventindex_supervisor_dependency_up{dependency="kudu"}} is 0, and it becomes ready by itself
 * once the masters are back (real Kudu masters killed and restarted, a real broker).
 */
class SupervisorKuduReadinessTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    @TempDir
    Path dir;

    private BrokerHarness mq;
    private EmbeddedKudu kudu;
    private Supervisor supervisor;

    @AfterEach
    void stop() {
        if (supervisor != null) {
            supervisor.stop();
        }
        if (mq != null) {
            mq.close();
        }
        if (kudu != null) {
            kudu.close();
        }
    }

    @Test
    void notReadyNamingKuduWhileItsMastersAreDownAndReadyAgainWhenTheyReturn() throws Exception {
        kudu = EmbeddedKudu.start(dir.resolve("kudu"), 1);
        new KuduTables(kudu.client(), new KuduTablesConfig("ready_", 2, 1)).createOrVerify(1);
        mq = new BrokerHarness(dir.resolve("broker"));
        Properties p = mq.supervisorProperties(dir.resolve("journal"));
        p.setProperty(SupervisorConfig.KUDU_MASTERS, kudu.masterAddresses());
        p.setProperty(SupervisorConfig.KUDU_TABLE_PREFIX, "ready_");
        p.setProperty(SupervisorConfig.KUDU_BUCKETS, "2");
        p.setProperty(SupervisorConfig.KUDU_REPLICAS, "1");
        supervisor = new Supervisor(SupervisorConfig.fromProperties(p, Map.of()), Clock.systemUTC());
        supervisor.start();
        Await.until("ready with Kudu up", TIMEOUT, () -> supervisor.readiness().ready());
        assertEquals(1.0, kuduUp(), "the Kudu gauge while the masters answer");

        kudu.killMasters();
        Await.until("not ready with the Kudu masters down", TIMEOUT, () -> !supervisor.readiness().ready());
        OpsHttpServer.Readiness down = supervisor.readiness();
        assertTrue(down.reason().startsWith("kudu"), down.reason());
        assertEquals(0.0, kuduUp(), "the Kudu gauge while the masters are down");
        String url = "http://127.0.0.1:" + supervisor.httpPort() + "/ready";
        assertEquals(503, HttpGets.status(url), "/ready over HTTP");

        kudu.startMasters();
        Await.until("ready again once the Kudu masters are back", TIMEOUT, () -> supervisor.readiness().ready());
        assertEquals(1.0, kuduUp(), "the Kudu gauge once the masters answer again");
    }

    private double kuduUp() {
        String text = HttpGets.body("http://127.0.0.1:" + supervisor.httpPort() + "/metrics");
        return MetricsText.value(text, Supervisor.DEPENDENCY_UP, "dependency=\"kudu\"");
    }
}
