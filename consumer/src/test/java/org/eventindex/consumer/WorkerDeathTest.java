package org.eventindex.consumer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileContext;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Json;
import org.eventindex.message.SignalObject;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.eventindex.consumer.TestSpb.CONTAINER;
import static org.eventindex.consumer.TestSpb.DATASET;
import static org.eventindex.consumer.TestSpb.Guid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A consumer whose signal worker dies (an Error escaped the handler) on a real broker: it says so at /health, runs its
 * exit action with a non-zero status, reports nothing and leaves the signal to the broker, which hands it to the next
 * consumer; a FAILED report is not a death.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkerDeathTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    static Path tmp;

    private EmbeddedBroker broker;
    private final MemoryObjectFetcher store = new MemoryObjectFetcher();
    private final HttpClient http = HttpClient.newHttpClient();
    private final List<Consumer> consumers = new ArrayList<>();

    /** The outcome of a consumer's exit action, when it ran. */
    private record Exit(int status, String reason) {
    }

    @BeforeAll
    void startBroker() {
        broker = EmbeddedBroker.start(tmp.resolve("broker"));
        store.put("a", TestSpb.object("a", 1000, Guid.of("G1", 100, 10), Guid.of("G2", 200, 5)));
        store.put("b", TestSpb.object("b", 2000, Guid.of("G3", 300, 4)));
    }

    @AfterEach
    void stopConsumers() {
        consumers.forEach(Consumer::stop);
        consumers.clear();
    }

    @AfterAll
    void stopBroker() {
        broker.close();
    }

    private Consumer consumer(String queue, ObjectFetcher fetcher, List<ConsumerReport> reports) throws IOException {
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.ID, "consumer-death");
        p.setProperty(ConsumerConfig.BROKERS, broker.stompEndpoints());
        p.setProperty(ConsumerConfig.QUEUE_SIGNAL, queue);
        p.setProperty(ConsumerConfig.S3_ENDPOINT, "http://s3.test:7480");
        p.setProperty(ConsumerConfig.HDFS_ROOT, tmp.resolve("hdfs").toString());
        p.setProperty(ConsumerConfig.SPOOL_DIR, tmp.resolve("spool").toString());
        p.setProperty(ConsumerConfig.RUN_MEMORY_BYTES, "0");
        p.setProperty(ConsumerConfig.HTTP_PORT, "0");
        Consumer c = new Consumer(ConsumerConfig.fromProperties(p, Map.of()), new Consumer.Services(fetcher,
                FileContext.getLocalFSFileContext(new Configuration()),
                (signal, file) -> new DatasetIngest.Loaded(signal.signal().expectedEvents(), 0), reports::add),
                Clock.systemUTC());
        consumers.add(c);
        return c;
    }

    private void send(String queue, ConsumerSignal signal) throws IOException {
        try (StompSender sender = new StompSender(
                StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()), null, null))) {
            sender.send(queue, Json.write(signal), Map.of());
        }
    }

    private static ConsumerSignal signal(String id, SignalObject... objects) {
        long total = Stream.of(objects).mapToLong(SignalObject::expectedEvents).sum();
        return new ConsumerSignal(ConsumerSignal.TYPE, id, DATASET, CONTAINER, 11, 2, List.of(objects), total, 1L);
    }

    private static SignalObject so(String key, long events, String... guids) {
        return new SignalObject(MemoryObjectFetcher.url(key).toString(), 100, Arrays.asList(guids), events);
    }

    private HttpResponse<String> get(Consumer c, String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + c.httpPort() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Every file under the consumer's HDFS root and spool folder (local file system here). */
    private List<String> files() throws IOException {
        List<String> all = new ArrayList<>();
        for (Path dir : List.of(tmp.resolve("hdfs"), tmp.resolve("spool"))) {
            if (Files.exists(dir)) {
                try (Stream<Path> s = Files.walk(dir)) {
                    s.filter(Files::isRegularFile).map(f -> tmp.relativize(f).toString())
                            .filter(n -> !n.endsWith(".crc")).sorted().forEach(all::add);
                }
            }
        }
        return all;
    }

    @Test
    void anOutOfMemoryErrorFailsHealthExitsNonZeroAndLeavesTheSignalToTheBroker() throws Exception {
        String queue = "/queue/test.consumer.oom";
        List<ConsumerReport> deadReports = new CopyOnWriteArrayList<>();
        MemoryObjectFetcher failing = new MemoryObjectFetcher();
        failing.put("a", TestSpb.object("a", 1000, Guid.of("G1", 100, 10), Guid.of("G2", 200, 5)));
        failing.put("b", TestSpb.object("b", 2000, Guid.of("G3", 300, 4)));
        failing.hook((url, n) -> {
            if (url.equals(MemoryObjectFetcher.url("b"))) {
                throw new OutOfMemoryError("test: Java heap space while fetching " + url);
            }
        });
        Consumer dying = consumer(queue, failing, deadReports);
        CompletableFuture<Exit> exit = new CompletableFuture<>();
        dying.start((status, reason) -> exit.complete(new Exit(status, reason)));
        Await.until("the consumer to subscribe", WAIT, dying::isConnected);
        assertEquals(200, get(dying, "/health").statusCode());

        send(queue, signal("s-oom", so("a", 15, "G1", "G2"), so("b", 4, "G3")));

        Exit e = exit.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(Consumer.EXIT_WORKER_DIED, e.status());
        assertTrue(e.reason().contains("consumer consumer-death") && e.reason().contains("OutOfMemoryError"),
                e.reason());
        HttpResponse<String> health = get(dying, "/health");
        assertEquals(503, health.statusCode());
        assertTrue(health.body().contains("OutOfMemoryError"), health.body());
        assertEquals(503, get(dying, "/ready").statusCode());
        assertEquals(e.reason(), dying.deathReason());
        assertEquals(List.of(), deadReports, "a dead worker reports nothing");
        assertEquals(0, broker.queueSize(EmbeddedBroker.DLQ), "the signal is not dead-lettered");

        // The restarted consumer (same id and folders) gets the same signal again and completes it, leaving only the
        // published file behind.
        dying.stop();
        List<ConsumerReport> reports = new CopyOnWriteArrayList<>();
        Consumer restarted = consumer(queue, store, reports);
        CompletableFuture<Exit> noExit = new CompletableFuture<>();
        restarted.start((status, reason) -> noExit.complete(new Exit(status, reason)));
        Await.until("the redelivered signal reported", WAIT, () -> reports.size() == 1);
        assertEquals("s-oom", reports.get(0).signalId());
        assertEquals(ConsumerReport.DONE, reports.get(0).status(), reports.get(0).reason());
        Await.until("the signal acknowledged", WAIT, () -> broker.queueSize(queue) == 0);
        assertEquals(List.of("hdfs/" + CONTAINER + "/" + DATASET + ".parquet"), files());
        assertFalse(noExit.isDone());
        assertEquals(200, get(restarted, "/health").statusCode());
    }

    @Test
    void aFailedReportKeepsTheConsumerHealthy() throws Exception {
        String queue = "/queue/test.consumer.failed";
        List<ConsumerReport> reports = new CopyOnWriteArrayList<>();
        Consumer c = consumer(queue, store, reports);
        CompletableFuture<Exit> exit = new CompletableFuture<>();
        c.start((status, reason) -> exit.complete(new Exit(status, reason)));
        Await.until("the consumer to subscribe", WAIT, c::isConnected);

        send(queue, signal("s-missing", so("nothere", 3, "G8")));

        Await.until("the FAILED report", WAIT, () -> reports.size() == 1);
        assertEquals(ConsumerReport.FAILED, reports.get(0).status());
        Await.until("the signal acknowledged", WAIT, () -> broker.queueSize(queue) == 0);
        assertEquals(200, get(c, "/health").statusCode());
        assertEquals(200, get(c, "/ready").statusCode());
        assertNull(c.deathReason());
        assertFalse(exit.isDone());
        assertTrue(c.isConnected());
    }
}
