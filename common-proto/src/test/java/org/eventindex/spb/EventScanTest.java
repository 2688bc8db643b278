package org.eventindex.spb;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link EventScan} against protobuf: every serialization protobuf writes is accepted and read as protobuf reads it;
 * non-canonical encodings of the same event are refused; and whatever is accepted (including mutated bytes) is exactly
 * protobuf's serialization of what it parses to.
 */
class EventScanTest {

    @Test
    void acceptsWhatProtobufWritesAndReadsTheSameFields() {
        Random rnd = new Random(11);
        EventScan scan = new EventScan();
        for (int i = 0; i < 3_000; i++) {
            EIEvent_p1 e = randomEvent(rnd);
            byte[] bytes = e.toByteArray();
            byte[] framed = new byte[bytes.length + 7];
            System.arraycopy(bytes, 0, framed, 3, bytes.length);
            assertTrue(scan.scan(framed, 3, bytes.length), "event " + i + " refused: " + e);
            assertSameFields(e, scan);
            assertEquals(bytes.length >= EventScan.FAST_HEAD, scan.scanFast(framed, 3, bytes.length),
                    "fast path on a canonical event of " + bytes.length + " bytes");
            if (bytes.length >= EventScan.FAST_HEAD) {
                assertSameFields(e, scan);
            }
            assertTrue(scan.scanGeneral(framed, 3, bytes.length));
            assertSameFields(e, scan);
        }
    }

    /** An event as the generator and real files write it: masks, trigger keys, one eitoken. */
    private static EIEvent_p1 realShaped(Random rnd) {
        return EIEvent_p1.newBuilder().setRunNumber(327636).setEventNumber(34_000_000L + rnd.nextInt(1 << 20))
                .setLumiBlock(1 + rnd.nextInt(900)).setTimeStamp(1_500_000_000 + rnd.nextInt(1 << 20))
                .setTimeStampNSOffset(rnd.nextInt(1_000_000_000)).setBcid(rnd.nextInt(3564))
                .setExtendedLevel1ID(rnd.nextInt()).setIsSimulation(false).setIsCalibration(false).setIsTestBeam(false)
                .setL1PassedTrigMask(text(rnd, 60)).setEFPassedTrigMask(text(rnd, 40)).setSMK(2524).setHLTPSK(3653)
                .setL1PSK(4231).addEitoken(EItoken_p1.newBuilder().setName("StreamAOD").setToken(text(rnd, 180)))
                .build();
    }

    @Test
    void fieldsOutOfOrderGetTheSameVerdictOnBothPaths() throws IOException {
        Random rnd = new Random(37);
        EventScan scan = new EventScan();
        for (int i = 0; i < 500; i++) {
            EIEvent_p1 e = realShaped(rnd);
            byte[] canonical = e.toByteArray();
            assertTrue(scan.scanFast(canonical, 0, canonical.length), "fast path refused a real-shaped event");
            assertSameFields(e, scan);
            // one field moved behind the others (the eitoken, last already, stays): protobuf reads the same event, the scan refuses both ways and
            // scanCanonical reads protobuf's bytes
            int[] movable = {3, 5, 6, 7, 9, 11, 13, 14, 16};
            int f = movable[rnd.nextInt(movable.length)];
            byte[] moved = moveToEnd(canonical, f);
            assertEquals(e, parse(moved), "field " + f + " moved");
            assertFalse(scan.scanFast(moved, 0, moved.length), "fast path took field " + f + " out of order");
            assertFalse(scan.scanGeneral(moved, 0, moved.length), "general path took field " + f + " out of order");
            assertFalse(scan.scan(moved, 0, moved.length));
            scan.scanCanonical(moved, 0, moved.length);
            assertSameFields(e, scan);
            assertArrayEquals(canonical, Arrays.copyOfRange(scan.buf(), scan.offset(), scan.offset() + scan.length()));
        }
        // refused after the fast path has read part of the event: the general path starts again and refuses too
        byte[] canonical = realShaped(rnd).toByteArray();
        for (byte[] bad : new byte[][]{concat(canonical, field(19, 1)), concat(canonical, field(14, 1)),
                Arrays.copyOf(canonical, canonical.length - 1)}) {
            assertFalse(scan.scanFast(bad, 0, bad.length));
            assertFalse(scan.scanGeneral(bad, 0, bad.length));
            assertFalse(scan.scan(bad, 0, bad.length));
        }
        // shorter than the fast path's head: the general path takes it
        EIEvent_p1 small = EIEvent_p1.newBuilder().setRunNumber(1).setEventNumber(2).setLumiBlock(3).setTimeStamp(4)
                .setTimeStampNSOffset(5).setBcid(6).setIsSimulation(true).setIsCalibration(false)
                .setIsTestBeam(false).build();
        byte[] bytes = small.toByteArray();
        assertFalse(scan.scanFast(bytes, 0, bytes.length));
        assertTrue(scan.scan(bytes, 0, bytes.length));
        assertSameFields(small, scan);
    }

    /** The bytes with every occurrence of field {@code field} moved to the end, in their order. */
    private static byte[] moveToEnd(byte[] bytes, int field) throws IOException {
        com.google.protobuf.CodedInputStream in = com.google.protobuf.CodedInputStream.newInstance(bytes);
        ByteArrayOutputStream rest = new ByteArrayOutputStream();
        ByteArrayOutputStream moved = new ByteArrayOutputStream();
        while (!in.isAtEnd()) {
            int p = in.getTotalBytesRead();
            int tag = in.readTag();
            in.skipField(tag);
            ((tag >>> 3) == field ? moved : rest).write(bytes, p, in.getTotalBytesRead() - p);
        }
        return concat(rest.toByteArray(), moved.toByteArray());
    }

    @Test
    void refusesNonCanonicalEncodingsOfAValidEvent() throws IOException {
        EIEvent_p1 e = randomEvent(new Random(5)).toBuilder().setExtendedLevel1ID(7).build();
        byte[] canonical = e.toByteArray();
        EventScan scan = new EventScan();
        assertTrue(scan.scan(canonical, 0, canonical.length));
        // fields out of order: lumiBlock (3) before eventNumber (2)
        EIEvent_p1 noLumi = e.toBuilder().clearLumiBlock().buildPartial();
        assertRefused(concat(field(3, e.getLumiBlock()), noLumi.toByteArray()));
        // a singular field twice (protobuf keeps the last value)
        assertRefused(concat(canonical, field(7, 9)));
        // an unknown field
        assertRefused(concat(canonical, field(19, 1)));
        // a varint longer than needed: runNumber 5 as 0x85 0x00
        byte[] overlong = concat(new byte[]{0x08, (byte) 0x85, 0x00}, Arrays.copyOfRange(canonical,
                1 + CodedOutputStream.computeUInt32SizeNoTag(e.getRunNumber()), canonical.length));
        assertRefused(overlong);
        // a bool written as 2
        EIEvent_p1 noSim = e.toBuilder().clearIsSimulation().buildPartial();
        byte[] tail = noSim.toByteArray();
        assertRefused(insertBefore(tail, 9, field(8, 2)));
        // a required field missing, a cut-off event, an empty array
        assertRefused(e.toBuilder().clearBcid().buildPartial().toByteArray());
        assertRefused(Arrays.copyOf(canonical, canonical.length - 1));
        assertFalse(scan.scan(new byte[0], 0, 0));
    }

    @Test
    void eventsWithANanWeightAreScannedAsProtobufReadsThem() throws InvalidProtocolBufferException {
        EventScan scan = new EventScan();
        // the usual NaN, a negative one and NaNs with payload bits (a producer may write any of them)
        for (int bits : new int[]{0x7fc00000, 0xffc00000, 0x7fc00001, 0x7fa00001, 0xff800123}) {
            EIEvent_p1 e = randomEvent(new Random(bits)).toBuilder()
                    .setMcEventWeight(Float.intBitsToFloat(bits)).build();
            byte[] bytes = e.toByteArray();
            // accepted exactly when protobuf's parse and serialization give the same bytes back
            boolean canonical = Arrays.equals(bytes, parse(bytes).toByteArray());
            assertEquals(canonical, scan.scan(bytes, 0, bytes.length), String.format("NaN 0x%08x", bits));
            scan.scanCanonical(bytes, 0, bytes.length);
            assertTrue(Float.isNaN(scan.mcEventWeight), String.format("NaN 0x%08x", bits));
            assertSameFields(parse(bytes), scan);
            assertArrayEquals(parse(bytes).toByteArray(), Arrays.copyOfRange(scan.buf(), scan.offset(),
                    scan.offset() + scan.length()));
        }
    }

    private static EIEvent_p1 parse(byte[] bytes) {
        try {
            return EIEvent_p1.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new AssertionError("protobuf does not parse its own serialization", e);
        }
    }

    @Test
    void mutatedBytesAreAcceptedOnlyWhenTheyAreProtobufsOwnSerialization() {
        Random rnd = new Random(23);
        int accepted = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] bytes = randomEvent(rnd).toByteArray();
            int flips = 1 + rnd.nextInt(3);
            for (int f = 0; f < flips; f++) {
                bytes[rnd.nextInt(bytes.length)] = (byte) rnd.nextInt(256);
            }
            if (assertAgreesWithProtobuf(bytes)) {
                accepted++;
            }
        }
        // mutations of strings, counts and flags keep an event canonical; the check above must have run on many
        assertTrue(accepted > 1_000, "only " + accepted + " mutated events were accepted");
    }

    /**
     * The contract for any input: if the scan accepts it, protobuf parses it to a message whose serialization is the
     * same bytes and whose fields are the scanned ones.
     *
     * @return whether the scan accepted
     */
    static boolean assertAgreesWithProtobuf(byte[] bytes) {
        EventScan scan = new EventScan();
        EventScan general = new EventScan();
        EventScan fast = new EventScan();
        boolean accepted = scan.scan(bytes, 0, bytes.length);
        // the scan's verdict is its general path's; its fast path takes nothing the general path refuses
        assertEquals(accepted, general.scanGeneral(bytes, 0, bytes.length), "scan and its general path disagree");
        boolean fastTook = fast.scanFast(bytes, 0, bytes.length);
        assertTrue(accepted || !fastTook, "the fast path took bytes the general path refuses");
        if (!accepted) {
            return false;
        }
        EIEvent_p1 parsed;
        try {
            parsed = EIEvent_p1.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new AssertionError("scan accepted bytes that protobuf refuses: " + e.getMessage(), e);
        }
        assertArrayEquals(parsed.toByteArray(), bytes, "scan accepted a non-canonical serialization");
        assertSameFields(parsed, scan);
        assertSameFields(parsed, general);
        if (fastTook) {
            assertSameFields(parsed, fast);
        }
        return true;
    }

    static void assertSameFields(EIEvent_p1 e, EventScan s) {
        assertEquals(e.getRunNumber(), s.runNumber);
        assertEquals(e.getEventNumber(), s.eventNumber);
        assertEquals(e.getLumiBlock(), s.lumiBlock);
        assertEquals(e.getTimeStamp(), s.timeStamp);
        assertEquals(e.getTimeStampNSOffset(), s.timeStampNSOffset);
        assertEquals(e.getBcid(), s.bcid);
        assertEquals(e.hasExtendedLevel1ID(), s.hasExtendedLevel1ID);
        assertEquals(e.getExtendedLevel1ID(), e.hasExtendedLevel1ID() ? s.extendedLevel1ID : 0);
        assertEquals(e.getIsSimulation(), s.isSimulation);
        assertEquals(e.getIsCalibration(), s.isCalibration);
        assertEquals(e.getIsTestBeam(), s.isTestBeam);
        assertBytes(e.hasL1PassedTrigMask() ? e.getL1PassedTrigMaskBytes() : null, s, s.l1MaskOff, s.l1MaskLen);
        assertBytes(e.hasL2PassedTrigMask() ? e.getL2PassedTrigMaskBytes() : null, s, s.l2MaskOff, s.l2MaskLen);
        assertBytes(e.hasEFPassedTrigMask() ? e.getEFPassedTrigMaskBytes() : null, s, s.efMaskOff, s.efMaskLen);
        assertEquals(e.hasSMK(), s.hasSmk);
        assertEquals(e.getSMK(), s.hasSmk ? s.smk : 0);
        assertEquals(e.hasHLTPSK(), s.hasHltpsk);
        assertEquals(e.getHLTPSK(), s.hasHltpsk ? s.hltpsk : 0);
        assertEquals(e.hasL1PSK(), s.hasL1psk);
        assertEquals(e.getL1PSK(), s.hasL1psk ? s.l1psk : 0);
        assertEquals(e.hasMcEventWeight(), s.hasMcEventWeight);
        if (e.hasMcEventWeight()) {
            assertEquals(Float.floatToRawIntBits(e.getMcEventWeight()), Float.floatToRawIntBits(s.mcEventWeight));
        }
        assertEquals(e.hasMcChannelNumber(), s.hasMcChannelNumber);
        assertEquals(e.getMcChannelNumber(), s.hasMcChannelNumber ? s.mcChannelNumber : 0);
        assertEquals(e.getEitokenCount(), s.tokenCount);
        for (int i = 0; i < s.tokenCount; i++) {
            assertBytes(e.getEitoken(i).getNameBytes(), s, s.nameOff[i], s.nameLen[i]);
            assertBytes(e.getEitoken(i).getTokenBytes(), s, s.tokenOff[i], s.tokenLen[i]);
        }
    }

    private static void assertBytes(ByteString expected, EventScan s, int off, int len) {
        if (expected == null) {
            assertEquals(-1, off, "absent field has an offset");
            return;
        }
        assertArrayEquals(expected.toByteArray(), Arrays.copyOfRange(s.buf(), off, off + len));
    }

    /** Events over the whole value ranges: absent and present optionals, extreme numbers, 0-12 tokens. */
    static EIEvent_p1 randomEvent(Random rnd) {
        EIEvent_p1.Builder b = EIEvent_p1.newBuilder()
                .setRunNumber(pick(rnd))
                .setEventNumber(rnd.nextInt(4) == 0 ? rnd.nextLong() : rnd.nextInt(1 << 30))
                .setLumiBlock(pick(rnd))
                .setTimeStamp(pick(rnd))
                .setTimeStampNSOffset(pick(rnd))
                .setBcid(pick(rnd))
                .setIsSimulation(rnd.nextBoolean())
                .setIsCalibration(rnd.nextInt(10) == 0)
                .setIsTestBeam(rnd.nextInt(10) == 0);
        if (rnd.nextBoolean()) {
            b.setExtendedLevel1ID(pick(rnd));
        }
        if (rnd.nextInt(5) > 0) {
            b.setL1PassedTrigMask(text(rnd, 40));
        }
        if (rnd.nextInt(5) == 0) {
            b.setL2PassedTrigMask(text(rnd, 10));
        }
        if (rnd.nextInt(5) > 0) {
            b.setEFPassedTrigMask(text(rnd, 80));
        }
        if (rnd.nextBoolean()) {
            b.setSMK(pick(rnd)).setHLTPSK(pick(rnd));
        }
        if (rnd.nextBoolean()) {
            b.setL1PSK(pick(rnd));
        }
        if (rnd.nextInt(3) == 0) {
            b.setMcEventWeight(rnd.nextInt(10) == 0 ? Float.POSITIVE_INFINITY : (float) rnd.nextGaussian());
            b.setMcChannelNumber(pick(rnd));
        }
        int tokens = rnd.nextInt(13);
        for (int i = 0; i < tokens; i++) {
            b.addEitoken(EItoken_p1.newBuilder().setName(text(rnd, 12)).setToken(text(rnd, 200)));
        }
        return b.build();
    }

    private static int pick(Random rnd) {
        return switch (rnd.nextInt(4)) {
            case 0 -> 0;
            case 1 -> -1;
            case 2 -> rnd.nextInt(200);
            default -> rnd.nextInt();
        };
    }

    private static String text(Random rnd, int max) {
        int n = rnd.nextInt(max + 1);
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append(rnd.nextInt(20) == 0 ? (char) (0xe0 + rnd.nextInt(20)) : (char) ('!' + rnd.nextInt(90)));
        }
        return sb.toString();
    }

    private static void assertRefused(byte[] bytes) {
        assertFalse(new EventScan().scan(bytes, 0, bytes.length), "a non-canonical encoding was accepted");
    }

    private static byte[] field(int number, int value) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CodedOutputStream c = CodedOutputStream.newInstance(out);
        c.writeUInt32NoTag(number << 3);
        c.writeUInt32NoTag(value);
        c.flush();
        return out.toByteArray();
    }

    /** Inserts {@code extra} before the first byte of {@code bytes} that is the tag of a field numbered {@code field} or more. */
    private static byte[] insertBefore(byte[] bytes, int field, byte[] extra) throws IOException {
        com.google.protobuf.CodedInputStream in = com.google.protobuf.CodedInputStream.newInstance(bytes);
        int at = bytes.length;
        while (!in.isAtEnd()) {
            int p = in.getTotalBytesRead();
            int tag = in.readTag();
            if ((tag >>> 3) >= field) {
                at = p;
                break;
            }
            in.skipField(tag);
        }
        return concat(Arrays.copyOf(bytes, at), extra, Arrays.copyOfRange(bytes, at, bytes.length));
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
