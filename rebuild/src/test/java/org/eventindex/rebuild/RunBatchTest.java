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

    @Test
    void wavesHoldWholeRunsUpToTheirEvents() {
        List<RunBatch> batches = RunBatch.of(List.of(row(A, 1, LoadState.LOADED, 1), row(B, 1, LoadState.LOADED, 2),
                row(C, 2, LoadState.LOADED, 3)));

        assertEquals(List.of(List.of(327636), List.of(327700)), RunBatch.waves(batches, 1).stream()
                .map(w -> w.stream().map(RunBatch::run).toList()).toList());
        assertEquals(List.of(List.of(327636), List.of(327700)), RunBatch.waves(batches, 20).stream()
                .map(w -> w.stream().map(RunBatch::run).toList()).toList(), "a wave closes once it holds 20");
        assertEquals(List.of(List.of(327636, 327700)), RunBatch.waves(batches, 21).stream()
                .map(w -> w.stream().map(RunBatch::run).toList()).toList());
    }

    @Test
    void newEpochsFillInDatasetIdOrderAsTheSupervisorFillsThem() {
        List<DatasetsRow> rows = List.of(row(C, 7, 2, 40), row(A, 5, 1, 30), row(B, 6, 1, 30),
                row("data17_13TeV.00327800.physics_Main.merge.AOD.f900_m2001", 8, 2, 100));

        List<DatasetsRow> placed = new NewEpochs(OptionalInt.empty(), 60).assign(rows);

        // A and B fill epoch 1 (60); C opens 2; the big one, over the size, opens 3 alone
        assertEquals(List.of(5, 6, 7, 8), placed.stream().map(DatasetsRow::dspid).toList());
        assertEquals(List.of(1, 1, 2, 3), placed.stream().map(DatasetsRow::rgid).toList());
        assertEquals(List.of(10, 10, 11, 12), new NewEpochs(OptionalInt.of(10), 60).assign(rows).stream()
                .map(DatasetsRow::rgid).toList());
        assertEquals(List.of(1, 1, 1, 1), new NewEpochs(OptionalInt.empty(), 1_000).assign(rows).stream()
                .map(DatasetsRow::rgid).toList());
        assertEquals(rows.get(1).loadId(), placed.get(0).loadId());
        assertEquals(rows.get(1).insertStart(), placed.get(0).insertStart());
    }

    private static DatasetsRow row(String name, int dspid, int rgid, long events) {
        Instant start = Instant.parse("2026-12-01T00:00:00Z").plusSeconds(dspid);
        return new DatasetsRow(name, dspid, rgid, LoadState.LOADED, "sig" + dspid, "hdfs://nn/" + name, events, 0L,
                0L, start, start.plusSeconds(1));
    }
}
