package org.eventindex.consumer;

import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link MergePipeline}: every row once, in order, scanned, with its file index; failures of either side reported. */
class MergePipelineTest {
    private static final int EVENTS = 20_000;

    @Test
    void rowsArriveInOrderScannedWithTheirFileIndex() throws IOException {
        List<Long> seen = new ArrayList<>();
        MergePipeline.run(events(EVENTS), "test-dataset", g -> "GUID-" + g, rows -> {
            for (MergePipeline.Row r : rows) {
                assertEquals(seen.size() % 3, r.guid, "file index of row " + seen.size());
                assertEquals(327636, r.event.runNumber);
                seen.add(r.event.eventNumber);
            }
        });
        assertEquals(EVENTS, seen.size());
        for (int i = 0; i < EVENTS; i++) {
            assertEquals(1000L + i, seen.get(i), "row " + i);
        }
    }

    /** Bytes that are not an event fail the dataset with a message naming the file they came from. */
    @Test
    void anEventThatDoesNotScanIsReportedWithItsFile() {
        MergePipeline.Source source = sink -> {
            byte[] good = event(0).toByteArray();
            sink.accept(0, good, 0, good.length);
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

    private static MergePipeline.Source events(int n) {
        return sink -> {
            for (int i = 0; i < n; i++) {
                byte[] b = event(i).toByteArray();
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
