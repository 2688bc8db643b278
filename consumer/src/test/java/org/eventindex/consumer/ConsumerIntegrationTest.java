package org.eventindex.consumer;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.client.HdfsAdmin;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.RowResult;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.message.S3ObjectUrl;
import org.eventindex.message.SignalObject;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompQueueWorker;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.EmbeddedKudu;
import org.eventindex.testing.EmbeddedS3;
import org.eventindex.testing.MetricsText;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.eventindex.consumer.TestSpb.CONTAINER;
import static org.eventindex.consumer.TestSpb.DATASET;
import static org.eventindex.consumer.TestSpb.Guid;
import static org.eventindex.consumer.TestSpb.range;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The consumer daemon against real services: ActiveMQ (STOMP), S3Proxy, an HDFS mini cluster and a Kudu mini cluster,
 * one set for the whole class. Signals go in through the broker; reports come back on the control queue.
 * <p>
 * The tests run in order on the one consumer and build on each other's state (starting the services takes most of
 * the run): the redelivery (2) compares with the file and rows of the first signal (1), and the metrics (4) count the
 * signals and events of 1-3.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsumerIntegrationTest {
    private static final String BUCKET = "eventindex";
    private static final String HDFS_ROOT = "/eventindex/datasets";
    private static final String PREFIX = "it_";
    private static final int DSPID = 501;
    private static final String OTHER = "data17_13TeV.00327638.physics_Main.merge.AOD.f838_m1824";
    private static final Duration REPORT_TIMEOUT = Duration.ofSeconds(120);

    @TempDir
    static Path tmp;

    private EmbeddedBroker broker;
    private EmbeddedS3 s3;
    private EmbeddedHdfs hdfs;
    private EmbeddedKudu kudu;
    private Consumer consumer;
    private StompSender sender;
    private StompQueueWorker reportListener;
    private final LinkedBlockingQueue<ConsumerReport> reports = new LinkedBlockingQueue<>();

    @BeforeAll
    void startServices() throws IOException {
        // Kudu first: MiniKuduCluster relaxes the JDK's TLS key-size constraints for its 768-bit test certificates,
        // which only takes effect if nothing (the HDFS mini cluster does) has initialised JSSE's constraints before.
        kudu = EmbeddedKudu.start(tmp.resolve("kudu"), 1);
        broker = EmbeddedBroker.start(tmp.resolve("broker"));
        s3 = EmbeddedS3.start(tmp.resolve("s3"), "it-access", "it-secret");
        s3.createBucket(BUCKET);
        hdfs = EmbeddedHdfs.start(tmp.resolve("hdfs"));

        Properties p = new Properties();
        p.setProperty(ConsumerConfig.ID, "consumer-it");
        p.setProperty(ConsumerConfig.BROKERS, broker.stompEndpoints());
        p.setProperty(ConsumerConfig.S3_ENDPOINT, s3.endpoint().toString());
        p.setProperty(ConsumerConfig.S3_BUCKET, BUCKET);
        p.setProperty(ConsumerConfig.HDFS_URI, hdfs.uri().toString());
        p.setProperty(ConsumerConfig.HDFS_ROOT, HDFS_ROOT);
        p.setProperty(ConsumerConfig.KUDU_MASTERS, kudu.masterAddresses());
        p.setProperty(ConsumerConfig.KUDU_TABLE_PREFIX, PREFIX);
        p.setProperty(ConsumerConfig.KUDU_BUCKETS, "4");
        p.setProperty(ConsumerConfig.KUDU_REPLICAS, "1");
        p.setProperty(ConsumerConfig.FETCH_THREADS, "2");
        p.setProperty(ConsumerConfig.SPOOL_DIR, tmp.resolve("spool").toString());
        p.setProperty(ConsumerConfig.HTTP_PORT, "0");
        ConsumerConfig config = ConsumerConfig.fromProperties(p, Map.of(
                ConsumerConfig.ENV_S3_ACCESS_KEY, s3.accessKey(), ConsumerConfig.ENV_S3_SECRET_KEY, s3.secretKey()));
        consumer = new Consumer(config, hdfs.conf(), Clock.systemUTC());
        consumer.start();

        StompSettings stomp = StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()), null, null);
        sender = new StompSender(stomp);
        reportListener = new StompQueueWorker("it-reports", stomp, Queues.SUPERVISOR_CONTROL, 10,
                m -> reports.add(Json.read(m.body(), ConsumerReport.class)));
        reportListener.start();
        Await.until("the consumer to subscribe", Duration.ofSeconds(30), consumer::isConnected);

        // A: G1, G2. B: G3, G4 (event 103 in both: one duplicate). C: a retry of A's job. D: a retry of B's job.
        put(key("a"), TestSpb.object("a", 1000, Guid.of("G1", 1, 10), Guid.of("G2", 11, 5)));
        put(key("b"), TestSpb.object("b", 2000, Guid.of("G3", 100, 4), Guid.of("G4", 103, 3)));
        put(key("c"), TestSpb.object("c", 3000, Guid.of("G1", 1, 10), Guid.of("G2", 11, 5)));
        put(key("d"), TestSpb.object("d", 4000, Guid.of("G3", 100, 4), Guid.of("G4", 103, 3)));
        // the objects of another dataset (an object names its dataset in its header, which must be the signal's)
        put(key("a38"), TestSpb.object(OTHER, "a38", 1000, Guid.of("G1", 1, 10), Guid.of("G2", 11, 5)));
        put(key("b38"), TestSpb.object(OTHER, "b38", 2000, Guid.of("G3", 100, 4), Guid.of("G4", 103, 3)));
    }

    @AfterAll
    void stopServices() {
        for (AutoCloseable c : new AutoCloseable[]{reportListener, sender, consumer, kudu, hdfs, s3, broker}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    // keep closing the others; the temp folder goes anyway
                }
            }
        }
    }

    private static String key(String name) {
        return TestSpb.key(name);
    }

    private SignalObject so(String name, long events, String... guids) {
        S3ObjectUrl url = new S3ObjectUrl(s3.endpoint().getHost(), s3.endpoint().getPort(), BUCKET, key(name));
        return new SignalObject(url.toString(), 100, Arrays.asList(guids), events);
    }

    /** G1 from A, G3 + G4 from B, G2 from C; D is a duplicate never to be read. */
    private ConsumerSignal mainSignal() {
        List<SignalObject> objects = List.of(so("a", 10, "G1"), so("b", 7, "G3", "G4"), so("c", 5, "G2"));
        return new ConsumerSignal(ConsumerSignal.TYPE, "sig-main-1", DATASET, CONTAINER, DSPID, 3, objects, 22,
                System.currentTimeMillis());
    }

    private ConsumerReport send(ConsumerSignal signal) throws Exception {
        sender.send(Queues.CONSUMER, Json.write(signal), Map.of());
        ConsumerReport r = reports.poll(REPORT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertNotNull(r, "no report within " + REPORT_TIMEOUT + " for signal " + signal.signalId());
        assertEquals(signal.signalId(), r.signalId());
        return r;
    }

    private FileSystem fs() {
        return hdfs.fs();
    }

    private org.apache.hadoop.fs.Path containerDir(String container) {
        return new org.apache.hadoop.fs.Path(HDFS_ROOT + "/" + container);
    }

    private List<String> names(String container) throws IOException {
        if (!fs().exists(containerDir(container))) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (FileStatus st : fs().listStatus(containerDir(container))) {
            out.add(st.getPath().getName());
        }
        return out;
    }

    private byte[] finalFile() throws IOException {
        try (InputStream in = fs().open(new org.apache.hadoop.fs.Path(containerDir(CONTAINER), DATASET + ".parquet"))) {
            return in.readAllBytes();
        }
    }

    private long kuduRows(String table) throws Exception {
        return kuduRows(table, DSPID);
    }

    private long kuduRows(String table, int dspid) throws Exception {
        KuduClient client = kudu.client();
        KuduTable t = client.openTable(PREFIX + table);
        KuduScanner scanner = client.newScannerBuilder(t)
                .setProjectedColumnNames(List.of(KuduSchemas.EVENTNUMBER))
                .addPredicate(KuduPredicate.newComparisonPredicate(t.getSchema().getColumn(KuduSchemas.DSPID),
                        KuduPredicate.ComparisonOp.EQUAL, dspid))
                .build();
        long n = 0;
        while (scanner.hasMoreRows()) {
            n += scanner.nextRows().getNumRows();
        }
        scanner.close();
        return n;
    }

    private String datasetState() throws Exception {
        return datasetState(DSPID);
    }

    private String datasetState(int dspid) throws Exception {
        KuduClient client = kudu.client();
        KuduTable t = client.openTable(PREFIX + "DATASETS");
        KuduScanner scanner = client.newScannerBuilder(t)
                .setProjectedColumnNames(List.of(KuduSchemas.DSPID, KuduSchemas.STATE)).build();
        String state = null;
        while (scanner.hasMoreRows()) {
            for (RowResult row : scanner.nextRows()) {
                if (row.getInt(KuduSchemas.DSPID) == dspid) {
                    state = row.getString(KuduSchemas.STATE);
                }
            }
        }
        scanner.close();
        return state;
    }

    private void assertConsolidatedContent(byte[] file) throws IOException {
        TestSpb.Consolidated content = TestSpb.parquet(file);
        assertEquals(List.of("G1", "G3", "G4", "G2"), content.guids());
        List<Long> expected = new ArrayList<>(range(1, 10));
        expected.addAll(range(100, 4));
        expected.addAll(range(103, 3));
        expected.addAll(range(11, 5));
        expected.sort(null);
        assertEquals(expected, content.eventNumbers(), "rows sorted by (run, event)");
        assertEquals("consolidated", content.metadata().header().taskID());
        assertEquals("sig-main-1", content.metadata().signalId());
        assertEquals(DATASET, content.metadata().dataset());
    }

    @Test
    @Order(1)
    void consolidatesOneDatasetIntoOneHdfsFileAndKudu() throws Exception {
        ConsumerReport r = send(mainSignal());

        assertEquals(ConsumerReport.DONE, r.status(), r.reason());
        assertEquals(HDFS_ROOT + "/" + CONTAINER + "/" + DATASET + ".parquet", r.hdfsPath());
        assertEquals(22, r.eventsWritten());
        assertEquals(21, r.eventsLoaded());
        assertEquals(1, r.duplicateEvents());
        assertEquals(3, r.objectsRead());
        assertTrue(r.bytesRead() > 0);
        assertEquals("consumer-it", r.consumer());

        assertEquals(List.of(DATASET + ".parquet"), names(CONTAINER), "exactly one file, no temp file");
        assertConsolidatedContent(finalFile());
        assertEquals(1, s3.getCount(BUCKET, key("a")));
        assertEquals(1, s3.getCount(BUCKET, key("b")));
        assertEquals(1, s3.getCount(BUCKET, key("c")));
        assertEquals(0, s3.getCount(BUCKET, key("d")), "the duplicate object is never fetched");

        assertEquals(21, kuduRows("EVENTS"));
        assertEquals(1, kuduRows("DUPLICATEDEVENTS"));
        assertEquals("LOADED", datasetState());
        Await.until("the signal to be acknowledged", Duration.ofSeconds(30),
                () -> broker.queueSize(Queues.CONSUMER) == 0);
    }

    @Test
    @Order(2)
    void aRedeliveredSignalGivesTheSameFileAndChangesNothingInKudu() throws Exception {
        byte[] before = finalFile();
        ConsumerReport r = send(mainSignal());

        assertEquals(ConsumerReport.DONE, r.status(), r.reason());
        assertEquals(21, r.eventsLoaded());
        assertEquals(1, r.duplicateEvents());
        assertArrayEquals(before, finalFile(), "the file is replaced with identical content");
        assertEquals(List.of(DATASET + ".parquet"), names(CONTAINER));
        assertEquals(21, kuduRows("EVENTS"));
        assertEquals(1, kuduRows("DUPLICATEDEVENTS"));
        assertEquals("LOADED", datasetState());
        assertEquals(0, s3.getCount(BUCKET, key("d")));
    }

    @Test
    @Order(3)
    void aMissingObjectIsReportedFailedAndNoFileIsPublished() throws Exception {
        String dataset = "data17_13TeV.00327637.physics_Main.merge.AOD.f838_m1824";
        ConsumerSignal s = new ConsumerSignal(ConsumerSignal.TYPE, "sig-missing-1", dataset, dataset, DSPID + 1, 3,
                List.of(so("nothere", 4, "G9")), 4, System.currentTimeMillis());
        ConsumerReport r = send(s);

        assertEquals(ConsumerReport.FAILED, r.status());
        assertNull(r.hdfsPath());
        assertTrue(r.reason().contains("object s3://") && r.reason().contains(key("nothere") + " does not exist"),
                r.reason());
        assertEquals(List.of(), names(dataset), "neither a final nor a temp file");
        Await.until("the failed signal to be acknowledged", Duration.ofSeconds(30),
                () -> broker.queueSize(Queues.CONSUMER) == 0);
        assertEquals(0, broker.queueSize(EmbeddedBroker.DLQ), "a failed dataset is reported, not dead-lettered");
    }

    @Test
    @Order(4)
    void servesMetricsAndStatus() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + consumer.httpPort();
        HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, metrics.statusCode());
        assertTrue(metrics.body().contains(ConsumerMetrics.SIGNALS_HANDLED + " 3"), metrics.body());
        assertTrue(metrics.body().contains(ConsumerMetrics.SIGNALS_FAILED + " 1"), metrics.body());
        assertTrue(metrics.body().contains(ConsumerMetrics.EVENTS_WRITTEN + " 44"), metrics.body());
        // work done in every phase. The first load: 3 objects read, 22 events written, the file published, the tables
        // checked, the dataset marked LOADING, 22 rows loaded (21 events, 1 duplicate), analytics, counts verified.
        // The redelivery: the same reads and writes, the file, the tables; its load finds the signal loaded already.
        assertEquals((3 + 22 + 1 + 1 + 1 + 22 + 1 + 1) + (3 + 22 + 1 + 1),
                MetricsText.value(metrics.body(), ConsumerMetrics.WORK_DONE), metrics.body());
        // between datasets every sorted run is gone, from memory too
        assertTrue(metrics.body().contains("\n" + ConsumerMetrics.RUN_MEMORY_USED + " 0.0\n"), metrics.body());
        assertTrue(metrics.body().contains("\n" + ConsumerMetrics.SIGNAL_DURATION + "_count{status=\"failed\"} 1\n"),
                metrics.body());
        assertTrue(metrics.body().contains("\neventindex_build_info{daemon=\"consumer\",dirty=\""), metrics.body());
        assertTrue(metrics.body().contains("\njvm_threads_current "), metrics.body());
        assertTrue(metrics.body().contains("\n" + ConsumerMetrics.RUN_MEMORY_LIMIT + " "), metrics.body());
        HttpResponse<String> status = http.send(HttpRequest.newBuilder(URI.create(base + "/status")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, status.statusCode());
        assertTrue(status.body().contains("\"consumer\":\"consumer-it\""), status.body());
        assertTrue(status.body().contains("sig-missing-1"), status.body());
        HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(base + "/ready")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, ready.statusCode(), ready.body());
    }

    @Test
    @Order(5)
    void aSupersededSignalDeliveredLateChangesNeitherTheFileNorKudu() throws Exception {
        String dataset = OTHER;
        int dspid = DSPID + 2;
        long now = System.currentTimeMillis();
        // the supervisor re-selected the dataset (an object was invalidated): the newer signal is processed first
        ConsumerSignal newer = new ConsumerSignal(ConsumerSignal.TYPE, "sig-newer", dataset, dataset, dspid, 3,
                List.of(so("a38", 10, "G1")), 10, now);
        ConsumerSignal older = new ConsumerSignal(ConsumerSignal.TYPE, "sig-older", dataset, dataset, dspid, 3,
                List.of(so("a38", 15, "G1", "G2"), so("b38", 7, "G3", "G4")), 22, now - 60_000);
        assertEquals(ConsumerReport.DONE, send(newer).status());
        org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(containerDir(dataset), dataset + ".parquet");
        byte[] published;
        try (InputStream in = fs().open(file)) {
            published = in.readAllBytes();
        }

        ConsumerReport r = send(older);

        assertEquals(ConsumerReport.FAILED, r.status());
        assertTrue(r.reason().contains("superseded") && r.reason().contains("sig-newer"), r.reason());
        try (InputStream in = fs().open(file)) {
            assertArrayEquals(published, in.readAllBytes(), "the newer selection's file stays");
        }
        assertEquals(List.of(dataset + ".parquet"), names(dataset), "no temp file left");
        assertEquals(10, kuduRows("EVENTS", dspid), "the newer selection's rows stay");
        assertEquals(0, kuduRows("DUPLICATEDEVENTS", dspid));
    }

    /**
     * The Kudu load overlapping the merge (decision 0073): the HDFS write fails (the container's space quota is
     * exhausted, a real HDFS refusal) after rows of the dataset reached Kudu. The dataset is then not LOADED and no file
     * is published; the retry of the signal loads it once (its rows counted: none left twice). Runs on this class's
     * HDFS and Kudu, the objects in memory.
     */
    @Test
    @Order(6)
    void anHdfsFailureAfterRowsReachedKuduLeavesTheDatasetNotLoadedAndTheRetryLoadsItOnce() throws Exception {
        String dataset = "data17_13TeV.00327639.physics_Main.merge.AOD.f838_m1824";
        int dspid = DSPID + 4;
        MemoryObjectFetcher store = new MemoryObjectFetcher();
        store.put("o1", TestSpb.object(dataset, "o1", 1000, Guid.of("G1", 1, 1500), Guid.of("G2", 5001, 1500)));
        ValidSignal signal = new SignalValidator("s3.test", 7480, BUCKET).validate(new ConsumerSignal(
                ConsumerSignal.TYPE, "sig-quota-1", dataset, dataset, dspid, 3, List.of(new SignalObject(
                MemoryObjectFetcher.url("o1").toString(), 100, List.of("G1", "G2"), 3000)), 3000,
                System.currentTimeMillis()));
        org.apache.hadoop.fs.Path container = containerDir(dataset);
        HdfsAdmin admin = new HdfsAdmin(hdfs.uri(), hdfs.conf());
        ParquetConsolidatedFormat parquet = new ParquetConsolidatedFormat(tmp.resolve("spool-quota"), 64 << 20, 1,
                16 << 20);
        AtomicBoolean quotaSet = new AtomicBoolean();
        java.util.concurrent.atomic.AtomicLong handed = new java.util.concurrent.atomic.AtomicLong();
        ConsolidatedFormat quotaAfterRowsInKudu = new ConsolidatedFormat() {
            @Override
            public String fileSuffix() {
                return parquet.fileSuffix();
            }

            @Override
            public ConsolidatedWriter open(java.io.OutputStream out) {
                throw new AssertionError("the load overlaps the merge here");
            }

            @Override
            public ConsolidatedWriter open(java.io.OutputStream out, MergedRows tap) {
                return parquet.open(out, new MergedRows() {
                    @Override
                    public void begin(org.eventindex.consolidated.ConsolidatedMetadata footer) throws IOException {
                        tap.begin(footer);
                    }

                    @Override
                    public void rows(List<MergePipeline.Row> rows, java.util.function.IntFunction<String> guidName)
                            throws IOException {
                        tap.rows(rows, guidName);
                        // past the rows each tablet's first batch takes (200 with 4 buckets: ParallelSessions)
                        if (handed.addAndGet(rows.size()) >= 1536 && quotaSet.compareAndSet(false, true)) {
                            // the file is not written yet (its first block comes later): rows are in Kudu before it
                            Await.until("rows of " + dataset + " in Kudu while its file is written",
                                    Duration.ofSeconds(60), () -> {
                                        try {
                                            return kuduRows("EVENTS", dspid) > 0;
                                        } catch (Exception e) {
                                            throw new IllegalStateException("counting the rows of " + dataset
                                                    + " failed: " + e.getMessage(), e);
                                        }
                                    });
                            admin.setSpaceQuota(container, 1);
                        }
                    }
                });
            }
        };
        Path spool = tmp.resolve("spool-quota");
        java.nio.file.Files.createDirectories(spool);
        HdfsCommitter committer = committer(parquet);
        Consolidator consolidator = consolidator(store);
        try (KuduIngest ingest = new KuduIngest(kudu.client(), new org.eventindex.kudu.KuduTablesConfig(PREFIX, 4, 1),
                fs(), Clock.systemUTC())) {
            ConsumeException failed = org.junit.jupiter.api.Assertions.assertThrows(ConsumeException.class,
                    () -> new DatasetProcessor(consolidator, quotaAfterRowsInKudu, committer, ingest, n -> { }, true)
                            .process(signal));
            admin.clearSpaceQuota(container);

            assertEquals(org.eventindex.EventIndexFailure.Kind.RETRIABLE, failed.kind(), failed.getMessage());
            assertTrue(failed.getMessage().contains(dataset) && failed.getMessage().contains("quota"),
                    failed.getMessage());
            assertEquals("LOADING", datasetState(dspid), "not queryable: the file failed");
            long partial = kuduRows("EVENTS", dspid);
            assertTrue(partial > 0, "rows reached Kudu before the file failed");
            assertTrue(names(dataset).stream().noneMatch(n -> n.equals(dataset + ".parquet")), names(dataset)
                    .toString());

            DatasetProcessor.Outcome retried = new DatasetProcessor(consolidator, parquet, committer, ingest,
                    n -> { }, true).process(signal);

            assertEquals(3000, retried.loaded().eventsLoaded());
            assertEquals(3000, kuduRows("EVENTS", dspid), "every row once (" + partial + " left by the failure)");
            assertEquals(0, kuduRows("DUPLICATEDEVENTS", dspid));
            assertEquals("LOADED", datasetState(dspid));
            assertEquals(List.of(dataset + ".parquet"), names(dataset));
        }
    }

    /**
     * A dataset already queryable (test 6 left it LOADED from sig-quota-1) is loaded again from a newer signal after
     * its file is published, not while the file is written (decision 0073): a new content failing its checks after
     * the merge started must leave the earlier rows queryable. The format refuses the overlapping form.
     */
    @Test
    @Order(7)
    void aDatasetAlreadyQueryableIsReloadedAfterItsFileIsPublished() throws Exception {
        String dataset = "data17_13TeV.00327639.physics_Main.merge.AOD.f838_m1824";
        int dspid = DSPID + 4;
        assertEquals("LOADED", datasetState(dspid), "test 6 loaded the dataset");
        MemoryObjectFetcher store = new MemoryObjectFetcher();
        store.put("o1", TestSpb.object(dataset, "o1", 1000, Guid.of("G1", 1, 1500), Guid.of("G2", 5001, 1500)));
        ValidSignal signal = new SignalValidator("s3.test", 7480, BUCKET).validate(new ConsumerSignal(
                ConsumerSignal.TYPE, "sig-quota-2", dataset, dataset, dspid, 3, List.of(new SignalObject(
                MemoryObjectFetcher.url("o1").toString(), 100, List.of("G1", "G2"), 3000)), 3000,
                System.currentTimeMillis() + 1_000));
        ParquetConsolidatedFormat parquet = new ParquetConsolidatedFormat(tmp.resolve("spool-reload"), 64 << 20, 1,
                16 << 20);
        java.nio.file.Files.createDirectories(tmp.resolve("spool-reload"));
        ConsolidatedFormat fileFirst = new ConsolidatedFormat() {
            @Override
            public String fileSuffix() {
                return parquet.fileSuffix();
            }

            @Override
            public ConsolidatedWriter open(java.io.OutputStream out) {
                return parquet.open(out);
            }

            @Override
            public ConsolidatedWriter open(java.io.OutputStream out, MergedRows tap) {
                throw new AssertionError("a dataset already queryable is not loaded while its file is written");
            }
        };
        HdfsCommitter committer = committer(parquet);
        Consolidator consolidator = consolidator(store);
        try (KuduIngest ingest = new KuduIngest(kudu.client(), new org.eventindex.kudu.KuduTablesConfig(PREFIX, 4, 1),
                fs(), Clock.systemUTC())) {
            assertTrue(ingest.holdsEarlierLoad(signal), "the LOADED row of sig-quota-1 is an earlier load");

            DatasetProcessor.Outcome reloaded = new DatasetProcessor(consolidator, fileFirst, committer, ingest,
                    n -> { }, true).process(signal);

            assertEquals(3000, reloaded.loaded().eventsLoaded());
            assertEquals(3000, kuduRows("EVENTS", dspid));
            assertEquals("LOADED", datasetState(dspid));
            assertFalse(ingest.holdsEarlierLoad(signal), "the LOADED row is now this signal's own load");
        }
    }

    private HdfsCommitter committer(ConsolidatedFormat format) throws IOException {
        return new HdfsCommitter(org.apache.hadoop.fs.FileContext.getFileContext(hdfs.uri(), hdfs.conf()),
                new org.apache.hadoop.fs.Path(HDFS_ROOT), format.fileSuffix());
    }

    private static Consolidator consolidator(MemoryObjectFetcher store) {
        return new Consolidator(store, org.eventindex.spb.SpbLimits.DEFAULT, 2, 1,
                new ConsumerMetrics(new io.prometheus.metrics.model.registry.PrometheusRegistry()));
    }

    private void put(String key, byte[] bytes) {
        ServiceChecks.put(s3, BUCKET, key, bytes);
    }
}
