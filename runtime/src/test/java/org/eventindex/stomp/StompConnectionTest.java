package org.eventindex.stomp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.Ports;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StompConnectionTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    static Path dir;
    private static EmbeddedBroker broker;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedBroker.start(dir.resolve("broker"));
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    private static StompSettings settings(String endpoints) {
        return StompSettings.of(StompEndpoint.parseList(endpoints), null, null);
    }

    @Test
    void sendWithReceiptThenReceiveAndAck() throws Exception {
        String queue = "/queue/test.send";
        byte[] body = "{\"a\":1}\0tail".getBytes(StandardCharsets.UTF_8);
        try (StompConnection c = StompConnection.connect(settings(broker.stompEndpoints()))) {
            c.send(queue, body, Map.of("x-origin", "host:1\\2"));
            assertEquals(1, broker.queueSize(queue));

            BlockingQueue<StompMessage> received = new LinkedBlockingQueue<>();
            c.subscribe(queue, 1, received::add);
            StompMessage m = received.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertArrayEquals(body, m.body());
            assertEquals("host:1\\2", m.headers().get("x-origin"));
            assertEquals("application/json", m.headers().get("content-type"));
            assertEquals(queue, m.destination());
            assertFalse(m.redelivered());

            c.ack(m);
            Await.until("queue to drain after ACK", WAIT, () -> broker.queueSize(queue) == 0);
        }
    }

    @Test
    void unackedMessageIsRedeliveredAfterConsumerConnectionCloses() throws Exception {
        String queue = "/queue/test.redeliver";
        StompSettings s = settings(broker.stompEndpoints());
        try (StompConnection producer = StompConnection.connect(s)) {
            producer.send(queue, "one".getBytes(StandardCharsets.UTF_8), Map.of());
        }
        BlockingQueue<StompMessage> first = new LinkedBlockingQueue<>();
        StompConnection consumer = StompConnection.connect(s);
        consumer.subscribe(queue, 1, first::add);
        StompMessage m1 = first.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
        consumer.close();
        assertFalse(consumer.isOpen());

        BlockingQueue<StompMessage> second = new LinkedBlockingQueue<>();
        try (StompConnection again = StompConnection.connect(s)) {
            again.subscribe(queue, 1, second::add);
            StompMessage m2 = second.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals(m1.messageId(), m2.messageId());
            assertArrayEquals(m1.body(), m2.body());
            again.ack(m2);
        }
        Await.until("queue to drain", WAIT, () -> broker.queueSize(queue) == 0);
    }

    @Test
    void nackSendsMessageToDeadLetterQueue() throws Exception {
        String queue = "/queue/test.nack";
        long dlqBefore = broker.queueSize(EmbeddedBroker.DLQ);
        try (StompConnection c = StompConnection.connect(settings(broker.stompEndpoints()))) {
            c.send(queue, "bad".getBytes(StandardCharsets.UTF_8), Map.of());
            BlockingQueue<StompMessage> received = new LinkedBlockingQueue<>();
            c.subscribe(queue, 1, received::add);
            c.nack(received.poll(WAIT.toSeconds(), TimeUnit.SECONDS));
        }
        Await.until("message in the DLQ", WAIT, () -> broker.queueSize(EmbeddedBroker.DLQ) == dlqBefore + 1);
        assertEquals(0, broker.queueSize(queue));
    }

    @Test
    void failsOverFromDeadEndpointToLiveOne() throws IOException {
        int deadPort = Ports.free();
        String endpoints = "127.0.0.1:" + deadPort + "," + broker.stompEndpoints();
        try (StompConnection c = StompConnection.connect(settings(endpoints))) {
            assertEquals(broker.stompPort(), c.endpoint().port());
            assertTrue(c.isOpen());
        }
        StompException none = assertThrows(StompException.class,
                () -> StompConnection.connect(settings("127.0.0.1:" + deadPort + ",no-such-host.invalid:61613")));
        assertFalse(none.isAuthentication());
        assertTrue(none.getMessage().contains("127.0.0.1:" + deadPort), none.getMessage());
        assertTrue(none.getMessage().contains("no-such-host.invalid:61613: unknown host"), none.getMessage());
    }

    @Test
    void sendErrorNamesDestinationAndBrokerMessage() throws IOException {
        try (FakeStompServer fake = new FakeStompServer(f -> switch (f.command()) {
            case "CONNECT" -> "CONNECTED\nversion:1.2\n\n";
            case "SEND" -> "ERROR\nreceipt-id:" + f.header("receipt") + "\nmessage:queue is full\n\ndetails\n";
            default -> null;
        })) {
            StompSettings s = StompSettings.of(List.of(fake.endpoint()), null, null);
            try (StompConnection c = StompConnection.connect(s)) {
                StompException e = assertThrows(StompException.class,
                        () -> c.send("/queue/full", new byte[0], Map.of()));
                assertEquals("broker " + fake.endpoint() + " refused SEND to /queue/full: queue is full (details)",
                        e.getMessage());
                assertFalse(e.isAuthentication());
                Await.until("connection to close after ERROR", WAIT, () -> !c.isOpen());
            }
        }
    }

    @Test
    void badCredentialsAreReportedAsAuthentication() throws IOException {
        try (EmbeddedBroker secured = EmbeddedBroker.start(dir.resolve("secured"), Map.of("ei", "s3cret"))) {
            List<StompEndpoint> endpoints = StompEndpoint.parseList(secured.stompEndpoints());
            StompException e = assertThrows(StompException.class,
                    () -> StompConnection.connect(StompSettings.of(endpoints, "ei", "wrong")));
            assertTrue(e.isAuthentication(), e.getMessage());
            assertFalse(e.getMessage().contains("wrong"), "passcode leaked into: " + e.getMessage());
            try (StompConnection ok = StompConnection.connect(StompSettings.of(endpoints, "ei", "s3cret"))) {
                ok.send("/queue/test.auth", new byte[] {'{', '}'}, Map.of());
            }
        }
    }

    @Test
    void heartbeatsKeepAnIdleConnectionOpenBothWays() throws Exception {
        StompSettings s = new StompSettings(StompEndpoint.parseList(broker.stompEndpoints()), null, null,
                Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofMillis(500));
        try (StompConnection c = StompConnection.connect(s)) {
            // Idle until the broker has sent 8 heart-beats (>= 4 s): longer than either side's silence timeout
            // (ours: 2 x 500 ms + 1 s; ActiveMQ's: 1.5 x 500 ms), so both directions must have kept it alive. Not
            // shorter: on a loaded machine (the whole suite on two cores) a thread can wait a few hundred ms for a
            // core, and ActiveMQ closes a connection silent for 1.5 intervals.
            Await.until("8 heart-beats from the broker", Duration.ofSeconds(30), () -> c.heartbeatsReceived() >= 8);
            assertTrue(c.isOpen());
            c.send("/queue/test.idle", new byte[] {'{', '}'}, Map.of());
        }
        assertEquals(1, broker.queueSize("/queue/test.idle"));
    }

    @Test
    void silentBrokerClosesConnectionAndTellsListener() throws Exception {
        try (FakeStompServer fake = new FakeStompServer(f -> switch (f.command()) {
            case "CONNECT" -> "CONNECTED\nversion:1.2\nheart-beat:100,100\n\n";
            case "SUBSCRIBE" -> "RECEIPT\nreceipt-id:" + f.header("receipt") + "\n\n";
            default -> null;
        })) {
            StompSettings s = new StompSettings(List.of(fake.endpoint()), null, null, Duration.ofSeconds(5),
                    Duration.ofSeconds(5), Duration.ofMillis(100));
            CompletableFuture<IOException> error = new CompletableFuture<>();
            List<StompMessage> none = new ArrayList<>();
            try (StompConnection c = StompConnection.connect(s)) {
                c.subscribe("/queue/x", 1, new StompConnection.Listener() {
                    @Override
                    public void onMessage(StompMessage message) {
                        none.add(message);
                    }

                    @Override
                    public void onError(IOException cause) {
                        error.complete(cause);
                    }
                });
                IOException cause = error.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertTrue(cause.getMessage().contains("heart-beat"), cause.getMessage());
                assertFalse(c.isOpen());
                assertTrue(none.isEmpty());
            }
        }
    }

    @Test
    void missingReceiptTimesOutAndClosesConnection() throws IOException {
        try (FakeStompServer fake = FakeStompServer.silentAfter("CONNECTED\nversion:1.2\nheart-beat:0,0\n\n")) {
            StompSettings s = new StompSettings(List.of(fake.endpoint()), null, null, Duration.ofSeconds(5),
                    Duration.ofMillis(300), Duration.ZERO);
            try (StompConnection c = StompConnection.connect(s)) {
                StompException e = assertThrows(StompException.class,
                        () -> c.send("/queue/x", new byte[] {1}, Map.of()));
                assertTrue(e.getMessage().contains("no RECEIPT for SEND to /queue/x"), e.getMessage());
                assertFalse(c.isOpen());
            }
        }
    }
}
