package org.eventindex.stomp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eventindex.retry.Backoff;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StompQueueWorkerTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Backoff FAST = Backoff.doubling(Duration.ofMillis(50), Duration.ofMillis(500)).withJitter(0.5);

    @TempDir
    Path dir;
    private EmbeddedBroker broker;
    private StompSettings settings;

    @BeforeEach
    void startBroker() {
        broker = EmbeddedBroker.start(dir);
        settings = StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()), null, null);
    }

    @AfterEach
    void stopBroker() {
        broker.close();
    }

    private void send(String queue, String... bodies) throws IOException {
        try (StompSender sender = new StompSender(settings)) {
            for (String body : bodies) {
                sender.send(queue, body.getBytes(StandardCharsets.UTF_8), Map.of());
            }
        }
    }

    @Test
    void competingWorkersWithPrefetchOneBothGetMessages() throws Exception {
        String queue = "/queue/test.compete";
        send(queue, "1", "2", "3", "4", "5", "6");
        // Each worker holds its first message until the other has one too: only possible if prefetch 1 is honoured.
        CountDownLatch bothBusy = new CountDownLatch(2);
        Map<String, Set<String>> seen = new ConcurrentHashMap<>();
        StompMessageHandler handler = m -> {
            String worker = Thread.currentThread().getName();
            if (seen.computeIfAbsent(worker, w -> ConcurrentHashMap.newKeySet()).isEmpty()) {
                bothBusy.countDown();
                assertTrue(bothBusy.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the other worker got no message");
            }
            seen.get(worker).add(new String(m.body(), StandardCharsets.UTF_8));
        };
        try (StompQueueWorker a = new StompQueueWorker("a", settings, queue, 1, handler, FAST);
             StompQueueWorker b = new StompQueueWorker("b", settings, queue, 1, handler, FAST)) {
            a.start();
            b.start();
            Await.until("all six messages handled", WAIT, () -> a.handled() + b.handled() == 6);
            assertTrue(a.handled() >= 1 && b.handled() >= 1, "a=" + a.handled() + " b=" + b.handled());
            assertEquals(Set.of("1", "2", "3", "4", "5", "6"), union(seen));
        }
        Await.until("queue drained", WAIT, () -> broker.queueSize(queue) == 0);
    }

    @Test
    void failingHandlerNacksToDeadLetterQueue() throws Exception {
        String queue = "/queue/test.poison";
        send(queue, "poison");
        try (StompQueueWorker w = new StompQueueWorker("poison", settings, queue, 1, m -> {
            throw new IllegalArgumentException("cannot parse " + m.messageId());
        }, FAST)) {
            w.start();
            Await.until("message dead-lettered", WAIT, () -> broker.queueSize(EmbeddedBroker.DLQ) == 1);
            assertEquals(0, w.handled());
            assertTrue(w.isConnected());
        }
        assertEquals(0, broker.queueSize(queue));
    }

    @Test
    void anErrorEndsTheWorkerTellsItsOwnerAndLeavesTheMessageToTheBroker() throws Exception {
        String queue = "/queue/test.error";
        send(queue, "heavy");
        CompletableFuture<Throwable> died = new CompletableFuture<>();
        try (StompQueueWorker w = new StompQueueWorker("dies", settings, queue, 1, m -> {
            throw new OutOfMemoryError("test: Java heap space on " + m.messageId());
        }, FAST, (name, cause) -> died.complete(cause))) {
            w.start();
            Throwable cause = died.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertInstanceOf(OutOfMemoryError.class, cause);
            assertSame(cause, w.failure());
            assertFalse(w.isConnected());
            assertEquals(0, w.handled());
        }
        assertMessageRedelivered(queue, "heavy");
    }

    @Test
    void withADeathListenerAnAssertionErrorIsFatalTooInsteadOfNacked() throws Exception {
        String queue = "/queue/test.assertion";
        send(queue, "buggy");
        CompletableFuture<Throwable> died = new CompletableFuture<>();
        try (StompQueueWorker w = new StompQueueWorker("asserts", settings, queue, 1, m -> {
            throw new AssertionError("test: invariant broken on " + m.messageId());
        }, FAST, (name, cause) -> died.complete(cause))) {
            w.start();
            assertInstanceOf(AssertionError.class, died.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        }
        assertMessageRedelivered(queue, "buggy");
    }

    /** The message is neither dead-lettered nor lost: the next worker on the queue gets it and acknowledges it. */
    private void assertMessageRedelivered(String queue, String body) throws Exception {
        assertEquals(0, broker.queueSize(EmbeddedBroker.DLQ), "nothing is dead-lettered");
        CompletableFuture<String> again = new CompletableFuture<>();
        try (StompQueueWorker next = new StompQueueWorker("next", settings, queue, 1,
                m -> again.complete(new String(m.body(), StandardCharsets.UTF_8)), FAST)) {
            next.start();
            assertEquals(body, again.get(WAIT.toSeconds(), TimeUnit.SECONDS));
            Await.until("redelivered message acknowledged", WAIT,
                    () -> next.handled() == 1 && broker.queueSize(queue) == 0);
            assertNull(next.failure());
        }
    }

    @Test
    void aMessageOverTheFrameLimitsIsRefusedWithoutDroppingTheConnection() throws Exception {
        String queue = "/queue/test.oversize";
        StompSettings small = settings.withFrameLimits(new StompFrameLimits(2048, 1024));
        String big = "{\"id\":\"big\"," + "x".repeat(10_000) + "}";
        send(queue, "small-1", big, "small-2");
        Set<String> bodies = ConcurrentHashMap.newKeySet();
        // Default: the worker NACKs it and the broker dead-letters the whole message.
        try (StompQueueWorker w = new StompQueueWorker("limits", small, queue, 1,
                m -> bodies.add(new String(m.body(), StandardCharsets.UTF_8)), FAST)) {
            w.start();
            Await.until("both small messages handled", WAIT, () -> w.handled() == 2);
            Await.until("the big one dead-lettered", WAIT, () -> broker.queueSize(EmbeddedBroker.DLQ) == 1);
            assertEquals(Set.of("small-1", "small-2"), bodies);
            assertTrue(w.isConnected());
        }
        assertEquals(0, broker.queueSize(queue));

        // A handler that records oversize messages itself gets the first bytes and what was dropped.
        send(queue, big);
        CompletableFuture<StompMessage> seen = new CompletableFuture<>();
        try (StompQueueWorker w = new StompQueueWorker("limits-own", small, queue, 1, new StompMessageHandler() {
            @Override
            public void onMessage(StompMessage m) {
                seen.completeExceptionally(new AssertionError("oversize message passed as complete"));
            }

            @Override
            public void onOversize(StompMessage m) {
                seen.complete(m);
            }
        }, FAST)) {
            w.start();
            StompMessage m = seen.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(2048, m.body().length);
            assertTrue(new String(m.body(), StandardCharsets.UTF_8).startsWith("{\"id\":\"big\","));
            assertTrue(m.oversize().contains("body of " + big.length() + " bytes exceeds the limit of 2048 bytes"),
                    m.oversize());
            Await.until("acknowledged", WAIT, () -> w.handled() == 1 && broker.queueSize(queue) == 0);
        }
        assertEquals(1, broker.queueSize(EmbeddedBroker.DLQ));
    }

    @Test
    void workerSurvivesBrokerRestart() throws Exception {
        String queue = "/queue/test.restart";
        // at least once: "before" may come again after the restart when its ACK was lost with the connection
        List<String> bodies = new CopyOnWriteArrayList<>();
        try (StompQueueWorker w = new StompQueueWorker("restart", settings, queue, 1,
                m -> bodies.add(new String(m.body(), StandardCharsets.UTF_8)), FAST)) {
            w.start();
            send(queue, "before");
            Await.until("first message handled", WAIT, () -> w.handled() == 1);
            broker.restart();
            send(queue, "after");
            Await.until("message after restart handled", WAIT, () -> bodies.contains("after"));
            assertTrue(w.isConnected());
            assertEquals(Set.of("before", "after"), Set.copyOf(bodies), "only the two messages sent: " + bodies);
        }
    }

    @Test
    void stopWaitsForMessageInProgressAndAcksIt() throws Exception {
        String queue = "/queue/test.stop";
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        StompQueueWorker w = new StompQueueWorker("stop", settings, queue, 1, m -> {
            entered.countDown();
            assertTrue(release.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        }, FAST);
        w.start();
        send(queue, "slow");
        assertTrue(entered.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> w.stop(WAIT));
        assertFalse(stopped.isDone());
        release.countDown();
        stopped.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(1, w.handled());
        assertFalse(w.isConnected());
        w.stop(Duration.ofSeconds(1)); // idempotent
        Await.until("acknowledged message gone", WAIT, () -> broker.queueSize(queue) == 0);
    }

    private static Set<String> union(Map<String, Set<String>> seen) {
        Set<String> all = new java.util.TreeSet<>();
        seen.values().forEach(all::addAll);
        return all;
    }
}
