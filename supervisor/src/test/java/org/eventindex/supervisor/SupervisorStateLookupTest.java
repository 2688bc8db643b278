package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.SignalObject;
import org.eventindex.supervisor.journal.JournalEntry;
import org.eventindex.supervisor.journal.JournalEvent;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.eventindex.supervisor.Fixtures.CONTAINER;
import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.info;
import static org.eventindex.supervisor.Fixtures.manifest;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link SupervisorState#lookup}: each of the four answers, and what a message naming the dataset is told. */
class SupervisorStateLookupTest {
    private static final String LIVE = CONTAINER + "_tid00000001_00";
    private static final String RETIRED = CONTAINER + "_tid00000002_00";
    private static final String DELETED = CONTAINER + "_tid00000003_00";
    private static final String UNKNOWN = CONTAINER + "_tid00000004_00";

    private final SupervisorState state = new SupervisorState();
    private long seq;

    private void apply(JournalEvent e) {
        seq++;
        state.apply(new JournalEntry(seq, 1_600_000_000_000L + seq, e));
    }

    @Test
    void tellsLiveRetiredDeletedAndUnknownApart() {
        apply(new JournalEvent.ObjectReported("m-1", info(LIVE, url("4000001.1"), guid("G1", 1, 10))));
        // retired: DONE, then its one object deleted by the cleanup
        apply(new JournalEvent.ObjectReported("m-2", info(RETIRED, url("4000002.1"), guid("G2", 1, 10))));
        apply(new JournalEvent.ManifestRegistered(manifest(RETIRED, file("G2", 10))));
        ConsumerSignal s = new ConsumerSignal(ConsumerSignal.TYPE, "sig-2", RETIRED, CONTAINER, 1, 1,
                List.of(new SignalObject(url("4000002.1"), 1000, List.of("G2"), 10)), 10, 0);
        apply(new JournalEvent.SignalPlanned(s));
        apply(new JournalEvent.SignalSent(RETIRED, s.signalId()));
        apply(new JournalEvent.ReportReceived(Fixtures.done(s.signalId(), RETIRED, 10)));
        apply(new JournalEvent.ObjectsDeleted(RETIRED, List.of(url("4000002.1"))));
        apply(new JournalEvent.ObjectReported("m-3", info(DELETED, url("4000003.1"), guid("G3", 1, 10))));
        apply(new JournalEvent.DatasetDeleted(DELETED, "wrong task"));

        SupervisorState.Lookup live = state.lookup(LIVE);
        assertEquals(LIVE, assertInstanceOf(SupervisorState.Lookup.Live.class, live).dataset().name);
        assertEquals(Optional.empty(), live.refusal("retired", "deleted", "m-9"), "a live dataset is decided on");
        assertEquals(LIVE, live.view().orElseThrow().name());

        SupervisorState.Lookup retired = state.lookup(RETIRED);
        assertEquals(RETIRED, assertInstanceOf(SupervisorState.Lookup.Retired.class, retired).dataset().name());
        assertTrue(retired.live().isEmpty() && retired.deleted().isEmpty());
        Rejection r = retired.refusal("asked for X", "deleted", "m-9").orElseThrow();
        assertEquals(List.of(RejectReason.DATASET_RETIRED, "m-9", RETIRED), List.of(r.reason(), r.messageId(),
                r.dataset()));
        assertTrue(r.detail().endsWith("; asked for X"), r.detail());
        assertEquals(CollectionState.DONE, retired.view().orElseThrow().state());

        SupervisorState.Lookup deleted = state.lookup(DELETED);
        assertEquals("wrong task", assertInstanceOf(SupervisorState.Lookup.Deleted.class, deleted).dataset()
                .reason());
        assertEquals(RejectReason.DATASET_DELETED, deleted.refusal("retired", "deleted", "m-9").orElseThrow()
                .reason());
        assertTrue(deleted.view().isEmpty(), "a tombstone has its own view, not a dataset's");

        SupervisorState.Lookup unknown = state.lookup(UNKNOWN);
        assertInstanceOf(SupervisorState.Lookup.Unknown.class, unknown);
        assertTrue(unknown.live().isEmpty() && unknown.retired().isEmpty() && unknown.deleted().isEmpty()
                && unknown.view().isEmpty() && unknown.refusal("retired", "deleted", "m-9").isEmpty());
    }
}
