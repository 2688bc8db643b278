package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Json;
import org.eventindex.names.DatasetName;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.eventindex.supervisor.Fixtures.CONTAINER;
import static org.eventindex.supervisor.Fixtures.DATASET;
import static org.eventindex.supervisor.Fixtures.NAME;
import static org.eventindex.supervisor.Fixtures.candidate;
import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SignalPlannerTest {
    private static final List<org.eventindex.message.DatasetManifest.ManifestFile> MANIFEST =
            List.of(file("G1", 10), file("G2", 20));

    @Test
    void sameSelectionGivesTheSameSignalId() {
        Selection one = DatasetSelection.select(MANIFEST,
                List.of(candidate("a", 1, guid("G1", 0, 10)), candidate("b", 2, guid("G2", 0, 20))));
        // Different journal positions, same outcome: the id depends only on the dataset and what is read.
        Selection two = DatasetSelection.select(MANIFEST,
                List.of(candidate("b", 5, guid("G2", 0, 20)), candidate("a", 9, guid("G1", 0, 10)),
                        candidate("dup", 11, guid("G1", 0, 10))));

        ConsumerSignal s1 = SignalPlanner.plan(NAME, one, 7, 1, 100);
        ConsumerSignal s2 = SignalPlanner.plan(NAME, two, 8, 2, 200);

        assertEquals(s1.signalId(), s2.signalId());
        assertEquals(s1.objects(), s2.objects());
    }

    @Test
    void differentSelectionOrDatasetGivesAnotherId() {
        Selection one = DatasetSelection.select(MANIFEST, List.of(candidate("a", 1, guid("G1", 0, 10), guid("G2", 1, 20))));
        Selection other = DatasetSelection.select(MANIFEST,
                List.of(candidate("a", 1, guid("G1", 0, 10), guid("G2", 1, 2)), candidate("b", 2, guid("G2", 0, 20))));

        String id = SignalPlanner.plan(NAME, one, 1, 1, 0).signalId();
        assertNotEquals(id, SignalPlanner.plan(NAME, other, 1, 1, 0).signalId());
        assertNotEquals(id, SignalPlanner.plan(DatasetName.parse(CONTAINER), one, 1, 1, 0).signalId());
    }

    @Test
    void signalCarriesEverythingTheConsumerNeedsAndSurvivesJson() throws Exception {
        Selection sel = DatasetSelection.select(MANIFEST,
                List.of(candidate("b", 1, guid("G2", 3, 20)), candidate("a", 2, guid("G1", 0, 10))));
        ConsumerSignal s = SignalPlanner.plan(NAME, sel, 42, 3, 1234);

        assertEquals(ConsumerSignal.TYPE, s.type());
        assertEquals(DATASET, s.dataset());
        assertEquals(CONTAINER, s.container());
        assertEquals(42, s.dspid());
        assertEquals(3, s.epoch());
        assertEquals(30, s.expectedEvents());
        assertEquals(List.of(Fixtures.url("a"), Fixtures.url("b")), s.objects().stream().map(o -> o.url()).toList());
        assertEquals(s, Json.read(Json.write(s), ConsumerSignal.class));
    }

    @Test
    void incompleteSelectionCannotBePlanned() {
        Selection sel = DatasetSelection.select(MANIFEST, List.of(candidate("a", 1, guid("G1", 0, 10))));

        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> SignalPlanner.plan(NAME, sel, 1, 1, 0));
        assertTrue(e.getMessage().contains(DATASET), e.getMessage());
    }
}
