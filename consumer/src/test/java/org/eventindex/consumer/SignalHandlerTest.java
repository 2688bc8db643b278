package org.eventindex.consumer;

import org.eventindex.EventIndexFailure;

import org.apache.hadoop.conf.Configuration;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.hadoop.fs.FileContext;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Json;
import org.eventindex.message.SignalObject;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.stomp.StompMessage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import static org.eventindex.consumer.TestSpb.CONTAINER;
import static org.eventindex.consumer.TestSpb.DATASET;
import static org.eventindex.consumer.TestSpb.Guid;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The whole signal pipeline with hand-written fakes for S3, Kudu and the broker, on the local file system. */
class SignalHandlerTest {
    @TempDir
    java.nio.file.Path tmp;

    private final MemoryObjectFetcher store = new MemoryObjectFetcher();
    private final List<ConsumerReport> sent = new CopyOnWriteArrayList<>();
    private final List<String> ingested = new CopyOnWriteArrayList<>();
    private volatile IOException ingestFailure;
    private volatile RuntimeException ingestBug;
    private final List<String> abandoned = new CopyOnWriteArrayList<>();
    private volatile IOException abandonFailure;
    private Consumer consumer;
    private java.nio.file.Path root;

    /** A clock that moves 5 ms each time it is read, so durations are visible. */
    private static final class TickingClock extends Clock {
        private long millis = 1_700_000_000_000L;

        @Override
        public synchronized long millis() {
            millis += 5;
            return millis;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    @BeforeEach
    void setUp() throws IOException {
        root = tmp.resolve("hdfs");
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.ID, "consumer-t");
        p.setProperty(ConsumerConfig.S3_ENDPOINT, "http://s3.test:7480");
        p.setProperty(ConsumerConfig.HDFS_ROOT, root.toString());
        p.setProperty(ConsumerConfig.SPOOL_DIR, tmp.resolve("spool").toString());
        p.setProperty(ConsumerConfig.FETCH_THREADS, "2");
        // every sorted run to the spool dir, whose use and cleanup these tests check
        p.setProperty(ConsumerConfig.RUN_MEMORY_BYTES, "0");
        ConsumerConfig config = ConsumerConfig.fromProperties(p, Map.of());
        DatasetIngest ingest = new DatasetIngest() {
            @Override
            public Loaded ingest(ValidSignal signal, org.apache.hadoop.fs.Path file) throws IOException {
                if (ingestFailure != null) {
                    throw ingestFailure;
                }
                if (ingestBug != null) {
                    throw ingestBug;
                }
                ingested.add(signal.signalId() + " " + file.getName());
                return new DatasetIngest.Loaded(signal.signal().expectedEvents() - 1, 1);
            }

            /** As KuduIngest: the file goes (the rows would too). */
            @Override
            public void abandon(ValidSignal signal, org.apache.hadoop.fs.Path file) throws IOException {
                if (abandonFailure != null) {
                    throw abandonFailure;
                }
                abandoned.add(signal.signalId() + " " + file.getName());
                Files.deleteIfExists(java.nio.file.Path.of(file.toUri().getPath()));
            }
        };
        consumer = new Consumer(config, new Consumer.Services(store,
                FileContext.getLocalFSFileContext(new Configuration()), ingest, sent::add), new TickingClock());
        store.put("a", TestSpb.object("a", 1000, Guid.of("G1", 100, 10), Guid.of("G2", 200, 5)));
        store.put("b", TestSpb.object("b", 2000, Guid.of("G3", 300, 4)));
        store.put("dup", TestSpb.object("dup", 1500, Guid.of("G1", 100, 10)));
    }

    private static ConsumerSignal signal(String id, SignalObject... objects) {
        long total = Stream.of(objects).mapToLong(SignalObject::expectedEvents).sum();
        return new ConsumerSignal(ConsumerSignal.TYPE, id, DATASET, CONTAINER, 11, 2, List.of(objects), total, 1L);
    }

    private static SignalObject so(String key, long events, String... guids) {
        return new SignalObject(MemoryObjectFetcher.url(key).toString(), 100, Arrays.asList(guids), events);
    }

    private java.nio.file.Path containerDir() {
        return root.resolve(CONTAINER);
    }

    private List<String> files() throws IOException {
        if (!Files.exists(containerDir())) {
            return List.of();
        }
        try (Stream<java.nio.file.Path> s = Files.list(containerDir())) {
            return s.map(f -> f.getFileName().toString()).filter(n -> !n.endsWith(".crc")).sorted().toList();
        }
    }

    /** A signal's bytes as a supervisor writes them, changed by {@code edit} (decision 0055's format versions). */
    private static byte[] signalBytes(ConsumerSignal signal, java.util.function.Consumer<ObjectNode> edit)
            throws IOException {
        ObjectNode tree = (ObjectNode) Json.tree(Json.write(signal));
        assertEquals(1, tree.get("v").asInt(), "this build writes signals of format version 1");
        edit.accept(tree);
        return Json.write(tree);
    }

    @Test
    void signalsWithoutAVersionAsOfRelease010AndOfThisVersionWithUnknownFieldsAreProcessed() throws IOException {
        ConsumerSignal s = signal("s-old", so("a", 15, "G1", "G2"));
        assertEquals(ConsumerReport.DONE, consumer.handler().handle(signalBytes(s, t -> t.remove("v")), "m-1")
                .status());
        ConsumerReport same = consumer.handler().handle(signalBytes(s, t -> t.put("priority", 3)
                .putObject("future").put("x", 1)), "m-2");
        assertEquals(ConsumerReport.DONE, same.status(), same.reason());
    }

    @Test
    void aSignalOfANewerFormatIsReportedTransientWithBothVersionsAndNothingWritten() throws IOException {
        ConsumerSignal s = signal("s-new", so("a", 15, "G1", "G2"));
        ConsumerReport r = consumer.handler().handle(signalBytes(s, t -> t.put("v", 2)), "m-3");
        assertEquals(ConsumerReport.FAILED, r.status());
        assertEquals(ConsumerReport.CAUSE_TRANSIENT, r.cause(), "another consumer, upgraded, may read it");
        assertFalse(r.permanent());
        assertEquals("s-new", r.signalId());
        assertEquals(DATASET, r.dataset());
        assertTrue(r.reason().startsWith("signal message m-3 (signal s-new, dataset " + DATASET + ") has format"
                + " version 2; this consumer (eventindex "), r.reason());
        assertTrue(r.reason().endsWith("reads format versions up to 1: it was written by a newer release; upgrade"
                + " this consumer to the writer's release or later (docs/compatibility.md)"), r.reason());
        assertEquals(List.of(), files());
        assertEquals(List.of(), ingested);
    }

    @Test
    void consolidatesLoadsAndReportsDone() throws IOException {
        ConsumerReport r = consumer.handler().handle(signal("s-1", so("a", 15, "G1", "G2"), so("b", 4, "G3")));

        assertEquals(ConsumerReport.DONE, r.status(), r.reason());
        assertEquals(ConsumerReport.TYPE, r.type());
        assertEquals("s-1", r.signalId());
        assertEquals(DATASET, r.dataset());
        assertEquals("consumer-t", r.consumer());
        assertEquals(containerDir().resolve(DATASET + ".parquet").toString(), r.hdfsPath());
        assertEquals(19, r.eventsWritten());
        assertEquals(18, r.eventsLoaded());
        assertEquals(1, r.duplicateEvents());
        assertEquals(2, r.objectsRead());
        assertTrue(r.bytesRead() > 0);
        assertTrue(r.durationMillis() > 0);
        assertNull(r.reason());
        assertEquals(List.of(DATASET + ".parquet"), files());
        assertEquals(List.of("s-1 " + DATASET + ".parquet"), ingested);
        assertEquals(0, store.opens("dup"));
        TestSpb.Consolidated content = TestSpb.parquet(Files.readAllBytes(containerDir().resolve(DATASET
                + ".parquet")));
        assertEquals(List.of("G1", "G2", "G3"), content.guids());
        assertTrue(Files.isDirectory(tmp.resolve("spool").resolve("consumer-t")), "runs were written there");
        assertEquals(List.of(), spoolFiles(), "the objects' sorted runs are removed");
        assertEquals(1, DaemonMetrics.value(consumer.metrics().registry(), ConsumerMetrics.SIGNALS_HANDLED));
        assertEquals(0, DaemonMetrics.value(consumer.metrics().registry(), ConsumerMetrics.SIGNALS_FAILED));
        assertEquals(19, DaemonMetrics.value(consumer.metrics().registry(), ConsumerMetrics.EVENTS_WRITTEN));
        ConsumerStatus.Snapshot status = consumer.status().snapshot();
        assertNull(status.inFlight());
        assertEquals(List.of(r), status.last());
        assertTrue(new String(Json.write(status), StandardCharsets.UTF_8).contains("\"status\":\"DONE\""));
    }

    @Test
    void aRedeliveredSignalRewritesIdenticalContent() throws IOException {
        ConsumerSignal s = signal("s-2", so("a", 5, "G2"), so("dup", 10, "G1"));
        assertEquals(ConsumerReport.DONE, consumer.handler().handle(s).status());
        byte[] first = Files.readAllBytes(containerDir().resolve(DATASET + ".parquet"));
        assertEquals(ConsumerReport.DONE, consumer.handler().handle(s).status());
        assertArrayEquals(first, Files.readAllBytes(containerDir().resolve(DATASET + ".parquet")));
        assertEquals(List.of(DATASET + ".parquet"), files());
        assertEquals(2, ingested.size(), "the loader is called again and decides (by load id) to change nothing");
    }

    @Test
    void anInvalidSignalIsReportedFailedWithoutTouchingAnything() {
        ConsumerSignal bad = new ConsumerSignal(ConsumerSignal.TYPE, "s-3", DATASET, "wrong.container", 11, 2,
                List.of(so("a", 15, "G1", "G2")), 15, 1L);
        ConsumerReport r = consumer.handler().handle(bad);
        assertEquals(ConsumerReport.FAILED, r.status());
        assertTrue(r.reason().contains("container 'wrong.container'"), r.reason());
        assertEquals(0, store.opens("a"));
        assertFalse(Files.exists(root));
        assertEquals(1, DaemonMetrics.value(consumer.metrics().registry(), ConsumerMetrics.SIGNALS_FAILED));
    }

    @Test
    void aMissingObjectFailsAndPublishesNothing() throws IOException {
        ConsumerReport r = consumer.handler().handle(signal("s-4", so("a", 15, "G1", "G2"), so("nothere", 3, "G8")));
        assertEquals(ConsumerReport.FAILED, r.status());
        assertTrue(r.reason().contains("object " + MemoryObjectFetcher.url("nothere") + " does not exist"), r.reason());
        assertTrue(r.reason().contains(DATASET), r.reason());
        assertEquals(List.of(), files(), "neither a final nor a temp file");
        assertEquals(List.of(), ingested);
        assertEquals(List.of(), spoolFiles(), "object a's sorted runs are removed too");
    }

    /**
     * An unexpected exception is a bug, not a fault of the objects: reported as internal and permanent, so that the
     * supervisor holds the dataset instead of redoing it five times at full cost, and counted; nothing is published.
     */
    @Test
    void anUnexpectedExceptionIsAnInternalErrorThatIsHeldNotRetried() throws IOException {
        store.hook((url, openNo) -> {
            if (url.equals(MemoryObjectFetcher.url("b"))) {
                throw new ArrayIndexOutOfBoundsException("Index 8 out of bounds for length 8");
            }
        });
        ConsumerReport r = consumer.handler().handle(signal("s-bug", so("a", 15, "G1", "G2"), so("b", 4, "G3")));
        assertEquals(ConsumerReport.FAILED, r.status());
        assertEquals(ConsumerReport.CAUSE_INTERNAL, r.cause());
        assertTrue(r.permanent(), "not retried automatically");
        assertTrue(r.internal());
        assertTrue(r.reason().contains("internal error: java.lang.ArrayIndexOutOfBoundsException")
                && r.reason().contains("resignal"), r.reason());
        assertEquals(1, DaemonMetrics.value(consumer.metrics().registry(), ConsumerMetrics.INTERNAL_ERRORS));
        assertEquals(List.of(), files());
        assertEquals(List.of(), spoolFiles());
    }

    @Test
    void anUncheckedIoFailureOfALibraryIsTransient() {
        store.hook((url, openNo) -> {
            throw new java.io.UncheckedIOException(new IOException("connection reset"));
        });
        ConsumerReport r = consumer.handler().handle(signal("s-unchecked", so("a", 15, "G1", "G2")));
        assertEquals(ConsumerReport.FAILED, r.status());
        assertEquals(ConsumerReport.CAUSE_TRANSIENT, r.cause());
        assertFalse(r.permanent());
        assertEquals(0, DaemonMetrics.value(consumer.metrics().registry(), ConsumerMetrics.INTERNAL_ERRORS));
    }

    @Test
    void causesOfInputAndTransientFailures() {
        ConsumerReport missing = consumer.handler().handle(signal("s-in", so("nothere", 3, "G8")));
        assertEquals(ConsumerReport.CAUSE_INPUT, missing.cause());
        assertTrue(missing.permanent());
        ingestFailure = new IOException("Kudu: timed out");
        ConsumerReport down = consumer.handler().handle(signal("s-tr", so("a", 15, "G1", "G2")));
        assertEquals(ConsumerReport.CAUSE_TRANSIENT, down.cause());
        assertFalse(down.permanent());
        assertEquals(List.of(), abandoned, "a transient failure leaves the file for the retry");
    }

    /** A load that fails for good leaves nothing half done: its rows and its HDFS file are removed. */
    @Test
    void aLoadThatFailsForGoodRemovesWhatItWrote() throws IOException {
        ingestFailure = new org.eventindex.kudu.DatasetLoadException(EventIndexFailure.Kind.FATAL, DATASET,
                "trigger mask 'B!K6!NC#' is malformed");
        ConsumerReport r = consumer.handler().handle(signal("s-bad", so("a", 15, "G1", "G2")));
        assertEquals(ConsumerReport.FAILED, r.status());
        assertTrue(r.permanent());
        assertEquals(ConsumerReport.CAUSE_INPUT, r.cause());
        assertEquals(List.of("s-bad " + DATASET + ".parquet"), abandoned);
        assertTrue(r.reason().contains("were removed"), r.reason());
        assertEquals(List.of(), files());

        // a bug in the load: internal, and removed too
        ingestFailure = null;
        ingestBug = new IllegalArgumentException("character '#' is neither '!' nor a base64 digit");
        r = consumer.handler().handle(signal("s-bug", so("a", 15, "G1", "G2")));
        assertEquals(ConsumerReport.CAUSE_INTERNAL, r.cause());
        assertTrue(r.permanent());
        assertEquals(2, abandoned.size());
        assertEquals(List.of(), files());
    }

    /** When the cleanup itself fails, the failure is transient: the retry fails the same way and cleans up then. */
    @Test
    void aCleanupThatFailsMakesThePermanentFailureTransient() throws IOException {
        ingestFailure = new org.eventindex.kudu.DatasetLoadException(EventIndexFailure.Kind.FATAL, DATASET,
                "malformed");
        abandonFailure = new IOException("Kudu masters unreachable");
        ConsumerReport r = consumer.handler().handle(signal("s-left", so("a", 15, "G1", "G2")));
        assertFalse(r.permanent(), r.reason());
        assertEquals(ConsumerReport.CAUSE_TRANSIENT, r.cause());
        assertTrue(r.reason().contains("Kudu masters unreachable") && r.reason().contains("a retry of the signal"
                + " removes them"), r.reason());
    }

    /** Files in the consumer's spool folder (it is created when the first object is sorted). */
    private List<java.nio.file.Path> spoolFiles() throws IOException {
        java.nio.file.Path dir = tmp.resolve("spool").resolve("consumer-t");
        if (!Files.exists(dir)) {
            return List.of();
        }
        try (Stream<java.nio.file.Path> s = Files.list(dir)) {
            return s.toList();
        }
    }

    @Test
    void aFailedLoadIsReportedNamingTheFile() {
        ingestFailure = new IOException("Kudu refused 3 rows");
        ConsumerReport r = consumer.handler().handle(signal("s-5", so("b", 4, "G3")));
        assertEquals(ConsumerReport.FAILED, r.status());
        assertTrue(r.reason().contains("loading "), r.reason());
        assertTrue(r.reason().contains(DATASET + ".parquet into Kudu failed: Kudu refused 3 rows"), r.reason());
    }

    @Test
    void aPoisonMessageIsReportedFailedAndAcknowledged() throws IOException {
        StompMessage m = new StompMessage("/queue/x", "ID:poison-1", "a1", Map.of(),
                "{not json".getBytes(StandardCharsets.UTF_8));
        consumer.handler().onMessage(m);
        assertEquals(1, sent.size());
        assertEquals(ConsumerReport.FAILED, sent.get(0).status());
        assertTrue(sent.get(0).reason().contains("message ID:poison-1 is not a consumer signal"),
                sent.get(0).reason());
    }

    @Test
    void aSignalWithALowerSupervisorTokenThanOneSeenIsDroppedAndCounted() throws IOException {
        consumer.handler().onMessage(new StompMessage("/queue/x", "ID:t2", "a1",
                Map.of(ConsumerSignal.TOKEN_HEADER, "2"), Json.write(signal("s-t2", so("a", 10, "G1")))));
        assertEquals(1, sent.size(), "token 2, the first seen: processed and reported");
        // a deposed supervisor's signal (token 1) after one of token 2: acknowledged, neither processed nor reported
        consumer.handler().onMessage(new StompMessage("/queue/x", "ID:t1", "a2",
                Map.of(ConsumerSignal.TOKEN_HEADER, "1"), Json.write(signal("s-t1", so("b", 4, "G3")))));
        assertEquals(1, sent.size(), "the lower token's signal is dropped");
        assertEquals(1, DaemonMetrics.value(consumer.metrics().registry(), ConsumerMetrics.SIGNALS_STALE_TOKEN));
        assertEquals(2, DaemonMetrics.value(consumer.metrics().registry(), ConsumerMetrics.SUPERVISOR_TOKEN));
        // the same token, a higher one, or none (a supervisor without a standby) are processed
        for (String[] t : new String[][] {{"s-t2b", "2"}, {"s-t3", "3"}, {"s-none", null}}) {
            consumer.handler().onMessage(new StompMessage("/queue/x", "ID:" + t[0], "a3", t[1] == null ? Map.of()
                    : Map.of(ConsumerSignal.TOKEN_HEADER, t[1]), Json.write(signal(t[0], so("c", 4, "G4")))));
        }
        assertEquals(4, sent.size());
        assertEquals(List.of("s-t2", "s-t2b", "s-t3", "s-none"), sent.stream().map(ConsumerReport::signalId).toList());
    }

    @Test
    void anOversizeSignalIsReportedFailedUnderItsOwnIdWhenItsFirstBytesNameIt() throws IOException {
        byte[] whole = Json.write(signal("s-big", so("a", 10, "G1")));
        byte[] preview = java.util.Arrays.copyOf(whole, whole.length - 20); // cut inside the objects
        consumer.handler().onOversize(new StompMessage("/queue/x", "ID:big-1", "a3", Map.of(), preview,
                "MESSAGE frame body of 99999 bytes exceeds the limit of 4096 bytes"));
        assertEquals(1, sent.size());
        ConsumerReport r = sent.get(0);
        assertEquals(ConsumerReport.FAILED, r.status());
        assertEquals("s-big", r.signalId());
        assertEquals(DATASET, r.dataset());
        assertTrue(r.reason().startsWith("signal message ID:big-1 is over this consumer's STOMP frame limits ("
                + ConsumerConfig.STOMP_FRAME_MAX_BYTES + ", "), r.reason());
        assertTrue(r.reason().contains("exceeds the limit of 4096 bytes"), r.reason());
        assertEquals(0, store.opens("a"), "nothing of an oversize signal is fetched");

        // A preview cut before the ids (or not JSON at all) still gives a FAILED report, without them.
        for (String cut : new String[] {"{\"type\":\"signal\",\"signalId\":\"s-b", "\u0000garbage", ""}) {
            ConsumerReport none = consumer.handler().oversize(cut.getBytes(StandardCharsets.UTF_8), "ID:x", "o");
            assertEquals(ConsumerReport.FAILED, none.status());
            assertEquals(null, none.signalId());
        }
    }

    @Test
    void failuresThatCanNeverSucceedAreReportedPermanent() throws IOException {
        store.put("notgzip", "plain text, not an SPB stream".getBytes(StandardCharsets.UTF_8));
        // a header of job "a" stored under the key of job "impostor"
        store.put("impostor", TestSpb.object("a", 1000, Guid.of("G1", 100, 10), Guid.of("G2", 200, 5)));
        Map<String, ConsumerSignal> cases = new LinkedHashMap<>();
        cases.put("container 'wrong.container'", new ConsumerSignal(ConsumerSignal.TYPE, "p-1", DATASET,
                "wrong.container", 11, 2, List.of(so("a", 15, "G1", "G2")), 15, 1L));
        cases.put("is not on the configured S3 endpoint", signal("p-2", new SignalObject("s3://evil.example:7480/"
                + "eventindex/" + TestSpb.key("a"), 100, List.of("G1"), 10)));
        cases.put("is not in the configured bucket", signal("p-3", new SignalObject("s3://s3.test:7480/other/"
                + TestSpb.key("a"), 100, List.of("G1"), 10)));
        cases.put("does not exist", signal("p-4", so("nothere", 3, "G8")));
        cases.put("malformed SPB", signal("p-5", so("notgzip", 3, "G8")));
        cases.put("took 4 events of GUID(s) [G3] but the signal expects 5", signal("p-6", so("b", 5, "G3")));
        cases.put("does not hold GUID(s) [G9]", signal("p-7", so("b", 4, "G9")));
        cases.put("but its key is that of taskID", signal("p-8", so("impostor", 15, "G1", "G2")));
        cases.forEach((why, s) -> {
            ConsumerReport r = consumer.handler().handle(s);
            assertEquals(ConsumerReport.FAILED, r.status(), s.signalId());
            assertTrue(r.reason().contains(why), s.signalId() + ": " + r.reason());
            assertTrue(r.permanent(), s.signalId() + " is reported transient: " + r.reason());
        });
        consumer.handler().onMessage(new StompMessage("/queue/x", "ID:poison-2", "a1", Map.of(),
                "{not json".getBytes(StandardCharsets.UTF_8)));
        consumer.handler().onOversize(new StompMessage("/queue/x", "ID:big-2", "a2", Map.of(),
                Json.write(signal("p-9", so("a", 10, "G1"))), "MESSAGE frame body of 99999 bytes exceeds the limit"));
        assertEquals(2, sent.size());
        sent.forEach(r -> assertTrue(r.permanent(), r.reason()));
        assertEquals(List.of(), files());
        assertEquals(List.of(), ingested);
    }

    @Test
    void failuresOfHdfsKuduOrS3AreReportedTransient() throws IOException {
        // no temp file can be created where a directory must be
        Files.writeString(root, "a file where the HDFS root directory goes");
        ConsumerReport hdfs = consumer.handler().handle(signal("t-0", so("b", 4, "G3")));
        assertEquals(ConsumerReport.FAILED, hdfs.status());
        assertTrue(hdfs.reason().contains("cannot create a temp file"), hdfs.reason());
        assertFalse(hdfs.permanent(), hdfs.reason());
        Files.delete(root);

        ingestFailure = new IOException("Kudu: timed out");
        ConsumerReport kudu = consumer.handler().handle(signal("t-1", so("b", 4, "G3")));
        assertEquals(ConsumerReport.FAILED, kudu.status());
        assertTrue(kudu.reason().contains("into Kudu failed: Kudu: timed out"), kudu.reason());
        assertFalse(kudu.permanent(), kudu.reason());
        ingestFailure = null;

        store.hook((url, n) -> {
            throw new IOException("connection reset by the test");
        });
        ConsumerReport s3 = consumer.handler().handle(signal("t-2", so("b", 4, "G3")));
        assertTrue(s3.reason().contains("reading failed 3 time(s), last: connection reset by the test"), s3.reason());
        assertFalse(s3.permanent(), s3.reason());
        store.hook((url, n) -> { });

    }

    @Test
    void aReportThatCannotBeSentFailsTheMessageSoItIsNotAcknowledged() throws IOException {
        Consumer c = new Consumer(ConsumerConfig.fromProperties(new Properties(), Map.of()),
                new Consumer.Services(store, FileContext.getLocalFSFileContext(new Configuration()),
                        (s, f) -> new DatasetIngest.Loaded(0, 0), report -> {
                    throw new IOException("broker down");
                }), Clock.systemUTC());
        StompMessage m = new StompMessage("/queue/x", "ID:2", "a2", Map.of(), Json.write(signal("s-6")));
        IOException e = assertThrows(IOException.class, () -> c.handler().onMessage(m));
        assertEquals("broker down", e.getMessage());
    }
}
