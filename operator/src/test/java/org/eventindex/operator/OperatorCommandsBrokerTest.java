package org.eventindex.operator;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.supervisor.OperatorAnswer;
import org.eventindex.supervisor.RejectReason;
import org.eventindex.supervisor.ResignalCommand;
import org.eventindex.supervisor.Supervisor;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompException;
import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompSettings;
import org.eventindex.testing.Await;
import org.eventindex.testing.BrokerAccess;
import org.eventindex.testing.EmbeddedBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.eventindex.testing.BrokerAccess.ADMINS;
import static org.eventindex.testing.BrokerAccess.CONSUMERS;
import static org.eventindex.testing.BrokerAccess.OPERATORS;
import static org.eventindex.testing.BrokerAccess.PRODUCERS;
import static org.eventindex.testing.BrokerAccess.SUPERVISORS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operator commands on a real broker with the deployment's per-role logins and access rules, against a running
 * supervisor: every request is answered on a temporary queue (OK, refusals, malformed requests), a request delivered
 * again gets the recorded answer (also after a restart) without being applied again, a supervisor that does not answer
 * gives its own exit code; dead-lettered messages are listed and re-driven without losing any.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OperatorCommandsBrokerTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String COLLECTING = "data18_13TeV.00350013.physics_Main.merge.AOD.f934_m1831_tid13500001_00";
    private static final String LATER = "data18_13TeV.00350014.physics_Main.merge.AOD.f934_m1831_tid13500002_00";
    private static final Map<String, String> PASSWORDS = new LinkedHashMap<>();

    @TempDir
    static Path dir;
    private static EmbeddedBroker broker;
    private static Supervisor supervisor;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeAll
    static void start() throws IOException {
        for (String group : List.of(PRODUCERS, SUPERVISORS, CONSUMERS, OPERATORS, ADMINS)) {
            PASSWORDS.put(group, group + "-pw-" + Long.toHexString(System.nanoTime()));
        }
        broker = EmbeddedBroker.startSecured(dir.resolve("broker"), EmbeddedBroker.Security.onePerGroup(PASSWORDS));
        supervisor = startSupervisor();
    }

    @AfterAll
    static void stop() {
        if (supervisor != null) {
            supervisor.stop();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private static Supervisor startSupervisor() throws IOException {
        Properties login = new Properties();
        login.setProperty(SupervisorConfig.STOMP_USER, SUPERVISORS);
        return RunningSupervisor.start(broker.stompEndpoints(), dir.resolve("journal"), login,
                Map.of(SupervisorConfig.ENV_STOMP_PASSWORD, PASSWORDS.get(SUPERVISORS)));
    }

    @Test
    @Order(1)
    void anUnknownDatasetIsRefusedWithItsOwnExitCode() {
        assertEquals(OperatorMain.REFUSED, cli(OPERATORS, "resignal", "--dataset", COLLECTING));
        assertTrue(err().contains("resignal refused: UNKNOWN_DATASET: resignal: dataset " + COLLECTING
                + " is not known"), err());
    }

    @Test
    @Order(2)
    void anAcceptedManifestIsAnsweredOkAndAWrongStateIsRefused() throws IOException {
        Path manifest = dir.resolve("manifest.json");
        Files.writeString(manifest, "{\"type\":\"manifest\",\"dataset\":\"" + COLLECTING
                + "\",\"files\":[{\"guid\":\"G1\",\"nevents\":10}]}");
        assertEquals(0, cli(OPERATORS, "register-manifest", "--file", manifest.toString()), err());
        assertTrue(out().contains("OK: manifest of dataset " + COLLECTING + " (1 files) registered; dataset "
                + COLLECTING + " is COLLECTING"), out());

        out.reset();
        assertEquals(OperatorMain.REFUSED, cli(OPERATORS, "resignal", "--dataset", COLLECTING));
        assertTrue(err().contains("WRONG_STATE") && err().contains("is COLLECTING"), err());
        assertEquals("", out());
    }

    @Test
    @Order(3)
    void aMalformedRequestIsAnsweredBadRequest() throws IOException {
        OperatorAnswer a = OperatorClient.request(settings(OPERATORS), Queues.SUPERVISOR_CONTROL,
                "{\"type\":\"resignal\"}".getBytes(StandardCharsets.UTF_8), WAIT).orElseThrow();
        assertEquals(OperatorAnswer.BAD_REQUEST, a.outcome());
        assertEquals(RejectReason.MISSING_FIELD.name(), a.reason());
        assertTrue(a.detail().contains("'dataset'"), a.detail());

        byte[] big = ("{\"type\":\"resignal\",\"pad\":\"" + "x".repeat(1 << 20) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        OperatorAnswer tooBig = OperatorClient.request(settings(OPERATORS), Queues.SUPERVISOR_CONTROL, big, WAIT)
                .orElseThrow();
        assertEquals(OperatorAnswer.BAD_REQUEST, tooBig.outcome());
        assertEquals(RejectReason.OVERSIZE.name(), tooBig.reason(), tooBig.detail());
    }

    /**
     * A refusal recorded for a request id is given again for the same id, even after the dataset changed so that
     * applying the request now would be refused otherwise, and after a restart of the supervisor (from its journal).
     */
    @Test
    @Order(4)
    void aRedeliveredRequestGetsTheRecordedAnswerAndIsNotAppliedAgain() throws Exception {
        byte[] resignal = Json.write(ResignalCommand.of(LATER));
        OperatorAnswer first = rawRequest("req-later-1", resignal);
        assertEquals("UNKNOWN_DATASET", first.outcome());

        Path manifest = dir.resolve("later.json");
        Files.writeString(manifest, "{\"type\":\"manifest\",\"dataset\":\"" + LATER
                + "\",\"files\":[{\"guid\":\"G2\",\"nevents\":5}]}");
        assertEquals(0, cli(OPERATORS, "register-manifest", "--file", manifest.toString()), err());
        assertEquals("WRONG_STATE", rawRequest("req-later-2", resignal).outcome(), "a new request is applied");

        assertEquals(first, rawRequest("req-later-1", resignal), "the same request id gets the same answer");
        supervisor.stop();
        supervisor = startSupervisor();
        assertEquals(first, rawRequest("req-later-1", resignal), "also after a restart");
        assertEquals(1.0, DaemonMetrics.value(supervisor.metrics(), "eventindex_supervisor_answers_total"),
                "one answer sent since the restart");
    }

    /**
     * The journal records who sent each request: the broker login the broker vouches for (it overwrites a forged
     * {@code JMSXUserID}), and the OS user the command line claims.
     */
    @Test
    @Order(5)
    void theJournalRecordsTheBrokerLoginOfEachRequestEvenWhenTheSenderForgesIt() throws Exception {
        assertEquals(OperatorMain.REFUSED, cli(OPERATORS, "resignal", "--dataset", COLLECTING));
        JsonNode fromCli = answered(json -> json.path("detail").asText().contains("resignal: dataset " + COLLECTING)
                && json.has("claimedUser"));
        assertEquals(OPERATORS, fromCli.path("brokerLogin").asText(), fromCli.toString());
        assertEquals(System.getProperty("user.name"), fromCli.path("claimedUser").asText(), fromCli.toString());

        byte[] resignal = Json.write(ResignalCommand.of(LATER));
        BlockingQueue<StompMessage> answers = new LinkedBlockingQueue<>();
        try (StompConnection c = StompConnection.connect(settings(OPERATORS))) {
            c.subscribe(OperatorClient.REPLY_QUEUE, 1, acking(c, answers));
            c.send(Queues.SUPERVISOR_CONTROL, resignal, Map.of("reply-to", OperatorClient.REPLY_QUEUE,
                    "correlation-id", "req-forged", "JMSXUserID", ADMINS, "eventindex-os-user", "mallory"));
            assertNotNull(answers.poll(WAIT.toSeconds(), TimeUnit.SECONDS), "answer to req-forged");
        }
        JsonNode forged = answered(json -> json.path("requestId").asText().equals("req-forged"));
        assertEquals(OPERATORS, forged.path("brokerLogin").asText(), "the broker's word, not the sender's: " + forged);
        assertEquals("mallory", forged.path("claimedUser").asText(), "kept, as claimed only");
    }

    /** The first REQUEST_ANSWERED line of the supervisor's journal that {@code matches}. */
    private static JsonNode answered(java.util.function.Predicate<JsonNode> matches) throws IOException {
        List<Path> files;
        try (java.util.stream.Stream<Path> walk = Files.walk(dir.resolve("journal"))) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        for (Path f : files) {
            for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                int at = line.indexOf("{\"type\":\"REQUEST_ANSWERED\"");
                if (at < 0) {
                    continue;
                }
                JsonNode event = Json.mapper().readTree(line.substring(at, line.lastIndexOf('}') + 1));
                if (matches.test(event)) {
                    return event;
                }
            }
        }
        throw new AssertionError("no such REQUEST_ANSWERED in the journal " + files);
    }

    @Test
    @Order(6)
    void onlyOperatorsMayCreateReplyQueues() throws IOException {
        try (StompConnection c = StompConnection.connect(settings(CONSUMERS))) {
            assertThrows(StompException.class, () -> c.subscribe(OperatorClient.REPLY_QUEUE, 1, m -> { }));
        }
    }

    @Test
    @Order(7)
    void deadLettersAreListedAndReDrivenWithoutLosingAny() throws IOException {
        List<String> bodies = List.of("{\"n\":1}", "{\"n\":2}", "{\"n\":3,\"pad\":\"" + "x".repeat(200) + "\"}");
        try (StompConnection admin = StompConnection.connect(settings(ADMINS))) {
            for (String b : bodies) {
                admin.send(Queues.CONSUMER, b.getBytes(StandardCharsets.UTF_8), Map.of("eventindex-dataset", "d"));
            }
        }
        // a consumer refuses them: the broker dead-letters each
        try (StompConnection consumer = StompConnection.connect(settings(CONSUMERS))) {
            consumer.subscribe(Queues.CONSUMER, 10, m -> {
                try {
                    consumer.nack(m);
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            });
            Await.until("3 messages dead-lettered", WAIT, () -> broker.queueSize(EmbeddedBroker.DLQ) == 3);
        }

        assertEquals(0, cli(OPERATORS, "dead-letters", "list"), err());
        List<String> lines = out().lines().toList();
        assertEquals(4, lines.size(), out());
        for (String line : lines.subList(0, 3)) {
            assertTrue(line.contains("from /queue/atlas.eventindex.consumer"), line);
            assertTrue(line.matches("^\\d{4}-\\d\\d-\\d\\dT.*  ID:.*  reason: .*  body: \\{\"n\":.*"), line);
        }
        assertTrue(lines.get(2).endsWith("..."), "a long body is cut: " + lines.get(2));
        assertEquals("3 dead-lettered messages in /queue/ActiveMQ.DLQ", lines.get(3));
        String firstId = lines.get(0).split("  ")[1];

        out.reset();
        assertEquals(1, cli(OPERATORS, "dead-letters", "redrive", "--all"), "operators may not send to consumers");
        assertEquals(3, broker.queueSize(EmbeddedBroker.DLQ), "nothing lost by a refused re-drive: " + err());

        err.reset();
        assertEquals(0, cli(ADMINS, "dead-letters", "redrive", "--id", firstId), err());
        assertTrue(out().contains("re-driven " + firstId + " to /queue/atlas.eventindex.consumer"), out());
        assertEquals(2, broker.queueSize(EmbeddedBroker.DLQ));
        assertEquals(1, broker.queueSize(Queues.CONSUMER));

        out.reset();
        assertEquals(1, cli(ADMINS, "dead-letters", "redrive", "--id", "ID:not-there"));
        assertTrue(err().contains("not in /queue/ActiveMQ.DLQ: ID:not-there"), err());
        assertEquals(0, cli(ADMINS, "dead-letters", "redrive", "--all"), err());
        assertTrue(out().contains("2 re-driven, 0 left, 0 not found"), out());
        assertEquals(0, broker.queueSize(EmbeddedBroker.DLQ));

        List<String> received = new ArrayList<>();
        BlockingQueue<StompMessage> q = new LinkedBlockingQueue<>();
        try (StompConnection consumer = StompConnection.connect(settings(CONSUMERS))) {
            consumer.subscribe(Queues.CONSUMER, 10, acking(consumer, q));
            for (int i = 0; i < 3; i++) {
                StompMessage m = q.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertNotNull(m, "re-driven message " + i);
                received.add(new String(m.body(), StandardCharsets.UTF_8));
                assertEquals("d", m.headers().get("eventindex-dataset"), "the message's own headers are kept");
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        assertEquals(bodies.stream().sorted().toList(), received.stream().sorted().toList());
    }

    @Test
    @Order(8)
    void aSupervisorThatDoesNotAnswerGivesItsOwnExitCode() {
        supervisor.stop();
        assertEquals(OperatorMain.NO_ANSWER, cli(OPERATORS, "resignal", "--dataset", COLLECTING, "--timeout",
                "1"));
        assertTrue(err().contains("the supervisor did not answer in 1 s"), err());
    }

    private OperatorAnswer rawRequest(String requestId, byte[] body) throws Exception {
        BlockingQueue<StompMessage> answers = new LinkedBlockingQueue<>();
        try (StompConnection c = StompConnection.connect(settings(OPERATORS))) {
            c.subscribe(OperatorClient.REPLY_QUEUE, 1, acking(c, answers));
            c.send(Queues.SUPERVISOR_CONTROL, body, Map.of("reply-to", OperatorClient.REPLY_QUEUE,
                    "correlation-id", requestId));
            StompMessage m = answers.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertNotNull(m, "answer to " + requestId);
            assertEquals(requestId, m.headers().get("correlation-id"));
            return Json.read(m.body(), OperatorAnswer.class);
        }
    }

    /** A listener that queues each message into {@code into}, then acknowledges it. */
    private static StompConnection.Listener acking(StompConnection c, BlockingQueue<StompMessage> into) {
        return m -> {
            into.add(m);
            try {
                c.ack(m);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        };
    }

    private int cli(String login, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        int at = args[0].equals("dead-letters") ? 2 : 1;
        all.addAll(at, List.of("--brokers", broker.stompEndpoints(), "--user", login));
        return OperatorMain.run(all.toArray(String[]::new), new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                Map.of(SupervisorConfig.ENV_STOMP_PASSWORD, PASSWORDS.get(login)));
    }

    private static StompSettings settings(String login) {
        return StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()), login, PASSWORDS.get(login));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    static {
        // BrokerAccess is what the embedded broker enforces; the reply queues are its temporary destinations
        assertNotNull(BrokerAccess.temporaryDestinations());
    }
}
