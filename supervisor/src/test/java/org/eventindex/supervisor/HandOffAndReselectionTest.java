package org.eventindex.supervisor;

import org.eventindex.message.ConsumerHeartbeat;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.Json;
import org.eventindex.message.SignalObject;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.testing.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.eventindex.supervisor.Fixtures.BUCKET;
import static org.eventindex.supervisor.Fixtures.DATASET;
import static org.eventindex.supervisor.Fixtures.done;
import static org.eventindex.supervisor.Fixtures.failed;
import static org.eventindex.supervisor.Fixtures.failedInternally;
import static org.eventindex.supervisor.Fixtures.failedPermanently;
import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.info;
import static org.eventindex.supervisor.Fixtures.manifest;
import static org.eventindex.supervisor.Fixtures.producerMessage;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Leases (and the progress in the consumers' heartbeats that extends them), retries after FAILED, invalid objects, held
 * datasets and epochs, with a hand-moved clock (no sleeps).
 */
class HandOffAndReselectionTest {
    private static final String OTHER = "data18_13TeV.00350000.physics_Main.merge.AOD.f900_m2000";
    private static final SupervisorConfig.HandOff HAND_OFF = new SupervisorConfig.HandOff(Duration.ofMinutes(30),
            Duration.ofMinutes(1), Duration.ofMinutes(3), 3, Duration.ofSeconds(1));

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final List<ConsumerSignal> outbox = new ArrayList<>();
    private final List<Rejection> quarantined = new ArrayList<>();
    private final List<StateChange> changes = new ArrayList<>();
    private PrometheusRegistry registry;
    private Journal journal;
    private SupervisorEngine engine;
    private long busySince;
    private long epochMaxEvents = 1_000_000_000L;

    @BeforeEach
    void open() throws IOException {
        registry = new PrometheusRegistry();
        SupervisorState state = new SupervisorState();
        journal = Journal.open(dir, state::apply);
        engine = new SupervisorEngine(journal, state, new MessageValidator(BUCKET), outbox::add,
                (queue, r, body) -> quarantined.add(r), new SupervisorMetrics(registry), clock,
                new EpochPolicy(3, epochMaxEvents), new HandOffPolicy(HAND_OFF), 4096, "/queue/p", "/queue/c");
        engine.listener(changes::add);
        engine.recover();
    }

    @AfterEach
    void close() throws IOException {
        journal.close();
    }

    private void restart() throws IOException {
        journal.close();
        outbox.clear();
        open();
    }

    private void producer(String dataset, String id, String object, GuidInfo... guids) throws IOException {
        engine.onProducerMessage(producerMessage(id, info(dataset, url(object), guids)), "b-" + id);
    }

    private void control(Object message) throws IOException {
        engine.onControlMessage(Json.write(message), "broker-id");
    }

    private DatasetView view(String name) {
        return engine.dataset(name).orElseThrow();
    }

    private ConsumerSignal signalled(String dataset) throws IOException {
        ConsumerSignal s = outbox.get(outbox.size() - 1);
        engine.onSignalSent(s);
        assertEquals(CollectionState.SIGNALLED, view(dataset).state());
        return s;
    }

    @Test
    void leaseExpiryResendsTheSameSignalOnlyForTheStuckDataset() throws IOException {
        control(manifest(DATASET, file("G1", 10)));
        control(manifest(OTHER, file("H1", 5)));
        producer(DATASET, "m1", "a", guid("G1", 0, 10));
        ConsumerSignal stuck = signalled(DATASET);
        clock.advance(Duration.ofMinutes(10));
        producer(OTHER, "m2", "b", guid("H1", 0, 5));
        ConsumerSignal other = signalled(OTHER);
        outbox.clear();

        clock.advance(Duration.ofMinutes(19));
        engine.tick();
        assertEquals(List.of(), outbox, "lease not expired yet");

        clock.advance(Duration.ofMinutes(1));
        engine.tick();
        assertEquals(List.of(stuck), outbox, "same signal, same signalId, only for the stuck dataset");
        assertEquals(CollectionState.SIGNAL_PLANNED, view(DATASET).state());
        assertEquals(CollectionState.SIGNALLED, view(OTHER).state());
        assertTrue(view(DATASET).lastResignalReason().contains("lease"), view(DATASET).lastResignalReason());
        assertEquals(1, view(DATASET).automaticResignals());
        assertEquals(1, DaemonMetrics.value(registry, "eventindex_supervisor_automatic_resignals_total"));

        engine.tick();
        assertEquals(1, outbox.size(), "not re-sent while the re-send is pending");
        engine.onSignalSent(stuck);
        control(done(other.signalId(), OTHER, 5));
        assertEquals(CollectionState.DONE, view(OTHER).state());
        restart();
        assertEquals(1, view(DATASET).automaticResignals(), "survives a restart");
    }

    @Test
    void failedReportIsRetriedWithDoublingBackoffThenWaitsForAnOperator() throws IOException {
        control(manifest(DATASET, file("G1", 10)));
        producer(DATASET, "m1", "a", guid("G1", 0, 10));
        ConsumerSignal s = signalled(DATASET);
        for (int attempt = 1; attempt <= 3; attempt++) {
            outbox.clear();
            control(failed(s.signalId(), DATASET, "HDFS quota exceeded"));
            assertEquals(CollectionState.FAILED_CONSUMER, view(DATASET).state());
            assertEquals(attempt, view(DATASET).failures());
            clock.advance(HAND_OFF.retryBackoff().delay(attempt - 1).minusSeconds(1));
            engine.tick();
            assertEquals(List.of(), outbox, "backoff of attempt " + attempt + " not elapsed");
            clock.advance(Duration.ofSeconds(1));
            engine.tick();
            assertEquals(List.of(s), outbox, "retry " + attempt);
            engine.onSignalSent(s);
        }
        outbox.clear();
        control(failed(s.signalId(), DATASET, "HDFS quota exceeded"));
        clock.advance(Duration.ofHours(5));
        engine.tick();
        assertEquals(List.of(), outbox, "retries exhausted: waits for an operator");
        assertEquals(CollectionState.FAILED_CONSUMER, view(DATASET).state());

        control(ResignalCommand.of(DATASET));
        assertEquals(List.of(s), outbox);
        assertEquals(0, view(DATASET).failures(), "an operator's resignal starts the retries afresh");
    }

    @Test
    void aPermanentFailureIsNotRetriedShowsItsReasonAndAnOperatorResignalRestartsIt() throws IOException {
        control(manifest(DATASET, file("G1", 10)));
        producer(DATASET, "m1", "a", guid("G1", 0, 10));
        ConsumerSignal s = signalled(DATASET);
        outbox.clear();
        String reason = "dataset " + DATASET + ": " + url("a") + ": malformed SPB at uncompressed offset 0: BAD_GZIP:"
                + " not in GZIP format";
        control(failedPermanently(s.signalId(), DATASET, reason));
        clock.advance(Duration.ofHours(5));
        engine.tick();
        assertEquals(List.of(), outbox, "a permanent failure is not retried automatically");
        DatasetView v = view(DATASET);
        assertEquals(CollectionState.FAILED_CONSUMER, v.state());
        assertEquals(1, v.failures());
        assertEquals(0, v.automaticResignals());
        assertTrue(v.consumer().permanent());
        assertEquals(reason, v.consumer().reason());
        DatasetSummary line = engine.summaries(Set.of(CollectionState.FAILED_CONSUMER)).get(0);
        assertEquals(reason, line.failure());
        assertTrue(line.permanentFailure());
        assertEquals(1, DaemonMetrics.value(registry, "eventindex_supervisor_reports_failed_permanent_total"));

        restart();
        clock.advance(Duration.ofHours(5));
        engine.tick();
        assertEquals(List.of(), outbox, "nor after a restart (the journal's report says permanent)");
        assertTrue(view(DATASET).consumer().permanent());

        // the operator's way out: after fixing the cause, resignal; a transient failure then is retried as before
        control(ResignalCommand.of(DATASET));
        assertEquals(List.of(s), outbox);
        engine.onSignalSent(s);
        outbox.clear();
        control(failed(s.signalId(), DATASET, "HDFS quota exceeded"));
        assertFalse(view(DATASET).consumer().permanent());
        assertEquals("HDFS quota exceeded", engine.summaries(Set.of()).get(0).failure());
        assertFalse(engine.summaries(Set.of()).get(0).permanentFailure());
        clock.advance(HAND_OFF.retryInitial());
        engine.tick();
        assertEquals(List.of(s), outbox, "retried after its backoff");
    }

    /**
     * Issue 30: an internal error of the consumer (an unexpected exception: a bug, not a fault of the data) is not
     * retried automatically, since each retry would read the whole dataset again to meet the same bug; nor is it
     * hidden among the data's failures: the view, its JSON, the dataset's line, the console's overview, an ERROR log
     * line and its own counter say it, also after a restart. The operator re-runs it with resignal once the consumer
     * is fixed.
     */
    @Test
    void anInternalErrorOfTheConsumerIsNeitherRetriedNorHidden() throws IOException {
        control(manifest(DATASET, file("G1", 10)));
        producer(DATASET, "m1", "a", guid("G1", 0, 10));
        ConsumerSignal s = signalled(DATASET);
        outbox.clear();
        String reason = "dataset " + DATASET + ": internal error: java.lang.NullPointerException: Cannot invoke"
                + " \"String.length()\" because \"token\" is null (at org.eventindex.consumer.RunWriter.add:212)";
        try (LogCapture log = new LogCapture()) {
            control(failedInternally(s.signalId(), DATASET, reason));
            List<String> lines = log.lines("INTERNAL ERROR");
            assertEquals(1, lines.size(), lines.toString());
            String line = lines.get(0);
            assertTrue(line.contains("ERROR") && line.contains("dataset " + DATASET) && line.contains("consumer-1")
                    && line.contains("signal " + s.signalId()) && line.contains(reason)
                    && line.contains("its objects are kept")
                    && line.contains("'eventindex supervisor resignal --dataset " + DATASET + "'"), line);
            assertEquals(List.of(), log.lines("retrying in"), "not announced as retried");
        }
        clock.advance(Duration.ofHours(5));
        engine.tick();
        assertEquals(List.of(), outbox, "an internal error is not retried automatically");

        DatasetView v = view(DATASET);
        assertEquals(CollectionState.FAILED_CONSUMER, v.state());
        assertTrue(v.consumer().internalError());
        assertEquals(ConsumerReport.CAUSE_INTERNAL, v.consumer().cause());
        assertEquals(reason, v.consumer().reason());
        String json = new String(Json.write(v), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(json.contains("\"cause\":\"internal\"") && json.contains("\"internalError\":true"), json);
        DatasetSummary line = engine.summaries(Set.of(CollectionState.FAILED_CONSUMER)).get(0);
        assertTrue(line.internalError());
        assertTrue(line.permanentFailure(), "waits for an operator, as a permanent failure does");
        assertEquals(reason, line.failure());
        ConsoleResources console = new ConsoleResources(engine, clock, Duration.ofHours(1), 3,
                new ConsoleResources.Commands("", ""), null);
        String attention = console.overview().needsOperator().get(0).reason();
        assertTrue(attention.startsWith("consumer internal error") && attention.endsWith(reason), attention);
        assertEquals(1, DaemonMetrics.value(registry, "eventindex_supervisor_reports_failed_internal_total"));
        assertEquals(1, DaemonMetrics.value(registry, "eventindex_supervisor_reports_failed_permanent_total"));
        assertEquals(1, DaemonMetrics.value(registry, "eventindex_supervisor_reports_failed_total"));

        restart();
        clock.advance(Duration.ofHours(5));
        engine.tick();
        assertEquals(List.of(), outbox, "nor after a restart (the journalled report says internal)");
        assertTrue(view(DATASET).consumer().internalError());
        assertTrue(engine.summaries(Set.of()).get(0).internalError());

        // once the consumer is fixed, the operator re-runs it: the same signal, the same objects
        control(ResignalCommand.of(DATASET));
        assertEquals(List.of(s), outbox);
        engine.onSignalSent(s);
        assertFalse(engine.summaries(Set.of()).get(0).internalError());
        control(done(s.signalId(), DATASET, 10));
        assertEquals(CollectionState.DONE, view(DATASET).state());
        assertFalse(view(DATASET).consumer().internalError());
    }

    /**
     * The cause decides, not the {@code permanent} flag alone: an internal error sent without {@code permanent} is not
     * retried either; a transient or input cause follows {@code permanent} as before, and a report without a cause
     * (an older consumer) is read as its {@code permanent} says.
     */
    @Test
    void anInternalErrorIsNotRetriedEvenWithoutThePermanentFlag() throws IOException {
        control(manifest(DATASET, file("G1", 10)));
        producer(DATASET, "m1", "a", guid("G1", 0, 10));
        ConsumerSignal s = signalled(DATASET);
        outbox.clear();
        control(new ConsumerReport(ConsumerReport.TYPE, s.signalId(), DATASET, "consumer-2", ConsumerReport.FAILED,
                null, 0, 0, 0, 0, 0, 100, "IllegalStateException: bug", 1L, false, ConsumerReport.CAUSE_INTERNAL));
        clock.advance(Duration.ofHours(5));
        engine.tick();
        assertEquals(List.of(), outbox);
        assertTrue(view(DATASET).consumer().internalError());
        assertTrue(engine.summaries(Set.of()).get(0).permanentFailure());

        control(ResignalCommand.of(DATASET));
        engine.onSignalSent(s);
        outbox.clear();
        control(new ConsumerReport(ConsumerReport.TYPE, s.signalId(), DATASET, "consumer-2", ConsumerReport.FAILED,
                null, 0, 0, 0, 0, 0, 100, "HDFS unavailable", 1L, false, ConsumerReport.CAUSE_TRANSIENT));
        assertFalse(view(DATASET).consumer().internalError());
        assertFalse(engine.summaries(Set.of()).get(0).permanentFailure());
        clock.advance(HAND_OFF.retryInitial());
        engine.tick();
        assertEquals(List.of(s), outbox, "a transient cause is retried");
        assertEquals(1, DaemonMetrics.value(registry, "eventindex_supervisor_reports_failed_internal_total"));
    }

    @Test
    void unreadableSelectedObjectIsInvalidatedAndAnotherCandidateSignalledWithANewId() throws IOException {
        control(manifest(DATASET, file("G1", 10), file("G2", 20)));
        producer(DATASET, "m1", "a", guid("G1", 0, 10), guid("G2", 1, 20));
        producer(DATASET, "m2", "b", guid("G1", 0, 10));
        ConsumerSignal first = signalled(DATASET);
        assertEquals(List.of(url("a")), first.objects().stream().map(SignalObject::url).toList());

        control(InvalidateCommand.of(DATASET, url("a"), "object truncated: gzip stream ends early", "consumer-7"));
        control(failed(first.signalId(), DATASET, "object truncated"));

        assertEquals(CollectionState.COLLECTING, view(DATASET).state(), "G2 has no other candidate: waits");
        assertEquals(List.of("G2"), view(DATASET).missingGuids());
        assertEquals(Map.of(url("a"), "object truncated: gzip stream ends early"), view(DATASET).invalidObjects());
        assertEquals(List.of(first.signalId()), view(DATASET).supersededSignals());
        assertEquals(1, outbox.size());
        assertTrue(!engine.isCurrent(first), "a superseded signal still waiting in the sender is dropped");
        engine.onSignalSent(first);
        assertEquals(CollectionState.COLLECTING, view(DATASET).state(), "a late confirmation of it changes nothing");

        producer(DATASET, "m3", "c", guid("G2", 0, 20));
        ConsumerSignal second = outbox.get(1);
        assertNotEquals(first.signalId(), second.signalId());
        assertEquals(List.of(url("b"), url("c")), second.objects().stream().map(SignalObject::url).toList());
        assertEquals(first.dspid(), second.dspid());
        assertEquals(30, second.expectedEvents());
        engine.onSignalSent(second);
        control(done(second.signalId(), DATASET, 30));
        assertEquals(CollectionState.DONE, view(DATASET).state());

        restart();
        assertEquals(second.signalId(), view(DATASET).signalId());
        assertEquals(CollectionState.DONE, view(DATASET).state());
    }

    @Test
    void lateObjectCanReplaceAnInvalidatedOneRightAway() throws IOException {
        control(manifest(DATASET, file("G1", 10)));
        producer(DATASET, "m1", "a", guid("G1", 0, 10));
        ConsumerSignal first = signalled(DATASET);
        producer(DATASET, "m2", "late", guid("G1", 0, 10));
        assertEquals(List.of(url("late")), view(DATASET).lateObjects());

        control(InvalidateCommand.of(DATASET, url("a"), "404 Not Found", "consumer-1"));

        ConsumerSignal second = outbox.get(outbox.size() - 1);
        assertNotEquals(first.signalId(), second.signalId());
        assertEquals(List.of(url("late")), second.objects().stream().map(SignalObject::url).toList());
    }

    @Test
    void disagreeingAttemptsAreHeldWithTheReasonUntilAnOperatorInvalidatesOne() throws IOException {
        control(manifest(DATASET, file("G1", -1), file("G2", -1)));
        producer(DATASET, "m1", "a", guid("G1", 0, 100));
        producer(DATASET, "m2", "b", guid("G1", 0, 97), guid("G2", 1, 50));

        DatasetView v = view(DATASET);
        assertEquals(CollectionState.HELD, v.state());
        assertTrue(v.heldReason().contains("G1") && v.heldReason().contains(url("a"))
                && v.heldReason().contains(url("b")), v.heldReason());
        assertEquals(List.of(), outbox);
        restart();
        assertEquals(CollectionState.HELD, view(DATASET).state(), "held survives a restart");

        control(InvalidateCommand.of(DATASET, url("a"), "operator: job 1 read a truncated input", null));
        assertEquals(1, outbox.size());
        assertEquals(147, outbox.get(0).expectedEvents());
        assertNull(view(DATASET).heldReason());
        assertEquals(List.of(), quarantined);
    }

    @Test
    void invalidateOfAnUnknownObjectIsRejected() throws IOException {
        control(manifest(DATASET, file("G1", 10)));
        control(InvalidateCommand.of(DATASET, url("nope"), "x", null));
        control(InvalidateCommand.of(OTHER, url("nope"), "x", null));
        assertEquals(List.of(RejectReason.UNKNOWN_OBJECT, RejectReason.UNKNOWN_DATASET),
                quarantined.stream().map(Rejection::reason).toList());
    }

    @Test
    void epochRollsOverWhenTheCurrentRangeWouldExceedItsEventBudget() throws IOException {
        journal.close();
        epochMaxEvents = 100;
        open();
        String[] names = {DATASET, OTHER, "data18_13TeV.00350001.physics_Main.merge.AOD.f900_m2000",
                "data18_13TeV.00350002.physics_Main.merge.AOD.f900_m2000"};
        long[] events = {60, 40, 1, 500};
        for (int i = 0; i < names.length; i++) {
            control(manifest(names[i], file("G" + i, events[i])));
            producer(names[i], "m" + i, "o" + i, guid("G" + i, 0, events[i]));
        }
        assertEquals(List.of(3, 3, 4, 5), outbox.stream().map(ConsumerSignal::epoch).toList());
        assertEquals(List.of(1, 2, 3, 4), outbox.stream().map(ConsumerSignal::dspid).toList());
        restart();
        String fifth = "data18_13TeV.00350003.physics_Main.merge.AOD.f900_m2000";
        control(manifest(fifth, file("G9", 1)));
        producer(fifth, "m9", "o9", guid("G9", 0, 1));
        assertEquals(6, outbox.get(outbox.size() - 1).epoch(), "epoch 5 is full (500 > 100): a restart continues");
    }

    @Test
    void oversizeMessageIsRejected() throws IOException {
        engine.onProducerMessage(new byte[5000], "big");
        assertEquals(List.of(RejectReason.OVERSIZE), quarantined.stream().map(Rejection::reason).toList());
    }

    @Test
    void everyRecordedFactIsPublishedWithTheDatasetState() throws IOException {
        control(manifest(DATASET, file("G1", 10)));
        producer(DATASET, "m1", "a", guid("G1", 0, 10));
        assertEquals(List.of("ManifestRegistered", "ObjectReported", "SignalPlanned"),
                changes.stream().map(StateChange::event).toList());
        assertEquals(CollectionState.SIGNAL_PLANNED, changes.get(2).state());
        assertEquals(DATASET, changes.get(2).dataset());
    }

    // The lease and the progress of the consumer that holds the signal, from its busy heartbeats.

    /** A dataset of one file, complete and its signal sent now. */
    private ConsumerSignal sent(String dataset, String guid) throws IOException {
        engine.onControlMessage(Json.write(manifest(dataset, file(guid, 10))), "m-" + dataset);
        engine.onProducerMessage(producerMessage("p-" + dataset, info(dataset, url("o-" + dataset),
                guid(guid, 0, 10))), "b-" + dataset);
        ConsumerSignal s = outbox.remove(outbox.size() - 1);
        engine.onSignalSent(s);
        busySince = clock.millis();
        return s;
    }

    /** DATASET's signal sent now, then {@code consumer} heard busy on it {@code d} later with {@code progress}. */
    private ConsumerSignal heardAfter(Duration d, String consumer, long progress) throws IOException {
        ConsumerSignal s = sent(DATASET, "G1");
        clock.advance(d);
        heartbeat(consumer, s, progress);
        return s;
    }

    private void heartbeat(String consumer, ConsumerSignal s, long progress) throws IOException {
        heartbeat(ConsumerHeartbeat.busy(consumer, s.dataset(), s.signalId(), 1, 0, progress, busySince, "1.0",
                60_000, clock.millis()));
    }

    private void heartbeat(ConsumerHeartbeat h) throws IOException {
        engine.onHeartbeat(Json.write(h), "hb-" + clock.millis(), null, "/queue/h");
    }

    /** Moves the clock and runs the tick: the signals it sent again. */
    private List<ConsumerSignal> after(Duration d) throws IOException {
        clock.advance(d);
        outbox.clear();
        engine.tick();
        return List.copyOf(outbox);
    }

    /** Nothing is sent again {@code left} minus a second from now, and {@code s} is, a second later. */
    private void assertLeaseRunsOutIn(Duration left, ConsumerSignal s, String why) throws IOException {
        assertEquals(List.of(), after(left.minusSeconds(1)), why);
        assertEquals(List.of(s), after(Duration.ofSeconds(1)), why);
    }

    private double counter(String name) {
        return DaemonMetrics.value(registry, "eventindex_supervisor_" + name + "_total");
    }

    @Test
    void progressOfTheHolderExtendsTheLeaseFromItsLastIncrease() throws IOException {
        ConsumerSignal s = sent(DATASET, "G1");
        assertEquals(List.of(), after(Duration.ofMinutes(20)));
        heartbeat("c1", s, 10);
        assertEquals(List.of(), after(Duration.ofMinutes(20)), "40 min after the send, 20 after progress");
        heartbeat("c1", s, 25);
        long lastProgress = clock.millis();
        DatasetView.Lease lease = view(DATASET).lease();
        assertEquals("c1", lease.holder());
        assertEquals(25, lease.progress());
        assertEquals(Instant.ofEpochMilli(lastProgress), lease.lastProgressAt());
        assertEquals(Instant.ofEpochMilli(lastProgress).plus(HAND_OFF.lease()), lease.expiresAt());
        assertEquals(2, counter("lease_extensions"));

        assertLeaseRunsOutIn(HAND_OFF.lease(), s, "a lease after the last progress: sent again");
        assertEquals(1, counter("automatic_resignals"));
    }

    @Test
    void aHolderAliveWithoutProgressLosesTheLeaseAndCannotTakeItBack() throws IOException {
        ConsumerSignal s = heardAfter(Duration.ofMinutes(5), "c1", 7);
        for (int i = 0; i < 5; i++) {
            assertEquals(List.of(), after(Duration.ofMinutes(5)));
            heartbeat("c1", s, i == 2 ? 3 : 7); // the same count, once a lower one (out of order): no progress
        }
        assertEquals(1, counter("lease_extensions"));
        assertEquals(List.of(s), after(Duration.ofMinutes(5)), "30 min after its last progress");
        String reason = view(DATASET).lastResignalReason();
        assertTrue(reason.contains("consumer c1 made no progress since") && reason.contains("heartbeats still came"),
                reason);
        assertEquals(1, counter("leases_lost_stuck"));

        engine.onSignalSent(s);
        heartbeat("c1", s, 500);
        assertNull(view(DATASET).lease().holder(), "the consumer that lost the lease does not hold the signal again");
        heartbeat("c2", s, 1);
        assertEquals("c2", view(DATASET).lease().holder());
        heartbeat("c1", s, 900);
        assertEquals("c2", view(DATASET).lease().holder());
        assertLeaseRunsOutIn(HAND_OFF.lease(), s, "c1's progress extends nothing any more");
    }

    @Test
    void heartbeatsForAnotherSignalOrFromAnotherConsumerDoNotExtend() throws IOException {
        ConsumerSignal s = sent(DATASET, "G1");
        ConsumerSignal other = sent(OTHER, "H1");
        clock.advance(Duration.ofMinutes(1));
        heartbeat("c1", s, 1); // c1 holds DATASET's signal
        for (int i = 1; i <= 5; i++) {
            assertEquals(List.of(), after(Duration.ofMinutes(5)));
            heartbeat("c2", s, 100 * i); // another consumer on the same signal (a redelivered copy)
            heartbeat("c3", other, 100 * i); // the holder of another dataset's signal
            heartbeat(ConsumerHeartbeat.busy("c1", DATASET, "an-older-signal", 1, 0, 100 * i, busySince, "1.0",
                    60_000, clock.millis())); // the holder, busy on another signal of the dataset
        }
        assertEquals(List.of(s), after(Duration.ofMinutes(6)),
                "a lease after the holder's one progress; OTHER's holder progressed, so its lease runs on");
        assertEquals("c1", view(DATASET).lastResignalReason().contains("consumer c1") ? "c1" : null);
        assertEquals("c3", view(OTHER).lease().holder());
        assertEquals(500, view(OTHER).lease().progress());
    }

    @Test
    void aHeartbeatWithoutProgressFromAnOlderConsumerKeepsTheLeaseFromTheSend() throws IOException {
        ConsumerSignal s = sent(DATASET, "G1");
        for (int i = 1; i <= 5; i++) {
            clock.advance(Duration.ofMinutes(5));
            String older = "{\"type\":\"heartbeat\",\"consumer\":\"old\",\"state\":\"busy\",\"dataset\":\"" + DATASET
                    + "\",\"signalId\":\"" + s.signalId() + "\",\"objects\":1,\"objectsRead\":" + i
                    + ",\"busySince\":" + busySince + ",\"version\":\"0.9\",\"intervalMillis\":60000,\"ts\":"
                    + clock.millis() + "}";
            engine.onHeartbeat(older.getBytes(StandardCharsets.UTF_8), "old-" + i, null, "/queue/h");
        }
        assertEquals(0, DaemonMetrics.value(registry, "eventindex_supervisor_rejected_total", "reason",
                "invalid_value"), "an older consumer's heartbeat is valid");
        assertNull(view(DATASET).lease().holder(), "a heartbeat without progress holds nothing");
        assertLeaseRunsOutIn(Duration.ofMinutes(5), s, "the lease from the send, as before");
        assertEquals(0, counter("leases_lost_stuck"));
    }

    @Test
    void theLeaseEndsWithTheReport() throws IOException {
        ConsumerSignal s = sent(DATASET, "G1");
        heartbeat("c1", s, 1);
        engine.onControlMessage(Json.write(done(s.signalId(), DATASET, 10)), "r1");
        assertNull(view(DATASET).lease());
        assertEquals(List.of(), after(HAND_OFF.lease().multipliedBy(2)));
    }

    @Test
    void aRestartedSupervisorCountsTheLeaseFromItsStart() throws IOException {
        ConsumerSignal s = heardAfter(Duration.ofMinutes(20), "c1", 10);
        clock.advance(Duration.ofMinutes(40)); // a lease after the send and after the progress, while it was down
        restart();
        assertEquals(List.of(), after(Duration.ofSeconds(1)), "not sent again at once: the holder is heard first");
        assertEquals(Instant.ofEpochMilli(clock.millis() - 1000).plus(HAND_OFF.lease()),
                view(DATASET).lease().expiresAt());
        heartbeat("c1", s, 11);
        assertEquals("c1", view(DATASET).lease().holder());
        assertLeaseRunsOutIn(HAND_OFF.lease(), s, "a lease after the progress heard since the restart");
    }
}
