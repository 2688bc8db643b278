package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.ConsumerHeartbeat;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.stomp.StompMessage;
import org.eventindex.testing.Await;
import org.eventindex.testing.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.eventindex.supervisor.BrokerHarness.TIMEOUT;
import static org.eventindex.supervisor.Fixtures.DATASET;
import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.info;
import static org.eventindex.supervisor.Fixtures.manifest;
import static org.eventindex.supervisor.Fixtures.producerMessage;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Consumers' heartbeats through a real broker, on their own queue: {@code /consumers} lists idle and busy consumers
 * with their last-seen time and heartbeat age, marks one missing after {@code supervisor.consumer.missing.heartbeats}
 * intervals, the age gauge follows; a bad heartbeat is refused like any bad message; heartbeats are not journalled, so
 * a restarted supervisor lists a consumer again only from its next heartbeat. And the gauge of the oldest dataset per
 * state.
 */
class ConsumerHeartbeatTest {
    private static final long INTERVAL = 30_000;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-01T00:00:00Z"));
    private BrokerHarness mq;
    private Supervisor supervisor;
    private Properties props;
    private final List<StompMessage> signals = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        mq = new BrokerHarness(dir.resolve("broker"));
        props = mq.supervisorProperties(dir.resolve("journal"));
        props.setProperty(SupervisorConfig.SIGNAL_LEASE, "30m");
        supervisor = mq.start(props, clock);
        mq.consume(Queues.CONSUMER, signals, m -> { });
    }

    @AfterEach
    void stop() {
        supervisor.stop();
        mq.close();
    }

    private JsonNode consumers() throws Exception {
        HttpResponse<String> r = BrokerHarness.get(supervisor.httpPort(), "/consumers");
        assertEquals(200, r.statusCode(), r.body());
        return Json.tree(r.body().getBytes(StandardCharsets.UTF_8));
    }

    private JsonNode consumer(String name) {
        try {
            for (JsonNode c : consumers().get("consumers")) {
                if (c.get("consumer").asText().equals(name)) {
                    return c;
                }
            }
            return null;
        } catch (Exception e) {
            throw new AssertionError("GET /consumers failed", e);
        }
    }

    private double metric(String name, String... labels) {
        return DaemonMetrics.value(supervisor.metrics(), name, labels);
    }

    private void heartbeat(ConsumerHeartbeat h) throws IOException {
        mq.send(Queues.SUPERVISOR_HEARTBEAT, Json.write(h));
    }

    private ConsumerHeartbeat idle(String consumer) {
        return ConsumerHeartbeat.idle(consumer, "1.2.3", INTERVAL, clock.millis());
    }

    @Test
    void idleAndBusyConsumersAreListedWithTheirAgeAndMarkedMissingAfterTheConfiguredIntervals() throws Exception {
        double journalSeq = metric("eventindex_supervisor_journal_seq");
        heartbeat(idle("c-idle"));
        heartbeat(ConsumerHeartbeat.busy("c-busy", DATASET, "sig-1", 12, 5, 0, clock.millis() - 1000, "1.2.3",
                INTERVAL, clock.millis()));
        Await.until("both consumers listed", TIMEOUT, () -> consumer("c-idle") != null && consumer("c-busy") != null);

        JsonNode idle = consumer("c-idle").get("heartbeat");
        assertEquals("idle", idle.get("state").asText());
        assertEquals(clock.instant().toString(), idle.get("lastSeenAt").asText());
        assertEquals(0.0, idle.get("ageSeconds").asDouble());
        assertFalse(idle.get("missing").asBoolean());
        assertEquals("1.2.3", idle.get("version").asText());
        assertEquals(0, consumer("c-idle").get("datasetsDone").asLong(), "known by heartbeat only");
        JsonNode busy = consumer("c-busy").get("heartbeat");
        assertEquals("busy", busy.get("state").asText());
        assertEquals(DATASET, busy.get("dataset").asText());
        assertEquals("sig-1", busy.get("signalId").asText());
        assertEquals(12, busy.get("objects").asInt());
        assertEquals(5, busy.get("objectsRead").asLong());
        assertEquals(3, consumers().get("missingAfterHeartbeats").asInt());
        assertEquals(journalSeq, metric("eventindex_supervisor_journal_seq"), "heartbeats are not journalled");

        clock.advance(Duration.ofSeconds(45));
        assertEquals(45.0, consumer("c-idle").get("heartbeat").get("ageSeconds").asDouble());
        assertEquals(45.0, metric(SupervisorMetrics.CONSUMER_HEARTBEAT_AGE, "consumer", "c-idle"));
        assertEquals(0, metric(SupervisorMetrics.CONSUMERS_MISSING));

        // 3 intervals of 30 s without a heartbeat: missing; c-idle speaks again and is back
        clock.advance(Duration.ofSeconds(46));
        assertEquals(2, metric(SupervisorMetrics.CONSUMERS_MISSING));
        JsonNode missing = consumer("c-busy").get("heartbeat");
        assertEquals("missing", missing.get("state").asText());
        assertTrue(missing.get("missing").asBoolean());
        assertEquals(91.0, missing.get("ageSeconds").asDouble());
        assertEquals(DATASET, missing.get("dataset").asText(), "the last heartbeat's dataset stays visible");
        heartbeat(idle("c-idle"));
        Await.until("c-idle seen again", TIMEOUT,
                () -> consumer("c-idle").get("heartbeat").get("ageSeconds").asDouble() == 0.0);
        assertEquals("idle", consumer("c-idle").get("heartbeat").get("state").asText());
        assertEquals(1, metric(SupervisorMetrics.CONSUMERS_MISSING));
        assertEquals(0.0, metric(SupervisorMetrics.CONSUMER_HEARTBEAT_AGE, "consumer", "c-idle"));
        assertEquals(91.0, metric(SupervisorMetrics.CONSUMER_HEARTBEAT_AGE, "consumer", "c-busy"));

        // an older heartbeat delivered late does not move the last-seen time back to its state
        heartbeat(ConsumerHeartbeat.busy("c-idle", DATASET, "sig-old", 1, 0, 0, 1, "1.2.3", INTERVAL,
                clock.millis() - 60_000));
        heartbeat(idle("c-probe"));
        Await.until("the probe after the late heartbeat", TIMEOUT, () -> consumer("c-probe") != null);
        assertEquals("idle", consumer("c-idle").get("heartbeat").get("state").asText());
    }

    @Test
    void badHeartbeatsAreRefusedAndCountedWithoutStoppingTheSupervisor() throws Exception {
        String invalid = "eventindex_supervisor_rejected_total";
        heartbeat(new ConsumerHeartbeat(ConsumerHeartbeat.TYPE, "c1", "sleeping", null, null, 0, 0, null, 0, "1",
                INTERVAL, clock.millis()));
        Await.until("the bad state refused", TIMEOUT, () -> metric(invalid, "reason", "invalid_value") == 1);
        heartbeat(new ConsumerHeartbeat(ConsumerHeartbeat.TYPE, "", "idle", null, null, 0, 0, null, 0, "1", INTERVAL,
                clock.millis()));
        Await.until("the missing consumer refused", TIMEOUT, () -> metric(invalid, "reason", "missing_field") == 1);
        heartbeat(new ConsumerHeartbeat(ConsumerHeartbeat.TYPE, "c1", "busy", "not a dataset", "s", 1, 0, null, 0, "1",
                INTERVAL, clock.millis()));
        Await.until("the bad dataset refused", TIMEOUT,
                () -> metric(invalid, "reason", "invalid_dataset_name") == 1);
        heartbeat(new ConsumerHeartbeat(ConsumerHeartbeat.TYPE, "c1", "idle", null, null, 0, 0, null, 0, "1", 10,
                clock.millis()));
        Await.until("the bad interval refused", TIMEOUT, () -> metric(invalid, "reason", "invalid_value") == 2);
        mq.send(Queues.SUPERVISOR_HEARTBEAT, Json.write(Fixtures.manifest(DATASET, file("G1", 1))));
        Await.until("a manifest on the heartbeat queue refused", TIMEOUT,
                () -> metric(invalid, "reason", "wrong_type") == 1);
        mq.control(idle("c-on-control"));
        Await.until("a heartbeat on the control queue refused", TIMEOUT,
                () -> metric(invalid, "reason", "wrong_type") == 2);
        assertTrue(supervisor.dataset(DATASET).isEmpty(), "the manifest was not taken from the heartbeat queue");
        assertEquals(List.of(), consumers().get("consumers").findValuesAsText("consumer"));
        assertTrue(supervisor.readiness().ready(), supervisor.readiness().reason());

        heartbeat(idle("c1"));
        Await.until("a good heartbeat still listed", TIMEOUT, () -> consumer("c1") != null);
    }

    @Test
    void heartbeatsDoNotSurviveARestartButReportsDo() throws Exception {
        heartbeat(idle("c-heard"));
        mq.control(new ConsumerReport(ConsumerReport.TYPE, "sig-x", DATASET, "c-reported", ConsumerReport.FAILED, null,
                0, 0, 0, 0, 0, 10, "no such signal", clock.millis(), false));
        Await.until("both listed", TIMEOUT, () -> consumer("c-heard") != null && consumer("c-reported") != null);

        supervisor.stop();
        supervisor = mq.start(props, clock);
        JsonNode afterRestart = consumers().get("consumers");
        assertEquals(List.of("c-reported"), afterRestart.findValuesAsText("consumer"),
                "the report is journalled, the heartbeat is not");
        assertTrue(afterRestart.get(0).get("heartbeat").isNull());

        heartbeat(idle("c-heard"));
        Await.until("listed again from its next heartbeat", TIMEOUT, () -> consumer("c-heard") != null);
    }

    @Test
    void theOldestDatasetOfEachStateButDoneHasItsAgeInAGauge() throws Exception {
        String age = SupervisorMetrics.OLDEST_DATASET_AGE;
        assertEquals(0, metric(age, "state", "collecting"));
        mq.send(Queues.SUPERVISOR, producerMessage("m1", info(DATASET, url("a"), guid("G1", 0, 10))));
        Await.until("the object recorded", TIMEOUT, () -> supervisor.dataset(DATASET).isPresent());
        clock.advance(Duration.ofSeconds(100));
        String second = "data18_13TeV.00350000.physics_Main.merge.AOD.f900_m2000";
        mq.send(Queues.SUPERVISOR, producerMessage("m2", info(second, url("b"), guid("G2", 0, 5))));
        Await.until("the second object recorded", TIMEOUT, () -> supervisor.dataset(second).isPresent());
        clock.advance(Duration.ofSeconds(20));
        assertEquals(120.0, metric(age, "state", "collecting"), "the oldest of the two");
        assertEquals(0, metric(age, "state", "signalled"));

        mq.control(manifest(DATASET, file("G1", 10)));
        Await.until("the first dataset signalled", TIMEOUT,
                () -> supervisor.dataset(DATASET).map(DatasetView::state).orElse(null) == CollectionState.SIGNALLED);
        assertEquals(120.0, metric(age, "state", "signalled"), "age counts from the first object");
        assertEquals(20.0, metric(age, "state", "collecting"), "the second is now the oldest collecting");
        String inState = SupervisorMetrics.LONGEST_IN_STATE;
        assertEquals(0.0, metric(inState, "state", "signalled"), "in SIGNALLED since now, however old");
        clock.advance(Duration.ofSeconds(30));
        assertEquals(30.0, metric(inState, "state", "signalled"));
        assertEquals(150.0, metric(age, "state", "signalled"));
        Await.until("the signal", TIMEOUT, () -> !signals.isEmpty());
        String signalId = BrokerHarness.signal(signals.get(0)).signalId();
        mq.control(new ConsumerReport(ConsumerReport.TYPE, signalId, DATASET, "c1", ConsumerReport.DONE, "/f", 10, 10,
                0, 1, 100, 10, null, clock.millis(), false));
        Await.until("DONE", TIMEOUT,
                () -> supervisor.dataset(DATASET).map(DatasetView::state).orElse(null) == CollectionState.DONE);
        assertEquals(0, metric(age, "state", "signalled"));
        assertEquals(0, metric(age, "state", "done"), "DONE has no gauge");
        assertTrue(BrokerHarness.get(supervisor.httpPort(), "/metrics").body()
                .contains(age + "{state=\"held\"} 0.0"), "every state but DONE has a value");
    }
}
