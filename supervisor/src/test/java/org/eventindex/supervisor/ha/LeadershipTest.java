package org.eventindex.supervisor.ha;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.supervisor.journal.JournalFiles;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The lease and the fencing token on a real directory, two contenders in one JVM. */
class LeadershipTest {
    private static final SupervisorConfig.Ha HA = new SupervisorConfig.Ha(true, "", Duration.ofMillis(600),
            Duration.ofMillis(100));

    @TempDir
    Path dir;

    private static CompletableFuture<Optional<JournalFiles>> awaitActiveAsync(Leadership l) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return l.awaitActive();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void theFirstTakesTokenOneTheSecondWaitsAndTakesOverWhenRenewalsStopFencingTheFirst() throws Exception {
        List<String> fenced = new CopyOnWriteArrayList<>();
        PrometheusRegistry registryA = new PrometheusRegistry();
        Leadership a = new SharedDirLeadership(HA, dir, "a", registryA, fenced::add);
        Leadership b = new SharedDirLeadership(HA, dir, "b", new PrometheusRegistry(), why -> { });
        assertEquals(dir.resolve("generation-1").toString(), a.awaitActive().orElseThrow().location());
        a.activated();
        a.check();
        assertEquals(1.0, DaemonMetrics.value(registryA, "eventindex_supervisor_active"));

        CompletableFuture<Optional<JournalFiles>> bTurn = awaitActiveAsync(b);
        Await.until("b watching token 1", Duration.ofSeconds(10), () -> b.token() == 1);
        assertThrows(FencedException.class, b::check, "a standby may not act");
        assertFalse(bTurn.isDone(), "a renews: b waits");

        a.close(); // renewals stop, as in a pause or a crash
        assertEquals(dir.resolve("generation-2").toString(), bTurn.get(30, TimeUnit.SECONDS).orElseThrow().location());
        b.activated();
        assertTrue(Files.exists(dir.resolve("generation-2").resolve("handover")));
        assertTrue(Files.exists(dir.resolve("fence-2")));
        assertThrows(FencedException.class, a::check, "the old holder is fenced out");
        assertThrows(FencedException.class, a::check);
        assertEquals(1, fenced.size(), "reported once: " + fenced);
        assertEquals(Leadership.Role.FENCED, a.role());
        assertEquals(0.0, DaemonMetrics.value(registryA, "eventindex_supervisor_active"));
        b.check();
        assertEquals(2L, b.info().get("token"));
        b.close();
    }

    @Test
    void aReleasedLeaseIsTakenWithoutWaitingForItToExpire() throws Exception {
        SupervisorConfig.Ha longLease = new SupervisorConfig.Ha(true, "", Duration.ofMinutes(10),
                Duration.ofMillis(100));
        Leadership a = new SharedDirLeadership(longLease, dir, "a", new PrometheusRegistry(), why -> { });
        a.awaitActive().orElseThrow();
        a.activated();
        Leadership b = new SharedDirLeadership(longLease, dir, "b", new PrometheusRegistry(), why -> { });
        CompletableFuture<Optional<JournalFiles>> bTurn = awaitActiveAsync(b);
        Await.until("b watching token 1", Duration.ofSeconds(10), () -> b.token() == 1);
        a.release();
        assertEquals(dir.resolve("generation-2").toString(), bTurn.get(30, TimeUnit.SECONDS).orElseThrow().location(),
                "taken long before the 10 min lease");
        assertEquals(Leadership.Role.RELEASED, a.role());
        b.close();
        a.close();
    }

    @Test
    void aStandbyClosedWhileWaitingTakesNothing() throws Exception {
        Leadership a = new SharedDirLeadership(HA, dir, "a", new PrometheusRegistry(), why -> { });
        a.awaitActive().orElseThrow();
        Leadership b = new SharedDirLeadership(HA, dir, "b", new PrometheusRegistry(), why -> { });
        b.close();
        assertEquals(Optional.empty(), b.awaitActive());
        assertFalse(Files.exists(dir.resolve("fence-2")));
        a.close();
    }
}
