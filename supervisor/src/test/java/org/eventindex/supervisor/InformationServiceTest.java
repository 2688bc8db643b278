package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.ConsumerHeartbeat;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
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
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

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
 * The information service during and after a run on a real broker, the live stream with a subscriber that never
 * reads, and isolation: a dataset whose consumer never answers delays no other dataset.
 */
class InformationServiceTest {
    private static final String SECOND = "data18_13TeV.00350000.physics_Main.merge.AOD.f900_m2000";
    private static final String P_LOADED = "data18_13TeV.00350001.physics_Main.merge.AOD.f900_m2000";
    private static final String P_IN_WORK = "data18_13TeV.00350002.physics_Main.merge.AOD.f900_m2000";
    private static final String P_WAITING = "data18_13TeV.00350003.physics_Main.merge.AOD.f900_m2000";
    private static final String P_COLLECTING = "data18_13TeV.00350004.physics_Main.merge.AOD.f900_m2000";

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-01T00:00:00Z"));
    private BrokerHarness mq;
    private Supervisor supervisor;
    private final List<StompMessage> signals = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        mq = new BrokerHarness(dir.resolve("broker"));
        Properties p = mq.supervisorProperties(dir.resolve("journal"));
        p.setProperty(SupervisorConfig.EVENTS_QUEUE, "4");
        p.setProperty(SupervisorConfig.SIGNAL_LEASE, "30m");
        p.setProperty("supervisor.s3.truststore", "/etc/pki/eventindex/s3-trust.p12"); // read only for https S3
        supervisor = mq.start(p, clock);
        mq.consume(Queues.CONSUMER, signals, m -> { });
    }

    @AfterEach
    void stop() {
        supervisor.stop();
        mq.close();
    }

    private JsonNode json(String path) throws Exception {
        HttpResponse<String> r = BrokerHarness.get(supervisor.httpPort(), path);
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return Json.tree(r.body().getBytes(StandardCharsets.UTF_8));
    }

    private void produce(String dataset, String id, String object, org.eventindex.message.GuidInfo... guids)
            throws IOException {
        mq.send(Queues.SUPERVISOR, producerMessage(id, info(dataset, url(object), guids)));
    }

    private CollectionState state(String name) {
        return supervisor.dataset(name).map(DatasetView::state).orElse(null);
    }

    @Test
    void everyEndpointShowsTheRunAsItProgressesAndTheStreamReportsEachChange() throws Exception {
        List<String> streamed = new CopyOnWriteArrayList<>();
        HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + supervisor.httpPort() + "/events")).build(), HttpResponse.BodyHandlers.ofLines())
                .thenAccept(r -> {
                    try (Stream<String> lines = r.body()) {
                        lines.filter(l -> l.startsWith("event: ")).forEach(l -> streamed.add(l.substring(7)));
                    }
                });
        Await.until("stream subscribed", BrokerHarness.TIMEOUT, () -> supervisor.events().subscribers() == 1);

        produce(DATASET, "m1", "a", guid("G1", 0, 10), guid("G2", 1, 20));
        produce(DATASET, "m2", "b", guid("G1", 0, 10));
        Await.until("objects recorded", BrokerHarness.TIMEOUT,
                () -> supervisor.dataset(DATASET).map(DatasetView::objectsReported).orElse(0) == 2);
        JsonNode during = json("/datasets/" + DATASET);
        assertEquals("COLLECTING", during.get("state").asText());
        assertEquals(-1, during.get("expectedFiles").asInt());
        assertEquals(2, during.get("objectsReported").asInt());
        assertEquals(0, json("/consumers").get("inFlight").size());
        assertEquals(1, json("/supervisor").get("datasetsByState").get("COLLECTING").asInt());

        mq.control(manifest(DATASET, file("G1", 10), file("G2", 20)));
        Await.until("signal sent", BrokerHarness.TIMEOUT, () -> state(DATASET) == CollectionState.SIGNALLED);
        Await.until("signal received", BrokerHarness.TIMEOUT, () -> !signals.isEmpty());
        ConsumerSignal s = BrokerHarness.signal(signals.get(0));
        JsonNode inFlight = json("/consumers").get("inFlight");
        assertEquals(1, inFlight.size());
        assertEquals(s.signalId(), inFlight.get(0).get("signalId").asText());
        JsonNode signalled = json("/datasets/" + DATASET);
        assertEquals(2, signalled.get("expectedFiles").asInt());
        assertEquals(1, signalled.get("selectedObjects").size());
        assertEquals(List.of(url("b")), List.of(signalled.get("duplicateObjects").get(0).asText()));
        assertEquals(30, signalled.get("expectedEvents").asLong());
        assertEquals(1, signalled.get("epoch").asInt());

        clock.advance(Duration.ofMinutes(5));
        mq.control(Fixtures.done(s.signalId(), DATASET, 30));
        Await.until("DONE", BrokerHarness.TIMEOUT, () -> state(DATASET) == CollectionState.DONE);

        JsonNode after = json("/datasets/" + DATASET);
        assertEquals("PT5M", after.get("times").get("traversalTime").asText());
        assertEquals(30, after.get("consumer").get("eventsLoaded").asLong());
        JsonNode summary = json("/datasets").get(0);
        assertEquals("DONE", summary.get("state").asText());
        assertEquals(1, json("/datasets?state=done").size());
        assertEquals(0, json("/datasets?state=COLLECTING,HELD,FAILED_CONSUMER").size(), "the datasets to look at");
        HttpResponse<String> bad = BrokerHarness.get(supervisor.httpPort(), "/datasets?state=FINISHED");
        assertEquals(400, bad.statusCode());
        assertTrue(bad.body().contains("unknown state 'FINISHED' in ?state=") && bad.body().contains("HELD"),
                bad.body());
        JsonNode consumers = json("/consumers");
        assertEquals(0, consumers.get("inFlight").size());
        JsonNode c1 = consumers.get("consumers").get(0);
        assertEquals("consumer-1", c1.get("consumer").asText());
        assertEquals(1, c1.get("datasetsDone").asLong());
        assertEquals(30, c1.get("eventsWritten").asLong());
        assertEquals(20.0, c1.get("eventsPerSecond").asDouble(), 1e-9, "30 events in 1500 ms");
        JsonNode sup = json("/supervisor");
        assertEquals(1, sup.get("datasetsByState").get("DONE").asInt());
        assertTrue(sup.get("supervisor").get("ready").asBoolean());
        assertTrue(sup.get("supervisor").get("journalSeq").asLong() >= 6);
        JsonNode configuration = sup.get("supervisor").get("configuration");
        assertEquals(SupervisorConfig.KEYS.size(), configuration.size(), configuration.toString());
        assertEquals("30m", configuration.get(SupervisorConfig.SIGNAL_LEASE).asText());
        assertEquals("(set)", configuration.get("supervisor.s3.truststore").asText(), "a path to a secret");
        assertEquals("(not set)", configuration.get(SupervisorConfig.KERBEROS_KEYTAB).asText());
        assertFalse(sup.toString().contains("s3-trust.p12"), sup.toString());
        assertEquals(0, sup.get("deletesUnfinished").size());
        String metrics = BrokerHarness.get(supervisor.httpPort(), "/metrics").body();
        assertTrue(metrics.contains("eventindex_supervisor_reports_done_total 1"), metrics);
        assertTrue(metrics.contains("eventindex_supervisor_objects_total 2"), metrics);
        assertTrue(metrics.contains("eventindex_supervisor_datasets{state=\"done\"} 1.0\n"), metrics);
        assertTrue(metrics.contains("eventindex_supervisor_datasets{state=\"collecting\"} 0.0\n"), metrics);
        assertTrue(metrics.contains("eventindex_supervisor_current_epoch 1.0\n"), metrics);
        assertTrue(metrics.contains("eventindex_supervisor_current_epoch_events 30.0\n"), metrics);
        assertTrue(metrics.contains("eventindex_supervisor_rejected_total{reason=\"oversize\"} 0.0\n"), metrics);
        assertTrue(metrics.contains("eventindex_build_info{daemon=\"supervisor\",dirty=\""), metrics);
        assertTrue(metrics.contains("\njvm_memory_used_bytes{"), metrics);
        assertEquals(200, BrokerHarness.get(supervisor.httpPort(), "/health").statusCode());
        assertEquals(200, BrokerHarness.get(supervisor.httpPort(), "/ready").statusCode());
        assertEquals(404, BrokerHarness.get(supervisor.httpPort(), "/datasets/" + SECOND).statusCode());

        Await.until("every change streamed", BrokerHarness.TIMEOUT, () -> streamed.size() >= 6);
        assertEquals(List.of("ObjectReported", "ObjectReported", "ManifestRegistered", "SignalPlanned", "SignalSent",
                "ReportReceived"), streamed.subList(0, 6));
    }

    /** Issue 19: a dataset without manifest or catalogue entry says that it waits for its file list. */
    @Test
    void aDatasetWithoutFileListSaysItWaitsForOne() throws Exception {
        produce(DATASET, "m1", "a", guid("G1", 0, 10));
        Await.until("object recorded", BrokerHarness.TIMEOUT, () -> supervisor.dataset(DATASET).isPresent());
        JsonNode one = json("/datasets/" + DATASET);
        assertEquals("COLLECTING", one.get("state").asText());
        assertEquals(-1, one.get("expectedFiles").asInt());
        assertEquals(0, one.get("missingGuids").size());
        assertEquals("file list (no manifest registered and no catalogue entry)", one.get("waitingFor").asText());
        JsonNode line = json("/datasets").get(0);
        assertEquals(DATASET, line.get("name").asText());
        assertEquals("file list (no manifest registered and no catalogue entry)", line.get("waitingFor").asText());

        mq.control(manifest(DATASET, file("G1", 10), file("G2", 20)));
        Await.until("manifest registered", BrokerHarness.TIMEOUT,
                () -> supervisor.dataset(DATASET).map(DatasetView::expectedFiles).orElse(-1) == 2);
        assertTrue(json("/datasets/" + DATASET).get("waitingFor").isNull());
        assertTrue(json("/datasets").get(0).get("waitingFor").isNull());
    }

    /** Issue 19: a different object under a recorded message id is a conflict, streamed on /events. */
    @Test
    void aMessageIdConflictIsStreamed() throws Exception {
        List<String> streamed = new CopyOnWriteArrayList<>();
        HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + supervisor.httpPort() + "/events")).build(), HttpResponse.BodyHandlers.ofLines())
                .thenAccept(r -> {
                    try (Stream<String> lines = r.body()) {
                        lines.filter(l -> l.startsWith("data: ")).forEach(l -> streamed.add(l.substring(6)));
                    }
                });
        Await.until("stream subscribed", BrokerHarness.TIMEOUT, () -> supervisor.events().subscribers() == 1);

        produce(DATASET, "m1", "a", guid("G1", 0, 10));
        produce(DATASET, "m1", "a", guid("G1", 0, 10));
        produce(DATASET, "m1", "b", guid("G1", 0, 10));
        Await.until("conflict streamed", BrokerHarness.TIMEOUT,
                () -> streamed.stream().anyMatch(l -> l.contains("MESSAGE_ID_CONFLICT")));
        assertEquals(2, streamed.size(), "the object, then the conflict (the re-delivery is silent): " + streamed);
        JsonNode conflict = Json.tree(streamed.get(1).getBytes(StandardCharsets.UTF_8));
        assertEquals("MessageRejected", conflict.get("event").asText());
        assertEquals(DATASET, conflict.get("dataset").asText());
        assertTrue(conflict.get("detail").asText().contains("producer message id m1 was already recorded for object "
                + url("a")) && conflict.get("detail").asText().contains(url("b")), conflict.toString());
    }

    @Test
    void aSubscriberThatNeverReadsIsDroppedAndSlowsNothing() throws Exception {
        try (Socket stuck = new Socket()) {
            stuck.setReceiveBufferSize(1024);
            stuck.connect(new InetSocketAddress("127.0.0.1", supervisor.httpPort()));
            OutputStream out = stuck.getOutputStream();
            out.write("GET /events HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Await.until("stuck subscriber registered", BrokerHarness.TIMEOUT,
                    () -> supervisor.events().subscribers() == 1);

            long t0 = System.nanoTime();
            StateChange filler = new StateChange(0, Instant.EPOCH, "Filler", DATASET, CollectionState.COLLECTING,
                    "x".repeat(200));
            for (int i = 0; i < 200_000 && supervisor.events().subscribers() > 0; i++) {
                supervisor.events().publish(filler);
            }
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            assertEquals(0, supervisor.events().subscribers(), "the stuck subscriber is dropped");
            assertTrue(took.compareTo(Duration.ofSeconds(20)) < 0, "publishing never waits for a reader: " + took);
            assertEquals(1, DaemonMetrics.value(supervisor.metrics(), "eventindex_supervisor_event_subscribers_dropped_total"));
            stuck.setSoTimeout(30_000);
            byte[] buf = new byte[64 * 1024];
            try {
                while (stuck.getInputStream().read(buf) >= 0) {
                    // drain what was buffered before the drop; the server then closes the connection
                }
            } catch (java.net.SocketException reset) {
                // closed under a full buffer: a reset is also the end of the connection
            }

            mq.control(manifest(SECOND, file("H1", 5)));
            produce(SECOND, "n1", "h", guid("H1", 0, 5));
            Await.until("the supervisor goes on", BrokerHarness.TIMEOUT, () -> state(SECOND) == CollectionState.SIGNALLED);
        }
    }

    /**
     * Issue 23: the cut-off. A stuck subscriber and a fast one (it reads as the browser console does) share the
     * stream; changes of 16 kB are published one at a time, each as soon as the fast subscriber has the one before,
     * until the stuck one is dropped: it is dropped, the fast one stays and receives every change, and no
     * {@code publish} call waits for a subscriber (bounds far above the milliseconds they take, so that a busy machine
     * does not fail them).
     */
    @Test
    void aSlowSubscriberIsCutOffWithoutDelayingAFastOne() throws Exception {
        java.util.Map<Long, Long> arrived = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.regex.Pattern seq = java.util.regex.Pattern.compile("\"seq\":(\\d+)");
        HttpClient.newHttpClient().sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + supervisor.httpPort() + "/events")).build(), HttpResponse.BodyHandlers.ofLines())
                .thenAccept(r -> {
                    try (Stream<String> lines = r.body()) {
                        lines.filter(l -> l.startsWith("data: ")).forEach(l -> {
                            java.util.regex.Matcher m = seq.matcher(l);
                            if (m.find()) {
                                arrived.put(Long.parseLong(m.group(1)), System.nanoTime());
                            }
                        });
                    }
                });
        Await.until("fast subscriber registered", BrokerHarness.TIMEOUT, () -> supervisor.events().subscribers() == 1);
        try (Socket stuck = new Socket()) {
            stuck.setReceiveBufferSize(1024);
            stuck.connect(new InetSocketAddress("127.0.0.1", supervisor.httpPort()));
            stuck.getOutputStream().write("GET /events HTTP/1.1\r\nHost: x\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            stuck.getOutputStream().flush();
            Await.until("stuck subscriber registered", BrokerHarness.TIMEOUT,
                    () -> supervisor.events().subscribers() == 2);

            List<Long> before = new java.util.ArrayList<>();
            List<Long> after = new java.util.ArrayList<>();
            long maxPublish = 0;
            long droppedAt = -1;
            long published = 0;
            for (long i = 1; i <= 2_000 && (droppedAt < 0 || after.size() < 50); i++) {
                StateChange c = new StateChange(i, Instant.EPOCH, "Filler", DATASET, CollectionState.COLLECTING,
                        "x".repeat(16_000));
                long sent = System.nanoTime();
                supervisor.events().publish(c);
                maxPublish = Math.max(maxPublish, System.nanoTime() - sent);
                published = i;
                long n = i;
                Await.until("the fast subscriber has change " + n, BrokerHarness.TIMEOUT,
                        () -> arrived.containsKey(n));
                (droppedAt < 0 ? before : after).add(arrived.get(i) - sent);
                if (droppedAt < 0 && supervisor.events().subscribers() == 1) {
                    droppedAt = System.nanoTime();
                }
            }
            assertTrue(droppedAt > 0, "the stuck subscriber is dropped within " + published + " changes of 16 kB");
            assertEquals(1, supervisor.events().subscribers(), "the fast subscriber stays");
            assertEquals(published, arrived.size(), "the fast subscriber received every change");
            assertTrue(maxPublish < Duration.ofSeconds(1).toNanos(), "publishing never waits: " + maxPublish + " ns");
            assertTrue(max(before) < Duration.ofSeconds(5).toNanos(),
                    "the stuck subscriber delays the fast one by " + max(before) + " ns at most");
        }
    }

    /**
     * Issue 23: the console's history is part of the journal fold and of the checkpoint; a restart from the
     * checkpoint written at stop serves the same {@code /console/history} (StateCheckpointTest shows that a replay of
     * the journal alone builds the same history as the checkpoint).
     */
    @Test
    void theConsoleHistorySurvivesARestart() throws Exception {
        produce(DATASET, "m1", "a", guid("G1", 0, 10), guid("G2", 1, 20));
        produce(DATASET, "m2", "b", guid("G1", 0, 10));
        Await.until("objects recorded", BrokerHarness.TIMEOUT,
                () -> supervisor.dataset(DATASET).map(DatasetView::objectsReported).orElse(0) == 2);
        mq.control(manifest(DATASET, file("G1", 10), file("G2", 20)));
        Await.until("signal received", BrokerHarness.TIMEOUT, () -> !signals.isEmpty());
        clock.advance(Duration.ofMinutes(3));
        mq.control(Fixtures.done(BrokerHarness.signal(signals.get(0)).signalId(), DATASET, 30));
        Await.until("DONE", BrokerHarness.TIMEOUT, () -> state(DATASET) == CollectionState.DONE);

        JsonNode before = json("/console/history?hours=1");
        assertEquals(14, before.get("days").asInt());
        assertEquals(2, before.get("minutes").size(), "objects in one minute, the DONE report 3 minutes later");
        assertEquals(2, before.get("minutes").get(0).get("objects").asLong());
        assertEquals(30, before.get("minutes").get(1).get("events").asLong());
        assertEquals(1, before.get("minutes").get(1).get("datasetsDone").asLong());
        JsonNode point = before.get("datasets").get(0);
        assertEquals(DATASET, point.get("dataset").asText());
        assertEquals(1500, point.get("consumerMillis").asLong());
        assertEquals(2, point.get("objects").asInt());
        assertEquals(1, point.get("duplicates").asInt());
        assertEquals(2, before.get("objectSizes").get(9).get("objects").asLong(), "two objects of 1000 bytes");
        assertEquals(400, BrokerHarness.get(supervisor.httpPort(), "/console/history?hours=9999").statusCode());

        Properties p = mq.supervisorProperties(dir.resolve("journal"));
        p.setProperty(SupervisorConfig.EVENTS_QUEUE, "4");
        p.setProperty(SupervisorConfig.SIGNAL_LEASE, "30m");
        supervisor.stop(); // writes a checkpoint (supervisor.journal.checkpoint.entries > 0)
        supervisor = mq.start(p, clock);
        JsonNode replay = json("/supervisor").get("supervisor").get("journal").get("replay");
        assertTrue(replay.get("checkpointSeq").asLong() > 0, "restored from the checkpoint: " + replay);
        JsonNode after = json("/console/history?hours=1");
        assertEquals(before.get("minutes"), after.get("minutes"), "minutes after a restart");
        assertEquals(before.get("datasets"), after.get("datasets"), "datasets after a restart");
        assertEquals(before.get("objectSizes"), after.get("objectSizes"), "object sizes after a restart");
    }

    /**
     * Issue 23: the console's pages and JSON over HTTP. The dataset table is paged on the server: 120 datasets, pages
     * of 50, filtered by name and state, sorted; bad parameters answer 400 naming them; the console is read-only.
     */
    @Test
    void theConsoleServesItsViewsAndPagesTheDatasetTableOnTheServer() throws Exception {
        for (int i = 0; i < 120; i++) {
            String name = String.format("data17_13TeV.00%06d.physics_Main.merge.AOD.f838_m1824", 340_000 + i);
            produce(name, "p" + i, "o" + i, guid("P" + i, 0, i + 1));
        }
        Await.until("120 datasets", BrokerHarness.TIMEOUT, () -> supervisor.datasets().size() == 120);

        JsonNode first = json("/console/datasets?limit=50");
        assertEquals(120, first.get("total").asInt());
        assertEquals(50, first.get("rows").size());
        assertEquals("data17_13TeV.00340000.physics_Main.merge.AOD.f838_m1824",
                first.get("rows").get(0).get("name").asText());
        JsonNode last = json("/console/datasets?limit=50&offset=100&sort=name&order=desc");
        assertEquals(20, last.get("rows").size(), "the last page");
        assertEquals("data17_13TeV.00340019.physics_Main.merge.AOD.f838_m1824",
                last.get("rows").get(0).get("name").asText());
        assertEquals(10, json("/console/datasets?q=0034011").get("total").asInt(), "00340110 to 00340119");
        assertEquals(0, json("/console/datasets?state=DONE").get("total").asInt());
        assertEquals(120, json("/console/datasets?state=collecting&minAge=0").get("total").asInt());
        assertEquals(0, json("/console/datasets?minAge=3600").get("total").asInt(), "none older than an hour");
        JsonNode byObjects = json("/console/datasets?sort=objects&order=desc&limit=1").get("rows").get(0);
        assertEquals(1, byObjects.get("objectsReported").asInt());
        for (String bad : List.of("limit=501", "limit=0", "sort=size", "order=up", "offset=-1", "state=FINISHED",
                "minAge=1h")) {
            HttpResponse<String> r = BrokerHarness.get(supervisor.httpPort(), "/console/datasets?" + bad);
            assertEquals(400, r.statusCode(), bad + ": " + r.body());
            assertTrue(r.body().contains(bad.substring(0, bad.indexOf('='))), bad + ": " + r.body());
        }

        String one = "data17_13TeV.00340007.physics_Main.merge.AOD.f838_m1824";
        JsonNode objects = json("/console/objects/" + one);
        assertEquals(1, objects.get("objects").size());
        assertEquals("selected", objects.get("objects").get(0).get("fate").asText(), "selected so far, as in /datasets");
        assertEquals("p7", objects.get("objects").get(0).get("messageId").asText());
        assertEquals(404, BrokerHarness.get(supervisor.httpPort(), "/console/objects/" + SECOND).statusCode());
        JsonNode overview = json("/console/overview");
        assertEquals(120, overview.get("datasetsByState").get("COLLECTING").asInt());
        assertEquals(0, overview.get("needsOperator").size(), "nothing older than supervisor.console.stuck.after");
        clock.advance(Duration.ofMinutes(61));
        assertEquals(120, json("/console/overview").get("needsOperator").size(), "stuck for more than 1 h");
        assertTrue(json("/console/overview").get("needsOperator").get(0).get("reason").asText()
                .contains("supervisor.console.stuck.after"));

        for (String view : List.of("/", "/view/datasets", "/view/datasets/" + one, "/view/consumers", "/view/plots")) {
            HttpResponse<String> page = BrokerHarness.get(supervisor.httpPort(), view);
            assertEquals(200, page.statusCode(), view);
            assertTrue(page.headers().firstValue("Content-Security-Policy").orElse("")
                    .startsWith("default-src 'self'"), view);
            assertTrue(page.body().contains("<title>" + ConsoleAssets.title(view) + " \u2014 EventIndex supervisor"),
                    view);
        }
        HttpResponse<String> script = BrokerHarness.get(supervisor.httpPort(), "/static/console.js");
        assertEquals(200, script.statusCode());
        assertTrue(script.headers().firstValue("Content-Type").orElse("").startsWith("text/javascript"));
        for (String missing : List.of("/nothing", "/static/none.js", "/static/../index.html", "/view/other")) {
            assertEquals(404, BrokerHarness.get(supervisor.httpPort(), missing).statusCode(), missing);
        }
        HttpResponse<String> post = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                "http://127.0.0.1:" + supervisor.httpPort() + "/")).POST(HttpRequest.BodyPublishers.ofString("x"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode(), "read-only");
    }

    private static long max(List<Long> xs) {
        return xs.stream().mapToLong(Long::longValue).max().orElse(0);
    }

    @Test
    void aDatasetWhoseConsumerNeverAnswersDelaysNoOtherAndIsResignalledWhenItsLeaseExpires() throws Exception {
        mq.control(manifest(DATASET, file("G1", 10)));
        produce(DATASET, "m1", "a", guid("G1", 0, 10));
        Await.until("stuck dataset signalled", BrokerHarness.TIMEOUT, () -> state(DATASET) == CollectionState.SIGNALLED);
        Await.until("signal received", BrokerHarness.TIMEOUT, () -> !signals.isEmpty());
        ConsumerSignal stuck = BrokerHarness.signal(signals.get(0));

        for (int i = 0; i < 3; i++) {
            String name = "data18_13TeV.0035000" + i + ".physics_Main.merge.AOD.f900_m2000";
            mq.control(manifest(name, file("H" + i, 5)));
            produce(name, "n" + i, "h" + i, guid("H" + i, 0, 5));
            int index = i + 1;
            Await.until(name + " signalled", BrokerHarness.TIMEOUT, () -> signals.size() > index);
            ConsumerSignal s = BrokerHarness.signal(signals.get(index));
            assertEquals(name, s.dataset());
            mq.control(Fixtures.done(s.signalId(), name, 5));
            Await.until(name + " DONE", BrokerHarness.TIMEOUT, () -> state(name) == CollectionState.DONE);
        }
        assertEquals(CollectionState.SIGNALLED, state(DATASET));
        assertEquals(4, signals.size());

        clock.advance(Duration.ofMinutes(31));
        Await.until("lease expiry re-signals the stuck dataset", BrokerHarness.TIMEOUT, () -> signals.size() == 5);
        ConsumerSignal again = BrokerHarness.signal(signals.get(4));
        assertEquals(stuck, again, "the same signal, same signalId");
        assertEquals(1, supervisor.dataset(DATASET).orElseThrow().automaticResignals());
        Await.until("re-send confirmed", BrokerHarness.TIMEOUT, () -> state(DATASET) == CollectionState.SIGNALLED);
        assertEquals(5, signals.size(), "DONE datasets are never re-signalled");
    }

    /** One object of {@code events} events and its manifest: signalled. Returns its signal id. */
    private String signalled(String dataset, String file, long events) throws Exception {
        int before = signals.size();
        mq.send(Queues.SUPERVISOR, producerMessage("m-" + file, info(dataset, url(file), guid(file, 0, events))));
        mq.control(manifest(dataset, file(file, events)));
        Await.until(dataset + " signalled", BrokerHarness.TIMEOUT, () -> signals.size() > before);
        return BrokerHarness.signal(signals.get(before)).signalId();
    }

    private Map<String, JsonNode> progress() throws Exception {
        JsonNode tree = json("/progress");
        Map<String, JsonNode> by = new java.util.HashMap<>();
        for (JsonNode d : tree.get("datasets")) {
            by.put(d.get("dataset").asText(), d);
        }
        by.put("", tree.get("rate"));
        return by;
    }

    /**
     * {@code /progress} (issue 35 item 2): a dataset loaded (its report gives the rate), one in work at a consumer
     * (its busy heartbeat), one waiting in the queue behind it, one still collecting.
     */
    @Test
    void progressHasStageTimesAndEstimatesFromTheQueueAndTheMeasuredRate() throws Exception {
        Instant t0 = clock.instant();
        String loadedSignal = signalled(P_LOADED, "G1", 1000);
        clock.advance(Duration.ofSeconds(10));
        // 1,000 events in 10 s of consumer work: 100 events/s
        mq.control(new ConsumerReport(ConsumerReport.TYPE, loadedSignal, P_LOADED, "c1", ConsumerReport.DONE, "/f",
                1000, 1000, 0, 1, 100, 10_000, null, clock.millis(), false));
        Await.until(P_LOADED + " DONE", BrokerHarness.TIMEOUT, () -> state(P_LOADED) == CollectionState.DONE);
        String inWorkSignal = signalled(P_IN_WORK, "G2", 2000);
        clock.advance(Duration.ofSeconds(1));
        signalled(P_WAITING, "G3", 500);
        mq.send(Queues.SUPERVISOR, producerMessage("m-G4", info(P_COLLECTING, url("G4"), guid("G4", 0, 7))));
        mq.control(manifest(P_COLLECTING, file("G4", 7), file("G5", 9)));
        // c1 took P_IN_WORK 5 s ago
        mq.send(Queues.SUPERVISOR_HEARTBEAT, Json.write(ConsumerHeartbeat.busy("c1", P_IN_WORK, inWorkSignal, 1, 0, 0,
                clock.millis() - 5_000, "1.2.3", 30_000, clock.millis())));
        Await.until("the holder and the collecting dataset known", BrokerHarness.TIMEOUT, () -> {
            try {
                Map<String, JsonNode> p = progress();
                return p.containsKey(P_COLLECTING) && p.get(P_IN_WORK).hasNonNull("takenAt");
            } catch (Exception e) {
                throw new AssertionError("GET /progress failed", e);
            }
        });

        Map<String, JsonNode> p = progress();
        assertEquals(100.0, p.get("").get("eventsPerSecond").asDouble());
        assertEquals(1, p.get("").get("consumers").asInt());
        JsonNode loaded = p.get(P_LOADED);
        assertEquals("DONE", loaded.get("state").asText());
        assertEquals(t0.toString(), loaded.get("firstObjectAt").asText());
        assertEquals(t0.toString(), loaded.get("takenAt").asText()); // the report's time minus its duration
        assertEquals(t0.plusSeconds(10).toString(), loaded.get("queryableAt").asText());
        JsonNode inWork = p.get(P_IN_WORK);
        assertEquals("c1", inWork.get("consumer").asText());
        assertEquals(clock.instant().minusSeconds(5).toString(), inWork.get("takenAt").asText());
        assertEquals(15.0, inWork.get("seconds").asDouble(), inWork.toString()); // 2,000 events at 100/s, 5 s done
        JsonNode waiting = p.get(P_WAITING);
        assertEquals("SIGNALLED", waiting.get("state").asText());
        assertEquals(0, waiting.get("position").asInt());
        assertEquals(1500, waiting.get("eventsAhead").asLong());
        assertEquals(20.0, waiting.get("seconds").asDouble(), waiting.toString()); // after P_IN_WORK, then 5 s
        assertTrue(waiting.get("basis").asText().contains("position 0 in the queue, 1500 events ahead"),
                waiting.toString());
        JsonNode collecting = p.get(P_COLLECTING);
        assertEquals("COLLECTING", collecting.get("state").asText());
        assertTrue(collecting.get("queryableAt").isNull(), collecting.toString());
        assertTrue(collecting.get("basis").asText().contains("1 of 2 files have no object yet"), collecting.toString());
    }
}
