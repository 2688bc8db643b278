package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.ops.DependencyStatus;
import org.eventindex.ops.OpsHttpServer;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompFanIn;
import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.eventindex.supervisor.Fixtures.DATASET;
import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.info;
import static org.eventindex.supervisor.Fixtures.manifest;
import static org.eventindex.supervisor.Fixtures.producerMessage;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The supervisor on three independent brokers (three embedded ActiveMQ brokers, each with its own store): it reads
 * its queues on all three, counts a producer message sent through two brokers once (its message id in the journal),
 * answers an operator through the broker the request came by, and stays ready with a broker down, naming it.
 */
class SupervisorIndependentBrokersTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;
    private final List<EmbeddedBroker> brokers = new ArrayList<>();
    private Supervisor supervisor;

    @AfterEach
    void stopAll() {
        if (supervisor != null) {
            supervisor.stop();
        }
        brokers.forEach(EmbeddedBroker::close);
    }

    private static StompSettings through(EmbeddedBroker b) {
        return StompSettings.of(StompEndpoint.parseList(b.stompEndpoints()), null, null);
    }

    private static void send(EmbeddedBroker b, String queue, byte[] body) throws IOException {
        try (StompSender s = new StompSender(through(b))) {
            s.send(queue, body, Map.of());
        }
    }

    @Test
    void readsEveryBrokerCountsARetriedProducerOnceAndAnswersThroughTheRequestsBroker() throws Exception {
        for (int i = 0; i < 3; i++) {
            brokers.add(EmbeddedBroker.start(dir.resolve("broker-" + i)));
        }
        String all = brokers.stream().map(EmbeddedBroker::stompEndpoints).collect(Collectors.joining(","));
        Properties p = new Properties();
        p.setProperty(SupervisorConfig.BROKERS, all);
        p.setProperty(SupervisorConfig.JOURNAL_DIR, dir.resolve("journal").toString());
        p.setProperty(SupervisorConfig.HTTP_HOST, "127.0.0.1");
        p.setProperty(SupervisorConfig.HTTP_PORT, "0");
        p.setProperty(SupervisorConfig.SIGNAL_RETRY_INITIAL, "100ms");
        p.setProperty(SupervisorConfig.SIGNAL_RETRY_MAX, "1s");
        p.setProperty(SupervisorConfig.JOURNAL_GROUP_COMMIT_MAX, "1");
        supervisor = new Supervisor(SupervisorConfig.fromProperties(p, Map.of()), Clock.systemUTC(),
                c -> EpochRanges.NONE, JournalDiskGuard.FreeSpace.of(dir));
        supervisor.start();
        Await.until("every queue subscribed on the three brokers", TIMEOUT, () -> supervisor.readiness().ready()
                && supervisor.readiness().dependencies().stream().filter(DependencyStatus::up).count() == 3);
        for (EmbeddedBroker b : brokers) {
            for (String q : List.of(Queues.SUPERVISOR, Queues.SUPERVISOR_CONTROL, Queues.SUPERVISOR_HEARTBEAT)) {
                assertEquals(1.0, subscribed(b, q), b + " " + q);
            }
        }

        // the signals, wherever the supervisor sends them: a consumer's fan-in over the three brokers
        BlockingQueue<ConsumerSignal> signals = new LinkedBlockingQueue<>();
        StompSettings consumerSide = StompSettings.of(StompEndpoint.parseList(all), null, null);
        try (StompFanIn consumer = new StompFanIn("test-consumer", consumerSide, Queues.CONSUMER, 1,
                m -> signals.add(Json.read(m.body(), ConsumerSignal.class)))) {
            consumer.start();
            // a retried producer: the same message (same id) stored through the first and the third broker
            byte[] message = producerMessage("m1", info(DATASET, url("first"), guid("G1", 0, 10)));
            send(brokers.get(0), Queues.SUPERVISOR, message);
            send(brokers.get(2), Queues.SUPERVISOR, message);
            Await.until("both copies read", TIMEOUT, () -> brokers.stream()
                    .allMatch(b -> b.queueSize(Queues.SUPERVISOR) == 0) && DaemonMetrics.value(supervisor.metrics(),
                    "eventindex_supervisor_duplicate_messages_total") == 1.0);
            assertEquals(1, supervisor.dataset(DATASET).orElseThrow().objectsReported());

            // an operator's request through the second broker: the answer comes back on its connection's reply queue
            List<StompMessage> answers = new CopyOnWriteArrayList<>();
            try (StompConnection operator = StompConnection.connect(through(brokers.get(1)))) {
                operator.subscribe("/temp-queue/answers", 1, new StompConnection.Listener() {
                    @Override
                    public void onMessage(StompMessage m) {
                        answers.add(m);
                    }
                });
                operator.send(Queues.SUPERVISOR_CONTROL, Json.write(manifest(DATASET, file("G1", 10))),
                        Map.of(Supervisor.REPLY_TO, "/temp-queue/answers", Supervisor.CORRELATION_ID, "req-1"));
                Await.until("the supervisor's answer", TIMEOUT, () -> !answers.isEmpty());
            }
            OperatorAnswer a = Json.read(answers.get(0).body(), OperatorAnswer.class);
            assertEquals("req-1", a.requestId());
            assertEquals(DATASET, a.dataset());

            ConsumerSignal s = signals.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertNotNull(s, "no signal");
            assertEquals(DATASET, s.dataset());
            assertEquals(List.of(url("first")), s.objects().stream().map(o -> o.url()).toList());
        }

        // a broker down: still ready (the others carry the flow), the body names it
        brokers.get(1).stop();
        Await.until("the second broker seen down", TIMEOUT, () -> supervisor.readiness().dependencies().stream()
                .anyMatch(d -> !d.up()));
        OpsHttpServer.Readiness r = supervisor.readiness();
        assertTrue(r.ready(), r.toString());
        List<DependencyStatus> down = r.dependencies().stream().filter(d -> !d.up()).toList();
        assertEquals(1, down.size(), r.toString());
        assertEquals("broker " + brokers.get(1).stompEndpoints(), down.get(0).name());
        assertTrue(down.get(0).error().contains(Queues.SUPERVISOR), down.get(0).error());
        assertEquals(0.0, subscribed(brokers.get(1), Queues.SUPERVISOR));
        assertEquals(1.0, subscribed(brokers.get(0), Queues.SUPERVISOR));
        assertEquals(1.0, subscribed(brokers.get(2), Queues.SUPERVISOR));
    }

    private double subscribed(EmbeddedBroker b, String queue) {
        return DaemonMetrics.value(supervisor.metrics(), DaemonMetrics.BROKER_SUBSCRIBED, "broker",
                b.stompEndpoints(), "queue", queue);
    }
}
