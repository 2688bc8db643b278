package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Queues;
import org.eventindex.names.ObjectKey;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.stomp.StompMessage;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;

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
 * A corpus of bad messages on a real broker, interleaved with good ones: each bad one lands on the quarantine queue
 * with its reason in a header, and the good dataset is still completed. Also frames over the client's frame limits.
 */
class QuarantineCorpusTest {
    private static final String QUARANTINE = "/queue/atlas.eventindex.supervisor.quarantine";

    @TempDir
    Path dir;

    private BrokerHarness mq;
    private Supervisor supervisor;
    private final List<StompMessage> quarantined = new CopyOnWriteArrayList<>();
    private final List<StompMessage> signals = new CopyOnWriteArrayList<>();

    /** A supervisor with a quarantine queue and the given extra properties; quarantine and signal queues read. */
    private void start(String... keyValues) throws Exception {
        mq = new BrokerHarness(dir.resolve("broker"));
        Properties p = mq.supervisorProperties(dir.resolve("journal"));
        p.setProperty(SupervisorConfig.QUEUE_QUARANTINE, QUARANTINE);
        for (int i = 0; i < keyValues.length; i += 2) {
            p.setProperty(keyValues[i], keyValues[i + 1]);
        }
        supervisor = mq.start(p, Clock.systemUTC());
        mq.consume(QUARANTINE, quarantined, m -> { });
        mq.consume(Queues.CONSUMER, signals, m -> { });
    }

    @AfterEach
    void stop() {
        if (supervisor != null) {
            supervisor.stop();
        }
        if (mq != null) {
            mq.close();
        }
    }

    private static String good(String id, String object, String guid, long events) {
        return new String(producerMessage(id, info(DATASET, url(object), guid(guid, 0, events))),
                StandardCharsets.UTF_8);
    }

    @Test
    void everyBadMessageIsQuarantinedWithItsReasonAndGoodOnesAreProcessedInBetween() throws Exception {
        start(SupervisorConfig.MESSAGE_MAX_BYTES, "8192");

        String ok = good("x", "o", "G1", 10);
        Map<String, RejectReason> producerCorpus = new LinkedHashMap<>();
        producerCorpus.put("not json {", RejectReason.BAD_JSON);
        producerCorpus.put("[1, 2, 3]", RejectReason.BAD_JSON);
        producerCorpus.put(ok.replace("\"type\":1", "\"type\":2"), RejectReason.WRONG_TYPE);
        producerCorpus.put(ok.replace("\"id\":\"x\",", ""), RejectReason.MISSING_FIELD);
        producerCorpus.put("{\"type\":1,\"id\":\"no-data\",\"ts\":1}", RejectReason.MISSING_FIELD);
        producerCorpus.put(ok.replace(DATASET, "not-a-dataset-name"), RejectReason.INVALID_DATASET_NAME);
        producerCorpus.put(ok.replace("s3://rgw.example:7480/", "http://rgw.example/"), RejectReason.BAD_URL);
        producerCorpus.put(ok.replace("/eventindex/", "/other-bucket/"), RejectReason.WRONG_BUCKET);
        // Cross-prefix references: job o's message naming another job's object, or another task's.
        producerCorpus.put(ok.replace(Fixtures.key("o"), Fixtures.key("other-job")), RejectReason.WRONG_KEY);
        producerCorpus.put(ok.replace(Fixtures.key("o"), ObjectKey.of("87654321.G", "o", Fixtures.uuid("o")).key()),
                RejectReason.WRONG_KEY);
        producerCorpus.put(ok.replace("\"nevents\":10,\"nuevents\":10,\"fileStartProcTime\"",
                "\"nevents\":-5,\"nuevents\":10,\"fileStartProcTime\""), RejectReason.INVALID_VALUE);
        producerCorpus.put(ok.replace("\"size\":1000", "\"size\":\"big\""), RejectReason.BAD_JSON);
        producerCorpus.put(ok.replace("\"guids\":[", "\"guids\":[{\"guid\":\"G1\",\"fileno\":1,\"nevents\":3},"),
                RejectReason.DUPLICATE_GUID);
        producerCorpus.put("{\"type\":1,\"id\":\"" + "z".repeat(9000) + "\"}", RejectReason.OVERSIZE);
        Map<String, RejectReason> controlCorpus = new LinkedHashMap<>();
        controlCorpus.put("{\"type\":\"launch-missiles\"}", RejectReason.WRONG_TYPE);
        controlCorpus.put("{\"type\":\"report\",\"signalId\":\"s\",\"status\":\"MAYBE\"}", RejectReason.INVALID_VALUE);
        controlCorpus.put("{\"type\":\"resignal\",\"dataset\":\"" + Fixtures.CONTAINER + ".x\"}",
                RejectReason.INVALID_DATASET_NAME);
        controlCorpus.put("{\"type\":\"resignal\",\"dataset\":\"data16_13TeV.00300000.physics_Main.merge.AOD.f1_m1\"}",
                RejectReason.UNKNOWN_DATASET);
        controlCorpus.put("{\"type\":\"manifest\",\"dataset\":\"" + DATASET + "\",\"files\":[]}",
                RejectReason.MISSING_FIELD);

        // Good and bad interleaved: the dataset's two objects and its manifest arrive between bad messages.
        List<String> goodOnes = List.of(good("g1", "first", "G1", 10), good("g2", "second", "G2", 20));
        int i = 0;
        for (Map.Entry<String, RejectReason> e : producerCorpus.entrySet()) {
            mq.send(Queues.SUPERVISOR, e.getKey());
            if (i < goodOnes.size()) {
                mq.send(Queues.SUPERVISOR, goodOnes.get(i));
            }
            i++;
        }
        for (Map.Entry<String, RejectReason> e : controlCorpus.entrySet()) {
            mq.send(Queues.SUPERVISOR_CONTROL, e.getKey());
        }
        mq.control(manifest(DATASET, file("G1", 10), file("G2", 20)));

        int expected = producerCorpus.size() + controlCorpus.size();
        assertTrue(expected >= 12);
        Await.until(expected + " quarantined messages", BrokerHarness.TIMEOUT, () -> quarantined.size() >= expected);
        Map<String, RejectReason> all = new LinkedHashMap<>(producerCorpus);
        all.putAll(controlCorpus);
        List<String> problems = new ArrayList<>();
        for (StompMessage m : quarantined) {
            String body = new String(m.body(), StandardCharsets.UTF_8);
            RejectReason want = all.get(body);
            String got = m.headers().get("eventindex-reject-reason");
            if (want == null || !want.name().equals(got)) {
                problems.add("body " + abbreviate(body) + ": expected " + want + ", header " + got);
            }
            assertNotNull(m.headers().get("eventindex-reject-detail"));
            if (RejectReason.WRONG_KEY.name().equals(got)) {
                String detail = m.headers().get("eventindex-reject-detail");
                assertTrue(detail.startsWith("message x: object s3://rgw.example:7480/eventindex/")
                        && detail.contains("expected " + Fixtures.key("o")), detail);
            }
            assertNotNull(m.headers().get("eventindex-source-queue"));
        }
        assertEquals(List.of(), problems);
        assertEquals(expected, quarantined.size());

        Await.until("the good dataset signalled", BrokerHarness.TIMEOUT, () -> !signals.isEmpty());
        ConsumerSignal s = BrokerHarness.signal(signals.get(0));
        assertEquals(DATASET, s.dataset());
        assertEquals(30, s.expectedEvents());
        assertEquals(expected, DaemonMetrics.value(supervisor.metrics(), "eventindex_supervisor_rejected_total"));
        assertEquals(0, mq.broker.queueSize(EmbeddedBroker.DLQ), "nothing dead-lettered");
        assertTrue(supervisor.readiness().ready());
    }

    /**
     * Frames over {@code supervisor.stomp.frame.max.bytes} / {@code .header.bytes}: each is quarantined as OVERSIZE
     * with the limit in its reason and the first bytes of its body, the connection is kept, nothing is dead-lettered
     * or redelivered, and the good messages around them complete their dataset.
     */
    @Test
    void framesOverTheLimitsAreQuarantinedAndTheSupervisorKeepsServing() throws Exception {
        start(SupervisorConfig.STOMP_FRAME_MAX_BYTES, "4096", SupervisorConfig.STOMP_FRAME_MAX_HEADER_BYTES, "2048");

        byte[] first = producerMessage("g1", info(DATASET, url("first"), guid("G1", 0, 10)));
        String bigBody = "{\"type\":1,\"id\":\"big\",\"pad\":\"" + "z".repeat(20_000) + "\"}";
        mq.send(Queues.SUPERVISOR, first);
        mq.send(Queues.SUPERVISOR, bigBody);
        mq.sender.send(Queues.SUPERVISOR, producerMessage("h1", info(DATASET, url("third"), guid("G3", 0, 1))),
                Map.of("x-padding", "p".repeat(5000)));
        mq.send(Queues.SUPERVISOR_CONTROL, "{\"type\":\"resignal\",\"pad\":\"" + "c".repeat(8000) + "\"}");
        mq.send(Queues.SUPERVISOR, producerMessage("g2", info(DATASET, url("second"), guid("G2", 1, 20))));
        mq.control(manifest(DATASET, file("G1", 10), file("G2", 20)));

        Await.until("three oversize messages quarantined", BrokerHarness.TIMEOUT, () -> quarantined.size() >= 3);
        Await.until("the good dataset signalled", BrokerHarness.TIMEOUT, () -> !signals.isEmpty());
        assertEquals(3, quarantined.size());
        for (StompMessage m : quarantined) {
            assertEquals(RejectReason.OVERSIZE.name(), m.headers().get("eventindex-reject-reason"));
            String detail = m.headers().get("eventindex-reject-detail");
            assertTrue(detail.contains(SupervisorConfig.STOMP_FRAME_MAX_BYTES), detail);
            assertTrue(detail.contains("exceeds the limit of 4096 bytes") || detail.contains(
                    "headers exceed the limit of 2048 bytes"), detail);
            assertTrue(m.body().length <= 4096, "only the first bytes are copied: " + m.body().length);
        }
        StompMessage big = quarantined.stream().filter(m -> m.headers().get("eventindex-source-queue")
                .equals(Queues.SUPERVISOR) && new String(m.body(), StandardCharsets.UTF_8).startsWith(
                "{\"type\":1,\"id\":\"big\"")).findFirst().orElseThrow();
        assertTrue(big.headers().get("eventindex-reject-detail").contains("body of " + bigBody.length() + " bytes"));

        ConsumerSignal s = BrokerHarness.signal(signals.get(0));
        assertEquals(DATASET, s.dataset());
        assertEquals(30, s.expectedEvents());
        assertEquals(3, DaemonMetrics.value(supervisor.metrics(), SupervisorMetrics.REJECTED, "reason",
                SupervisorMetrics.label(RejectReason.OVERSIZE)));
        assertEquals(0, mq.broker.queueSize(EmbeddedBroker.DLQ), "nothing dead-lettered");
        assertEquals(0, mq.broker.queueSize(Queues.SUPERVISOR), "nothing left to redeliver");
        assertTrue(supervisor.readiness().ready());
    }

    private static String abbreviate(String s) {
        return s.length() > 120 ? s.substring(0, 120) + "..." : s;
    }
}
