package org.eventindex.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eventindex.message.Json;
import org.eventindex.message.ProducerMessage;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompSettings;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedS3;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import org.eventindex.testing.Ports;

/** The producer end to end in-process, against an embedded ActiveMQ and S3Proxy. */
class ProducerCliTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2024-05-01T12:00:00Z"), ZoneOffset.UTC);
    private static final RetryPolicy NO_WAIT = TestRetry.fast();

    @TempDir
    static Path shared;
    private static EmbeddedBroker broker;
    private static EmbeddedS3 s3;

    @TempDir
    Path dir;
    private String bucket;
    private String queue;
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

    @BeforeAll
    static void startServices() {
        broker = EmbeddedBroker.start(shared.resolve("broker"));
        s3 = EmbeddedS3.start(shared.resolve("s3"), "producer-ak", "producer-sk");
    }

    @AfterAll
    static void stopServices() {
        s3.close();
        broker.close();
    }

    @org.junit.jupiter.api.BeforeEach
    void names(TestInfo test) {
        String name = test.getTestMethod().orElseThrow().getName().toLowerCase(java.util.Locale.ROOT);
        bucket = "b-" + name.substring(0, Math.min(40, name.length()));
        queue = "/queue/producer." + name;
        s3.createBucket(bucket);
    }

    private int run(Map<String, String> env, String... args) {
        ProducerCli cli = new ProducerCli(env, new PrintStream(stdout, true, StandardCharsets.UTF_8),
                new PrintStream(stderr, true, StandardCharsets.UTF_8), NO_WAIT, CLOCK);
        return cli.run(List.of(args));
    }

    private Map<String, String> env() {
        return Map.of(ProducerArgs.ENV_S3_ACCESS_KEY, s3.accessKey(), ProducerArgs.ENV_S3_SECRET_KEY, s3.secretKey());
    }

    private String[] args(Path file, String brokers, String... extra) {
        List<String> a = new ArrayList<>(List.of(file.toString(), "--brokers", brokers, "--queue", queue,
                "--s3-endpoint", s3.endpoint().toString(), "--bucket", bucket));
        a.addAll(List.of(extra));
        return a.toArray(String[]::new);
    }

    @Test
    void storesObjectWithMetadataAndSendsMatchingMessage() throws Exception {
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "12345678.G", "4000000001.1", 5);
        assertEquals(0, run(env(), args(file, broker.stompEndpoints(), "--json")), stderr.toString());

        List<String> keys = s3.keys(bucket);
        assertEquals(1, keys.size());
        String key = keys.get(0);
        assertTrue(key.matches("panda/12345678/12345678\\.G_4000000001\\.1_[0-9a-f]{32}\\.ei\\.spb"), key);
        byte[] stored = s3.read(bucket, key);
        assertEquals(Files.size(file), stored.length);
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        Map<String, String> meta = lower(s3.userMetadata(bucket, key).orElseThrow());
        assertEquals(sha, meta.get("sha256"));
        assertEquals("12345678.G", meta.get("taskid"));
        assertEquals("10", meta.get("nevents"));
        assertEquals("2", meta.get("nfiles"));
        assertEquals(Long.toString(Files.size(file)), meta.get("size"));
        String url = "s3://127.0.0.1:" + s3.endpoint().getPort() + "/" + bucket + "/" + key;
        assertEquals(url, meta.get("url"));

        ProducerMessage m = Json.read(receive(queue).body(), ProducerMessage.class);
        assertEquals(ProducerMessage.TYPE_OBJECT_STORED, m.type());
        assertEquals(CLOCK.millis(), m.ts());
        assertTrue(m.id().matches("[0-9a-f]{32}"), m.id());
        assertEquals(url, m.data().url());
        assertEquals("1", m.data().version());
        assertEquals(10, m.data().nevents());
        assertEquals(2, m.data().guids().size());
        assertEquals(TestSpbFiles.INPUT_DS, m.data().inputDsName());
        assertTrue(key.contains(m.data().uuid()));
        assertEquals(0, s3.totalGets());

        JsonNode out = Json.tree(stdout.toByteArray());
        assertEquals("stored", out.get("status").asText());
        assertEquals(key, out.get("key").asText());
        assertEquals(m.id(), out.get("message").get("id").asText());
    }

    @Test
    void invalidSpbExitsTwoWithOneLineAndUploadsNothing() throws Exception {
        Path good = TestSpbFiles.write(dir.resolve("good.ei.spb"), "12345678.G", "1.1", 50);
        byte[] bytes = Files.readAllBytes(good);
        Path bad = Files.write(dir.resolve("cut.ei.spb"), java.util.Arrays.copyOf(bytes, bytes.length / 2));
        assertEquals(2, run(env(), args(bad, broker.stompEndpoints())));
        String err = stderr.toString(StandardCharsets.UTF_8).strip();
        assertEquals(1, err.lines().count(), err);
        assertTrue(err.contains(bad.toString()) && err.contains("offset"), err);
        assertEquals(List.of(), s3.keys(bucket));
        assertEquals(0, broker.queueSize(queue));
    }

    @Test
    void unknownTaskSuffixIsBadInput() throws Exception {
        Path file = TestSpbFiles.write(dir.resolve("q.ei.spb"), "12345678.Q", "1.1", 1);
        assertEquals(2, run(env(), args(file, broker.stompEndpoints())));
        assertTrue(stderr.toString().contains("unknown suffix '.Q'"), stderr.toString());
        assertEquals(List.of(), s3.keys(bucket));
    }

    @Test
    void deadBrokerExitsThreeBeforeUploading() throws Exception {
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "12345678.T", "1.1", 1);
        assertEquals(3, run(env(), args(file, "127.0.0.1:" + Ports.free())));
        assertTrue(stderr.toString().contains("cannot connect to the STOMP broker"), stderr.toString());
        assertEquals(List.of(), s3.keys(bucket));
    }

    @Test
    void wrongBrokerPasswordExitsFour() throws Exception {
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "12345678.T", "1.1", 1);
        try (EmbeddedBroker secured = EmbeddedBroker.start(dir.resolve("secured"), Map.of("ei", "right"))) {
            Map<String, String> env = new java.util.HashMap<>(env());
            env.put(ProducerArgs.ENV_STOMP_PASSWORD, "wrong");
            assertEquals(4, run(env, args(file, secured.stompEndpoints(), "--user", "ei")));
        }
        assertFalse(stderr.toString().contains("wrong"), stderr.toString());
        assertEquals(List.of(), s3.keys(bucket));
    }

    @Test
    void wrongS3SecretExitsFourAndSendsNothing() throws Exception {
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "12345678.X", "1.1", 1);
        Map<String, String> env = Map.of(ProducerArgs.ENV_S3_ACCESS_KEY, s3.accessKey(),
                ProducerArgs.ENV_S3_SECRET_KEY, "not-the-secret");
        assertEquals(4, run(env, args(file, broker.stompEndpoints())));
        String err = stderr.toString(StandardCharsets.UTF_8);
        assertTrue(err.contains("403"), err);
        assertFalse(err.contains("not-the-secret"), err);
        assertEquals(List.of(), s3.keys(bucket));
        assertEquals(0, broker.queueSize(queue));
    }

    @Test
    void missingBucketExitsFour() throws Exception {
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "12345678.G", "1.1", 1);
        String[] a = args(file, broker.stompEndpoints());
        a[8] = "no-such-bucket";
        assertEquals(4, run(env(), a));
        assertTrue(stderr.toString().contains("NoSuchBucket") || stderr.toString().contains("does not exist"),
                stderr.toString());
    }

    @Test
    void unreachableS3ExitsThree() throws Exception {
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "12345678.G", "1.1", 1);
        String[] a = args(file, broker.stompEndpoints());
        a[6] = "http://127.0.0.1:" + Ports.free();
        assertEquals(3, run(env(), a));
        assertEquals(0, broker.queueSize(queue));
    }

    /** Event numbers are uint64: the message carries them as unsigned decimals, as the experiment's producer does. */
    @Test
    void eventNumbersOf2To63AndAboveAreSentAsUnsignedDecimals() throws Exception {
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "12345678.G", "4000000001.1",
                new long[] {Long.parseUnsignedLong("9223372036854776007"), -1L,
                        Long.parseUnsignedLong("9223372036854775809")},
                new long[] {7, Long.MAX_VALUE});
        assertEquals(0, run(env(), args(file, broker.stompEndpoints())), stderr.toString());

        String body = new String(receive(queue).body(), StandardCharsets.UTF_8);
        assertTrue(body.contains("\"runevtRanges\":{\"327636\":[9223372036854775809,18446744073709551615]}"), body);
        assertTrue(body.contains("\"runevtRanges\":{\"327636\":[7,9223372036854775807]}"), body);
    }

    @Test
    void dryRunStoresAndSendsNothing() throws Exception {
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "12345678.G", "1.1", 3);
        assertEquals(0, run(Map.of(), file.toString(), "--dry-run", "--s3-endpoint", s3.endpoint().toString(),
                "--bucket", bucket));
        assertTrue(stdout.toString().startsWith("dry run: " + file), stdout.toString());
        assertEquals(List.of(), s3.keys(bucket));
    }

    @Test
    void dryRunWithoutS3EndpointOrBucketPrintsTheKeyAndTheMessage() throws Exception {
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "12345678.G", "4000000001.1", 3);
        assertEquals(0, run(Map.of(), file.toString(), "--dry-run"), stderr.toString());
        String line = stdout.toString(StandardCharsets.UTF_8);
        assertTrue(line.matches("dry run: " + java.util.regex.Pattern.quote(file.toString()) + " \\(6 events, 2 input"
                + " files, [0-9]+ bytes\\) is valid; would store it as key panda/12345678/12345678\\.G_4000000001\\.1_"
                + "[0-9a-f]{32}\\.ei\\.spb \\(no --s3-endpoint and --bucket given\\) and send message [0-9a-f]{32} to "
                + "/queue/atlas\\.eventindex\\.supervisor\\R"), line);

        stdout.reset();
        assertEquals(0, run(Map.of(), file.toString(), "--dry-run", "--json"), stderr.toString());
        JsonNode result = Json.tree(stdout.toByteArray());
        assertEquals("dry-run", result.get("status").asText());
        assertTrue(result.get("key").asText().startsWith("panda/12345678/12345678.G_4000000001.1_"), result.toString());
        assertTrue(result.get("url").isNull() && result.get("bucket").isNull(), result.toString());
        assertEquals(6, result.get("message").get("data").get("nevents").asLong());
        assertTrue(result.get("message").get("data").get("url").isNull(), result.toString());
    }

    @Test
    void verboseDryRunPrintsPerGuidAndTotalsAndJsonCarriesTheSummary() throws Exception {
        Path file = TestSpbFiles.write(dir.resolve("job.ei.spb"), "12345678.G", "1.1", 4);
        assertEquals(0, run(Map.of(), file.toString(), "--dry-run", "-v", "--s3-endpoint", s3.endpoint().toString(),
                "--bucket", bucket));
        List<String> lines = stdout.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(4, lines.size(), lines.toString());
        assertEquals("  GUID 0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F0: 4 events, 4 unique", lines.get(1));
        assertEquals("  GUID 0A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F1: 4 events, 4 unique", lines.get(2));
        assertTrue(lines.get(3).matches("  total: 8 events, 8 unique, 2 input files, " + Files.size(file)
                + " bytes, [0-9.]+ bytes/event"), lines.get(3));

        stdout.reset();
        assertEquals(0, run(Map.of(), file.toString(), "--dry-run", "-v", "--json", "--s3-endpoint",
                s3.endpoint().toString(), "--bucket", bucket));
        JsonNode summary = Json.tree(stdout.toByteArray()).get("summary");
        assertEquals(8, summary.get("nevents").asLong());
        assertEquals(2, summary.get("guids").size());
        assertEquals(4, summary.get("guids").get(1).get("nuevents").asLong());
        assertEquals((double) Math.round(Files.size(file) / 8.0 * 10) / 10, summary.get("bytesPerEvent").asDouble());
    }

    private StompMessage receive(String destination) throws IOException, InterruptedException {
        BlockingQueue<StompMessage> received = new LinkedBlockingQueue<>();
        try (StompConnection c = StompConnection.connect(
                StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()), null, null))) {
            c.subscribe(destination, 1, received::add);
            StompMessage m = received.poll(20, TimeUnit.SECONDS);
            if (m == null) {
                throw new AssertionError("no message on " + destination);
            }
            c.ack(m);
            return m;
        }
    }

    private static Map<String, String> lower(Map<String, String> m) {
        Map<String, String> out = new java.util.HashMap<>();
        m.forEach((k, v) -> out.put(k.toLowerCase(java.util.Locale.ROOT), v));
        return out;
    }

}
