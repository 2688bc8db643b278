package org.eventindex.supervisor;

import org.eventindex.message.ConsumerReport;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.DatasetManifest;
import org.eventindex.message.EventRange;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.Json;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.supervisor.journal.JournalEvent;
import org.eventindex.testing.ManualClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.info;
import static org.eventindex.supervisor.Fixtures.manifest;
import static org.eventindex.supervisor.Fixtures.producerMessage;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A checkpoint holds exactly the journal fold, and a replay that brings the datasets' COLLECTING/HELD states up to
 * date only at its end ends in the same state: a seeded random history of every kind of message (retries, re-sent
 * messages, growing manifests, reports DONE and FAILED (transient, permanent and internal), leases, re-signals,
 * invalidations, deletions that retire datasets, bad messages), with checkpoints at random points, rebuilds the same
 * state, field by field, in three ways: the engine that lived through it, a start from the last checkpoint and the journal after it, and a replay of every
 * entry (the archived segments and the journal, no checkpoint).
 */
class StateCheckpointTest {
    private static final int DATASETS = 6;
    private static final int FILES = 3;
    private static final int STEPS = 600;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-03-01T00:00:00Z"));
    private final List<ConsumerSignal> outbox = new ArrayList<>();
    private final Map<String, List<String>> urls = new LinkedHashMap<>();

    private SupervisorEngine engine(Journal journal, SupervisorState state) {
        return new SupervisorEngine(journal, state, new MessageValidator(Fixtures.BUCKET), outbox::add,
                Quarantine.NONE, new SupervisorMetrics(new PrometheusRegistry()), clock, new EpochPolicy(1, 2_000),
                new HandOffPolicy(SupervisorEngineTest.HAND_OFF), 1 << 20, "/queue/p", "/queue/c");
    }

    private static String dataset(int d) {
        return "data17_13TeV.0032763" + d + ".physics_Main.merge.AOD.f838_m1824";
    }

    private static String g(int d, int f) {
        return String.format("6A3B%04d-0000-0000-0000-%012d", d, f);
    }

    @Test
    void checkpointPlusTailAndFullReplayRebuildTheStateTheEngineLivedThrough() throws IOException {
        Path journalDir = dir.resolve("journal");
        SupervisorState lived = new SupervisorState();
        int checkpoints = 0;
        try (Journal journal = Journal.open(journalDir, 1000, StateCheckpoint.restoreInto(lived), lived::apply)) {
            SupervisorEngine engine = engine(journal, lived);
            Random random = new Random(20261125L);
            for (int step = 0; step < STEPS; step++) {
                step(engine, random);
                if (random.nextInt(40) == 0 && engine.checkpoint(1).isPresent()) {
                    checkpoints++;
                }
            }
            // an internal error waiting for an operator in the last checkpoint (the random history may end without)
            String held = engine.read(st -> st.all().stream().filter(d -> d.state == CollectionState.SIGNALLED)
                    .map(d -> d.name).findFirst().orElseThrow());
            engine.onControlMessage(Json.write(Fixtures.failedInternally(current(engine, held).signalId(), held,
                    "NullPointerException")), "c-report");
            assertTrue(engine.checkpoint(1).isPresent(), "entries after the last random checkpoint");
            checkpoints++;
            while (journal.entriesSinceCheckpoint() < 10) {
                step(engine, random);
            }
        }
        assertTrue(checkpoints >= 5, "checkpoints taken: " + checkpoints);
        assertTrue(lived.retired().size() >= 2, "datasets retired: " + lived.retired().size());
        assertTrue(lived.all().stream().anyMatch(d -> !d.supersededSignals.isEmpty()), "a superseded signal");
        assertTrue(lived.all().stream().anyMatch(d -> !d.invalidObjects.isEmpty()), "an invalid object");
        assertTrue(lived.all().stream().anyMatch(d -> !d.lateObjects.isEmpty()), "a late object");
        assertTrue(lived.all().stream().anyMatch(d -> !d.lateConflicts.isEmpty()), "a late object that disagrees");
        assertTrue(lived.all().stream().anyMatch(d -> d.automaticResignals > 0), "a lease or retry");
        assertTrue(lived.all().stream().anyMatch(d -> d.lastReport != null && d.lastReport.permanent()),
                "a permanent failure");
        assertTrue(lived.all().stream().anyMatch(d -> d.lastReport != null && d.lastReport.internal()),
                "an internal error");
        assertTrue(lived.rejectedMessages() > 0 && !lived.consumers().views().isEmpty(), "rejections, reports");
        assertTrue(!lived.history().minutes(0).isEmpty() && !lived.history().datasets(10).isEmpty(),
                "a history of the console's plots");

        SupervisorState restored = new SupervisorState();
        try (Journal j = Journal.open(journalDir, 1000, StateCheckpoint.restoreInto(restored), restored::apply)) {
            assertTrue(j.replaySummary().checkpointSeq() > 0 && j.replaySummary().entries() > 0, "" + j.replaySummary());
        }
        assertSameState(lived, restored, "checkpoint + tail");

        Path full = Files.createDirectory(dir.resolve("full"));
        Path concatenated = full.resolve(Journal.FILE_NAME);
        try (Stream<Path> files = Files.list(journalDir)) {
            for (Path segment : files.filter(p -> p.getFileName().toString().matches("supervisor\\.journal\\.\\d+"))
                    .sorted().toList()) {
                Files.write(concatenated, Files.readAllBytes(segment), StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            }
        }
        Files.write(concatenated, Files.readAllBytes(journalDir.resolve(Journal.FILE_NAME)), StandardOpenOption.APPEND);
        SupervisorState replayed = new SupervisorState();
        Journal.open(full, replayed::apply).close();
        assertSameState(lived, replayed, "full replay");

        // as a start replays: the COLLECTING/HELD states brought up to date once, at the end
        SupervisorState started = new SupervisorState();
        started.beginReplay();
        Journal.open(journalDir, 1000, StateCheckpoint.restoreInto(started), started::apply).close();
        started.endReplay();
        assertSameState(lived, started, "checkpoint + tail, replay mode");
        SupervisorState startedFull = new SupervisorState();
        startedFull.beginReplay();
        Journal.open(full, startedFull::apply).close();
        startedFull.endReplay();
        assertSameState(lived, startedFull, "full replay, replay mode");
    }

    /**
     * Event numbers are uint64: a producer message with 2^63 + 199 and 2^64 - 1 (unsigned decimals, as the
     * experiment's producer writes them) is recorded, journaled, checkpointed and replayed exactly; a journal written
     * before, holding the same numbers in the signed form, replays to the same state.
     */
    @Test
    void eventNumbersOf2To63AndAboveAreJournaledAndReplayedExactly() throws IOException {
        String unsigned = "[9223372036854776007,18446744073709551615]";
        EventRange expected = new EventRange(Long.parseUnsignedLong("9223372036854776007"), -1L);
        Path journalDir = dir.resolve("journal");
        SupervisorState lived = new SupervisorState();
        try (Journal journal = Journal.open(journalDir, 1000, StateCheckpoint.restoreInto(lived), lived::apply)) {
            SupervisorEngine engine = engine(journal, lived);
            for (int d = 0; d < 2; d++) {
                String body = new String(producerMessage("big-" + d, info(dataset(d), url("4000001." + (d + 1)),
                        guid(g(d, 0), 0, 100))), StandardCharsets.UTF_8).replace("[1,1000]", unsigned);
                assertTrue(body.contains(unsigned), body);
                engine.onProducerMessage(body.getBytes(StandardCharsets.UTF_8), "b-" + d);
                if (d == 0) {
                    assertTrue(engine.checkpoint(1).isPresent());
                }
            }
        }
        for (int d = 0; d < 2; d++) {
            TrackedDataset r = lived.find(dataset(d)).orElseThrow(() -> new AssertionError("not recorded"));
            assertEquals(Map.of("327636", expected), r.candidates.get(0).guids().get(0).runevtRanges());
        }
        String journalText = Files.readString(journalDir.resolve(Journal.FILE_NAME));
        assertTrue(journalText.contains(unsigned), "unsigned decimals in the journal: " + journalText);

        SupervisorState restored = new SupervisorState();
        Journal.open(journalDir, 1000, StateCheckpoint.restoreInto(restored), restored::apply).close();
        assertSameState(lived, restored, "checkpoint + tail");

        // a journal of before: the same numbers as signed longs, replayed from its start
        Path old = Files.createDirectory(dir.resolve("old"));
        String signed = wholeJournal(journalDir).replace(unsigned, "[-9223372036854775609,-1]");
        assertTrue(!signed.contains(unsigned) && signed.contains("-9223372036854775609"), signed);
        Files.writeString(old.resolve(Journal.FILE_NAME), signed);
        SupervisorState replayed = new SupervisorState();
        Journal.open(old, replayed::apply).close();
        assertSameState(lived, replayed, "signed journal");
    }

    /**
     * A different object under a recorded message id is refused as MESSAGE_ID_CONFLICT (journaled); the state after
     * it, and the message ids kept with the objects, come back the same from a checkpoint and from a full replay.
     */
    @Test
    void messageIdConflictsReplayToTheSameState() throws IOException {
        Path journalDir = dir.resolve("journal");
        SupervisorState lived = new SupervisorState();
        String name = dataset(0);
        try (Journal journal = Journal.open(journalDir, 1000, StateCheckpoint.restoreInto(lived), lived::apply)) {
            SupervisorEngine engine = engine(journal, lived);
            engine.onProducerMessage(producerMessage("m1", info(name, url("4000001.1"), guid(g(0, 0), 0, 100))), "b1");
            engine.onProducerMessage(producerMessage("m1", info(name, url("4000001.1"), guid(g(0, 0), 0, 100))), "b2");
            engine.onProducerMessage(producerMessage("m1", info(name, url("4000002.1"), guid(g(0, 0), 0, 100))), "b3");
            assertTrue(engine.checkpoint(1).isPresent());
            engine.onProducerMessage(producerMessage("m2", info(name, url("4000003.1"), guid(g(0, 1), 0, 100))), "b4");
            engine.onProducerMessage(producerMessage("m2", info(dataset(1), url("4000004.1"), guid(g(1, 0), 0, 5))),
                    "b5");
            engine.onProducerMessage(producerMessage("m1", info(name, url("4000005.1"), guid(g(0, 0), 0, 100))), "b6");
        }
        assertEquals(3, lived.rejectedMessages());
        assertEquals(2, lived.find(name).orElseThrow().objectsReported());
        assertEquals(url("4000001.1"), lived.recordedMessage("m1").orElseThrow().object().url());

        SupervisorState restored = assertCheckpointAndFullReplayRebuild(lived, journalDir);
        assertEquals(lived.recordedMessage("m1"), restored.recordedMessage("m1"));
    }

    /** A start from the last checkpoint and a replay of every entry rebuild {@code lived}; returns the first. */
    private SupervisorState assertCheckpointAndFullReplayRebuild(SupervisorState lived, Path journalDir)
            throws IOException {
        SupervisorState restored = new SupervisorState();
        Journal.open(journalDir, 1000, StateCheckpoint.restoreInto(restored), restored::apply).close();
        assertSameState(lived, restored, "checkpoint + tail");
        Path full = Files.createDirectory(dir.resolve("full"));
        Files.writeString(full.resolve(Journal.FILE_NAME), wholeJournal(journalDir));
        SupervisorState replayed = new SupervisorState();
        Journal.open(full, replayed::apply).close();
        assertSameState(lived, replayed, "full replay");
        return restored;
    }

    /**
     * Operator deletions (a live dataset with objects, one never signalled) and the answers of operator requests come
     * back the same from a checkpoint and from a full replay; the cleanup's deletion of a deleted dataset's objects
     * empties its tombstone's list, and messages naming it are refused.
     */
    @Test
    void deletedDatasetsAndAnswersReplayToTheSameState() throws IOException {
        Path journalDir = dir.resolve("journal");
        SupervisorState lived = new SupervisorState();
        String name = dataset(0);
        try (Journal journal = Journal.open(journalDir, 1000, StateCheckpoint.restoreInto(lived), lived::apply)) {
            SupervisorEngine engine = engine(journal, lived);
            engine.onProducerMessage(producerMessage("m1", info(name, url("4000001.1"), guid(g(0, 0), 0, 100))), "b1");
            OperatorAnswer deleted = engine.onControlMessage(Json.write(DeleteCommand.of(name, "bad data")), "c1",
                    "r1");
            assertEquals(OperatorAnswer.OK, deleted.outcome(), deleted.detail());
            assertTrue(deleted.detail().contains("1 objects left for the cleanup"), deleted.detail());
            assertTrue(engine.checkpoint(1).isPresent());
            assertEquals("UNKNOWN_DATASET", engine.onControlMessage(Json.write(DeleteCommand.of(dataset(1), null)),
                    "c2", "r2").outcome());
            engine.onProducerMessage(producerMessage("m2", info(name, url("4000002.1"), guid(g(0, 0), 0, 100))), "b2");
            assertEquals(deleted, engine.onControlMessage(Json.write(DeleteCommand.of(name, "again")), "c3", "r1"));
            engine.onObjectsDeleted(name, List.of(url("4000001.1")));
            // a rebuild-state's entry (decision 0054), before a checkpoint and after it
            journal.append(List.of(new JournalEvent.StateReconciled(5, List.of("k1"), 40, "test")), 6)
                    .forEach(lived::apply);
            assertTrue(engine.checkpoint(1).isPresent());
            journal.append(List.of(new JournalEvent.StateReconciled(7, List.of("k2"), 41, "test")), 8)
                    .forEach(lived::apply);
        }
        assertEquals(List.of("k2"), lived.reconciliation().orElseThrow().undecidedObjects());
        assertEquals(41, lived.lastDspid(), "the floor of Kudu's dspids");
        assertEquals(List.of(), lived.lookup(name).deleted().orElseThrow().objectsLeft());
        assertTrue(lived.find(name).isEmpty(), "no live record after the delete");
        assertEquals(2, lived.rejectedMessages(), "the refused delete and the late object of the deleted dataset");
        assertEquals("UNKNOWN_DATASET", lived.answer("r2").orElseThrow().outcome());
        assertCheckpointAndFullReplayRebuild(lived, journalDir);
    }

    /**
     * delete-dataset's steps: left in the tombstone until reported done, with the command that finishes them and who
     * asked, the same after a checkpoint and after a full replay.
     */
    @Test
    void theStepsADeleteHasLeftAndWhoAskedReplayToTheSameState() throws IOException {
        Path journalDir = dir.resolve("journal-steps");
        SupervisorState lived = new SupervisorState();
        String name = dataset(0);
        DeleteCommand.Where where = new DeleteCommand.Where("mq.example:61614", "hdfs://ns1", "/eventindex/datasets",
                "km1:7051,km2:7051", "", "/etc/hadoop/conf");
        Issuer alice = new Issuer("operator", "alice", null);
        try (Journal journal = Journal.open(journalDir, 1000, StateCheckpoint.restoreInto(lived), lived::apply)) {
            SupervisorEngine engine = engine(journal, lived);
            engine.onProducerMessage(producerMessage("m1", info(name, url("4000001.1"), guid(g(0, 0), 0, 100))), "b1");
            OperatorAnswer deleted = engine.onControlMessage(Json.write(DeleteCommand.start(name, "bad data", where)),
                    "c1", "r1", alice);
            assertTrue(deleted.detail().endsWith("; steps left to delete-dataset: HDFS_FILE, KUDU_ROWS"),
                    deleted.detail());
            DeletedDataset t = lived.lookup(name).deleted().orElseThrow();
            assertEquals(List.of("HDFS_FILE", "KUDU_ROWS"), t.stepsLeft());
            assertEquals("eventindex supervisor delete-dataset --brokers mq.example:61614 --dataset " + name
                    + " --hdfs-uri hdfs://ns1 --hdfs-root /eventindex/datasets --kudu-masters km1:7051,km2:7051"
                    + " --hadoop-conf-dir /etc/hadoop/conf --yes", t.finishWith());
            assertTrue(engine.checkpoint(1).isPresent());

            OperatorAnswer hdfs = engine.onControlMessage(Json.write(DeleteCommand.finished(name,
                    List.of(DeleteCommand.Step.HDFS_FILE))), "c2", "r2", alice);
            assertEquals("dataset " + name + ": HDFS_FILE done; left: its Kudu rows, 1 objects (the cleanup deletes"
                    + " them)", hdfs.detail());
            assertEquals(OperatorAnswer.BAD_REQUEST, engine.onControlMessage(("{\"type\":\"delete\",\"dataset\":\""
                    + name + "\",\"finished\":[\"EVERYTHING\"]}").getBytes(StandardCharsets.UTF_8), "c3", "r3",
                    alice).outcome());
            assertEquals("UNKNOWN_DATASET", engine.onControlMessage(Json.write(DeleteCommand.finished(dataset(1),
                    List.of(DeleteCommand.Step.KUDU_ROWS))), "c4", "r4", alice).outcome());
        }
        assertEquals(List.of("KUDU_ROWS"), lived.lookup(name).deleted().orElseThrow().stepsLeft());
        JournalEvent.RequestAnswered answered = lived.answer("r1").orElseThrow();
        assertEquals("operator", answered.brokerLogin());
        assertEquals("alice", answered.claimedUser());
        assertCheckpointAndFullReplayRebuild(lived, journalDir);
    }

    /** Every entry ever journaled in {@code journalDir}: its archived segments, then its journal. */
    private static String wholeJournal(Path journalDir) throws IOException {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.list(journalDir)) {
            for (Path segment : files.filter(p -> p.getFileName().toString().matches("supervisor\\.journal\\.\\d+"))
                    .sorted().toList()) {
                all.append(Files.readString(segment));
            }
        }
        return all.append(Files.readString(journalDir.resolve(Journal.FILE_NAME))).toString();
    }

    /** One random thing happening to the supervisor. */
    /** Whether a FAILED report is permanent: drawn apart, so that the history's other draws stay as they were. */
    private final Random permanence = new Random(19L);
    /** Whether a FAILED report that is not permanent is an internal error, drawn apart for the same reason. */
    private final Random internal = new Random(34L);

    private void step(SupervisorEngine engine, Random random) throws IOException {
        int d = random.nextInt(DATASETS);
        String name = dataset(d);
        switch (random.nextInt(12)) {
            case 0, 1, 2 -> {
                // a job over some of the dataset's files; a job that stopped midway reports fewer events
                String job = (4_000_000 + random.nextInt(1_000_000)) + "." + (1 + random.nextInt(3));
                List<GuidInfo> claims = new ArrayList<>();
                for (int f = 0; f < FILES; f++) {
                    if (random.nextInt(3) > 0) {
                        claims.add(guid(g(d, f), claims.size(), random.nextInt(8) == 0 ? 5 : 100 + f));
                    }
                }
                if (claims.isEmpty()) {
                    claims.add(guid(g(d, 0), 0, 100));
                }
                String id = "m-" + d + "-" + job;
                byte[] body = producerMessage(id, info(name, url(job), claims.toArray(GuidInfo[]::new)));
                engine.onProducerMessage(body, "b-" + id);
                urls.computeIfAbsent(name, k -> new ArrayList<>()).add(url(job));
                if (random.nextInt(4) == 0) {
                    engine.onProducerMessage(body, "b-" + id + "-again");
                }
            }
            case 3 -> {
                List<DatasetManifest.ManifestFile> files = new ArrayList<>();
                int n = random.nextInt(4) == 0 ? FILES - 1 : FILES;
                for (int f = 0; f < n; f++) {
                    files.add(file(g(d, f), random.nextInt(6) == 0 ? -1 : 100 + f));
                }
                engine.onControlMessage(Json.write(manifest(name, files.toArray(DatasetManifest.ManifestFile[]::new))),
                        "c-manifest");
            }
            case 4, 5 -> {
                if (!outbox.isEmpty()) {
                    engine.onSignalSent(outbox.remove(random.nextInt(outbox.size())));
                }
            }
            case 6, 7 -> {
                ConsumerSignal s = current(engine, name);
                if (s != null) {
                    ConsumerReport r;
                    if (random.nextInt(3) != 0) {
                        r = Fixtures.done(s.signalId(), name, s.expectedEvents());
                    } else if (permanence.nextBoolean()) {
                        r = Fixtures.failedPermanently(s.signalId(), name, "object missing");
                    } else if (internal.nextBoolean()) {
                        r = Fixtures.failedInternally(s.signalId(), name, "NullPointerException");
                    } else {
                        r = Fixtures.failed(s.signalId(), name, "HDFS unavailable");
                    }
                    engine.onControlMessage(Json.write(r), "c-report");
                }
            }
            case 8 -> {
                List<String> known = urls.getOrDefault(name, List.of());
                if (!known.isEmpty() && random.nextInt(3) == 0) {
                    engine.onControlMessage(Json.write(InvalidateCommand.of(name,
                            known.get(random.nextInt(known.size())), "truncated", "consumer-2")), "c-invalidate");
                } else {
                    engine.onControlMessage(Json.write(ResignalCommand.of(name)), "c-resignal");
                }
            }
            case 9 -> {
                clock.advance(Duration.ofMinutes(random.nextInt(90)));
                engine.tick();
            }
            case 10 -> {
                // what the cleanup does once a DONE dataset's retention is over
                List<String> due = engine.read(st -> st.find(name)
                        .filter(r -> r.state == CollectionState.DONE)
                        .map(r -> r.urls.stream().filter(u -> !r.deletedObjects.contains(u)).sorted().toList())
                        .orElse(List.of()));
                if (!due.isEmpty() && random.nextInt(3) == 0) {
                    engine.onObjectsDeleted(name, random.nextInt(4) == 0 ? due.subList(0, 1) : due);
                }
            }
            default -> engine.onProducerMessage("{\"type\":1".getBytes(StandardCharsets.UTF_8), "b-bad");
        }
    }

    private static ConsumerSignal current(SupervisorEngine engine, String name) {
        return engine.read(st -> st.find(name).filter(TrackedDataset::signalled).map(r -> r.signal).orElse(null));
    }

    /** Every field of the state, recursively through its own classes; everything else by {@code equals}. */
    static void assertSameState(Object expected, Object actual, String path) {
        if (expected == null || actual == null) {
            assertEquals(expected, actual, path);
            return;
        }
        Class<?> c = expected.getClass();
        if (Set.of(SupervisorState.class, TrackedDataset.class, ConsumerStats.class).contains(c)) {
            assertEquals(c, actual.getClass(), path);
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                if (c == TrackedDataset.class && Set.of("stateSince", "stateSinceOf").contains(f.getName())) {
                    // noted at state changes since the start, not kept by checkpoints: a restored dataset counts
                    // its time in the state from the times that are (DatasetAgesTest)
                    continue;
                }
                if (f.getType() == LiveSelection.class) {
                    // a cache derived from the dataset's other fields: compared through what it gives
                    assertEquals(((TrackedDataset) expected).selection(), ((TrackedDataset) actual).selection(),
                            path + ".selection()");
                    continue;
                }
                f.setAccessible(true);
                try {
                    assertSameState(f.get(expected), f.get(actual), path + "." + f.getName());
                } catch (IllegalAccessException e) {
                    throw new AssertionError("cannot read " + path + "." + f.getName(), e);
                }
            }
        } else if (expected instanceof Map<?, ?> m) {
            Map<?, ?> other = (Map<?, ?>) actual;
            assertEquals(m.keySet(), other.keySet(), path + " keys");
            m.forEach((k, v) -> assertSameState(v, other.get(k), path + "[" + k + "]"));
        } else if (expected instanceof List<?> l) {
            List<?> other = (List<?>) actual;
            assertEquals(l.size(), other.size(), path + " size");
            for (int i = 0; i < l.size(); i++) {
                assertSameState(l.get(i), other.get(i), path + "[" + i + "]");
            }
        } else {
            assertEquals(expected, actual, path);
        }
    }
}
