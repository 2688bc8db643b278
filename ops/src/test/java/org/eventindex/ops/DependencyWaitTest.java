package org.eventindex.ops;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.retry.Backoff;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The wait for a dependency at start: backoff between attempts, what /ready is told, the metric, the way out. */
class DependencyWaitTest {
    private static final Backoff BACKOFF = Backoff.doubling(Duration.ofSeconds(1), Duration.ofSeconds(4));

    @Test
    void aDependencyDownIsTriedAgainWithACappedDoublingBackoffCountedAndNamedUntilItAnswers() throws Exception {
        List<Duration> waits = new ArrayList<>();
        AtomicReference<DependencyWait> self = new AtomicReference<>();
        List<String> said = new ArrayList<>();
        DependencyWait wait = new DependencyWait(BACKOFF, () -> 1.0, d -> {
            waits.add(d);
            said.add(self.get().waitingFor().orElse("(nothing)"));
        });
        self.set(wait);
        PrometheusRegistry registry = new PrometheusRegistry();
        wait.register(registry);
        AtomicInteger attempts = new AtomicInteger();
        String got = wait.await("kerberos", () -> {
            if (attempts.incrementAndGet() < 6) {
                throw new ConnectException("Connection refused");
            }
            return "ticket";
        }, e -> e instanceof ConnectException);
        assertEquals("ticket", got);
        assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4),
                Duration.ofSeconds(4), Duration.ofSeconds(4)), waits);
        assertEquals("kerberos: Connection refused (attempt 1 failed; next in 1 s)", said.get(0));
        assertEquals("kerberos: Connection refused (attempt 5 failed; next in 4 s)", said.get(4));
        assertTrue(wait.waitingFor().isEmpty(), "nothing waited for once it answered");
        assertEquals(5, wait.failures("kerberos"));
        assertEquals(5.0, DaemonMetrics.value(registry, DependencyWait.FAILURES));
    }

    @Test
    void aFailureThatIsNotADependencyDownEndsTheWaitAtOnce() {
        DependencyWait wait = new DependencyWait(BACKOFF, () -> 1.0, d -> {
            throw new AssertionError("no wait expected");
        });
        IOException refused = new IOException("Client not found in Kerberos database (6)");
        IOException thrown = assertThrows(IOException.class, () -> wait.await("kerberos", () -> {
            throw refused;
        }, e -> e instanceof ConnectException));
        assertSame(refused, thrown);
        IllegalStateException bug = new IllegalStateException("bad option");
        assertSame(bug, assertThrows(IllegalStateException.class, () -> wait.await("kudu", () -> {
            throw bug;
        }, e -> false)));
        assertEquals(0, wait.failures("kerberos"));
    }

    @Test
    void closingEndsAWaitInProgress() throws Exception {
        DependencyWait wait = new DependencyWait(Backoff.doubling(Duration.ofHours(1), Duration.ofHours(1)),
                () -> 1.0, null);
        AtomicReference<Throwable> ended = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                wait.await("kudu", () -> {
                    throw new ConnectException("Connection refused");
                }, e -> true);
            } catch (Exception e) {
                ended.set(e);
            }
        });
        waiter.start();
        while (wait.failures("kudu") == 0) {
            Thread.onSpinWait();
        }
        wait.close();
        waiter.join(10_000);
        assertTrue(ended.get() instanceof InterruptedException, String.valueOf(ended.get()));
    }
}
