package org.eventindex.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eventindex.message.Json;
import org.eventindex.message.ProducerMessage;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompSettings;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedS3;
import org.eventindex.testing.TcpProxy;
import org.eventindex.testing.TcpProxy.Direction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.eventindex.testing.Ports;

/**
 * The producer under broker and credential faults, in-process on real time with short backoffs: broker failover,
 * all brokers dead, the broker killed between upload and receipt, a lost receipt, wrong credentials. Faults are
 * injected by a TCP proxy in front of the broker or S3 that cuts the connection when a given STOMP frame passes.
 */
class ProducerFaultsTest {
    private static final String QUEUE = "/queue/producer.faults";

    @TempDir
    Path dir;
    private EmbeddedBroker broker;
    private EmbeddedS3 s3;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

    @BeforeEach
    void start() {
        broker = EmbeddedBroker.start(dir.resolve("broker"));
        s3 = EmbeddedS3.start(dir.resolve("s3"), "ak", "sk");
        s3.createBucket("eventindex");
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        s3.close();
        broker.close();
    }

    private TcpProxy proxy(int port) {
        TcpProxy p = TcpProxy.start("127.0.0.1", port);
        closeables.add(p);
        return p;
    }

    private int run(Map<String, String> env, String brokers, String s3Endpoint, String... extra) throws IOException {
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "12345678.G", "4000000001.1", 5);
        List<String> args = new ArrayList<>(List.of(file.toString(), "--brokers", brokers, "--queue", QUEUE,
                "--s3-endpoint", s3Endpoint, "--bucket", "eventindex", "--json"));
        args.addAll(List.of(extra));
        return new ProducerCli(env, new PrintStream(stdout, true, StandardCharsets.UTF_8),
                new PrintStream(stderr, true, StandardCharsets.UTF_8), TestRetry.realTime(Duration.ofSeconds(60)),
                Clock.systemUTC()).run(args);
    }

    private int run(String brokers, String... extra) throws IOException {
        return run(Map.of(ProducerArgs.ENV_S3_ACCESS_KEY, "ak", ProducerArgs.ENV_S3_SECRET_KEY, "sk"), brokers,
                s3.endpoint().toString(), extra);
    }

    private String sentId() throws IOException {
        return Json.tree(stdout.toByteArray()).get("message").get("id").asText();
    }

    private String err() {
        return stderr.toString(StandardCharsets.UTF_8);
    }

    @Test
    void firstBrokerRefusesSecondIsUsed() throws Exception {
        assertEquals(0, run("127.0.0.1:" + Ports.free() + "," + broker.stompEndpoints()), err());
        assertEquals(List.of(sentId()), drain(QUEUE));
        assertEquals(1, s3.keys("eventindex").size());
    }

    @Test
    void allBrokersDeadGivesTheTransientCodeWithinTheDeadline() throws Exception {
        long start = System.nanoTime();
        int code = run("127.0.0.1:" + Ports.free() + ",127.0.0.1:" + Ports.free(), "--retry-deadline", "3");
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertEquals(ExitCode.TRANSIENT.code(), code, err());
        // Refused connections fail at once: the run lasts the deadline (less the last wait) plus start-up.
        assertTrue(elapsedMs >= 2_500 && elapsedMs < 3_000 + 6_000, "took " + elapsedMs + " ms with a 3 s deadline");
        assertTrue(err().matches("(?s).*no STOMP broker accepted a connection.*gave up after \\d+ attempts.*"), err());
        assertEquals(List.of(), s3.keys("eventindex"), "nothing may be uploaded while no broker is reachable");
    }

    @Test
    void brokerKilledBetweenUploadAndReceiptIsRetriedAndDeliversOnce() throws Exception {
        TcpProxy proxy = proxy(broker.stompPort());
        // The SEND never reaches the broker: the broker dies with it and comes back on the same port.
        AtomicLong cuts = proxy.cutOnce(Direction.CLIENT_TO_SERVER, "SEND\n", () -> {
            broker.stop();
            Thread restart = new Thread(broker::restart, "broker-restart");
            restart.start();
        });
        assertEquals(0, run(proxy.endpoint()), err());
        assertEquals(1, cuts.get());
        assertEquals(List.of(sentId()), drain(QUEUE), "delivered exactly once, with the id the producer reported");
        assertEquals(1, s3.keys("eventindex").size(), "only the message is retried, not the upload");
    }

    @Test
    void lostReceiptResendsTheSameMessageId() throws Exception {
        TcpProxy proxy = proxy(broker.stompPort());
        // The broker stored the message; its RECEIPT is lost with the connection. STOMP cannot tell the producer
        // that, so it re-sends: a second copy with the same id, which the supervisor records once.
        AtomicLong cuts = proxy.cutOnce(Direction.SERVER_TO_CLIENT, "RECEIPT\n", () -> { });
        assertEquals(0, run(proxy.endpoint()), err());
        assertEquals(1, cuts.get());
        assertEquals(List.of(sentId(), sentId()), drain(QUEUE));
        assertEquals(1, s3.keys("eventindex").size());
    }

    @Test
    void brokerGoneAfterUploadGivesTheTransientCodeNeverSilence() throws Exception {
        TcpProxy proxy = proxy(broker.stompPort());
        proxy.cutOnce(Direction.CLIENT_TO_SERVER, "SEND\n", broker::stop);
        long start = System.nanoTime();
        int code = run(proxy.endpoint(), "--retry-deadline", "2");
        assertEquals(ExitCode.TRANSIENT.code(), code, err());
        assertTrue((System.nanoTime() - start) / 1_000_000 < 2_000 + 6_000);
        String key = s3.keys("eventindex").get(0);
        assertTrue(err().matches("(?s).*" + java.util.regex.Pattern.quote(key) + " is stored but message [0-9a-f]{32} to "
                + QUEUE + " was not acknowledged.*gave up after \\d+ attempts.*"), err());
        assertEquals(1, s3.keys("eventindex").size(), "the object stays, unannounced");
        broker.restart();
        assertEquals(0, broker.queueSize(QUEUE));
    }

    @Test
    void wrongBrokerPasswordIsAConfigurationErrorAfterOneConnection() throws Exception {
        try (EmbeddedBroker secured = EmbeddedBroker.start(dir.resolve("secured"), Map.of("ei", "right"))) {
            TcpProxy proxy = proxy(secured.stompPort());
            Map<String, String> env = new HashMap<>(Map.of(ProducerArgs.ENV_S3_ACCESS_KEY, "ak",
                    ProducerArgs.ENV_S3_SECRET_KEY, "sk", ProducerArgs.ENV_STOMP_PASSWORD, "wrong-pass"));
            int code = run(env, proxy.endpoint(), s3.endpoint().toString(), "--user", "ei");
            assertEquals(ExitCode.CONFIGURATION.code(), code, err());
            // ActiveMQ sometimes closes the connection before its ERROR frame is written (it logs "Security Error
            // occurred on connection"); the producer cannot tell that from a broker going down and tries once more,
            // which then reads the ERROR. Never more.
            assertTrue(proxy.connections() >= 1 && proxy.connections() <= 2, proxy.connections() + " connections");
            assertFalse(err().contains("wrong-pass"), err());
        }
        assertEquals(List.of(), s3.keys("eventindex"));
    }

    @Test
    void wrongS3SecretIsAConfigurationErrorAfterOneRequest() throws Exception {
        TcpProxy proxy = proxy(s3.endpoint().getPort());
        AtomicLong requests = proxy.count(Direction.CLIENT_TO_SERVER, " HTTP/1.1\r\n");
        int code = run(Map.of(ProducerArgs.ENV_S3_ACCESS_KEY, "ak", ProducerArgs.ENV_S3_SECRET_KEY, "bad-secret"),
                broker.stompEndpoints(), "http://" + proxy.endpoint());
        assertEquals(ExitCode.CONFIGURATION.code(), code, err());
        assertTrue(err().contains("403"), err());
        assertFalse(err().contains("bad-secret"), err());
        // One PUT; plus one HEAD when the server answered 403 and hung up before the PUT's body was written (the
        // client then sees only the broken write, and the HEAD gets the real answer). Never a retry.
        assertTrue(requests.get() >= 1 && requests.get() <= 2, requests.get() + " requests");
        assertEquals(0, broker.queueSize(QUEUE));
    }

    @Test
    void failedUploadPartIsSentAgainAloneNotTheWholeUpload() throws Exception {
        TcpProxy proxy = proxy(s3.endpoint().getPort());
        AtomicLong part1 = proxy.count(Direction.CLIENT_TO_SERVER, "partNumber=1");
        AtomicLong part2 = proxy.count(Direction.CLIENT_TO_SERVER, "partNumber=2");
        AtomicLong cuts = proxy.cutOnce(Direction.CLIENT_TO_SERVER, "partNumber=2", () -> { });
        Path file = dir.resolve("parts.ei.spb");
        LargeSpbFiles.write(file, 11L << 20);
        int code = runInFiveMiBParts(file, proxy);
        assertEquals(0, code, err());
        assertEquals(1, cuts.get());
        assertEquals(1, part1.get(), "part 1 was not sent again");
        assertEquals(2, part2.get(), "part 2 was cut once and sent again");
        assertEquals(List.of(sentId()), drain(QUEUE));
        String key = s3.keys("eventindex").get(0);
        assertEquals(Long.toString(java.nio.file.Files.size(file)),
                s3.userMetadata("eventindex", key).orElseThrow().get("size"));
    }

    @Test
    void aFileChangedDuringItsUploadIsNotAnnounced() throws Exception {
        TcpProxy proxy = proxy(s3.endpoint().getPort());
        Path file = dir.resolve("changing.ei.spb");
        LargeSpbFiles.write(file, 11L << 20);
        // while part 1 is on its way (part 3, the last, not read yet: two parts are in flight), one bit of the
        // last part changes: either the ETag's read sees it (not the validated bytes) or the store holds it (not
        // the ETag of the validated bytes); both refuse the object before any message
        AtomicLong held = proxy.holdOnce(Direction.CLIENT_TO_SERVER, "partNumber=1", () -> {
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                    java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
                java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1);
                long at = ch.size() - 100;
                ch.read(b, at);
                b.put(0, (byte) (b.get(0) ^ 1)).rewind();
                ch.write(b, at);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        int code = runInFiveMiBParts(file, proxy);
        assertEquals(1, held.get());
        assertEquals(ExitCode.TRANSIENT.code(), code, err());
        assertTrue(err().contains("changing.ei.spb changed after it was validated: part 3 of 3")
                || err().contains("the store holds other bytes than the file"), err());
        assertEquals(0, broker.queueSize(QUEUE), "a message for an object that is not the validated file");
    }

    /** Runs the producer on {@code file} through {@code proxy}, uploading it in parts of 5 MiB (the S3 minimum). */
    private int runInFiveMiBParts(Path file, TcpProxy proxy) {
        UploadSettings fiveMiB = new UploadSettings(UploadSettings.MIN_PART_SIZE, UploadSettings.MIN_PART_SIZE);
        return new ProducerCli(Map.of(ProducerArgs.ENV_S3_ACCESS_KEY, "ak", ProducerArgs.ENV_S3_SECRET_KEY, "sk"),
                new PrintStream(stdout, true, StandardCharsets.UTF_8), new PrintStream(stderr, true,
                StandardCharsets.UTF_8), TestRetry.realTime(Duration.ofSeconds(60)), Clock.systemUTC(), fiveMiB)
                .run(List.of(file.toString(), "--brokers", broker.stompEndpoints(), "--queue", QUEUE,
                        "--s3-endpoint", "http://" + proxy.endpoint(), "--bucket", "eventindex", "--json"));
    }

    /** Receives and acknowledges every message the queue holds; returns their ids in order. */
    private List<String> drain(String queue) throws IOException, InterruptedException {
        long n = broker.queueSize(queue);
        List<String> ids = new ArrayList<>();
        BlockingQueue<StompMessage> received = new LinkedBlockingQueue<>();
        try (StompConnection c = StompConnection.connect(
                StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()), null, null))) {
            c.subscribe(queue, 10, received::add);
            for (long i = 0; i < n; i++) {
                StompMessage m = received.poll(20, TimeUnit.SECONDS);
                if (m == null) {
                    throw new AssertionError("expected " + n + " messages on " + queue + ", got " + ids.size());
                }
                ids.add(Json.read(m.body(), ProducerMessage.class).id());
                c.ack(m);
            }
        }
        return ids;
    }

}
