package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.EventRange;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.Json;
import org.eventindex.message.SignalFile;
import org.eventindex.message.SignalObject;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.supervisor.journal.JournalEntry;
import org.eventindex.supervisor.journal.JournalEvent;
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

import static org.eventindex.supervisor.Fixtures.BUCKET;
import static org.eventindex.supervisor.Fixtures.CONTAINER;
import static org.eventindex.supervisor.Fixtures.DATASET;
import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.info;
import static org.eventindex.supervisor.Fixtures.manifest;
import static org.eventindex.supervisor.Fixtures.producerMessage;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SupervisorEngineTest {
    private static final String PRODUCER_Q = "/queue/p";
    private static final String CONTROL_Q = "/queue/c";
    private static final String OTHER = "mc16_13TeV.361107.PowhegPythia8EvtGen_Zmumu.merge.AOD.e3601_s3126";

    static final SupervisorConfig.HandOff HAND_OFF = new SupervisorConfig.HandOff(Duration.ofMinutes(30),
            Duration.ofMinutes(1), Duration.ofMinutes(8), 3, Duration.ofSeconds(1));

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final List<ConsumerSignal> outbox = new ArrayList<>();
    private final List<Rejection> quarantined = new ArrayList<>();
    private PrometheusRegistry registry;
    private Journal journal;
    private SupervisorEngine engine;

    @BeforeEach
    void open() throws IOException {
        registry = new PrometheusRegistry();
        SupervisorState state = new SupervisorState();
        // as Supervisor starts: the checkpoint if there is one, the entries after it, collecting states at the end
        state.beginReplay();
        journal = Journal.open(dir, 10, StateCheckpoint.restoreInto(state), state::apply);
        state.endReplay();
        engine = new SupervisorEngine(journal, state, new MessageValidator(BUCKET), outbox::add,
                (queue, r, body) -> quarantined.add(r), new SupervisorMetrics(registry), clock,
                new EpochPolicy(1, 1_000_000_000L), new HandOffPolicy(HAND_OFF), 1 << 20, PRODUCER_Q, CONTROL_Q);
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

    private void producer(String id, String object, org.eventindex.message.GuidInfo... guids) throws IOException {
        engine.onProducerMessage(producerMessage(id, info(DATASET, url(object), guids)), "b-" + id);
    }

    private void control(Object message) throws IOException {
        engine.onControlMessage(Json.write(message), "broker-id");
    }

    private DatasetView view() {
        return engine.dataset(DATASET).orElseThrow();
    }

    private long counter(String name) {
        return (long) DaemonMetrics.value(registry, "eventindex_supervisor_" + name + "_total");
    }

    private long rejected(RejectReason reason) {
        return (long) DaemonMetrics.value(registry, SupervisorMetrics.REJECTED, "reason",
                SupervisorMetrics.label(reason));
    }

    private ConsumerSignal completeDataset() throws IOException {
        control(manifest(DATASET, file("G1", 10), file("G2", 20), file("G3", 30)));
        producer("m1", "a", guid("G1", 0, 10), guid("G2", 1, 20), guid("G3", 2, 7));
        producer("m2", "b", guid("G3", 0, 30));
        assertEquals(1, outbox.size());
        return outbox.get(0);
    }

    @Test
    void datasetIsSignalledOnceWhenEveryManifestFileHasAValidObject() throws IOException {
        control(manifest(DATASET, file("G1", 10), file("G2", 20), file("G3", 30)));
        producer("m1", "a", guid("G1", 0, 10), guid("G2", 1, 20), guid("G3", 2, 7));
        assertEquals(List.of(), outbox);
        assertEquals(CollectionState.COLLECTING, view().state());
        assertEquals(2, view().filesWithCandidate());
        assertEquals(List.of("G3"), view().missingGuids());

        producer("m2", "b", guid("G3", 0, 30));
        producer("m3", "c", guid("G1", 0, 10));

        assertEquals(1, outbox.size());
        ConsumerSignal s = outbox.get(0);
        assertEquals(DATASET, s.dataset());
        assertEquals(CONTAINER, s.container());
        assertEquals(1, s.dspid());
        assertEquals(1, s.epoch());
        assertEquals(60, s.expectedEvents());
        assertEquals(List.of(new SignalObject(url("a"), 1000, 5000, List.of("G1", "G2"), 30,
                        List.of(SignalFile.of(guid("G1", 0, 10)), SignalFile.of(guid("G2", 1, 20)))),
                new SignalObject(url("b"), 1000, 5000, List.of("G3"), 30, List.of(SignalFile.of(guid("G3", 0, 30))))),
                s.objects());

        DatasetView v = view();
        assertEquals(CollectionState.SIGNAL_PLANNED, v.state());
        assertEquals(s.signalId(), v.signalId());
        assertEquals(List.of(url("c")), v.lateObjects());
        assertEquals(List.of(new InvalidClaim(url("a"), "G3", 30, 7)), v.invalidClaims());
        assertEquals(3, v.objectsReported());
        assertEquals(1, counter("signals_planned"));
        assertEquals(1, counter("late_objects"));

        engine.onSignalSent(s);
        assertEquals(CollectionState.SIGNALLED, view().state());
        assertEquals(clock.instant(), view().times().signalSentAt());
    }

    @Test
    void manifestArrivingLastCompletesTheDataset() throws IOException {
        producer("m1", "a", guid("G1", 0, 10));
        producer("m2", "b", guid("G1", 0, 10));
        assertEquals(-1, view().expectedFiles());
        assertEquals(List.of(url("b")), view().duplicateObjects());

        control(manifest(DATASET, file("G1", 10)));

        assertEquals(1, outbox.size());
        assertEquals(List.of(url("a")), outbox.get(0).objects().stream().map(SignalObject::url).toList());
        assertEquals(List.of(url("b")), view().duplicateObjects());
    }

    @Test
    void resentProducerMessageIsRecordedOnce() throws IOException {
        producer("m1", "a", guid("G1", 0, 10));
        long seq = journal.lastSeq();
        producer("m1", "a", guid("G1", 0, 10));
        engine.onProducerMessage(producerMessage("m2", info(DATASET, url("a"), guid("G1", 0, 10))), "x");

        assertEquals(seq, journal.lastSeq());
        assertEquals(1, view().objectsReported());
        assertEquals(1, counter("objects"));
        assertEquals(2, counter("duplicate_messages"));
    }

    /** Issue 19: nothing said that a dataset without manifest or catalogue entry waits for its file list. */
    @Test
    void aDatasetWithoutFileListSaysItWaitsForOneAndLogsItOnce() throws IOException {
        try (LogCapture log = new LogCapture()) {
            producer("m1", "a", guid("G1", 0, 10));
            producer("m2", "b", guid("G2", 0, 20));
            producer("m1", "a", guid("G1", 0, 10));
            restart();
            producer("m3", "c", guid("G3", 0, 30));
            List<String> lines = log.lines("dataset " + DATASET + ": first object");
            assertEquals(1, lines.size(), "logged once, at the first object: " + lines);
            assertTrue(lines.get(0).contains(url("a") + " recorded; waiting for its file list (no manifest registered"
                    + " and no catalogue entry)"), lines.get(0));
        }
        assertEquals(DatasetViews.WAITING_FOR_FILE_LIST, view().waitingFor());
        assertEquals(List.of(DatasetViews.WAITING_FOR_FILE_LIST), engine.summaries(java.util.Set.of()).stream()
                .map(DatasetSummary::waitingFor).toList());

        control(manifest(DATASET, file("G1", 10), file("G2", 20), file("G4", 5)));
        assertEquals(CollectionState.COLLECTING, view().state());
        assertNull(view().waitingFor(), "the missing files say what it waits for");
        assertEquals(List.of("G4"), view().missingGuids());
    }

    /**
     * Issue 19: a different object under an id already recorded was dropped with only a counter. The same object again
     * is a re-delivery (silent); another one is a conflict: refused, journaled, logged and streamed, also after a
     * restart.
     */
    @Test
    void aDifferentObjectUnderARecordedMessageIdIsAConflict() throws IOException {
        List<StateChange> changes = new ArrayList<>();
        engine.listener(changes::add);
        producer("m1", "a", guid("G1", 0, 10));
        long seq = journal.lastSeq();
        try (LogCapture log = new LogCapture()) {
            producer("m1", "a", guid("G1", 0, 10));
            assertEquals(seq, journal.lastSeq(), "a re-delivery is not journaled");
            assertEquals(1, counter("duplicate_messages"));

            producer("m1", "b", guid("G1", 0, 10));
            engine.onProducerMessage(producerMessage("m1", info(OTHER, url("c"), guid("H1", 0, 10))), "b-x");
            producer("m1", "a", guid("G1", 0, 11));

            assertEquals(seq + 3, journal.lastSeq());
            assertEquals(3, rejected(RejectReason.MESSAGE_ID_CONFLICT));
            assertEquals(1, counter("duplicate_messages"));
            assertEquals(1, view().objectsReported(), "the first object stays, alone");
            assertEquals(3, quarantined.size());
            List<String> warnings = log.lines("MESSAGE_ID_CONFLICT");
            assertEquals(3, warnings.size(), warnings.toString());
            String first = warnings.get(0);
            assertTrue(first.contains("WARN") && first.contains("producer message id m1 was already recorded for object "
                    + url("a") + " of dataset " + DATASET + "; this message with the same id reports another object: "
                    + "object " + url("b") + " of dataset " + DATASET), first);
            assertTrue(warnings.get(1).contains("reports another dataset: object " + url("c") + " of dataset "
                    + OTHER), warnings.get(1));
            assertTrue(warnings.get(2).contains("reports the same object with other contents"), warnings.get(2));
        }
        List<StateChange> streamed = changes.subList(changes.size() - 3, changes.size());
        assertEquals(List.of("MessageRejected", "MessageRejected", "MessageRejected"),
                streamed.stream().map(StateChange::event).toList());
        assertEquals(java.util.Arrays.asList(DATASET, OTHER, DATASET),
                streamed.stream().map(StateChange::dataset).toList());
        assertTrue(streamed.get(0).detail().startsWith("MESSAGE_ID_CONFLICT: producer message id m1 "),
                streamed.get(0).detail());

        restart();
        long after = journal.lastSeq();
        producer("m1", "a", guid("G1", 0, 10));
        assertEquals(after, journal.lastSeq(), "still a re-delivery after a restart");
        producer("m1", "d", guid("G1", 0, 10));
        assertEquals(after + 1, journal.lastSeq(), "still a conflict after a restart");
        assertEquals(1, rejected(RejectReason.MESSAGE_ID_CONFLICT));
    }

    @Test
    void lateObjectOfASignalledDatasetIsRecordedButNeverResignals() throws IOException {
        ConsumerSignal s = completeDataset();
        producer("m9", "retry", guid("G1", 0, 10), guid("G2", 1, 20), guid("G3", 2, 30));

        assertEquals(List.of(s), outbox);
        assertEquals(List.of(url("retry")), view().lateObjects());
        assertEquals(s.objects(), view().selectedObjects());
    }

    /**
     * Issue 30: a late object is never read, so a late object whose claim on a file disagrees with the signal's (its
     * count, or its run ranges when both claims have them) is flagged: counted, logged at WARN naming the dataset, the
     * object, the file and both counts, listed in the view (also after a restart from the journal or a checkpoint)
     * and streamed. The dataset does not change: it is loaded from the signalled object. A re-selection forgets them
     * with the late objects.
     */
    @Test
    void aLateObjectThatDisagreesWithTheSignalIsFlaggedAndTheDatasetDoesNotChange() throws IOException {
        GuidInfo g1 = claim("G1", 0, 10, new EventRange(1, 10));
        GuidInfo g2 = claim("G2", 1, 20, new EventRange(11, 30));
        GuidInfo g3 = claim("G3", 0, 30, new EventRange(31, 60));
        control(manifest(DATASET, file("G1", -1), file("G2", 20), file("G3", 30)));
        producer("m1", "a", g1, g2);
        producer("m2", "b", g3);
        ConsumerSignal s = outbox.get(0);
        engine.onSignalSent(s);
        List<StateChange> changes = new ArrayList<>();
        engine.listener(changes::add);

        try (LogCapture log = new LogCapture()) {
            producer("m3", "agrees", claim("G1", 0, 10, new EventRange(1, 10)));
            producer("m4", "fewer", claim("G1", 0, 9, new EventRange(1, 9)), claim("G3", 1, 30,
                    new EventRange(31, 60)));
            producer("m5", "shifted", claim("G2", 0, 20, new EventRange(12, 31)));
            producer("m6", "no-ranges", new GuidInfo("G3", 0, 30, 30, 1, 2, "f838", "physics_Main", "data17_13TeV",
                    null));
            producer("m7", "stray", claim("STRAY", 0, 5, new EventRange(1, 5)));
            List<String> warnings = log.lines("disagrees with the signalled selection");
            assertEquals(2, warnings.size(), warnings.toString());
            String fewer = warnings.get(0);
            assertTrue(fewer.contains("WARN") && fewer.contains("dataset " + DATASET) && fewer.contains("late object "
                    + url("fewer")) && fewer.contains("GUID G1: the late object claims 9 events, the signal takes 10"
                    + " from " + url("a")) && !fewer.contains("G3"), fewer);
            assertTrue(warnings.get(1).contains("late object " + url("shifted")) && warnings.get(1).contains("GUID G2:"
                    + " the late object claims 20 events with other run ranges ({327636=[12, 31]} against"
                    + " {327636=[11, 30]})"), warnings.get(1));
        }
        List<LateConflict> expected = List.of(
                new LateConflict(url("fewer"), "G1", url("a"), 10, 9, g1.runevtRanges(),
                        Map.of("327636", new EventRange(1, 9))),
                new LateConflict(url("shifted"), "G2", url("a"), 20, 20, g2.runevtRanges(),
                        Map.of("327636", new EventRange(12, 31))));
        DatasetView v = view();
        assertEquals(expected, v.lateConflicts());
        assertEquals(5, v.lateObjects().size());
        assertEquals(CollectionState.SIGNALLED, v.state(), "information only: the dataset does not change");
        assertEquals(s.objects(), v.selectedObjects());
        assertEquals(List.of(s), outbox);
        assertEquals(2, counter("late_object_conflicts"));
        assertEquals(5, counter("late_objects"));
        String json = new String(Json.write(v), StandardCharsets.UTF_8);
        assertTrue(json.contains("\"lateConflicts\":[{\"url\":\"" + url("fewer") + "\",\"guid\":\"G1\","
                + "\"signalledUrl\":\"" + url("a") + "\",\"signalledEvents\":10,\"lateEvents\":9,"), json);
        assertEquals(java.util.Arrays.asList(null, "late object " + url("fewer") + " disagrees with the signal: GUID"
                + " G1: the late object claims 9 events, the signal takes 10 from " + url("a")), changes.stream()
                .map(StateChange::detail).toList().subList(0, 2), "streamed on /events");

        restart(); // the journal replayed
        assertEquals(expected, view().lateConflicts());
        assertTrue(engine.checkpoint(1).isPresent());
        restart(); // the checkpoint, which holds the late objects and derives their conflicts
        assertEquals(expected, view().lateConflicts());
        control(Fixtures.done(s.signalId(), DATASET, 60));
        producer("m8", "after-done", claim("G3", 0, 31, new EventRange(31, 61)));
        assertEquals(3, view().lateConflicts().size(), "a DONE dataset's late objects are compared too");
        assertEquals(1, counter("late_object_conflicts"), "counted once, when reported (not again at a restart)");

        control(manifest(DATASET, file("G1", -1), file("G2", 20), file("G3", 30), file("G4", 1)));
        assertEquals(List.of(), view().lateConflicts(), "the signal is superseded: its late objects compete again");
    }

    /**
     * A signal journalled before signals carried their files (an older supervisor's) is sent again as it was
     * journalled, and a late object is compared with the claims of its selected objects.
     */
    @Test
    void aLateObjectIsComparedWithTheSelectedClaimsOfASignalJournalledWithoutFiles() throws IOException {
        GuidInfo g1 = claim("G1", 0, 10, new EventRange(1, 10));
        DatasetManifest m = manifest(DATASET, file("G1", 10));
        ConsumerSignal planned = SignalPlanner.plan(Fixtures.NAME, DatasetSelection.select(m.files(),
                List.of(new Candidate(url("a"), 1000, 5000, 2, List.of(g1), "m1"))), 1, 1, clock.millis());
        ConsumerSignal older = new ConsumerSignal(planned.type(), planned.signalId(), planned.dataset(),
                planned.container(), planned.dspid(), planned.epoch(), planned.objects().stream()
                .map(o -> new SignalObject(o.url(), o.size(), o.usize(), o.guids(), o.expectedEvents())).toList(),
                planned.expectedEvents(), planned.ts());
        journal.append(List.of(new JournalEvent.ManifestRegistered(m),
                new JournalEvent.ObjectReported("m1", info(DATASET, url("a"), g1)),
                new JournalEvent.SignalPlanned(older)), clock.millis());
        restart();
        assertEquals(List.of(older), outbox, "sent again as journalled");

        producer("m2", "late", claim("G1", 0, 10, new EventRange(2, 11)));
        assertEquals(List.of(new LateConflict(url("late"), "G1", url("a"), 10, 10, g1.runevtRanges(),
                Map.of("327636", new EventRange(2, 11)))), view().lateConflicts());
        restart();
        assertEquals(1, view().lateConflicts().size());
    }

    @Test
    void doneReportEndsTheDatasetWithCountsAndTraversalTime() throws IOException {
        ConsumerSignal s = completeDataset();
        engine.onSignalSent(s);
        clock.advance(Duration.ofHours(2));
        control(Fixtures.done(s.signalId(), DATASET, 60));

        DatasetView v = view();
        assertEquals(CollectionState.DONE, v.state());
        assertEquals(Duration.ofHours(2), v.times().traversalTime());
        assertEquals(60, v.consumer().eventsWritten());
        assertEquals("consumer-1", v.consumer().consumer());
        assertEquals(1, counter("reports_done"));

        String json = new String(Json.write(v), StandardCharsets.UTF_8);
        assertTrue(json.contains("\"traversalTime\":\"PT2H\""), json);
        assertTrue(json.contains("\"firstObjectAt\":\"2026-01-01T00:00:00Z\""), json);
    }

    @Test
    void failedReportThenOperatorResignalSendsTheSameSignal() throws IOException {
        ConsumerSignal s = completeDataset();
        engine.onSignalSent(s);
        control(Fixtures.failed(s.signalId(), DATASET, "object s3://x/y unreadable"));
        assertEquals(CollectionState.FAILED_CONSUMER, view().state());
        assertEquals("object s3://x/y unreadable", view().consumer().reason());

        control(ResignalCommand.of(DATASET));

        assertEquals(List.of(s, s), outbox);
        assertEquals(CollectionState.SIGNAL_PLANNED, view().state());
        assertEquals(1, view().resignals());
        control(Fixtures.done(s.signalId(), DATASET, 60));
        assertEquals(CollectionState.DONE, view().state());
    }

    @Test
    void resignalOfADoneDatasetSendsTheSameSignalAgain() throws IOException {
        ConsumerSignal s = completeDataset();
        engine.onSignalSent(s);
        control(Fixtures.done(s.signalId(), DATASET, 60));
        assertEquals(CollectionState.DONE, view().state());

        control(ResignalCommand.of(DATASET));

        assertEquals(List.of(s, s), outbox);
        assertEquals(1, view().resignals());
        assertEquals(List.of(), quarantined);
    }

    @Test
    void resignalOfACollectingOrUnknownDatasetIsRejected() throws IOException {
        producer("m1", "a", guid("G1", 0, 10));
        control(ResignalCommand.of(DATASET));
        control(ResignalCommand.of(OTHER));

        assertEquals(List.of(RejectReason.WRONG_STATE, RejectReason.UNKNOWN_DATASET),
                quarantined.stream().map(Rejection::reason).toList());
        assertEquals(List.of(), outbox);
    }

    @Test
    void reportForAnUnknownSignalIsRecordedAndIgnored() throws IOException {
        long seq = journal.lastSeq();
        control(Fixtures.done("no-such-signal", DATASET, 1));

        assertEquals(seq + 1, journal.lastSeq());
        assertEquals(1, counter("reports_unknown"));
        assertTrue(engine.dataset(DATASET).isEmpty());
    }

    @Test
    void restartRebuildsStateAndResendsOnlyUnconfirmedSignals() throws IOException {
        ConsumerSignal sent = completeDataset();
        engine.onSignalSent(sent);
        control(manifest(OTHER, file("H1", 5)));
        engine.onProducerMessage(producerMessage("o1", info(OTHER, url("o"), guid("H1", 0, 5))), "b");
        ConsumerSignal unsent = outbox.get(1);
        DatasetView before = view();

        restart();

        assertEquals(List.of(unsent), outbox);
        assertEquals(before, view());
        assertEquals(CollectionState.SIGNAL_PLANNED, engine.dataset(OTHER).orElseThrow().state());
        assertEquals(2, unsent.dspid());

        // Ids, dspids and idempotency survive the restart.
        producer("m1", "a", guid("G1", 0, 10), guid("G2", 1, 20), guid("G3", 2, 7));
        assertEquals(1, counter("duplicate_messages"));
        String third = "data18_13TeV.00350000.physics_Main.merge.AOD.f900_m2000";
        control(manifest(third, file("K1", 1)));
        engine.onProducerMessage(producerMessage("t1", info(third, url("t"), guid("K1", 0, 1))), "b");
        assertEquals(3, outbox.get(1).dspid());
    }

    /**
     * Issue 30: a signal planned after a start carries every selected file's claim with its run ranges, whether the
     * claims came back from a checkpoint (the candidates as JSON) or from the journal's entries after it; a signal
     * journalled with them comes back with them, from the journal and from a checkpoint; a re-selection after the
     * restarts carries the new winner's. (A replay of the whole journal: the next test and
     * {@code datasetCompleteAtTheCrashButNotYetPlannedIsPlannedOnRecovery}.)
     */
    @Test
    void signalsPlannedAfterARestartCarryTheProducersClaimsWithTheirRunRanges() throws IOException {
        GuidInfo g1 = claim("G1", 0, 10, new EventRange(1, 10));
        GuidInfo g2 = claim("G2", 1, 20, new EventRange(Long.parseUnsignedLong("18446744073709551500"), -1L));
        GuidInfo g3 = claim("G3", 0, 30, new EventRange(100, 129));
        GuidInfo g3Retry = claim("G3", 0, 30, new EventRange(100, 130));
        control(manifest(DATASET, file("G1", 10), file("G2", 20), file("G3", 30)));
        producer("m1", "a", g1, g2);
        assertTrue(engine.checkpoint(1).isPresent());
        producer("m2", "b", g3Retry);
        engine.onControlMessage(Json.write(InvalidateCommand.of(DATASET, url("b"), "test", null)), "c-1");
        restart(); // a from the checkpoint, b and its invalidation from the journal after it
        assertEquals(CollectionState.COLLECTING, view().state());

        producer("m3", "c", g3);
        assertEquals(1, outbox.size());
        ConsumerSignal first = outbox.get(0);
        assertEquals(List.of(List.of(SignalFile.of(g1), SignalFile.of(g2)), List.of(SignalFile.of(g3))),
                first.objects().stream().map(SignalObject::files).toList());
        assertEquals(Map.of("327636", new EventRange(Long.parseUnsignedLong("18446744073709551500"), -1L)),
                first.objects().get(0).files().get(1).runevtRanges(), "uint64 event numbers kept exactly");

        restart(); // planned, not sent: the journalled signal is sent again as it was
        assertEquals(List.of(first), outbox);
        assertTrue(engine.checkpoint(1).isPresent());
        restart(); // the signal back from a checkpoint
        assertEquals(List.of(first), outbox);

        // a re-selection after the restarts: c is invalidated (b was before), a new retry wins G3
        engine.onControlMessage(Json.write(InvalidateCommand.of(DATASET, url("c"), "test", null)), "c-2");
        GuidInfo g3Third = claim("G3", 0, 30, new EventRange(100, 131));
        producer("m4", "d", g3Third);
        ConsumerSignal second = outbox.get(outbox.size() - 1);
        assertTrue(!second.signalId().equals(first.signalId()));
        assertEquals(List.of(List.of(SignalFile.of(g1), SignalFile.of(g2)), List.of(SignalFile.of(g3Third))),
                second.objects().stream().map(SignalObject::files).toList());
    }

    /**
     * A dataset complete at a crash but not yet planned is planned by the recovery after the start, from claims that
     * came back from a checkpoint and from the entries after it: run ranges included.
     */
    @Test
    void aSignalPlannedByTheRecoveryCarriesTheClaimsOfTheCheckpointAndOfTheJournal() throws IOException {
        GuidInfo g1 = claim("G1", 0, 10, new EventRange(1, 10));
        GuidInfo g2 = claim("G2", 0, 20, new EventRange(11, 30));
        control(manifest(DATASET, file("G1", 10), file("G2", 20)));
        producer("m1", "a", g1);
        assertTrue(engine.checkpoint(1).isPresent());
        // the process dies after journalling b's object and before its signal
        journal.append(List.of(new JournalEvent.ObjectReported("m2", info(DATASET, url("b"), g2))), clock.millis());
        restart();

        assertEquals(1, outbox.size());
        assertEquals(List.of(List.of(SignalFile.of(g1)), List.of(SignalFile.of(g2))),
                outbox.get(0).objects().stream().map(SignalObject::files).toList());
    }

    private static GuidInfo claim(String guid, int fileno, long nevents, EventRange range) {
        return new GuidInfo(guid, fileno, nevents, nevents, 1, 2, "f838", "physics_Main", "data17_13TeV",
                Map.of("327636", range));
    }

    @Test
    void datasetCompleteAtTheCrashButNotYetPlannedIsPlannedOnRecovery() throws IOException {
        journal.append(List.of(
                new JournalEvent.ManifestRegistered(manifest(DATASET, file("G1", 10))),
                new JournalEvent.ObjectReported("m1", info(DATASET, url("a"), guid("G1", 0, 10)))), clock.millis());
        restart();

        assertEquals(1, outbox.size());
        assertEquals(CollectionState.SIGNAL_PLANNED, view().state());
        assertEquals(List.of(SignalFile.of(guid("G1", 0, 10))), outbox.get(0).objects().get(0).files(),
                "the claim replayed from the journal, run ranges included");
        String id = outbox.get(0).signalId();
        restart();
        assertEquals(id, outbox.get(0).signalId());
    }

    @Test
    void badMessagesAreJournalledCountedAndQuarantined() throws IOException {
        engine.onProducerMessage("{".getBytes(StandardCharsets.UTF_8), "broker-7");
        engine.onProducerMessage(producerMessage("m1", info(DATASET, "s3://h:1/elsewhere/k", guid("G1", 0, 1))), "b");

        List<JournalEntry> entries = new ArrayList<>();
        journal.close();
        Journal.open(dir, entries::add).close();
        open();
        List<String> reasons = entries.stream().map(JournalEntry::event)
                .map(e -> ((JournalEvent.MessageRejected) e).reason()).toList();
        assertEquals(List.of("BAD_JSON", "WRONG_BUCKET"), reasons);
        assertEquals(List.of("broker-7", "m1"), quarantined.stream().map(Rejection::messageId).toList());
        assertTrue(engine.dataset(DATASET).isEmpty());
    }

    @Test
    void failingQuarantineDoesNotFailTheMessage() throws IOException {
        SupervisorState state = new SupervisorState();
        journal.close();
        journal = Journal.open(dir, state::apply);
        registry = new PrometheusRegistry();
        engine = new SupervisorEngine(journal, state, new MessageValidator(BUCKET), outbox::add,
                (q, r, b) -> { throw new IOException("broker down"); }, new SupervisorMetrics(registry), clock,
                new EpochPolicy(1, 1_000_000_000L), new HandOffPolicy(HAND_OFF), 1 << 20, PRODUCER_Q, CONTROL_Q);

        engine.onControlMessage("nonsense".getBytes(StandardCharsets.UTF_8), "b");

        assertEquals(1, counter("rejected"));
        assertEquals(1, rejected(RejectReason.BAD_JSON));
        assertEquals(1, counter("quarantine_failures"));
    }

    @Test
    void manifestThatGrowsAfterTheSignalSupersedesItAndSignalsTheBiggerSetWithANewId() throws IOException {
        control(manifest(DATASET, file("G1", 10), file("G2", 20)));
        control(manifest(DATASET, file("G1", 10)));
        assertEquals(1, view().expectedFiles());
        long seq = journal.lastSeq();
        control(manifest(DATASET, file("G1", 10)));
        assertEquals(seq, journal.lastSeq());

        producer("m1", "a", guid("G1", 0, 10));
        assertEquals(1, outbox.size());
        ConsumerSignal first = outbox.get(0);
        control(manifest(DATASET, file("G1", 10), file("G2", 20)));

        assertEquals(List.of(), quarantined);
        assertEquals(CollectionState.COLLECTING, view().state());
        assertEquals(List.of(first.signalId()), view().supersededSignals());
        assertEquals(1, outbox.size(), "not signalled again until the new file has an object");
        control(Fixtures.done(first.signalId(), DATASET, 10));
        assertEquals(CollectionState.COLLECTING, view().state(), "a report for the superseded signal is ignored");

        clock.advance(Duration.ofSeconds(-30)); // the clock may even go back (NTP step)
        producer("m2", "b", guid("G2", 0, 20));
        assertEquals(2, outbox.size());
        ConsumerSignal second = outbox.get(1);
        assertTrue(!second.signalId().equals(first.signalId()));
        assertTrue(second.ts() > first.ts(), "a re-selection is newer than the signal it supersedes (consumers"
                + " refuse older selections): " + first.ts() + " then " + second.ts());
        assertEquals(first.dspid(), second.dspid());
        assertEquals(first.epoch(), second.epoch());
        assertEquals(30, second.expectedEvents());
        restart();
        assertEquals(second.signalId(), view().signalId());
        assertEquals(List.of(second), outbox, "planned, not yet sent: sent again after restart");

        // the order survives a restart: the journal rebuilds the dataset's latest signal time
        control(manifest(DATASET, file("G1", 10), file("G2", 20), file("G3", 5)));
        producer("m3", "c", guid("G3", 0, 5));
        ConsumerSignal third = outbox.get(outbox.size() - 1);
        assertEquals(35, third.expectedEvents());
        assertTrue(third.ts() > second.ts(), second.ts() + " then " + third.ts());
    }

    @Test
    void summaryListsEveryDataset() throws IOException {
        producer("m1", "a", guid("G1", 0, 10));
        DatasetSummary s = DatasetSummary.of(view());
        assertEquals(DATASET, s.name());
        assertEquals(CollectionState.COLLECTING, s.state());
        assertNull(s.dspid());
        assertEquals(1, engine.datasets().size());
        DatasetManifest m = manifest(OTHER, file("H1", 1));
        control(m);
        assertEquals(List.of(DATASET, OTHER), engine.datasets().stream().map(DatasetView::name).toList());
    }
}
