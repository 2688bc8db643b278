package org.eventindex.consumer;

import com.google.protobuf.MessageLite;
import org.eventindex.consolidated.TriggerMenus;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.message.SignalObject;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.proto.EventIndexProtos.EndGUID_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.Trailer_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.SpbContentLimits;
import org.eventindex.spb.SpbLimits;
import org.eventindex.spb.SpbMessageType;
import org.eventindex.spb.SpbReader;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.eventindex.testing.Ports;
import org.eventindex.testing.ChildJvm;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Properties;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

import static org.eventindex.consumer.TestSpb.CONTAINER;
import static org.eventindex.consumer.TestSpb.DATASET;
import static org.eventindex.consumer.TestSpb.TASK_ID;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Objects whose SPB structure is valid but whose content is hostile (decompression bombs: huge menus, masks, tokens
 * and names; many small messages; one large object; an object larger than its producer declared), sent to a consumer
 * that runs as its own process with its default heap, as in production, on real services (ActiveMQ with the access
 * rules, S3Proxy, HDFS, Kudu). Each is reported FAILED with its reason, leaves nothing in HDFS or Kudu, and the same
 * consumer process, still alive and healthy, then consolidates a valid dataset. Each is reported permanent, so the
 * supervisor does not retry it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DecompressionBombTest {
    private static final String BUCKET = "eventindex";
    private static final String PREFIX = "bomb_";
    private static final String HDFS_ROOT = "/eventindex/datasets";
    private static final Duration TIMEOUT = Duration.ofSeconds(180);

    @TempDir
    static Path tmp;
    private EmbeddedKudu kudu;
    private EmbeddedBroker broker;
    private EmbeddedS3 s3;
    private EmbeddedHdfs hdfs;
    private Process consumer;
    private int httpPort;
    private StompSender supervisor;
    private StompQueueWorker reportListener;
    private final HttpClient http = HttpClient.newHttpClient();
    private final LinkedBlockingQueue<ConsumerReport> reports = new LinkedBlockingQueue<>();

    @BeforeAll
    void start() throws Exception {
        kudu = EmbeddedKudu.start(tmp.resolve("kudu"), 1);
        Map<String, String> passwords = Map.of(BrokerAccess.CONSUMERS, "consumer-pw-" + System.nanoTime(),
                BrokerAccess.SUPERVISORS, "supervisor-pw-" + System.nanoTime());
        broker = EmbeddedBroker.startSecured(tmp.resolve("broker"), EmbeddedBroker.Security.onePerGroup(passwords));
        s3 = EmbeddedS3.start(tmp.resolve("s3"), "bomb-access", "bomb-secret");
        s3.createBucket(BUCKET);
        hdfs = EmbeddedHdfs.start(tmp.resolve("hdfs"));
        httpPort = Ports.free();

        Properties config = ServiceChecks.consumerConfig("consumer-bombs", broker, s3, BUCKET, hdfs, HDFS_ROOT, kudu,
                PREFIX, tmp.resolve("spool"), httpPort);
        Path file = tmp.resolve("consumer.properties");
        try (var out = Files.newOutputStream(file)) {
            config.store(out, "DecompressionBombTest");
        }
        // The default heap: no -Xmx, as a consumer started by its service unit.
        ProcessBuilder pb = ChildJvm.main(ConsumerMain.class)
                .options("-Djava.io.tmpdir=" + Files.createDirectories(tmp.resolve("consumer-tmp")))
                .args("run", "--config", file.toString()).builder()
                .redirectErrorStream(true).redirectOutput(tmp.resolve("consumer.log").toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("EI_"));
        pb.environment().put(ConsumerConfig.ENV_STOMP_PASSWORD, passwords.get(BrokerAccess.CONSUMERS));
        pb.environment().put(ConsumerConfig.ENV_S3_ACCESS_KEY, s3.accessKey());
        pb.environment().put(ConsumerConfig.ENV_S3_SECRET_KEY, s3.secretKey());
        consumer = pb.start();

        StompSettings asSupervisor = StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()),
                BrokerAccess.SUPERVISORS, passwords.get(BrokerAccess.SUPERVISORS));
        supervisor = new StompSender(asSupervisor);
        reportListener = new StompQueueWorker("bomb-reports", asSupervisor, Queues.SUPERVISOR_CONTROL, 10,
                m -> reports.add(Json.read(m.body(), ConsumerReport.class)));
        reportListener.start();
        Await.until("the consumer process to be ready (log: " + tmp.resolve("consumer.log") + ")", TIMEOUT,
                () -> consumer.isAlive() && status("/ready") == 200);
    }

    @AfterAll
    void stop() {
        if (consumer != null) {
            consumer.destroy();
            try {
                consumer.waitFor(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            consumer.destroyForcibly();
        }
        for (AutoCloseable c : new AutoCloseable[]{reportListener, supervisor, hdfs, s3, broker, kudu}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    // keep closing the others
                }
            }
        }
    }

    /** A hostile object, the signal's usize for it (0: none), and what its FAILED report must say. */
    private record Bomb(String name, byte[] object, long usize, String reason) {
    }

    @Test
    void everyBombIsRefusedWithItsReasonLeavesNothingAndTheSameProcessThenServesAValidDataset() throws Exception {
        Random random = new Random(19);
        List<Bomb> bombs = new ArrayList<>();
        // The object of issue 19: 70 menus of a 15 MiB L1Menu of one character, 1 MB after gzip -9.
        bombs.add(new Bomb("menus-70x15MiB", spb("menus-70x15MiB", s -> {
            byte[] menu = frame(SpbMessageType.TRIGGER_MENU, menu("L".repeat(15 << 20)));
            for (int i = 0; i < 70; i++) {
                s.write(menu);
            }
        }), 0, "inflates more than " + SpbLimits.DEFAULT_INFLATION_RATIO + " times"));
        // Each field past its limit with content that does not compress (the ratio does not stop these).
        bombs.add(new Bomb("menu-2MiB", spb("menu-2MiB", s -> s.write(frame(SpbMessageType.TRIGGER_MENU,
                menu(letters(random, 2 << 20))))), 0,
                "TRIGGER_MENU L1Menu (GUID G-BOMB) is " + (2 << 20) + " bytes, more than the limit of "
                        + SpbContentLimits.MENU_BYTES));
        bombs.add(new Bomb("mask", spb("mask", s -> s.write(frame(SpbMessageType.EVENT, event(1).toBuilder()
                .setEFPassedTrigMask(letters(random, 1 << 20)).build()))), 0,
                "EVENT EFPassedTrigMask (GUID G-BOMB) is " + (1 << 20) + " bytes, more than the limit of "
                        + SpbContentLimits.HLT_MASK_BYTES));
        bombs.add(new Bomb("tokens", spb("tokens", s -> {
            EIEvent_p1.Builder e = event(1).toBuilder();
            for (int i = 0; i < 20_000; i++) {
                e.addEitoken(EItoken_p1.newBuilder().setName("Stream" + i).setToken(letters(random, 100)));
            }
            s.write(frame(SpbMessageType.EVENT, e.build()));
        }), 0, "has 20000 eitoken entries, more than the limit of " + SpbContentLimits.TOKENS_PER_EVENT));
        bombs.add(new Bomb("names", spb("names", s -> s.write(frame(SpbMessageType.EVENT, event(1).toBuilder()
                .addEitoken(EItoken_p1.newBuilder().setName(letters(random, 4 << 20)).setToken("[DB=x]")).build()))),
                0, "EVENT eitoken name (GUID G-BOMB) is " + (4 << 20) + " bytes, more than the limit of "
                + SpbContentLimits.NAME_BYTES));
        // Many small messages: a million copies of one small menu.
        bombs.add(new Bomb("many-menus", spb("many-menus", s -> {
            byte[] menu = frame(SpbMessageType.TRIGGER_MENU, menu("L1_EM22VHI"));
            for (int i = 0; i < 1_000_000; i++) {
                s.write(menu);
            }
        }), 0, "GUID G-BOMB has more than " + SpbContentLimits.MENUS_PER_FILE + " TRIGGER_MENU messages"));
        // A valid object that inflates to more than its producer declared.
        byte[] valid = TestSpb.object("usize-lie", 1000, TestSpb.Guid.of("G-BOMB", 1, 10));
        long realSize = uncompressedSize(valid);
        bombs.add(new Bomb("usize-lie", valid, realSize / 2, "inflates to more than " + realSize / 2
                + " bytes (from "));
        byte[] shorter = TestSpb.object("usize-short", 1000, TestSpb.Guid.of("G-BOMB", 1, 10));
        long shorterSize = uncompressedSize(shorter);
        bombs.add(new Bomb("usize-short", shorter, shorterSize + 1, "inflates to " + shorterSize
                + " bytes, but its producer declared " + (shorterSize + 1)));

        TreeSet<String> hdfsBefore = hdfsTree();
        long pid = consumer.pid();
        for (Bomb b : bombs) {
            String key = TestSpb.key(b.name());
            put(key, b.object());
            SignalObject o = new SignalObject(url(key), b.object().length, b.usize(), List.of("G-BOMB"),
                    b.name().startsWith("usize") ? 10 : 1);
            ConsumerReport r = send(new ConsumerSignal(ConsumerSignal.TYPE, "sig-" + b.name(), DATASET, CONTAINER,
                    700, 3, List.of(o), o.expectedEvents(), System.currentTimeMillis()));
            assertEquals(ConsumerReport.FAILED, r.status(), b.name() + ": " + r.reason());
            assertTrue(r.reason().contains(b.reason()), b.name() + ": " + r.reason());
            assertTrue(r.permanent(), b.name() + " is not reported permanent: the supervisor would retry it");
            assertEquals(hdfsBefore, hdfsTree(), b.name() + " left a trace in HDFS");
            assertEquals(200, status("/health"), b.name() + ": the consumer is not healthy");
        }
        // A dataset whose objects are each within every limit but whose distinct menus together are not.
        List<SignalObject> menuObjects = new ArrayList<>();
        int perObject = SpbContentLimits.DISTINCT_MENU_BYTES / SpbContentLimits.MENU_BYTES - 1;
        long objectsNeeded = TriggerMenus.MAX_CHARS / ((long) perObject * SpbContentLimits.MENU_BYTES) + 1;
        for (int o = 0; o < objectsNeeded; o++) {
            String job = "menus-" + o;
            int first = o * perObject;
            byte[] object = spb(job, s -> {
                for (int m = 0; m < perObject; m++) {
                    s.write(frame(SpbMessageType.TRIGGER_MENU, menu(letters(random, SpbContentLimits.MENU_BYTES))
                            .toBuilder().setSMK(first + m).build()));
                }
            }, "G-MENUS-" + o);
            put(TestSpb.key(job), object);
            menuObjects.add(new SignalObject(url(TestSpb.key(job)), object.length, 0, List.of("G-MENUS-" + o), 1));
        }
        ConsumerReport menus = send(new ConsumerSignal(ConsumerSignal.TYPE, "sig-distinct-menus", DATASET, CONTAINER,
                700, 3, menuObjects, menuObjects.size(), System.currentTimeMillis()));
        assertEquals(ConsumerReport.FAILED, menus.status(), menus.reason());
        assertTrue(menus.reason().contains("its distinct trigger menus hold more than " + TriggerMenus.MAX_CHARS
                + " characters"), menus.reason());
        assertTrue(menus.permanent(), "the distinct menus are not reported permanent");
        assertEquals(hdfsBefore, hdfsTree(), "the distinct menus left a trace in HDFS");

        assertEquals(0, rows("DATASETS"), "DATASETS changed");
        assertEquals(0, rows("EVENTS"), "EVENTS changed");

        // The same process then serves a valid dataset.
        put(TestSpb.key("good"), TestSpb.object("good", 1000, TestSpb.Guid.of("G1", 1, 10)));
        ConsumerReport done = send(new ConsumerSignal(ConsumerSignal.TYPE, "sig-valid", DATASET, CONTAINER, 700, 3,
                List.of(new SignalObject(url(TestSpb.key("good")), 100, List.of("G1"), 10)), 10,
                System.currentTimeMillis()));
        assertEquals(ConsumerReport.DONE, done.status(), done.reason());
        assertEquals(10, rows("EVENTS"));
        assertEquals(1, rows("DATASETS"));
        assertTrue(consumer.isAlive(), "the consumer process died");
        assertEquals(pid, consumer.pid());
        assertEquals(200, status("/health"));
    }

    private interface Body {
        void write(OutputStream s) throws IOException;
    }

    /** Header, BeginGUID, the body, 20 events, EndGUID, Trailer; gzip -9 as it is written. */
    private static byte[] spb(String job, Body body) throws IOException {
        return spb(job, body, "G-BOMB");
    }

    private static byte[] spb(String job, Body body, String guid) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out, 1 << 16) {
            {
                def.setLevel(Deflater.BEST_COMPRESSION);
            }
        }) {
            gz.write(le(SpbReader.MAGIC));
            gz.write(le(SpbReader.FILE_VERSION));
            gz.write(frame(SpbMessageType.HEADER, Header_p1.newBuilder().setStartProcTime(1000).setTaskID(TASK_ID)
                    .setJobID(job).setInputDsName(DATASET).setProvenanceRef(true).setTriggerInfo(true).build()));
            gz.write(frame(SpbMessageType.BEGIN_GUID, BeginGUID_p1.newBuilder().setStartProcTime(1000)
                    .setAMITag("f838_m1824").setTrigStream("physics_Main").setProjName("data17_13TeV").setGuid(guid)
                    .build()));
            body.write(gz);
            int events = guid.equals("G-BOMB") ? 20 : 1;
            for (int i = 0; i < events; i++) {
                gz.write(frame(SpbMessageType.EVENT, event(i + 1)));
            }
            gz.write(frame(SpbMessageType.END_GUID, EndGUID_p1.newBuilder().setEndProcTime(2000).setNentries(events)
                    .build()));
            gz.write(frame(SpbMessageType.TRAILER, Trailer_p1.newBuilder().setEndProcTime(2000).setNentries(events)
                    .setNfiles(1).build()));
        }
        return out.toByteArray();
    }

    private static EIEvent_p1 event(long n) {
        return TestSpb.event(n);
    }

    private static TriggerMenu_p1 menu(String l1) {
        return TriggerMenu_p1.newBuilder().setSMK(2747).setL1PSK(19).setHLTPSK(8).setL1Menu(l1).build();
    }

    private static byte[] frame(SpbMessageType type, MessageLite m) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(le(type.code() << 8 | 1));
        byte[] body = m.toByteArray();
        b.write(le(body.length));
        b.write(body);
        return b.toByteArray();
    }

    private static byte[] le(int v) {
        return new byte[] {(byte) v, (byte) (v >>> 8), (byte) (v >>> 16), (byte) (v >>> 24)};
    }

    private static String letters(Random random, int n) {
        char[] c = new char[n];
        for (int i = 0; i < n; i++) {
            c[i] = (char) ('a' + random.nextInt(26));
        }
        return new String(c);
    }

    private static long uncompressedSize(byte[] gz) throws IOException {
        try (var in = new java.util.zip.GZIPInputStream(new ByteArrayInputStream(gz))) {
            return in.transferTo(OutputStream.nullOutputStream());
        }
    }

    private ConsumerReport send(ConsumerSignal signal) throws Exception {
        supervisor.send(Queues.CONSUMER, Json.write(signal), Map.of());
        ConsumerReport r = reports.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertNotNull(r, "no report for " + signal.signalId() + "; consumer alive: " + consumer.isAlive()
                + ", log: " + tmp.resolve("consumer.log"));
        assertEquals(signal.signalId(), r.signalId());
        return r;
    }

    private int status(String path) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private String url(String key) {
        return "s3://" + s3.endpoint().getHost() + ":" + s3.endpoint().getPort() + "/" + BUCKET + "/" + key;
    }

    private void put(String key, byte[] bytes) {
        ServiceChecks.put(s3, BUCKET, key, bytes);
    }

    private TreeSet<String> hdfsTree() throws IOException {
        return ServiceChecks.hdfsTree(hdfs.fs());
    }

    private long rows(String table) throws Exception {
        return ServiceChecks.rows(kudu.client(), PREFIX + table);
    }
}
