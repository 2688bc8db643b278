package org.eventindex.consumer;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileContext;
import org.eventindex.ProjectVersion;
import org.eventindex.message.ConsumerHeartbeat;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.message.SignalObject;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompQueueWorker;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.function.Predicate;

import static org.eventindex.consumer.TestSpb.CONTAINER;
import static org.eventindex.consumer.TestSpb.DATASET;
import static org.eventindex.consumer.TestSpb.Guid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The consumer's heartbeats on a real broker, read from the supervisor's heartbeat queue: idle with the consumer's id,
 * version and interval; busy with the dataset in flight and its progress while a signal is handled; idle again after
 * its report (which goes to the control queue, persistent). Sent non-persistent with an expiry, so that the broker
 * never keeps them.
 */
class ConsumerHeartbeatTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path tmp;

    private EmbeddedBroker broker;
    private StompSender sender;
    private Consumer consumer;
    private StompQueueWorker control;
    private StompQueueWorker heartbeatQueue;
    private final List<StompMessage> heartbeats = new CopyOnWriteArrayList<>();
    private final List<ConsumerReport> reports = new CopyOnWriteArrayList<>();
    private final List<StompMessage> reportMessages = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        broker = EmbeddedBroker.start(tmp.resolve("broker"));
        StompSettings stomp = StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()), null, null);
        sender = new StompSender(stomp);
        control = new StompQueueWorker("test-control", stomp, Queues.SUPERVISOR_CONTROL, 10, m -> {
            reportMessages.add(m);
            reports.add(Json.read(m.body(), ConsumerReport.class));
        });
        heartbeatQueue = new StompQueueWorker("test-heartbeats", stomp, Queues.SUPERVISOR_HEARTBEAT, 10,
                heartbeats::add);
        heartbeatQueue.start();
        control.start();
    }

    @AfterEach
    void stop() {
        for (AutoCloseable c : new AutoCloseable[]{consumer, control, heartbeatQueue, sender, broker}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    // the others must still stop
                }
            }
        }
    }

    private static ConsumerHeartbeat read(StompMessage m) {
        try {
            return Json.read(m.body(), ConsumerHeartbeat.class);
        } catch (IOException e) {
            throw new AssertionError("not a heartbeat: " + new String(m.body()), e);
        }
    }

    private Optional<StompMessage> awaitHeartbeat(String what, Predicate<ConsumerHeartbeat> wanted) {
        int from = heartbeats.size();
        Await.until(what, WAIT, () -> heartbeats.stream().skip(from).map(ConsumerHeartbeatTest::read)
                .anyMatch(wanted));
        return heartbeats.stream().skip(from).filter(m -> wanted.test(read(m))).findFirst();
    }

    @Test
    void heartbeatsSayIdleThenBusyWithTheDatasetInFlightThenIdleAgain() throws Exception {
        MemoryObjectFetcher store = new MemoryObjectFetcher();
        store.put("a", TestSpb.object("a", 1000, Guid.of("G1", 100, 10)));
        store.put("b", TestSpb.object("b", 2000, Guid.of("G2", 300, 4)));
        CountDownLatch release = new CountDownLatch(1);
        store.hook((url, n) -> {
            if (url.equals(MemoryObjectFetcher.url("b"))) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
        });
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.ID, "consumer-hb");
        p.setProperty(ConsumerConfig.BROKERS, broker.stompEndpoints());
        p.setProperty(ConsumerConfig.S3_ENDPOINT, "http://s3.test:7480");
        p.setProperty(ConsumerConfig.HDFS_ROOT, tmp.resolve("hdfs").toString());
        p.setProperty(ConsumerConfig.SPOOL_DIR, tmp.resolve("spool").toString());
        p.setProperty(ConsumerConfig.FETCH_THREADS, "1");
        p.setProperty(ConsumerConfig.HTTP_PORT, "0");
        p.setProperty(ConsumerConfig.HEARTBEAT_INTERVAL, "1s");
        ConsumerConfig config = ConsumerConfig.fromProperties(p, Map.of());
        consumer = new Consumer(config, new Consumer.Services(store,
                FileContext.getLocalFSFileContext(new Configuration()),
                (signal, file) -> new DatasetIngest.Loaded(signal.signal().expectedEvents(), 0),
                new StompReportSink(sender, Queues.SUPERVISOR_CONTROL,
                        Queues.SUPERVISOR_HEARTBEAT)), Clock.systemUTC());
        long before = System.currentTimeMillis();
        consumer.start();

        StompMessage idleMessage = awaitHeartbeat("an idle heartbeat", h -> ConsumerHeartbeat.IDLE.equals(h.state()))
                .orElseThrow();
        ConsumerHeartbeat idle = read(idleMessage);
        assertEquals(ConsumerHeartbeat.TYPE, idle.type());
        assertEquals("consumer-hb", idle.consumer());
        assertEquals(ProjectVersion.get(), idle.version());
        assertEquals(1000, idle.intervalMillis());
        assertNull(idle.dataset());
        assertTrue(idle.ts() >= before, "ts " + idle.ts());
        // the broker marks a persistent message "persistent:true" on delivery
        assertNull(idleMessage.headers().get("persistent"), idleMessage.headers().toString());
        long expires = Long.parseLong(idleMessage.headers().get("expires"));
        assertTrue(expires > idle.ts() && expires <= System.currentTimeMillis() + 3_000,
                "expires " + expires + " for a heartbeat sent at " + idle.ts());

        Await.until("the consumer to subscribe", WAIT, consumer::isConnected);
        sender.send(Queues.CONSUMER, Json.write(new ConsumerSignal(ConsumerSignal.TYPE, "s-hb", DATASET, CONTAINER,
                11, 2, List.of(so("a", 10, "G1"), so("b", 4, "G2")), 14, 1L)), Map.of());
        ConsumerHeartbeat busy = read(awaitHeartbeat("a busy heartbeat", h -> ConsumerHeartbeat.BUSY.equals(h.state()))
                .orElseThrow());
        assertEquals(DATASET, busy.dataset());
        assertEquals("s-hb", busy.signalId());
        assertEquals(2, busy.objects());
        assertTrue(busy.objectsRead() >= 0 && busy.objectsRead() <= 1, "objects read " + busy.objectsRead());
        assertTrue(busy.busySince() >= before && busy.busySince() <= busy.ts(), busy.toString());
        ConsumerHeartbeat progressed = read(awaitHeartbeat("a busy heartbeat after object a", h ->
                ConsumerHeartbeat.BUSY.equals(h.state()) && h.progress() != null && h.progress() >= 1).orElseThrow());
        assertEquals(1, progressed.progress(), "object a read, b held back, nothing written yet: one unit of work");
        assertNull(idle.progress(), "an idle heartbeat has no progress");

        release.countDown();
        Await.until("the report", WAIT, () -> reports.size() == 1);
        assertEquals(ConsumerReport.DONE, reports.get(0).status(), reports.get(0).reason());
        assertEquals("true", reportMessages.get(0).headers().get("persistent"), "reports stay persistent");
        assertEquals(1, reportMessages.size(), "no heartbeat on the control queue");
        awaitHeartbeat("idle again after the report", h -> ConsumerHeartbeat.IDLE.equals(h.state()));
    }

    private static SignalObject so(String key, long events, String... guids) {
        return new SignalObject(MemoryObjectFetcher.url(key).toString(), 100, List.of(guids), events);
    }
}
