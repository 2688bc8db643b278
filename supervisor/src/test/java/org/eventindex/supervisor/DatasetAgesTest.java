package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.SignalObject;
import org.eventindex.supervisor.journal.JournalEntry;
import org.eventindex.supervisor.journal.JournalEvent;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.eventindex.supervisor.Fixtures.CONTAINER;
import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.info;
import static org.eventindex.supervisor.Fixtures.manifest;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link DatasetAges}: the age since the first object against the time spent in the current state. */
class DatasetAgesTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final long DAY = 86_400_000L;
    private static final String DATASET = CONTAINER + "_tid00000001_00";

    private final SupervisorState state = new SupervisorState();
    private long seq;

    private void apply(long ts, JournalEvent e) {
        state.apply(new JournalEntry(++seq, ts, e));
    }

    private ConsumerSignal collectAndSignal() {
        apply(T0, new JournalEvent.ObjectReported("m-1", info(DATASET, url("1.1"), guid("G1", 1, 10))));
        apply(T0 + DAY, new JournalEvent.ManifestRegistered(manifest(DATASET, file("G1", 10))));
        ConsumerSignal s = new ConsumerSignal(ConsumerSignal.TYPE, "sig-1", DATASET, CONTAINER, 1, 1,
                List.of(new SignalObject(url("1.1"), 1000, List.of("G1"), 10)), 10, 0);
        apply(T0 + 2 * DAY, new JournalEvent.SignalPlanned(s));
        apply(T0 + 2 * DAY + 1000, new JournalEvent.SignalSent(DATASET, s.signalId()));
        return s;
    }

    @Test
    void aDatasetThatCollectedForDaysHasJustEnteredSignalled() {
        collectAndSignal();
        long now = T0 + 2 * DAY + 61_000;
        assertEquals((2 * DAY + 61_000) / 1000.0,
                DatasetAges.oldest(state.all(), now).get(CollectionState.SIGNALLED), "age since the first object");
        assertEquals(60.0, DatasetAges.longestInState(state.all(), now).get(CollectionState.SIGNALLED),
                "time since the signal was sent");
        assertEquals(0.0, DatasetAges.longestInState(state.all(), now).get(CollectionState.COLLECTING));
    }

    @Test
    void aResignalAfterAFailureStartsTheTimeInSignalPlannedAgain() {
        ConsumerSignal s = collectAndSignal();
        long failedAt = T0 + 3 * DAY;
        apply(failedAt, new JournalEvent.ReportReceived(Fixtures.failed(s.signalId(), DATASET, "s3 read")));
        assertEquals(5.0, DatasetAges.longestInState(state.all(), failedAt + 5000)
                .get(CollectionState.FAILED_CONSUMER));
        apply(failedAt + 600_000, new JournalEvent.ResignalRequested(DATASET, s.signalId(), "retry after FAILED"));
        assertEquals(10.0, DatasetAges.longestInState(state.all(), failedAt + 610_000)
                .get(CollectionState.SIGNAL_PLANNED), "from the resignal, not from the first plan");
        assertEquals(0.0, DatasetAges.longestInState(state.all(), failedAt + 610_000)
                .get(CollectionState.FAILED_CONSUMER));
    }

    @Test
    void aDatasetRestoredFromACheckpointCountsFromTheTimeThatLedToItsState() {
        collectAndSignal();
        TrackedDataset restored = StateCheckpoint.Live.of(state.all().iterator().next()).toRecord();
        assertEquals(CollectionState.SIGNALLED, restored.state);
        assertEquals(T0 + 2 * DAY + 1000, restored.stateSince(), "the time the signal was sent");
        assertEquals(30.0, DatasetAges.longestInState(List.of(restored), T0 + 2 * DAY + 31_000)
                .get(CollectionState.SIGNALLED));
    }

    @Test
    void aCollectingDatasetCountsFromItsFirstObject() {
        apply(T0, new JournalEvent.ObjectReported("m-1", info(DATASET, url("1.1"), guid("G1", 1, 10))));
        apply(T0 + 1000, new JournalEvent.ObjectReported("m-2", info(DATASET, url("1.2"), guid("G2", 1, 10))));
        assertEquals(10.0, DatasetAges.longestInState(state.all(), T0 + 10_000).get(CollectionState.COLLECTING));
    }
}
