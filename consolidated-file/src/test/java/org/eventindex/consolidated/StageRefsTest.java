package org.eventindex.consolidated;

import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.spb.EventScan;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link StageRefs.Resolver}: with the input file's number (last prefix per file and position remembered) and without
 * it, over many events, the references equal those of a fresh resolver for each event.
 */
class StageRefsTest {
    private static final String[] NAMES = {"StreamRAW", "StreamESD", "StreamAOD", "StreamDAOD_PHYS", "StreamHITS"};
    private static final String CLID = "D82968A1-CF91-4320-B2DD-E0F739CBC7E6";

    @Test
    void remembersGuidsPerFileWithoutChangingTheReferences() {
        Random rnd = new Random(41);
        String[] dbs = new String[9];
        for (int i = 0; i < dbs.length; i++) {
            dbs[i] = String.format("%08X-0A9E-E711-8C4A-02163E01A2%02X", rnd.nextInt(), i);
        }
        StageRefs.Resolver byFile = new StageRefs.Resolver();
        StageRefs.Resolver byMap = new StageRefs.Resolver();
        EventScan scan = new EventScan();
        int cached = 0;
        for (int n = 0; n < 20_000; n++) {
            int file = rnd.nextInt(7);
            EIEvent_p1.Builder b = EIEvent_p1.newBuilder().setRunNumber(1).setEventNumber(n).setLumiBlock(1)
                    .setTimeStamp(1).setTimeStampNSOffset(0).setBcid(1).setIsSimulation(false)
                    .setIsCalibration(false).setIsTestBeam(false);
            int tokens = rnd.nextInt(6);
            for (int t = 0; t < tokens; t++) {
                // mostly the file's own upstream files at each position, sometimes another one
                String db = dbs[rnd.nextInt(10) == 0 ? rnd.nextInt(dbs.length) : (file + t) % dbs.length];
                b.addEitoken(EItoken_p1.newBuilder().setName(NAMES[rnd.nextInt(NAMES.length)]).setToken(
                        "[DB=" + db + "][CNT=POOLContainer(DataHeader)][CLID=" + CLID + "][TECH=00000202][OID="
                                + String.format("%016X-%016X", rnd.nextInt(9), n) + "]"));
            }
            byte[] bytes = b.build().toByteArray();
            assertTrue(scan.scan(bytes, 0, bytes.length));
            String guid = "FILE-" + file;
            StageRefs expected = new StageRefs.Resolver().resolve(scan, guid, new StageRefs());
            assertSame(expected, byFile.resolve(scan, file, guid, new StageRefs()), n);
            assertSame(expected, byMap.resolve(scan, guid, new StageRefs()), n);
            if (tokens > 0) {
                cached++;
            }
        }
        assertTrue(cached > 10_000, "events with tokens: " + cached);
    }

    @Test
    void aStageIsTheFirstTokenWithExactlyItsNameAsAReferenceComputedHereFinds() {
        // near misses of each name: one byte off in the first eight or in the ninth, a byte more or less, case
        String[] names = {"StreamRAW", "StreamESD", "StreamAOD", "StreamRAX", "StreamESE", "StreamAOE", "XtreamRAW",
                "StreamRA", "StreamRAWW", "streamAOD", "StreamEOD", "StreamASD", "StreamDAOD_PHYS", "", "S"};
        Random rnd = new Random(43);
        EventScan scan = new EventScan();
        StageRefs.Resolver resolver = new StageRefs.Resolver();
        int[] stagesFound = new int[3];
        for (int n = 0; n < 5_000; n++) {
            EIEvent_p1.Builder b = EIEvent_p1.newBuilder().setRunNumber(1).setEventNumber(n).setLumiBlock(1)
                    .setTimeStamp(1).setTimeStampNSOffset(0).setBcid(1).setIsSimulation(false)
                    .setIsCalibration(false).setIsTestBeam(false);
            int tokens = 1 + rnd.nextInt(6);
            String[] tokenNames = new String[tokens];
            for (int t = 0; t < tokens; t++) {
                tokenNames[t] = names[rnd.nextInt(names.length)];
                b.addEitoken(EItoken_p1.newBuilder().setName(tokenNames[t]).setToken(String.format(
                        "[DB=%08X-0A9E-E711-8C4A-02163E01A2%02X][CNT=X][CLID=%s][TECH=00000202][OID=%016X-%016X]", t,
                        t, CLID, 0, n)));
            }
            byte[] bytes = b.build().toByteArray();
            assertTrue(scan.scan(bytes, 0, bytes.length));
            StageRefs r = resolver.resolve(scan, n % 3, "F", new StageRefs());
            int[] expected = {StageRefs.NONE, StageRefs.NONE, StageRefs.NONE};
            for (int t = tokens - 1; t >= 0; t--) {
                for (int stage = 0; stage < 3; stage++) {
                    if (tokenNames[t].equals(names[stage])) {
                        expected[stage] = t;
                    }
                }
            }
            assertEquals(expected[0], r.tkRaw, "event " + n + " " + String.join(",", tokenNames));
            assertEquals(expected[1], r.tkEsd, "event " + n + " " + String.join(",", tokenNames));
            assertEquals(expected[2], r.tkAod, "event " + n + " " + String.join(",", tokenNames));
            assertEquals(0, r.tk);
            for (int stage = 0; stage < 3; stage++) {
                if (expected[stage] != StageRefs.NONE) {
                    stagesFound[stage]++;
                }
            }
            String rawDb = r.tkRaw == StageRefs.NONE ? null : String.format("%08X-0A9E-E711-8C4A-02163E01A2%02X",
                    r.tkRaw, r.tkRaw);
            assertEquals(rawDb, r.dbRaw, "event " + n);
        }
        for (int found : stagesFound) {
            assertTrue(found > 500, "events with each stage: " + Arrays.toString(stagesFound));
        }
    }

    @Test
    void aMalformedTokenIsNamedEitherWay() {
        byte[] bytes = EIEvent_p1.newBuilder().setRunNumber(1).setEventNumber(2).setLumiBlock(1).setTimeStamp(1)
                .setTimeStampNSOffset(0).setBcid(1).setIsSimulation(false).setIsCalibration(false)
                .setIsTestBeam(false).addEitoken(EItoken_p1.newBuilder().setName("StreamRAW").setToken("[DB=nope]"))
                .build().toByteArray();
        EventScan scan = new EventScan();
        assertTrue(scan.scan(bytes, 0, bytes.length));
        StageRefs.Resolver resolver = new StageRefs.Resolver();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> resolver.resolve(scan, 3, "F", new StageRefs()));
        assertTrue(e.getMessage().contains("nope"), e.getMessage());
        // nothing of the failed token is remembered: the same token fails again
        assertThrows(IllegalArgumentException.class, () -> resolver.resolve(scan, 3, "F", new StageRefs()));
        assertThrows(IllegalArgumentException.class, () -> new StageRefs.Resolver().resolve(scan, "F",
                new StageRefs()));
    }

    private static void assertSame(StageRefs expected, StageRefs actual, int event) {
        String at = "event " + event;
        assertEquals(expected.db, actual.db, at);
        assertEquals(expected.tk, actual.tk, at);
        assertEquals(expected.dbRaw, actual.dbRaw, at);
        assertEquals(expected.tkRaw, actual.tkRaw, at);
        assertEquals(expected.dbEsd, actual.dbEsd, at);
        assertEquals(expected.tkEsd, actual.tkEsd, at);
        assertEquals(expected.dbAod, actual.dbAod, at);
        assertEquals(expected.tkAod, actual.tkAod, at);
    }
}
