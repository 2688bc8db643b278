package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.GuidInfo;
import org.eventindex.message.SignalObject;
import org.eventindex.spb.SpbSummary;
import org.eventindex.supervisor.journal.JournalEntry;
import org.eventindex.supervisor.journal.JournalEvent;
import org.eventindex.testing.ManualClock;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.eventindex.supervisor.Fixtures.BUCKET;
import static org.eventindex.supervisor.Fixtures.DATASET;
import static org.eventindex.supervisor.Fixtures.TASK_ID;
import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.info;
import static org.eventindex.supervisor.Fixtures.key;
import static org.eventindex.supervisor.Fixtures.manifest;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The decisions of {@code rebuild-state} on a journal's state, with hand-written bucket, Kudu/HDFS and catalogue. */
class StateRebuildTest {
    private static final String OTHER = "data18_13TeV.00350000.physics_Main.merge.AOD.f900_m2000";
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-06T12:00:00Z"));
    private final SupervisorState state = new SupervisorState();
    private final Map<String, StateRebuild.StoredObject> bucket = new LinkedHashMap<>();
    private final Map<String, StateRebuild.LoadRow> rows = new HashMap<>();
    private final Map<String, StateRebuild.LoadFile> files = new HashMap<>();
    private final Map<String, List<Catalogue.File>> catalogue = new HashMap<>();
    private int maxDspid;
    private long seq;

    @Test
    void aLostJournalIsRebuiltFromTheBucketKuduAndHdfs() throws IOException {
        put(DATASET, "job1", guid("G1", 0, 10));
        put(DATASET, "job2", guid("G2", 0, 20));
        put(DATASET, "job3", guid("G1", 0, 10)); // a duplicate of G1, not selected
        loaded(DATASET, "sig-1", 7, 2, 30);
        files.put(DATASET, new StateRebuild.LoadFile("/eventindex/datasets/x/" + DATASET + ".parquet", "sig-1",
                List.of(new StateRebuild.LoadFileEntry("G1", url("job1"), 10),
                        new StateRebuild.LoadFileEntry("G2", url("job2"), 20))));
        maxDspid = 9;

        StateRebuild.Result r = rebuild(null);

        assertEquals(List.of(), r.undecided());
        assertEquals(3, r.objectsRecorded());
        assertEquals(1, r.signalsRebuilt());
        TrackedDataset d = state.find(DATASET).orElseThrow();
        assertEquals(CollectionState.DONE, d.state);
        assertEquals(List.of("sig-1", 7, 2), List.of(d.signal.signalId(), d.dspid, d.epoch), "Kudu's placement");
        assertEquals(List.of(url("job1"), url("job2")), d.signal.objects().stream().map(SignalObject::url).toList(),
                "the objects the file was built from, in its order");
        assertEquals(30, d.signal.expectedEvents());
        assertEquals(3, d.urls.size(), "every object is the dataset's: the cleanup deletes them with it");
        assertEquals(9, state.lastDspid(), "no new dataset gets a dspid Kudu holds");
        assertEquals(2, state.currentEpoch());
        assertTrue(state.recordedMessage(StateRebuild.MESSAGE_ID_PREFIX + key("job1")).isPresent());
        Reconciliation rec = state.reconciliation().orElseThrow();
        assertEquals(clock.millis(), rec.listedAt());
        assertEquals(List.of(), rec.undecidedObjects());

        StateRebuild.Result again = rebuild(null);
        assertEquals(List.of(0, 0, 3), List.of(again.objectsRecorded(), again.signalsRebuilt(), again.objectsKnown()),
                "a second run finds everything recorded");
    }

    @Test
    void anOlderJournalGetsTheObjectsAndReportsItMissed() throws IOException {
        // the backup knew DATASET signalled, and OTHER collecting with one object of two
        journal(new JournalEvent.ManifestRegistered(manifest(DATASET, file("G1", 10))));
        journal(new JournalEvent.ObjectReported("m1", info(DATASET, url("job1"), guid("G1", 0, 10))));
        ConsumerSignal s = new ConsumerSignal(ConsumerSignal.TYPE, "sig-a", DATASET, Fixtures.CONTAINER, 3, 1,
                List.of(new SignalObject(url("job1"), 1000, List.of("G1"), 10)), 10, 5);
        journal(new JournalEvent.SignalPlanned(s));
        journal(new JournalEvent.SignalSent(DATASET, "sig-a"));
        journal(new JournalEvent.ManifestRegistered(manifest(OTHER, file("H1", 10), file("H2", 10))));
        journal(new JournalEvent.ObjectReported("m2", info(OTHER, url("job5"), guid("H1", 0, 10))));
        put(DATASET, "job1", guid("G1", 0, 10));
        put(OTHER, "job5", guid("H1", 0, 10));
        put(OTHER, "job6", guid("H2", 0, 10)); // acknowledged after the backup
        loaded(DATASET, "sig-a", 3, 1, 10);
        maxDspid = 3;

        StateRebuild.Result r = rebuild(null);

        assertEquals(List.of(), r.undecided());
        assertEquals(List.of(2, 1, 0), List.of(r.objectsKnown(), r.objectsRecorded(), r.signalsRebuilt()));
        assertEquals(CollectionState.DONE, state.find(DATASET).orElseThrow().state, "the report it missed");
        TrackedDataset other = state.find(OTHER).orElseThrow();
        assertEquals(2, other.candidates.size());
        assertEquals(CollectionState.COLLECTING, other.state,
                "complete again: the supervisor signals it at its start (a selection is not taken offline)");
        assertTrue(other.selection().complete());
    }

    @Test
    void whatCannotBeDecidedIsListedAndKeptAndOrphansOfFinishedDatasetsAreNot() throws IOException {
        journal(new JournalEvent.DatasetDeleted(OTHER, "test"));
        bucket.put("not-a-producer-object", new StateRebuild.StoredObject(Map.of(), summary(DATASET, "x")));
        put(OTHER, "job5", guid("H1", 0, 10)); // of a deleted dataset: an orphan
        put(DATASET, "job1", guid("G1", 0, 10)); // no file list, no catalogue entry, not in Kudu
        String third = "data18_13TeV.00350001.physics_Main.merge.AOD.f900_m2000";
        put(third, "job7", guid("K1", 0, 10)); // loaded, but its HDFS file is gone
        loaded(third, "sig-k", 4, 1, 10);
        rows.put(OTHER, new StateRebuild.LoadRow(OTHER, 2, 1, "LOADED", "sig-o", "/x", 1, 10));

        StateRebuild.Result r = rebuild(name -> Optional.empty());

        List<String> lines = r.undecided().stream().map(StateRebuild.Undecided::line).toList();
        assertEquals(4, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("object not-a-producer-object: no producer metadata"), lines.get(0));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("dataset " + OTHER + ": deleted in the journal but Kudu"
                + " DATASETS still holds it")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("dataset " + third + ": Kudu holds load sig-k but HDFS"
                + " has no file of it")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("dataset " + DATASET + ": no file list")),
                lines.toString());
        assertEquals(1, r.objectsOfFinishedDatasets());
        assertEquals(CollectionState.DONE, state.find(third).orElseThrow().state, "Kudu says it is loaded");
        assertEquals(List.of("not-a-producer-object"), state.reconciliation().orElseThrow().undecidedObjects());
        assertEquals(null, Reconciliation.keepReason(state.reconciliation().get(), java.util.Set.of(),
                key("job5"), clock.millis() - Reconciliation.MARGIN_MILLIS - 1), "an orphan listed by the reconciliation may go");
        assertTrue(Reconciliation.keepReason(state.reconciliation().get(), java.util.Set.of(), key("job5"),
                clock.millis() - Reconciliation.MARGIN_MILLIS).startsWith("written after the last reconciliation"));
    }

    @Test
    void aDatasetWithoutFileListGetsTheCatalogues() throws IOException {
        put(DATASET, "job1", guid("G1", 0, 10));
        catalogue.put(DATASET, List.of(new Catalogue.File("f1", "G1", 10, 100)));
        StateRebuild.Result r = rebuild(name -> Optional.ofNullable(catalogue.get(name.toString())));
        assertEquals(List.of(), r.undecided());
        assertEquals(1, r.fileListsAdded());
        assertTrue(state.find(DATASET).orElseThrow().selection().complete());
    }

    @Test
    void aReportForAnUnknownSignalIsNotInvented() throws IOException {
        journal(new JournalEvent.ManifestRegistered(manifest(DATASET, file("G1", 10))));
        journal(new JournalEvent.ObjectReported("m1", info(DATASET, url("job1"), guid("G1", 0, 10))));
        put(DATASET, "job1", guid("G1", 0, 10));
        rows.put(DATASET, new StateRebuild.LoadRow(DATASET, 5, 1, "LOADING", "sig-x", "/x", 1, 0));
        StateRebuild.Result r = rebuild(null);
        assertEquals(0, r.signalsRebuilt(), "a load in progress is replaced by the supervisor's next signal");
        assertEquals(CollectionState.COLLECTING, state.find(DATASET).orElseThrow().state);
        assertEquals(List.of(), r.undecided());
    }

    private StateRebuild.Result rebuild(Catalogue cat) throws IOException {
        StateRebuild.Loads loads = new StateRebuild.Loads() {
            @Override
            public Optional<StateRebuild.LoadRow> row(String dataset) {
                return Optional.ofNullable(rows.get(dataset));
            }

            @Override
            public int maxDspid() {
                return maxDspid;
            }

            @Override
            public Optional<StateRebuild.LoadFile> file(String dataset) {
                return Optional.ofNullable(files.get(dataset));
            }
        };
        StateRebuild.Bucket b = new StateRebuild.Bucket() {
            @Override
            public List<CleanupStore.ListedObject> list() {
                List<CleanupStore.ListedObject> out = new ArrayList<>();
                bucket.keySet().forEach(k -> out.add(new CleanupStore.ListedObject(k, clock.instant().minusSeconds(600),
                        1000)));
                return out;
            }

            @Override
            public StateRebuild.StoredObject read(String key) {
                return bucket.get(key);
            }
        };
        StateRebuild rebuild = new StateRebuild(state, b, new MessageValidator(BUCKET), loads, cat, clock, l -> { });
        for (JournalEvent e : rebuild.plan()) {
            journal(e);
        }
        return rebuild.result("journal", true, state.lastSeq());
    }

    private void journal(JournalEvent e) {
        state.apply(new JournalEntry(++seq, clock.millis(), e));
    }

    private void put(String dataset, String job, GuidInfo... guids) {
        String url = url(job);
        Map<String, String> metadata = new HashMap<>();
        info(dataset, url, guids).objectMetadata().forEach((k, v) -> metadata.put(k.toLowerCase(), v));
        bucket.put(key(job), new StateRebuild.StoredObject(metadata, summary(dataset, job, guids)));
    }

    private static SpbSummary summary(String dataset, String job, GuidInfo... guids) {
        long events = 0;
        for (GuidInfo g : guids) {
            events += g.nevents();
        }
        return new SpbSummary(TASK_ID, job, dataset, 10, 20, 1000, 5000, events, events, List.of(guids));
    }

    private void loaded(String dataset, String loadId, int dspid, int epoch, long events) {
        rows.put(dataset, new StateRebuild.LoadRow(dataset, dspid, epoch, "LOADED", loadId, "/hdfs/" + dataset,
                clock.millis() - 1000, events));
    }
}
