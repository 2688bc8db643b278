package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.message.SignalFile;
import org.eventindex.message.SignalObject;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.eventindex.supervisor.Fixtures.DATASET;
import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.info;
import static org.eventindex.supervisor.Fixtures.manifest;
import static org.eventindex.supervisor.Fixtures.producerMessage;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The supervisor against a real (embedded ActiveMQ) broker: producer messages in, one signal out, restart. */
class SupervisorBrokerTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String SECOND = "data18_13TeV.00350000.physics_Main.merge.AOD.f900_m2000";

    @TempDir
    Path dir;

    private EmbeddedBroker broker;
    private StompSender sender;
    private StompConnection consumer;
    private final BlockingQueue<ConsumerSignal> signals = new LinkedBlockingQueue<>();
    private Supervisor supervisor;

    @BeforeEach
    void startBroker() throws IOException {
        broker = EmbeddedBroker.start(dir.resolve("broker"));
        StompSettings settings = StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()), null, null);
        sender = new StompSender(settings);
        consumer = StompConnection.connect(settings);
        consumer.subscribe(Queues.CONSUMER, 10, new StompConnection.Listener() {
            @Override
            public void onMessage(StompMessage m) {
                try {
                    signals.add(Json.read(m.body(), ConsumerSignal.class));
                    consumer.ack(m);
                } catch (IOException e) {
                    throw new AssertionError("unreadable signal " + new String(m.body(), StandardCharsets.UTF_8), e);
                }
            }
        });
    }

    @AfterEach
    void stopAll() {
        if (supervisor != null) {
            supervisor.stop();
        }
        consumer.close();
        sender.close();
        broker.close();
    }

    private Supervisor startSupervisor() throws IOException {
        return startSupervisor(supervisorProperties(), JournalDiskGuard.FreeSpace.of(dir));
    }

    private Supervisor startSupervisor(Properties p, JournalDiskGuard.FreeSpace journalDisk) throws IOException {
        Supervisor s = new Supervisor(SupervisorConfig.fromProperties(p, Map.of()), Clock.systemUTC(),
                c -> EpochRanges.NONE, journalDisk);
        s.start();
        Await.until("supervisor subscribed to both queues", TIMEOUT, () -> s.readiness().ready());
        return s;
    }

    private Properties supervisorProperties() {
        Properties p = new Properties();
        p.setProperty(SupervisorConfig.BROKERS, broker.stompEndpoints());
        p.setProperty(SupervisorConfig.JOURNAL_DIR, dir.resolve("journal").toString());
        p.setProperty(SupervisorConfig.HTTP_HOST, "127.0.0.1");
        p.setProperty(SupervisorConfig.HTTP_PORT, "0");
        p.setProperty(SupervisorConfig.SIGNAL_RETRY_INITIAL, "100ms");
        p.setProperty(SupervisorConfig.SIGNAL_RETRY_MAX, "1s");
        p.setProperty(SupervisorConfig.SHUTDOWN_GRACE, "10s");
        // one producer subscription: the exact selections below assume the broker's order (an object before its
        // retried job's), which several subscriptions do not keep (decision 0035)
        p.setProperty(SupervisorConfig.JOURNAL_GROUP_COMMIT_MAX, "1");
        return p;
    }

    private void produce(String id, String dataset, String object, org.eventindex.message.GuidInfo... guids)
            throws IOException {
        sender.send(Queues.SUPERVISOR, producerMessage(id, info(dataset, url(object), guids)), Map.of());
    }

    private ConsumerSignal nextSignal() throws InterruptedException {
        ConsumerSignal s = signals.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertNotNull(s, "no signal on " + Queues.CONSUMER + " within " + TIMEOUT);
        return s;
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + supervisor.httpPort() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** As register-manifest sends it (the operator module tests the command itself). */
    private void registerManifest(Object manifest) throws IOException {
        sender.send(Queues.SUPERVISOR_CONTROL, Json.write(manifest), Map.of());
    }

    @Test
    void oneSignalPerCompleteDatasetThenDoneAndRestartKeepsEverything() throws Exception {
        supervisor = startSupervisor();

        produce("m1", DATASET, "first", guid("G1", 0, 10), guid("G2", 1, 20), guid("G3", 2, 3));
        produce("m1", DATASET, "first", guid("G1", 0, 10), guid("G2", 1, 20), guid("G3", 2, 3));
        produce("m2", DATASET, "full-retry", guid("G1", 0, 10), guid("G2", 1, 20), guid("G3", 2, 30));
        sender.send(Queues.SUPERVISOR, "not json at all".getBytes(StandardCharsets.UTF_8), Map.of());
        registerManifest(manifest(DATASET, file("G1", 10), file("G2", 20), file("G3", 30)));

        ConsumerSignal s = nextSignal();
        assertEquals(DATASET, s.dataset());
        assertEquals(Fixtures.CONTAINER, s.container());
        assertEquals(List.of(new SignalObject(url("first"), 1000, 5000, List.of("G1", "G2"), 30,
                        List.of(SignalFile.of(guid("G1", 0, 10)), SignalFile.of(guid("G2", 1, 20)))),
                new SignalObject(url("full-retry"), 1000, 5000, List.of("G3"), 30,
                        List.of(SignalFile.of(guid("G3", 2, 30))))), s.objects());
        assertEquals(60, s.expectedEvents());
        assertEquals(1, s.dspid());

        Await.until("signal confirmed sent", TIMEOUT,
                () -> supervisor.dataset(DATASET).orElseThrow().state() == CollectionState.SIGNALLED);
        sender.send(Queues.SUPERVISOR_CONTROL, Json.write(Fixtures.done(s.signalId(), DATASET, 60)), Map.of());
        Await.until("dataset DONE", TIMEOUT,
                () -> supervisor.dataset(DATASET).orElseThrow().state() == CollectionState.DONE);

        assertEquals(200, get("/ready").statusCode());
        HttpResponse<String> one = get("/datasets/" + DATASET);
        assertEquals(200, one.statusCode());
        assertTrue(one.body().contains("\"state\":\"DONE\""), one.body());
        assertTrue(one.body().contains("\"traversalTime\":\"PT"), one.body());
        assertEquals(404, get("/datasets/" + DATASET + "_sub0000000001").statusCode());
        assertTrue(get("/datasets").body().contains(DATASET));
        String metrics = get("/metrics").body();
        assertTrue(metrics.contains("eventindex_supervisor_signals_sent_total 1"), metrics);
        assertTrue(metrics.contains("eventindex_supervisor_rejected_total{reason=\"bad_json\"} 1.0"), metrics);
        assertTrue(metrics.contains("eventindex_supervisor_duplicate_messages_total 1"), metrics);
        Await.until("producer queue drained", TIMEOUT, () -> broker.queueSize(Queues.SUPERVISOR) == 0);
        assertEquals(0, broker.queueSize(EmbeddedBroker.DLQ), "nothing may be dead-lettered");

        DatasetView before = supervisor.dataset(DATASET).orElseThrow();
        supervisor.stop();
        supervisor = startSupervisor();

        assertEquals(before, supervisor.dataset(DATASET).orElseThrow());
        produce("m3", DATASET, "late", guid("G1", 0, 10));
        // A second dataset completes after the restart: its signal must be the next one on the queue, which proves
        // the first dataset's signal was not sent again (a re-send happens at start, before anything else).
        produce("n1", SECOND, "second", guid("H1", 0, 5));
        registerManifest(manifest(SECOND, file("H1", 5)));
        ConsumerSignal next = nextSignal();
        assertEquals(SECOND, next.dataset());
        assertEquals(2, next.dspid());
        assertEquals(List.of(url("late")), supervisor.dataset(DATASET).orElseThrow().lateObjects());
        assertEquals(CollectionState.DONE, supervisor.dataset(DATASET).orElseThrow().state());
        assertTrue(signals.isEmpty(), "unexpected extra signal " + signals.peek());
    }

    @Test
    void aJournalDiskBelowItsMinimumHoldsMessagesInTheBrokerUntilThereIsRoom() throws Exception {
        Properties p = supervisorProperties();
        p.setProperty(SupervisorConfig.JOURNAL_MIN_FREE_BYTES, "1000000");
        p.setProperty(SupervisorConfig.TICK_INTERVAL, "50ms");
        AtomicLong free = new AtomicLong(1L << 40);
        // looks at the disk from the producer queue's worker: a message is being held there
        AtomicInteger heldLooks = new AtomicInteger();
        JournalDiskGuard.FreeSpace disk = () -> {
            long f = free.get();
            if (f < 1_000_000 && Thread.currentThread().getName().contains("supervisor-producer")) {
                heldLooks.incrementAndGet();
            }
            return f;
        };
        supervisor = startSupervisor(p, disk);

        free.set(999_999);
        produce("m1", DATASET, "first", guid("G1", 0, 10));
        Await.until("the message held by the low journal disk", TIMEOUT, () -> heldLooks.get() >= 2);
        assertTrue(supervisor.dataset(DATASET).isEmpty(), "nothing recorded while the disk is low");
        String reason = supervisor.readiness().reason();
        assertTrue(reason.contains("has 999999 bytes free, below supervisor.journal.min.free.bytes=1000000:"
                + " consuming paused"), reason);
        assertEquals(503, get("/ready").statusCode());
        String metrics = get("/metrics").body();
        assertTrue(metrics.contains("eventindex_supervisor_journal_disk_low 1"), metrics);
        assertTrue(metrics.contains("eventindex_supervisor_journal_disk_free_bytes 999999"), metrics);

        free.set(1_000_000);
        Await.until("the held message recorded once there is room", TIMEOUT,
                () -> supervisor.dataset(DATASET).isPresent());
        Await.until("ready again", TIMEOUT, () -> supervisor.readiness().ready());
        assertEquals(1, supervisor.dataset(DATASET).orElseThrow().objectsReported());

        // stopping while a message is held leaves it in the broker for the next start
        free.set(0);
        heldLooks.set(0);
        produce("m2", DATASET, "second", guid("G2", 1, 20));
        Await.until("the second message held", TIMEOUT, () -> heldLooks.get() >= 2);
        supervisor.stop();
        Await.until("the held message back in the queue", TIMEOUT, () -> broker.queueSize(Queues.SUPERVISOR) == 1);
        free.set(1L << 40);
        supervisor = startSupervisor(p, disk);
        Await.until("the second message recorded after the restart", TIMEOUT,
                () -> supervisor.dataset(DATASET).orElseThrow().objectsReported() == 2);
        assertEquals(0, broker.queueSize(EmbeddedBroker.DLQ), "nothing may be dead-lettered");
    }

    @Test
    void signalPlannedButNotConfirmedBeforeACrashIsSentAgainUnchanged() throws Exception {
        Properties p = supervisorProperties();
        // the crash is made by editing the journal after a stop, so the stop must not write a checkpoint
        p.setProperty(SupervisorConfig.JOURNAL_CHECKPOINT_ENTRIES, "0");
        supervisor = startSupervisor(p, JournalDiskGuard.FreeSpace.of(dir));
        produce("m1", DATASET, "only", guid("G1", 0, 10));
        registerManifest(manifest(DATASET, file("G1", 10)));
        ConsumerSignal first = nextSignal();
        Await.until("signal confirmed sent", TIMEOUT,
                () -> supervisor.dataset(DATASET).orElseThrow().state() == CollectionState.SIGNALLED);
        supervisor.stop();

        // A crash after the broker took the signal but before SIGNAL_SENT reached the journal: drop that last line.
        Path journal = dir.resolve("journal").resolve(org.eventindex.supervisor.journal.Journal.FILE_NAME);
        List<String> lines = Files.readAllLines(journal);
        assertTrue(lines.get(lines.size() - 1).contains("\"SIGNAL_SENT\""), lines.get(lines.size() - 1));
        Files.write(journal, lines.subList(0, lines.size() - 1));

        supervisor = startSupervisor(p, JournalDiskGuard.FreeSpace.of(dir));
        ConsumerSignal again = nextSignal();
        assertEquals(first, again);
        Await.until("re-sent signal confirmed", TIMEOUT,
                () -> supervisor.dataset(DATASET).orElseThrow().state() == CollectionState.SIGNALLED);
    }

    @Test
    void aCleanStopWritesACheckpointThatTheNextStartRestoresInsteadOfReplaying() throws Exception {
        supervisor = startSupervisor();
        produce("m1", DATASET, "only", guid("G1", 0, 10));
        registerManifest(manifest(DATASET, file("G1", 10)));
        ConsumerSignal signal = nextSignal();
        Await.until("signal confirmed sent", TIMEOUT,
                () -> supervisor.dataset(DATASET).orElseThrow().state() == CollectionState.SIGNALLED);
        DatasetView before = supervisor.dataset(DATASET).orElseThrow();
        long seq = Json.tree(get("/supervisor").body().getBytes(StandardCharsets.UTF_8))
                .path("supervisor").path("journalSeq").asLong();
        assertTrue(seq >= 4, "object, manifest, signal planned and sent: " + seq);
        supervisor.stop();
        assertEquals(1, DaemonMetrics.value(supervisor.metrics(), "eventindex_supervisor_journal_checkpoints_total"));
        Path journalDir = dir.resolve("journal");
        assertEquals(0, Files.size(journalDir.resolve(org.eventindex.supervisor.journal.Journal.FILE_NAME)));
        assertTrue(Files.exists(journalDir.resolve(String.format("supervisor.journal.%012d", seq))));

        supervisor = startSupervisor();
        JsonNode journal = journalInfo();
        assertEquals(seq, journal.path("checkpointSeq").asLong(), journal.toString());
        assertEquals(seq, journal.path("replay").path("checkpointSeq").asLong(), journal.toString());
        assertEquals(0, journal.path("replay").path("entries").asLong(), "nothing to replay: " + journal);
        DatasetView after = supervisor.dataset(DATASET).orElseThrow();
        assertEquals(before.withLease(null), after.withLease(null), "the journalled state, restored");
        // the lease is not journalled: a restarted supervisor counts it from its start (HandOffAndReselectionTest)
        assertFalse(after.lease().countsFrom().isBefore(before.lease().countsFrom()), after.lease().toString());
        assertEquals(0, journal.path("entriesSinceCheckpoint").asLong(), journal.toString());
        sender.send(Queues.SUPERVISOR_CONTROL, Json.write(Fixtures.done(signal.signalId(), DATASET, 10)), Map.of());
        Await.until("DONE recorded after the restart", TIMEOUT,
                () -> supervisor.dataset(DATASET).orElseThrow().state() == CollectionState.DONE);
        assertEquals(1, journalInfo().path("entriesSinceCheckpoint").asLong(), "the report");
        assertTrue(get("/metrics").body().contains("\neventindex_supervisor_journal_entries_since_checkpoint 1"));
    }

    @Test
    void noCheckpointIsWrittenWhileTheJournalDiskIsLow() throws Exception {
        Properties p = supervisorProperties();
        p.setProperty(SupervisorConfig.JOURNAL_MIN_FREE_BYTES, "1000000");
        p.setProperty(SupervisorConfig.JOURNAL_CHECKPOINT_ENTRIES, "1");
        p.setProperty(SupervisorConfig.TICK_INTERVAL, "1h"); // the test ticks by hand
        AtomicLong free = new AtomicLong(1L << 40);
        supervisor = startSupervisor(p, free::get);
        produce("m1", DATASET, "first", guid("G1", 0, 10));
        Await.until("the object recorded", TIMEOUT, () -> supervisor.dataset(DATASET).isPresent());

        free.set(999_999);
        supervisor.tick();
        assertEquals(0, journalInfo().path("checkpointSeq").asLong(), "a checkpoint would eat the disk's margin");
        assertEquals(1, journalInfo().path("entriesSinceCheckpoint").asLong());
        free.set(1L << 40);
        supervisor.tick();
        assertEquals(1, journalInfo().path("checkpointSeq").asLong(), "written once there is room");
        assertEquals(0, journalInfo().path("entriesSinceCheckpoint").asLong());
    }

    private JsonNode journalInfo() throws IOException, InterruptedException {
        return Json.tree(get("/supervisor").body().getBytes(StandardCharsets.UTF_8)).path("supervisor")
                .path("journal");
    }
}
