package org.eventindex.consumer;

import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.spb.EventScan;
import org.eventindex.spb.SavedScan;
import org.eventindex.spb.SpbContentLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The token strings of run records coded against the record before (decision 0036): lossless, and smaller. */
class TokenPrefixCoderTest {
    private static final String DB = "[DB=2F6D3B1C-5A4E-4F0B-9C1D-0123456789AB][CNT=POOLContainer(DataHeader)]"
            + "[CLID=D82968A1-CF91-4320-B2DD-E0F739CBC7E6][TECH=00000202][OID=00000005-";

    @TempDir
    Path dir;

    @Test
    void consecutiveEventsOfAFileDecodeByteForByteAndShrinkByTheirSharedPrefixes() {
        TokenPrefixCoder enc = new TokenPrefixCoder();
        TokenPrefixCoder dec = new TokenPrefixCoder();
        for (int i = 0; i < 50; i++) {
            byte[] saved = saved(event(1000 + i, DB + String.format("%08X]", i), "RAW-" + (i / 10)));
            assertTrue(enc.encode(saved, 0, saved.length), "event " + i);
            byte[] coded = Arrays.copyOf(enc.output(), enc.length());
            if (i > 0) {
                // all but the end of the first token (its entry) and the end of the second is shared
                assertTrue(coded.length < saved.length - DB.length(), coded.length + " of " + saved.length);
            }
            assertTrue(dec.decode(coded, 0, coded.length));
            assertArrayEquals(saved, Arrays.copyOf(dec.output(), dec.length()), "event " + i);
        }
    }

    @Test
    void aFirstRecordSharesNothingAndDecodesWhateverCameBefore() {
        TokenPrefixCoder enc = new TokenPrefixCoder();
        byte[] a = saved(event(1, DB + "00000001]", "x"));
        byte[] b = saved(event(2, DB + "00000002]", "x"));
        enc.encode(a, 0, a.length);
        enc.reset();
        assertTrue(enc.encode(b, 0, b.length));
        byte[] first = Arrays.copyOf(enc.output(), enc.length());
        assertEquals(b.length + 2 * TokenPrefixCoder.PREFIX_BYTES, first.length, "no prefix shared after reset");
        // a decoder that saw another run's record before (a chain of chunks) still decodes it
        TokenPrefixCoder dec = new TokenPrefixCoder();
        byte[] other = saved(event(9, "something else entirely", "y"));
        TokenPrefixCoder otherEnc = new TokenPrefixCoder();
        otherEnc.encode(other, 0, other.length);
        assertTrue(dec.decode(otherEnc.output(), 0, otherEnc.length()));
        assertTrue(dec.decode(first, 0, first.length));
        assertArrayEquals(b, Arrays.copyOf(dec.output(), dec.length()));
    }

    @Test
    void recordsThatAreNotSavedScansWithTokensAreLeftAsTheyAre() {
        TokenPrefixCoder enc = new TokenPrefixCoder();
        assertFalse(enc.encode(new byte[]{0, 1, 2, 3}, 0, 4), "a scan saved without fields");
        byte[] noTokens = saved(EIEvent_p1.newBuilder(event(3, "t", "u")).clearEitoken().build());
        assertFalse(enc.encode(noTokens, 0, noTokens.length), "no tokens");
        byte[] bad = saved(event(4, DB + "1]", "v"));
        // token 0's offset points beyond the event
        bad[SavedScan.eventOffset(2) - 16 + 4] = (byte) 0xf0;
        bad[SavedScan.eventOffset(2) - 16 + 5] = (byte) 0xff;
        assertFalse(enc.encode(bad, 0, bad.length), "a token beyond the event");
    }

    @Test
    void aPrefixLongerThanTheTokenBeforeIsACorruptRecord() {
        TokenPrefixCoder enc = new TokenPrefixCoder();
        byte[] a = saved(event(1, DB + "00000001]", "x"));
        enc.encode(a, 0, a.length);
        byte[] coded = Arrays.copyOf(enc.output(), enc.length());
        // decoded by a decoder that has no token before: the first prefix must be 0
        TokenPrefixCoder dec = new TokenPrefixCoder();
        assertTrue(dec.decode(coded, 0, coded.length));
        int prefixAt = SavedScan.eventOffset(2) + SavedScan.tokenOffset(a, 0, 0);
        coded[prefixAt] = 5;
        assertFalse(new TokenPrefixCoder().decode(coded, 0, coded.length));
        assertFalse(new TokenPrefixCoder().decode(coded, 0, prefixAt), "cut short");
    }

    @Test
    void runsWrittenAndMergedGiveTheEventsBackWithFewerBytes() throws IOException {
        Random r = new Random(3);
        List<byte[]> events = new ArrayList<>();
        long plain = 0;
        SortBuffer b = new SortBuffer(1L << 20);
        for (int i = 0; i < 300; i++) {
            byte[] saved = saved(event(1000 + i, DB + String.format("%08X]", i), "RAW-" + r.nextInt(3)));
            events.add(saved);
            plain += RunOutput.HEAD_BYTES + saved.length;
            b.add(327636, 1000 + i, 0, saved, 0, saved.length);
        }
        Path run = b.writeRun(dir, "t-");
        assertTrue(Files.size(run) < plain * 6 / 10, Files.size(run) + " bytes for " + plain + " uncoded");
        List<byte[]> merged = new ArrayList<>();
        new RunMerger(dir, "ds", 4).merge(List.of(new RunMerger.Run(SortedRun.file(run), 0)),
                (guid, buf, off, len) -> merged.add(Arrays.copyOfRange(buf, off, off + len)));
        assertEquals(events.size(), merged.size());
        for (int i = 0; i < events.size(); i++) {
            assertArrayEquals(events.get(i), merged.get(i), "event " + i);
        }
    }

    /**
     * Every token count the content limits allow (0 to {@link SpbContentLimits#TOKENS_PER_EVENT}), in rising, falling
     * and shuffled order, through a run file and the merge: each event comes back byte for byte. (Nine tokens after an
     * event with fewer failed the merge with an ArrayIndexOutOfBoundsException before.)
     */
    @Test
    void everyTokenCountUpToTheLimitGoesThroughTheMergeByteForByte() throws IOException {
        List<Integer> counts = new ArrayList<>();
        for (int n = 0; n <= SpbContentLimits.TOKENS_PER_EVENT; n++) {
            counts.add(n);
        }
        for (int n = SpbContentLimits.TOKENS_PER_EVENT; n >= 0; n--) {
            counts.add(n);
        }
        List<Integer> shuffled = new ArrayList<>(counts);
        java.util.Collections.shuffle(shuffled, new Random(11));
        counts.addAll(shuffled);
        List<byte[]> events = new ArrayList<>();
        SortBuffer b = new SortBuffer(4L << 20);
        for (int i = 0; i < counts.size(); i++) {
            EIEvent_p1.Builder e = EIEvent_p1.newBuilder(event(1000 + i, DB + "0]", "r")).clearEitoken();
            for (int t = 0; t < counts.get(i); t++) {
                e.addEitoken(EItoken_p1.newBuilder().setName("Stream" + t).setToken(DB + String.format("%08X]", i)));
            }
            byte[] saved = saved(e.build());
            events.add(saved);
            b.add(327636, 1000 + i, 0, saved, 0, saved.length);
        }
        Path run = b.writeRun(dir, "t-");
        List<byte[]> merged = new ArrayList<>();
        new RunMerger(dir, "ds", 4).merge(List.of(new RunMerger.Run(SortedRun.file(run), 0)),
                (guid, buf, off, len) -> merged.add(Arrays.copyOfRange(buf, off, off + len)));
        assertEquals(events.size(), merged.size());
        for (int i = 0; i < events.size(); i++) {
            assertArrayEquals(events.get(i), merged.get(i), "event " + i + " with " + counts.get(i) + " tokens");
        }
    }

    @Test
    void aCodedEventThatDoesNotDecodeFailsTheMergeNamingTheRun() throws IOException {
        byte[] a = saved(event(1, DB + "00000001]", "x"));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        RunOutput out = new RunOutput(bytes);
        out.write(0, 327636, 1, a, 0, a.length);
        out.flush();
        byte[] run = bytes.toByteArray();
        assertTrue((run[16] & 0x80) != 0, "coded");
        // the first token's prefix says 9 bytes are shared with a token before, where there is none
        run[RunOutput.HEAD_BYTES + SavedScan.eventOffset(2) + SavedScan.tokenOffset(a, 0, 0)] = 9;
        Path file = dir.resolve("bad.run");
        Files.write(file, run);
        IOException e = assertThrows(IOException.class, () -> new RunMerger(dir, "ds1", 4).merge(
                List.of(new RunMerger.Run(SortedRun.file(file), 0)), (guid, buf, off, len) -> { }));
        assertTrue(e.getMessage().contains("ds1") && e.getMessage().contains("bad.run")
                && e.getMessage().contains("corrupt"), e.getMessage());
    }

    private static EIEvent_p1 event(long number, String ownToken, String rawToken) {
        return EIEvent_p1.newBuilder().setRunNumber(327636).setEventNumber(number).setLumiBlock(100)
                .setTimeStamp(1_497_000_000).setTimeStampNSOffset(5).setBcid(7).setIsSimulation(false)
                .setIsCalibration(false).setIsTestBeam(false).setL1PassedTrigMask("A1B2")
                .addEitoken(EItoken_p1.newBuilder().setName("StreamAOD_ref").setToken(ownToken))
                .addEitoken(EItoken_p1.newBuilder().setName("StreamRAW_ref").setToken(rawToken)).build();
    }

    private static byte[] saved(EIEvent_p1 event) {
        byte[] bytes = event.toByteArray();
        EventScan scan = new EventScan();
        assertTrue(scan.scan(bytes, 0, bytes.length));
        byte[] saved = new byte[SavedScan.length(scan)];
        SavedScan.write(scan, saved, 0);
        return saved;
    }
}
