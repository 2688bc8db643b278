package org.eventindex.rebuild;

import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.LoadState;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RunBatchTest {
    private static final String A = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid11111111_00";
    private static final String B = "data17_13TeV.00327636.physics_Main.recon.ESD.f838";
    private static final String C = "data17_13TeV.00327700.physics_Late.merge.AOD.f900_m2000";

    private static DatasetsRow row(String name, int rgid, LoadState state, int startSecond) {
        Instant start = Instant.parse("2026-12-01T00:00:00Z").plusSeconds(startSecond);
        return new DatasetsRow(name, 1, rgid, state, "sig", "hdfs://nn/" + name, 10L, 0L, 0L, start,
                start.plusSeconds(1));
    }

    @Test
    void oneBatchPerRunInLoadOrder() {
        List<RunBatch> batches = RunBatch.of(List.of(row(B, 1, LoadState.LOADED, 20), row(C, 2, LoadState.LOADED, 5),
                row(A, 1, LoadState.LOADED, 10)));

        assertEquals(List.of(327636, 327700), batches.stream().map(RunBatch::run).toList());
        assertEquals(List.of(A, B), batches.get(0).datasets().stream().map(DatasetsRow::dataset).toList());
        assertEquals(20, batches.get(0).events());
    }

    @Test
    void aSelectionTakesLoadedDatasetsOfItsEpochAndPattern() {
        DatasetSelection epoch1 = new DatasetSelection(OptionalInt.of(1), null);
        DatasetSelection aods = new DatasetSelection(OptionalInt.empty(), "data17_13TeV.*.AOD.*");

        assertTrue(epoch1.test(row(A, 1, LoadState.LOADED, 0)));
        assertFalse(epoch1.test(row(C, 2, LoadState.LOADED, 0)));
        assertFalse(epoch1.test(row(B, 1, LoadState.LOADING, 0)), "a dataset being loaded has no load to replay");
        assertTrue(aods.test(row(C, 2, LoadState.LOADED, 0)));
        assertFalse(aods.test(row(B, 1, LoadState.LOADED, 0)));
        assertTrue(DatasetSelection.all().test(row(B, 1, LoadState.LOADED, 0)));
    }
}
