package org.eventindex.supervisor;

import org.eventindex.config.Secret;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Json;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.supervisor.journal.JournalEvent;
import org.eventindex.testing.EmbeddedS3;
import org.eventindex.testing.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.eventindex.supervisor.Fixtures.DATASET;
import static org.eventindex.supervisor.Fixtures.done;
import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.info;
import static org.eventindex.supervisor.Fixtures.key;
import static org.eventindex.supervisor.Fixtures.manifest;
import static org.eventindex.supervisor.Fixtures.producerMessage;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Cleanup against a real S3 server (S3Proxy): never before DONE + retention; orphans only after their retention. */
class ObjectCleanerTest {
    private static final String BUCKET = "eventindex";
    private static final String OTHER = "data18_13TeV.00350000.physics_Main.merge.AOD.f900_m2000";
    private static final Duration RETENTION = Duration.ofHours(24);
    private static final Duration ORPHANS = Duration.ofHours(72);

    @TempDir
    Path dir;

    private EmbeddedS3 s3;
    private S3Client client;
    private Journal journal;
    private SupervisorEngine engine;
    private ObjectCleaner cleaner;
    private S3CleanupStore store;
    private final List<ConsumerSignal> outbox = new ArrayList<>();
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private ManualClock clock;
    private SupervisorState state;

    @BeforeEach
    void start() throws IOException {
        s3 = EmbeddedS3.start(dir.resolve("s3"), "AKIDTEST", "secret-test");
        s3.createBucket(BUCKET);
        client = S3Client.builder().endpointOverride(s3.endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(),
                        s3.secretKey())))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(UrlConnectionHttpClient.builder()).build();
        clock = new ManualClock(Instant.now());
        state = new SupervisorState();
        journal = Journal.open(dir.resolve("journal"), state::apply);
        SupervisorMetrics metrics = new SupervisorMetrics(registry);
        engine = new SupervisorEngine(journal, state, new MessageValidator(BUCKET), outbox::add, Quarantine.NONE,
                metrics, clock, new EpochPolicy(1, 1_000_000), new HandOffPolicy(SupervisorEngineTest.HAND_OFF),
                1 << 20, "/queue/p", "/queue/c");
        SupervisorConfig.Cleanup settings = new SupervisorConfig.Cleanup(s3.endpoint().toString(), "us-east-1",
                Secret.of(s3.accessKey()), Secret.of(s3.secretKey()), RETENTION, ORPHANS, Duration.ofHours(1));
        store = S3CleanupStore.create(settings, null);
        cleaner = new ObjectCleaner(store, engine, BUCKET, RETENTION, ORPHANS, clock, metrics);
    }

    @AfterEach
    void stop() throws IOException {
        store.close();
        client.close();
        journal.close();
        s3.close();
    }

    private String put(String key) {
        client.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromString("spb " + key));
        return "s3://127.0.0.1:" + s3.endpoint().getPort() + "/" + BUCKET + "/" + key;
    }

    /**
     * A {@code supervisor rebuild-state} (journalled as the offline command does, the engine idle) that listed the
     * bucket now and could not decide {@code undecided}: the objects put before it are accounted for.
     */
    private void reconciled(String... undecided) throws IOException {
        // the server's time, not the manual clock: what is put now is before its listing by more than the margin
        reconciled(Instant.now().plusMillis(Reconciliation.MARGIN_MILLIS).plusSeconds(1), undecided);
    }

    private void reconciled(Instant listedAt, String... undecided) throws IOException {
        journal.append(List.of(new JournalEvent.StateReconciled(listedAt.toEpochMilli(), List.of(undecided), 0, "test")),
                clock.millis()).forEach(state::apply);
    }

    private void producer(String dataset, String id, String url, org.eventindex.message.GuidInfo... guids)
            throws IOException {
        engine.onProducerMessage(producerMessage(id, info(dataset, url, guids)), id);
    }

    /** An operator's delete: every object of the dataset goes at the next pass, without waiting for a retention. */
    @Test
    void objectsOfADeletedDatasetAreDeletedAtTheNextPass() throws IOException {
        String first = put(key("job1"));
        String second = put(key("job2"));
        String other = put(key("other"));
        engine.onControlMessage(Json.write(manifest(DATASET, file("G1", 10), file("G2", 10))), "c1");
        producer(DATASET, "m1", first, guid("G1", 0, 10));
        producer(DATASET, "m2", second, guid("G1", 0, 10));
        producer(OTHER, "m3", other, guid("H1", 0, 10));
        OperatorAnswer a = engine.onControlMessage(Json.write(DeleteCommand.of(DATASET, "test")), "c2", "r1");
        assertEquals(OperatorAnswer.OK, a.outcome(), a.detail());

        ObjectCleaner.Report r = cleaner.runOnce();
        assertEquals(2, r.objectsDeleted());
        assertEquals(0, r.orphansSeen(), "the deleted dataset's objects are not orphans");
        assertEquals(List.of(key("other")), s3.keys(BUCKET));
        assertEquals(0, cleaner.runOnce().objectsDeleted(), "nothing left the second time");
        assertEquals(List.of(), engine.read(st -> st.lookup(DATASET).deleted().orElseThrow().objectsLeft()));
    }

    @Test
    void objectsOfADoneDatasetAreDeletedAfterTheRetentionAndOrphansAfterTheirs() throws IOException {
        String selected = put(key("job1"));
        String duplicate = put(key("job2"));
        String late = put(key("job3"));
        String collecting = put(key("other"));
        put(key("orphan"));
        reconciled();
        engine.onControlMessage(Json.write(manifest(DATASET, file("G1", 10))), "c1");
        producer(DATASET, "m1", selected, guid("G1", 0, 10));
        producer(OTHER, "m2", collecting, guid("H1", 0, 10));
        ConsumerSignal s = outbox.get(0);
        engine.onSignalSent(s);
        producer(DATASET, "m3", late, guid("G1", 0, 10));
        // a duplicate reported before the signal would be chosen-against; after it is late: both are never read
        producer(DATASET, "m4", duplicate, guid("G1", 0, 10));

        clock.advance(Duration.ofDays(30));
        ObjectCleaner.Report r = cleaner.runOnce();
        assertEquals(0, r.objectsDeleted(), "SIGNALLED is not safe: nothing of the dataset is deleted");
        assertEquals(1, r.orphansDeleted(), "the orphan is 30 days old");
        assertEquals(List.of(key("job1"), key("job2"), key("job3"), key("other")),
                s3.keys(BUCKET));

        engine.onControlMessage(Json.write(done(s.signalId(), DATASET, 10)), "c2");
        clock.advance(RETENTION.minusSeconds(1));
        assertEquals(0, cleaner.runOnce().objectsDeleted(), "retention not over");
        clock.advance(Duration.ofSeconds(1));
        List<StateChange> changes = new ArrayList<>();
        engine.listener(changes::add);
        r = cleaner.runOnce();
        assertEquals(3, r.objectsDeleted());
        assertEquals(List.of("ObjectsDeleted " + DATASET + " DONE"), changes.stream()
                .map(c -> c.event() + " " + c.dataset() + " " + c.state()).toList(), "the stream shows it retired DONE");
        assertEquals(List.of(key("other")), s3.keys(BUCKET));
        DatasetView retired = engine.dataset(DATASET).orElseThrow();
        assertEquals(3, retired.deletedObjects());
        assertEquals(Instant.ofEpochMilli(clock.millis()), retired.retiredAt(), "every object deleted: the dataset retires");
        assertEquals(CollectionState.DONE, retired.state());
        assertEquals(List.of(s.signalId(), 3, 10L), List.of(retired.signalId(), retired.objectsReported(),
                retired.expectedEvents()), "ids and counts are kept");
        assertEquals(List.of(), retired.selectedObjects(), "object lists are not");
        assertEquals(List.of(DATASET), engine.summaries(java.util.Set.of(CollectionState.DONE)).stream()
                .map(DatasetSummary::name).toList(), "a retired dataset is DONE");
        assertEquals(1, engine.summaries(java.util.Set.of(CollectionState.DONE)).get(0).selectedObjects());
        assertEquals(List.of(OTHER), engine.summaries(java.util.Set.of(CollectionState.COLLECTING)).stream()
                .map(DatasetSummary::name).toList());
        assertEquals(0, cleaner.runOnce().objectsDeleted(), "deleted once");
        assertEquals(3, DaemonMetrics.value(registry, "eventindex_supervisor_objects_deleted_total"));

        long seq = journal.lastSeq();
        engine.onControlMessage(Json.write(ResignalCommand.of(DATASET)), "c3");
        engine.onControlMessage(Json.write(InvalidateCommand.of(DATASET, selected, "x", null)), "c4");
        engine.onControlMessage(Json.write(manifest(DATASET, file("G1", 10))), "c5");
        producer(DATASET, "m1", selected, guid("G1", 0, 10)); // a re-send of a forgotten message
        String retry = put(key("job4"));
        producer(DATASET, "m5", retry, guid("G1", 0, 10));
        reconciled();
        assertEquals(retired, engine.dataset(DATASET).orElseThrow(), "nothing can be re-read once the objects are gone");
        assertEquals(seq + 6, journal.lastSeq(), "all refused (MESSAGE_REJECTED), then the reconciliation");
        assertEquals(5, DaemonMetrics.value(registry, SupervisorMetrics.REJECTED, "reason",
                SupervisorMetrics.label(RejectReason.DATASET_RETIRED)));
        clock.advance(ORPHANS);
        assertEquals(1, cleaner.runOnce().orphansDeleted(), "the late retry's object is an orphan");
        assertEquals(List.of(key("other")), s3.keys(BUCKET));
    }

    /**
     * Issue 30: a dataset held in FAILED_CONSUMER (here by an internal error of the consumer, which the operator
     * re-runs with resignal once the consumer is fixed) keeps every object however long it waits: none is deleted as
     * a DONE dataset's, nor as an orphan past the orphans' retention. Once re-run and DONE, they go after the
     * retention as usual.
     */
    @Test
    void theObjectsOfADatasetHeldInFailedConsumerAreNeverDeleted() throws IOException {
        String selected = put(key("job1"));
        String duplicate = put(key("job2"));
        engine.onControlMessage(Json.write(manifest(DATASET, file("G1", 10))), "c1");
        producer(DATASET, "m1", selected, guid("G1", 0, 10));
        producer(DATASET, "m2", duplicate, guid("G1", 0, 10));
        ConsumerSignal s = outbox.get(0);
        engine.onSignalSent(s);
        engine.onControlMessage(Json.write(done(s.signalId(), DATASET, 10)), "c2");
        engine.onControlMessage(Json.write(ResignalCommand.of(DATASET)), "c3"); // e.g. its HDFS file was lost
        engine.onSignalSent(s);
        engine.onControlMessage(Json.write(Fixtures.failedInternally(s.signalId(), DATASET, "NullPointerException")),
                "c4");
        assertEquals(CollectionState.FAILED_CONSUMER, engine.dataset(DATASET).orElseThrow().state());

        clock.advance(ORPHANS.plus(RETENTION).plusDays(30));
        ObjectCleaner.Report r = cleaner.runOnce();
        assertEquals(0, r.objectsDeleted(), "FAILED_CONSUMER is not safe, even after a DONE and its retention");
        assertEquals(0, r.orphansSeen(), "a held dataset's objects are not orphans");
        assertEquals(List.of(key("job1"), key("job2")), s3.keys(BUCKET));
        assertEquals(0, engine.dataset(DATASET).orElseThrow().deletedObjects());

        engine.onControlMessage(Json.write(ResignalCommand.of(DATASET)), "c5");
        engine.onSignalSent(s);
        engine.onControlMessage(Json.write(done(s.signalId(), DATASET, 10)), "c6");
        clock.advance(RETENTION);
        assertEquals(2, cleaner.runOnce().objectsDeleted());
        assertEquals(List.of(), s3.keys(BUCKET));
    }

    @Test
    void aDatasetRetiresOnlyOnceItsLateObjectsAreDeletedToo() throws IOException {
        String selected = put(key("job1"));
        engine.onControlMessage(Json.write(manifest(DATASET, file("G1", 10))), "c1");
        producer(DATASET, "m1", selected, guid("G1", 0, 10));
        ConsumerSignal s = outbox.get(0);
        engine.onSignalSent(s);
        engine.onControlMessage(Json.write(done(s.signalId(), DATASET, 10)), "c2");
        clock.advance(RETENTION);
        engine.onObjectsDeleted(DATASET, List.of()); // a pass that deleted nothing (its listing raced a late object)
        assertEquals(null, engine.dataset(DATASET).orElseThrow().retiredAt());
        String late = put(key("job2"));
        producer(DATASET, "m2", late, guid("G1", 0, 10));
        client.deleteObject(b -> b.bucket(BUCKET).key(key("job1"))); // a pass that listed the dataset before m2
        engine.onObjectsDeleted(DATASET, List.of(selected));
        assertEquals(null, engine.dataset(DATASET).orElseThrow().retiredAt(), "the late object is not deleted yet");
        assertEquals(1, cleaner.runOnce().objectsDeleted());
        assertEquals(Instant.ofEpochMilli(clock.millis()), engine.dataset(DATASET).orElseThrow().retiredAt());
        assertEquals(List.of(), s3.keys(BUCKET));
    }

    @Test
    void orphansAreReportedThenDeletedOnlyAfterTheLongerRetention() throws IOException {
        put(key("orphan"));
        String known = put(key("known"));
        producer(OTHER, "m1", known, guid("H1", 0, 10));
        reconciled();

        clock.advance(ORPHANS.minusMinutes(1));
        ObjectCleaner.Report r = cleaner.runOnce();
        assertEquals(1, r.orphansSeen());
        assertEquals(0, r.orphansDeleted());
        assertEquals(List.of(key("orphan")), r.orphansWaiting());

        clock.advance(Duration.ofMinutes(2));
        r = cleaner.runOnce();
        assertEquals(1, r.orphansDeleted());
        assertEquals(List.of(key("known")), s3.keys(BUCKET), "an object with a message is never an orphan");
        assertEquals(1, DaemonMetrics.value(registry, "eventindex_supervisor_orphans_deleted_total"));
    }

    /**
     * Decision 0054: an object no entry names goes only when a reconciliation listed and decided it. Without one (a
     * journal restored from a backup forgets acknowledged messages), or for an object written since, or one it could
     * not decide, it is kept, counted and named.
     */
    @Test
    void anObjectTheJournalCannotAccountForIsKeptUntilAReconciliationDecidedIt() throws IOException {
        put(key("forgotten"));
        put(key("undecided"));
        clock.advance(ORPHANS.plusHours(1));
        ObjectCleaner.Report r;
        try (LogCapture log = new LogCapture()) {
            r = cleaner.runOnce();
            List<String> lines = log.lines("objects no journal entry names");
            assertEquals(1, lines.size(), "one line per pass: " + lines);
            assertTrue(lines.get(0).contains("2 objects no journal entry names, older than PT72H, kept")
                    && lines.get(0).contains(key("forgotten") + " (no reconciliation (supervisor rebuild-state) is"
                    + " recorded in the journal)") && lines.get(0).contains("'eventindex supervisor rebuild-state'"),
                    lines.get(0));
        }
        assertEquals(List.of(0, 2), List.of(r.orphansDeleted(), r.orphansKept()), "no reconciliation yet");
        assertEquals(List.of(key("forgotten"), key("undecided")), r.orphansKeptSample());
        assertEquals(2, DaemonMetrics.value(registry, "eventindex_supervisor_cleanup_orphans_kept"));

        reconciled(Instant.now().minus(Duration.ofHours(1)));
        r = cleaner.runOnce();
        assertEquals(List.of(0, 2), List.of(r.orphansDeleted(), r.orphansKept()), "written after that one's listing");

        reconciled(key("undecided"));
        r = cleaner.runOnce();
        assertEquals(1, r.orphansDeleted(), "the one the reconciliation decided");
        assertEquals(List.of(key("undecided")), r.orphansKeptSample(), "the one it could not decide");
        assertEquals(List.of(key("undecided")), s3.keys(BUCKET));
        assertEquals(1, DaemonMetrics.value(registry, "eventindex_supervisor_cleanup_orphans_kept"));
    }
}
