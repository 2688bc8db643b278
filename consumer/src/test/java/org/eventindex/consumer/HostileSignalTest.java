package org.eventindex.consumer;

import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.message.SignalObject;
import org.eventindex.names.ObjectKey;
import org.eventindex.spb.SpbMessageType;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompQueueWorker;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;
import org.eventindex.testing.Await;
import org.eventindex.testing.BrokerAccess;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.EmbeddedKudu;
import org.eventindex.testing.EmbeddedS3;
import org.eventindex.testing.SpbFixtures;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;

import static org.eventindex.consumer.TestSpb.CONTAINER;
import static org.eventindex.consumer.TestSpb.DATASET;
import static org.eventindex.consumer.TestSpb.Guid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Path traversal and oversize input at the consumer's entry point, on real services (ActiveMQ with the deployment's
 * access rules, S3Proxy, HDFS, Kudu): every hostile signal is reported FAILED, permanent, with its reason, leaves the
 * HDFS tree and the Kudu tables exactly as they were, and the daemon then consolidates a valid signal.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileSignalTest {
    private static final int FRAME_MAX_BYTES = 16 * 1024;
    private static final String BUCKET = "eventindex";
    private static final String OTHER_BUCKET = "someone-else";
    /** The dataset of the objects made with {@link SpbFixtures} (their header names it; no task suffix). */
    private static final String FIXTURE_DATASET = SpbFixtures.header().getInputDsName();
    private static final String PREFIX = "hostile_";
    private static final String HDFS_ROOT = "/eventindex/datasets";
    private static final long OBJECT_MAX_BYTES = 100_000;
    private static final long INFLATED_MAX_BYTES = 1 << 20;
    private static final Duration REPORT_TIMEOUT = Duration.ofSeconds(120);

    @TempDir
    static Path tmp;
    private EmbeddedKudu kudu;
    private EmbeddedBroker broker;
    private EmbeddedS3 s3;
    private EmbeddedHdfs hdfs;
    private Consumer consumer;
    private StompSender supervisor;
    private StompQueueWorker reportListener;
    private final LinkedBlockingQueue<ConsumerReport> reports = new LinkedBlockingQueue<>();

    @BeforeAll
    void start() throws IOException {
        kudu = EmbeddedKudu.start(tmp.resolve("kudu"), 1);
        Map<String, String> passwords = Map.of(BrokerAccess.CONSUMERS, "consumer-pw-" + System.nanoTime(),
                BrokerAccess.SUPERVISORS, "supervisor-pw-" + System.nanoTime());
        broker = EmbeddedBroker.startSecured(tmp.resolve("broker"), EmbeddedBroker.Security.onePerGroup(passwords));
        s3 = EmbeddedS3.start(tmp.resolve("s3"), "hostile-access", "hostile-secret");
        s3.createBucket(BUCKET);
        s3.createBucket(OTHER_BUCKET);
        hdfs = EmbeddedHdfs.start(tmp.resolve("hdfs"));

        Properties p = ServiceChecks.consumerConfig("consumer-hostile", broker, s3, BUCKET, hdfs, HDFS_ROOT, kudu, PREFIX,
                tmp.resolve("spool"), 0);
        p.setProperty(ConsumerConfig.OBJECT_MAX_BYTES, Long.toString(OBJECT_MAX_BYTES));
        p.setProperty(ConsumerConfig.OBJECT_MAX_INFLATED_BYTES, Long.toString(INFLATED_MAX_BYTES));
        p.setProperty(ConsumerConfig.DATASET_MAX_EVENTS, "1000");
        p.setProperty(ConsumerConfig.STOMP_FRAME_MAX_BYTES, Integer.toString(FRAME_MAX_BYTES));
        consumer = new Consumer(ConsumerConfig.fromProperties(p, Map.of(
                ConsumerConfig.ENV_STOMP_PASSWORD, passwords.get(BrokerAccess.CONSUMERS),
                ConsumerConfig.ENV_S3_ACCESS_KEY, s3.accessKey(), ConsumerConfig.ENV_S3_SECRET_KEY, s3.secretKey())),
                hdfs.conf(), Clock.systemUTC());
        consumer.start();

        StompSettings asSupervisor = StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()),
                BrokerAccess.SUPERVISORS, passwords.get(BrokerAccess.SUPERVISORS));
        supervisor = new StompSender(asSupervisor);
        reportListener = new StompQueueWorker("hostile-reports", asSupervisor, Queues.SUPERVISOR_CONTROL, 10,
                m -> reports.add(Json.read(m.body(), ConsumerReport.class)));
        reportListener.start();
        Await.until("the consumer to subscribe", Duration.ofSeconds(30), consumer::isConnected);

        put(BUCKET, key("good"), TestSpb.object("good", 1000, Guid.of("G1", 1, 10)));
        put(OTHER_BUCKET, key("good"), TestSpb.object("good", 1000, Guid.of("G1", 1, 10)));
        // Job "good"'s SPB file stored under job "impostor"'s key, and a valid file under a key no producer writes.
        put(BUCKET, key("impostor"), TestSpb.object("good", 1000, Guid.of("G2", 100, 5)));
        // content the producer refuses and an object of another producer might carry (issue 30): refused on the
        // first read, before anything is written
        put(BUCKET, key("badmask"), TestSpb.object("badmask", 1000, e -> e.getEventNumber() != 3 ? e
                : e.toBuilder().setL1PassedTrigMask("B!K6!NC#").build(), Guid.of("G1", 1, 10)));
        put(BUCKET, key("tworuns"), TestSpb.object("tworuns", 1000, e -> e.getEventNumber() < 6 ? e
                : e.toBuilder().setRunNumber(327637).build(), Guid.of("G1", 1, 10)));
        put(BUCKET, "X/12345678/plain.ei.spb", TestSpb.object("plain", 1000, Guid.of("G2", 100, 5)));
        put(BUCKET, fixtureKey("bomb"), gzipBomb(16L << 20));
        byte[] noise = new byte[(int) OBJECT_MAX_BYTES + 1];
        new Random(7).nextBytes(noise);
        put(BUCKET, key("big"), noise);
        put(BUCKET, fixtureKey("four-gb"), SpbFixtures.Raw.start()
                .message(SpbMessageType.HEADER, SpbFixtures.header())
                .u32(SpbMessageType.BEGIN_GUID.code() << 8 | 1).u32(0xFFFFFFFF).gzip());
    }

    @AfterAll
    void stop() {
        for (AutoCloseable c : new AutoCloseable[]{reportListener, supervisor, consumer, hdfs, s3, broker, kudu}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    // keep closing the others
                }
            }
        }
    }

    @Test
    void hostileSignalsAreRefusedWithReasonsLeaveNoTraceAndTheNextValidSignalIsServed() throws Exception {
        String ok = url(s3.endpoint().getHost(), s3.endpoint().getPort(), BUCKET, key("good"));
        List<Object[]> cases = List.of(
                new Object[] {signal("traversal-dataset", "../../x", "../../x", 10, obj(ok, 10, "G1")),
                        "dataset name is invalid"},
                new Object[] {signal("traversal-container", DATASET, "../etc", 10, obj(ok, 10, "G1")),
                        "container '../etc' is not the dataset's container"},
                new Object[] {signal("separator", "data17_13TeV.00327636.physics_Main.merge.AOD.f838/x",
                        "data17_13TeV.00327636.physics_Main.merge.AOD.f838/x", 10, obj(ok, 10, "G1")),
                        "character '/' at position"},
                new Object[] {signal("control-char", "data17_13TeV.00327636.physics_Main.merge.AOD.f8\u000138",
                        CONTAINER, 10, obj(ok, 10, "G1")), "is not allowed"},
                new Object[] {signal("other-bucket", DATASET, CONTAINER, 10, obj(url(s3.endpoint().getHost(),
                        s3.endpoint().getPort(), OTHER_BUCKET, key("good")), 10, "G1")),
                        "is not in the configured bucket 'eventindex'"},
                new Object[] {signal("other-endpoint", DATASET, CONTAINER, 10, obj(url("evil.example", 443, BUCKET,
                        key("good")), 10, "G1")), "is not on the configured S3 endpoint"},
                new Object[] {signal("key-traversal", DATASET, CONTAINER, 10, obj(url(s3.endpoint().getHost(),
                        s3.endpoint().getPort(), BUCKET, "X/../../" + OTHER_BUCKET + "/" + key("good")), 10, "G1")),
                        "'..' path segment"},
                new Object[] {signal("too-many-events", DATASET, CONTAINER, 5000, obj(ok, 5000, "G1")),
                        ConsumerConfig.DATASET_MAX_EVENTS + " = 1000"},
                new Object[] {signal("gzip-bomb", FIXTURE_DATASET, FIXTURE_DATASET, 10, obj(url(s3.endpoint().getHost(),
                        s3.endpoint().getPort(), BUCKET, fixtureKey("bomb")), 10, SpbFixtures.GUID_A)),
                        "inflates to more than " + INFLATED_MAX_BYTES + " bytes"},
                new Object[] {signal("big-object", DATASET, CONTAINER, 10, obj(url(s3.endpoint().getHost(),
                        s3.endpoint().getPort(), BUCKET, key("big")), 10, "G1")),
                        "is " + (OBJECT_MAX_BYTES + 1) + " bytes, more than " + ConsumerConfig.OBJECT_MAX_BYTES},
                new Object[] {signal("four-gb", FIXTURE_DATASET, FIXTURE_DATASET, 10, obj(url(s3.endpoint().getHost(),
                        s3.endpoint().getPort(), BUCKET, fixtureKey("four-gb")), 10, "G1")), "declares 4294967295 bytes"},
                // The first object is good; the second's header names another job than its key: nothing of the
                // dataset is written, not even the first object's events.
                new Object[] {signal("foreign-header", DATASET, CONTAINER, 15, obj(ok, 10, "G1"),
                        obj(url(s3.endpoint().getHost(), s3.endpoint().getPort(), BUCKET, key("impostor")), 5, "G2")),
                        "its SPB header names taskID '" + TestSpb.TASK_ID + "' and jobID 'good', but its key is that"
                                + " of taskID '" + TestSpb.TASK_ID + "' and jobID 'impostor'"},
                new Object[] {signal("malformed-mask", DATASET, CONTAINER, 10, obj(url(s3.endpoint().getHost(),
                        s3.endpoint().getPort(), BUCKET, key("badmask")), 10, "G1")),
                        "EVENT (run 327636, event 3) of GUID G1 L1PassedTrigMask is not a coded 1536-bit mask:"
                                + " trigger mask 'B!K6!NC#': character '#' at position 7"},
                new Object[] {signal("second-run", DATASET, CONTAINER, 10, obj(url(s3.endpoint().getHost(),
                        s3.endpoint().getPort(), BUCKET, key("tworuns")), 10, "G1")),
                        "EVENT (run 327637, event 6) of GUID G1 carries run 327637, but its dataset"},
                new Object[] {signal("not-a-producer-key", DATASET, CONTAINER, 15, obj(ok, 10, "G1"),
                        obj(url(s3.endpoint().getHost(), s3.endpoint().getPort(), BUCKET, "X/12345678/plain.ei.spb"),
                                5, "G2")), "is not stored under a producer key"},
                // A signal frame over consumer.stomp.frame.max.bytes: reported FAILED under its own signalId.
                new Object[] {signal("oversize", DATASET, CONTAINER, 600, manyObjects(600)),
                        "over this consumer's STOMP frame limits (" + ConsumerConfig.STOMP_FRAME_MAX_BYTES + ", "
                                + ConsumerConfig.STOMP_FRAME_MAX_HEADER_BYTES + "): MESSAGE frame body of "});

        TreeSet<String> hdfsBefore = hdfsTree();
        long datasetsBefore = rows("DATASETS");
        long eventsBefore = rows("EVENTS");
        for (Object[] c : cases) {
            ConsumerSignal s = (ConsumerSignal) c[0];
            ConsumerReport r = send(s);
            assertEquals(ConsumerReport.FAILED, r.status(), s.signalId() + ": " + r.reason());
            assertTrue(r.reason().contains((String) c[1]), s.signalId() + ": " + r.reason());
            assertTrue(r.permanent(), s.signalId() + " would be retried by the supervisor: " + r.reason());
            assertEquals(hdfsBefore, hdfsTree(), s.signalId() + " left a trace in HDFS");
        }
        assertEquals(datasetsBefore, rows("DATASETS"), "DATASETS changed");
        assertEquals(eventsBefore, rows("EVENTS"), "EVENTS changed");
        assertEquals(0, rows("DUPLICATEDEVENTS"));
        assertEquals(0, s3.getCount(OTHER_BUCKET, key("good")), "nothing was read from the other bucket");

        ConsumerReport done = send(signal("valid", DATASET, CONTAINER, 10, obj(ok, 10, "G1")));
        assertEquals(ConsumerReport.DONE, done.status(), done.reason());
        assertEquals(10, rows("EVENTS"));
        assertEquals(1, rows("DATASETS"));
        TreeSet<String> after = hdfsTree();
        after.removeAll(hdfsBefore);
        assertEquals(List.of(HDFS_ROOT + "/" + CONTAINER + "/" + DATASET + ".parquet"), new ArrayList<>(after));
        Await.until("every signal acknowledged", Duration.ofSeconds(30),
                () -> broker.queueSize(Queues.CONSUMER) == 0);
        assertEquals(0, broker.queueSize(EmbeddedBroker.DLQ));
    }

    private ConsumerReport send(ConsumerSignal signal) throws Exception {
        supervisor.send(Queues.CONSUMER, Json.write(signal), Map.of());
        ConsumerReport r = reports.poll(REPORT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertNotNull(r, "no report for " + signal.signalId());
        assertEquals(signal.signalId(), r.signalId());
        return r;
    }

    private static ConsumerSignal signal(String id, String dataset, String container, long events,
                                         SignalObject... objects) {
        return new ConsumerSignal(ConsumerSignal.TYPE, "sig-" + id, dataset, container, 700, 3, List.of(objects),
                events, System.currentTimeMillis());
    }

    private SignalObject[] manyObjects(int n) {
        SignalObject[] objects = new SignalObject[n];
        for (int i = 0; i < n; i++) {
            objects[i] = obj(url(s3.endpoint().getHost(), s3.endpoint().getPort(), BUCKET, key("many-" + i)), 1,
                    "GUID-" + i);
        }
        assertTrue(Json.write(signal("size", DATASET, CONTAINER, n, objects)).length > 4 * FRAME_MAX_BYTES);
        return objects;
    }

    private static SignalObject obj(String url, long events, String guid) {
        return new SignalObject(url, 100, List.of(guid), events);
    }

    private static String url(String host, int port, String bucket, String key) {
        return "s3://" + host + ":" + port + "/" + bucket + "/" + key;
    }

    private static String key(String name) {
        return TestSpb.key(name);
    }

    /** A key of the job whose header {@link SpbFixtures#header()} writes. */
    private static String fixtureKey(String name) {
        return ObjectKey.of(SpbFixtures.header().getTaskID(), SpbFixtures.header().getJobID(),
                UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString().replace("-", "")).key();
    }

    /** A valid start, then identical events until {@code inflatedBytes}: about 1000:1 compressed. */
    private static byte[] gzipBomb(long inflatedBytes) throws IOException {
        byte[] one = new SpbFixtures.Raw().message(SpbMessageType.EVENT, SpbFixtures.event(SpbFixtures.RUN, 1)).plain();
        byte[] block = new byte[one.length * 1024];
        for (int i = 0; i < 1024; i++) {
            System.arraycopy(one, 0, block, i * one.length, one.length);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out, 1 << 16)) {
            gz.write(SpbFixtures.Raw.start().message(SpbMessageType.HEADER, SpbFixtures.header())
                    .message(SpbMessageType.BEGIN_GUID, SpbFixtures.begin(SpbFixtures.GUID_A)).plain());
            for (long n = 0; n < inflatedBytes; n += block.length) {
                gz.write(block);
            }
        }
        return out.toByteArray();
    }

    private void put(String bucket, String key, byte[] bytes) {
        ServiceChecks.put(s3, bucket, key, bytes);
    }

    private TreeSet<String> hdfsTree() throws IOException {
        return ServiceChecks.hdfsTree(hdfs.fs());
    }

    private long rows(String table) throws Exception {
        return ServiceChecks.rows(kudu.client(), PREFIX + table);
    }
}
