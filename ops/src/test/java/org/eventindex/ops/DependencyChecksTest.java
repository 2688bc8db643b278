package org.eventindex.ops;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The background checks' verdicts, their gauge, and a check that hangs: reported down, never started twice. */
final class DependencyChecksTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final String METRIC = "eventindex_test_dependency_up";

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private DependencyChecks checks;

    @AfterEach
    void stop() {
        if (checks != null) {
            checks.close();
        }
    }

    private DependencyChecks start(Map<String, DependencyChecks.Check> probes, Duration interval) {
        checks = new DependencyChecks(probes, interval, Clock.systemUTC(), registry, METRIC);
        return checks;
    }

    @Test
    void aFailingDependencyMakesItNotReadyNamingItAndTheErrorUntilItAnswersAgain() {
        AtomicReference<String> kuduError = new AtomicReference<>("Kudu masters 127.0.0.1:1 unreachable");
        Map<String, DependencyChecks.Check> probes = new LinkedHashMap<>();
        probes.put("hdfs", () -> { });
        probes.put("kudu", () -> {
            String e = kuduError.get();
            if (e != null) {
                throw new IOException(e, new java.net.ConnectException("Connection refused"));
            }
        });
        DependencyChecks c = start(probes, Duration.ofMillis(100));
        OpsHttpServer.Readiness before = c.readiness();
        assertFalse(before.ready());
        assertEquals("hdfs: not checked yet", before.reason());
        c.start();

        Await.until("kudu found down", TIMEOUT, () -> c.statuses().get(1).checkedAt() != null
                && c.statuses().get(0).up());
        OpsHttpServer.Readiness down = c.readiness();
        assertFalse(down.ready());
        assertEquals("kudu: Kudu masters 127.0.0.1:1 unreachable: Connection refused", down.reason());
        assertEquals(1, DaemonMetrics.value(registry, METRIC, "dependency", "hdfs"));
        assertEquals(0, DaemonMetrics.value(registry, METRIC, "dependency", "kudu"));

        kuduError.set(null);
        Await.until("kudu back", TIMEOUT, () -> c.readiness().ready());
        assertEquals(1, DaemonMetrics.value(registry, METRIC, "dependency", "kudu"));
        assertEquals(2, c.readiness().dependencies().size());
    }

    @Test
    void aCheckThatHangsIsReportedDownAndNotStartedAgainUntilItReturns() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        DependencyChecks c = start(Map.of("hdfs", () -> {
            calls.incrementAndGet();
            release.await();
        }), Duration.ofMillis(100));
        c.start();

        Await.until("the hung check reported", TIMEOUT, () -> c.statuses().get(0).checkedAt() != null);
        String error = c.statuses().get(0).error();
        assertTrue(error.startsWith("no answer within "), error);
        long firstSeen = c.statuses().get(0).checkedAt().toEpochMilli();
        Await.until("a later round", TIMEOUT, () -> c.statuses().get(0).checkedAt().toEpochMilli() > firstSeen);
        assertEquals(1, calls.get(), "the hung check was started again");

        release.countDown();
        Await.until("the check runs again and answers", TIMEOUT, () -> calls.get() > 1 && c.readiness().ready());
    }
}
