package org.eventindex.consumer;

import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.spb.EventScan;
import org.eventindex.spb.SavedScan;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link MergePipeline}: every row once, in order, scanned, with its file index; failures of either side reported. */
class MergePipelineTest {
    private static final int EVENTS = 20_000;

    /** Saved scans are restored into rows that hold the event's own bytes and fields. */
    @Test
    void rowsArriveInOrderRestoredWithTheirFileIndex() throws IOException {
        List<Long> seen = new ArrayList<>();
        MergePipeline.run(events(EVENTS), "test-dataset", g -> "GUID-" + g, rows -> {
            for (MergePipeline.Row r : rows) {
                int i = seen.size();
                assertEquals(i % 3, r.guid, "file index of row " + i);
                assertEquals(327636, r.event.runNumber);
                assertEquals(i % 3564, r.event.bcid, "bcid of row " + i);
                byte[] expected = event(i).toByteArray();
                assertArrayEquals(expected, Arrays.copyOfRange(r.event.buf(), r.event.offset(),
                        r.event.offset() + r.event.length()), "bytes of row " + i);
                seen.add(r.event.eventNumber);
            }
        });
        assertEquals(EVENTS, seen.size());
        for (int i = 0; i < EVENTS; i++) {
            assertEquals(1000L + i, seen.get(i), "row " + i);
        }
    }

    /**
     * The Parquet writer's second thread may still read a batch during the next call: the batch before the current
     * one is still intact then, and the two are different rows.
     */
    @Test
    void theLastBatchStaysIntactDuringTheNextCall() throws IOException {
        List<List<MergePipeline.Row>> previous = new ArrayList<>();
        long[] previousFirst = {-1};
        int[] calls = {0};
        MergePipeline.run(events(EVENTS), "test-dataset", g -> "GUID-" + g, rows -> {
            if (!previous.isEmpty()) {
                List<MergePipeline.Row> last = previous.get(0);
                assertEquals(previousFirst[0], last.get(0).event.eventNumber, "batch before call " + calls[0]);
                assertTrue(last.get(0) != rows.get(0), "the same rows handed over twice in a row");
            }
            previous.clear();
            previous.add(rows);
            previousFirst[0] = rows.get(0).event.eventNumber;
            calls[0]++;
        });
        assertTrue(calls[0] > 10, "batches: " + calls[0]);
    }

    /** Bytes that are not an event fail the dataset with a message naming the file they came from. */
    @Test
    void anEventThatDoesNotScanIsReportedWithItsFile() {
        MergePipeline.Source good = events(1);
        MergePipeline.Source source = sink -> {
            good.merge(sink);
            byte[] bad = {(byte) 0xff, 0x01};
            sink.accept(1, bad, 0, bad.length);
        };
        IOException e = assertThrows(IOException.class,
                () -> MergePipeline.run(source, "test-dataset", g -> "GUID-" + g, rows -> { }));
        assertTrue(e.getMessage().contains("GUID-1") && e.getMessage().contains("test-dataset"), e.getMessage());
    }

    /** A failing sink (the Parquet writer) ends the merge and its failure reaches the caller unchanged. */
    @Test
    void aSinkFailureStopsTheMerge() {
        IllegalStateException boom = new IllegalStateException("encoder failed");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> MergePipeline.run(events(EVENTS), "test-dataset", g -> "GUID-" + g, rows -> {
                    throw boom;
                }));
        assertEquals(boom, e);
    }

    /** Events as saved scans ({@link SavedScan}), as the sort buffers write them. */
    private static MergePipeline.Source events(int n) {
        EventScan scan = new EventScan();
        return sink -> {
            for (int i = 0; i < n; i++) {
                byte[] b = event(i).toByteArray();
                assertTrue(scan.scan(b, 0, b.length));
                b = new byte[SavedScan.length(scan)];
                SavedScan.write(scan, b, 0);
                sink.accept(i % 3, b, 0, b.length);
            }
        };
    }

    private static EIEvent_p1 event(int i) {
        return EIEvent_p1.newBuilder().setRunNumber(327636).setEventNumber(1000L + i).setLumiBlock(1)
                .setTimeStamp(1_500_000_000).setTimeStampNSOffset(0).setBcid(i % 3564).setIsSimulation(false)
                .setIsCalibration(false).setIsTestBeam(false).build();
    }
}
