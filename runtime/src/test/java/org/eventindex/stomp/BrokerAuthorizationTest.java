package org.eventindex.stomp;

import static org.eventindex.testing.BrokerAccess.ADMINS;
import static org.eventindex.testing.BrokerAccess.CONSUMERS;
import static org.eventindex.testing.BrokerAccess.OPERATORS;
import static org.eventindex.testing.BrokerAccess.PRODUCERS;
import static org.eventindex.testing.BrokerAccess.SUPERVISORS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eventindex.message.Queues;
import org.eventindex.testing.Await;
import org.eventindex.testing.BrokerAccess;
import org.eventindex.testing.EmbeddedBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deployment's broker rules ({@link BrokerAccess}) on a real ActiveMQ broker: every login is tried against every
 * queue, and only the granted reads and sends succeed; anonymous and wrong-password logins are refused.
 */
class BrokerAuthorizationTest {
    private static final List<String> QUEUES = List.of(Queues.SUPERVISOR, Queues.SUPERVISOR_CONTROL,
            Queues.SUPERVISOR_HEARTBEAT, Queues.CONSUMER,
            BrokerAccess.QUARANTINE, "/queue/" + BrokerAccess.DLQ, "/queue/some.other.queue");
    private static final Map<String, String> PASSWORDS = new LinkedHashMap<>();

    @TempDir
    static Path dir;
    private static EmbeddedBroker broker;

    @BeforeAll
    static void start() {
        for (String group : List.of(PRODUCERS, SUPERVISORS, CONSUMERS, OPERATORS, ADMINS)) {
            PASSWORDS.put(group, group + "-pw-" + Long.toHexString(System.nanoTime()));
        }
        broker = EmbeddedBroker.startSecured(dir.resolve("broker"), EmbeddedBroker.Security.onePerGroup(PASSWORDS));
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void anonymousAndWrongPasswordsAreRefused() {
        StompException anonymous = assertThrows(StompException.class, () -> connect(null, null).close());
        assertFalse(anonymous.getMessage().isBlank());
        StompException wrong = assertThrows(StompException.class, () -> connect(PRODUCERS, "not-the-password")
                .close());
        assertFalse(wrong.getMessage().contains("not-the-password"), wrong.getMessage());
        assertThrows(StompException.class, () -> connect("nobody", PASSWORDS.get(PRODUCERS)).close());
    }

    @Test
    void producerMaySendOnlyToTheSupervisorQueueAndReadNothing() throws IOException {
        assertAccess(PRODUCERS, List.of(), List.of(Queues.SUPERVISOR));
    }

    @Test
    void supervisorReadsItsQueuesAndSendsSignals() throws IOException {
        assertAccess(SUPERVISORS, List.of(Queues.SUPERVISOR, Queues.SUPERVISOR_CONTROL, Queues.SUPERVISOR_HEARTBEAT),
                List.of(Queues.CONSUMER, BrokerAccess.QUARANTINE));
    }

    @Test
    void consumerReadsSignalsAndSendsReportsOnly() throws IOException {
        assertAccess(CONSUMERS, List.of(Queues.CONSUMER), List.of(Queues.SUPERVISOR_CONTROL,
                Queues.SUPERVISOR_HEARTBEAT));
    }

    @Test
    void operatorSendsControlMessagesAndReadsQuarantineAndDeadLetters() throws IOException {
        assertAccess(OPERATORS, List.of(BrokerAccess.QUARANTINE, "/queue/" + BrokerAccess.DLQ),
                List.of(Queues.SUPERVISOR_CONTROL));
    }

    @Test
    void adminMayDoEverything() throws IOException {
        assertAccess(ADMINS, QUEUES, QUEUES);
    }

    @Test
    void happyPathProducerToSupervisorToConsumer() throws Exception {
        byte[] producerBody = "{\"type\":1}".getBytes(StandardCharsets.UTF_8);
        byte[] signalBody = "{\"type\":\"signal\"}".getBytes(StandardCharsets.UTF_8);
        try (StompConnection producer = connect(PRODUCERS, PASSWORDS.get(PRODUCERS));
             StompConnection supervisor = connect(SUPERVISORS, PASSWORDS.get(SUPERVISORS));
             StompConnection consumer = connect(CONSUMERS, PASSWORDS.get(CONSUMERS))) {
            BlockingQueue<StompMessage> atSupervisor = new LinkedBlockingQueue<>();
            BlockingQueue<StompMessage> atConsumer = new LinkedBlockingQueue<>();
            supervisor.subscribe(Queues.SUPERVISOR, 1, atSupervisor::add);
            consumer.subscribe(Queues.CONSUMER, 1, atConsumer::add);
            producer.send(Queues.SUPERVISOR, producerBody, Map.of());
            StompMessage m = atSupervisor.poll(30, TimeUnit.SECONDS);
            assertNotNull(m, "the supervisor received nothing");
            assertArrayEquals(producerBody, m.body());
            supervisor.ack(m);
            supervisor.send(Queues.CONSUMER, signalBody, Map.of());
            StompMessage s = atConsumer.poll(30, TimeUnit.SECONDS);
            assertNotNull(s, "the consumer received nothing");
            assertArrayEquals(signalBody, s.body());
            consumer.ack(s);
        }
        Await.until("queues drained", java.time.Duration.ofSeconds(30),
                () -> broker.queueSize(Queues.SUPERVISOR) == 0 && broker.queueSize(Queues.CONSUMER) == 0);
    }

    /**
     * Temporary queues (the operator commands' reply queues): only operators (and admins) may create and read one;
     * the supervisor may send into an operator's, a consumer or a producer may not.
     */
    @Test
    void onlyOperatorsCreateTemporaryQueuesAndOnlyTheSupervisorAnswersIntoThem() throws Exception {
        for (String login : List.of(PRODUCERS, SUPERVISORS, CONSUMERS)) {
            try (StompConnection c = connect(login, PASSWORDS.get(login))) {
                assertThrows(StompException.class, () -> c.subscribe("/temp-queue/answers", 1, m -> { }),
                        login + " could create a temporary queue");
            }
        }
        byte[] answer = "{\"type\":\"answer\"}".getBytes(StandardCharsets.UTF_8);
        try (StompConnection operator = connect(OPERATORS, PASSWORDS.get(OPERATORS));
             StompConnection supervisor = connect(SUPERVISORS, PASSWORDS.get(SUPERVISORS))) {
            BlockingQueue<StompMessage> answers = new LinkedBlockingQueue<>();
            BlockingQueue<StompMessage> requests = new LinkedBlockingQueue<>();
            operator.subscribe("/temp-queue/answers", 1, answers::add);
            supervisor.subscribe(Queues.SUPERVISOR_CONTROL, 1, requests::add);
            operator.send(Queues.SUPERVISOR_CONTROL, "{}".getBytes(StandardCharsets.UTF_8),
                    Map.of("reply-to", "/temp-queue/answers"));
            StompMessage request = requests.poll(30, TimeUnit.SECONDS);
            assertNotNull(request, "the supervisor received no request");
            supervisor.ack(request);
            String replyTo = request.headers().get("reply-to");
            assertTrue(replyTo != null && replyTo.startsWith("/remote-temp-queue/"), "reply-to " + replyTo);
            for (String login : List.of(PRODUCERS, CONSUMERS)) {
                try (StompConnection c = connect(login, PASSWORDS.get(login))) {
                    assertThrows(StompException.class, () -> c.send(replyTo, answer, Map.of()),
                            login + " could send into an operator's temporary queue");
                }
            }
            supervisor.send(replyTo, answer, Map.of());
            StompMessage m = answers.poll(30, TimeUnit.SECONDS);
            assertNotNull(m, "the operator received no answer");
            assertArrayEquals(answer, m.body());
            operator.ack(m);
        }
    }

    @Test
    void framesLargerThanTheBrokerLimitAreRefused() throws IOException {
        byte[] big = new byte[(int) EmbeddedBroker.MAX_FRAME_BYTES + 1024];
        try (StompConnection c = connect(PRODUCERS, PASSWORDS.get(PRODUCERS))) {
            assertThrows(IOException.class, () -> c.send(Queues.SUPERVISOR, big, Map.of()));
        }
        // The broker survives and keeps serving.
        try (StompConnection c = connect(PRODUCERS, PASSWORDS.get(PRODUCERS))) {
            c.send(Queues.SUPERVISOR, new byte[] {'{', '}'}, Map.of());
        }
        drain(Queues.SUPERVISOR);
    }

    /** Tries every queue: reads succeed exactly on {@code readable}, sends exactly on {@code writable}. */
    private static void assertAccess(String login, List<String> readable, List<String> writable) throws IOException {
        for (String q : QUEUES) {
            try (StompConnection c = connect(login, PASSWORDS.get(login))) {
                if (readable.contains(q)) {
                    c.subscribe(q, 1, m -> { });
                } else {
                    StompException e = assertThrows(StompException.class, () -> c.subscribe(q, 1, m -> { }),
                            login + " could read " + q);
                    assertTrue(e.getMessage().contains("not authorized") || e.getMessage().contains("User "),
                            e.getMessage());
                }
            }
            try (StompConnection c = connect(login, PASSWORDS.get(login))) {
                if (writable.contains(q)) {
                    c.send(q, "{}".getBytes(StandardCharsets.UTF_8), Map.of());
                } else {
                    StompException e = assertThrows(StompException.class,
                            () -> c.send(q, "{}".getBytes(StandardCharsets.UTF_8), Map.of()), login + " could send to " + q);
                    assertTrue(e.getMessage().contains(q.substring("/queue/".length())), e.getMessage());
                }
            }
            drain(q);
        }
    }

    private static void drain(String queue) throws IOException {
        try (StompConnection admin = connect(ADMINS, PASSWORDS.get(ADMINS))) {
            admin.subscribe(queue, 100, m -> {
                try {
                    admin.ack(m);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            Await.until(queue + " drained", java.time.Duration.ofSeconds(30), () -> broker.queueSize(queue) == 0);
        }
        assertEquals(0, broker.queueSize(queue));
    }

    private static StompConnection connect(String login, String passcode) throws IOException {
        return StompConnection.connect(StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()), login,
                passcode));
    }
}
