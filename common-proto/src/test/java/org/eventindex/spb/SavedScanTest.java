package org.eventindex.spb;

import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link SavedScan}: a scan saved with its event comes back with the same fields, and damaged bytes are refused. */
class SavedScanTest {

    /**
     * A saved scan ({@link SavedScan#write}) restores every field and the event's bytes, at any offset, also
     * after a scanner with more tokens; an event too long for the index is saved without it and scanned again.
     */
    @Test
    void aSavedScanRestoresTheSameFields() {
        Random rnd = new Random(23);
        EventScan scan = new EventScan();
        EventScan restored = new EventScan();
        for (int i = 0; i < 3_000; i++) {
            EIEvent_p1 e = EventScanTest.randomEvent(rnd);
            if (i % 500 == 0) {
                // past the 16-bit offsets of the index
                e = e.toBuilder().addEitoken(EItoken_p1.newBuilder().setName("StreamAOD")
                        .setToken("x".repeat(70_000))).build();
            }
            byte[] bytes = e.toByteArray();
            assertTrue(scan.scan(bytes, 0, bytes.length));
            byte[] saved = new byte[5 + SavedScan.length(scan) + 3];
            assertEquals(5 + SavedScan.length(scan), SavedScan.write(scan, saved, 5));
            assertTrue(SavedScan.restore(saved, 5, SavedScan.length(scan), restored), "event " + i);
            EventScanTest.assertSameFields(e, restored);
            assertArrayEquals(bytes, Arrays.copyOfRange(restored.buf(), restored.offset(),
                    restored.offset() + restored.length()));
            if (bytes.length <= SavedScan.MAX_EVENT) {
                assertTrue(SavedScan.length(scan) > bytes.length + 1, "saved with its fields");
            }
        }
    }

    /** Bytes that are not a saved scan, or whose index points outside the event, are refused. */
    @Test
    void aDamagedSavedScanIsRefused() {
        EIEvent_p1 e = EIEvent_p1.newBuilder().setRunNumber(1).setEventNumber(2).setLumiBlock(3).setTimeStamp(4)
                .setTimeStampNSOffset(5).setBcid(6).setIsSimulation(false).setIsCalibration(false)
                .setIsTestBeam(false).setL1PassedTrigMask("abc")
                .addEitoken(EItoken_p1.newBuilder().setName("StreamRAW").setToken("[DB=1]")).build();
        byte[] bytes = e.toByteArray();
        EventScan scan = new EventScan();
        assertTrue(scan.scan(bytes, 0, bytes.length));
        byte[] saved = new byte[SavedScan.length(scan)];
        SavedScan.write(scan, saved, 0);
        EventScan restored = new EventScan();
        assertTrue(SavedScan.restore(saved, 0, saved.length, restored));
        assertFalse(SavedScan.restore(saved, 0, 0, restored), "empty");
        assertFalse(SavedScan.restore(new byte[]{7, 1, 2}, 0, 3, restored), "unknown kind");
        assertFalse(SavedScan.restore(saved, 0, saved.length - bytes.length - 1, restored), "cut into the tokens");
        assertFalse(SavedScan.restore(saved, 0, saved.length - 1, restored), "token beyond the event");
        byte[] unindexed = new byte[bytes.length + 1];
        System.arraycopy(bytes, 0, unindexed, 1, bytes.length);
        assertTrue(SavedScan.restore(unindexed, 0, unindexed.length, restored));
        EventScanTest.assertSameFields(e, restored);
        unindexed[1] = (byte) 0xff;
        assertFalse(SavedScan.restore(unindexed, 0, unindexed.length, restored),
                "saved without fields and not canonical");
    }
}
