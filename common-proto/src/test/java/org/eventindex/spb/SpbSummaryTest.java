package org.eventindex.spb;

import org.eventindex.testing.SpbFixtures;
import org.eventindex.message.EventRange;
import org.eventindex.message.GuidInfo;
import org.eventindex.spb.SpbFormatException.Problem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.eventindex.testing.SpbFixtures.GUID_A;
import static org.eventindex.testing.SpbFixtures.GUID_B;
import static org.eventindex.testing.SpbFixtures.begin;
import static org.eventindex.testing.SpbFixtures.event;
import static org.eventindex.testing.SpbFixtures.header;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SpbSummaryTest {
    @TempDir
    Path dir;

    @Test
    void summarisesPerGuid() throws IOException {
        Path file = dir.resolve("job.ei.spb");
        try (OutputStream out = Files.newOutputStream(file); SpbWriter w = new SpbWriter(out)) {
            w.header(header());
            w.beginGuid(begin(GUID_A));
            w.event(event(327636, 10));
            w.event(event(327636, 3));
            w.event(event(327636, 10)); // duplicate within the GUID
            w.event(event(327636, 0));
            w.endGuid(2_000);
            w.beginGuid(begin(GUID_B).toBuilder().setStartProcTime(3_000).setAMITag("r1").build());
            w.event(event(327636, 10)); // same event in another GUID: unique per GUID, counted again
            w.endGuid(4_000);
            w.finish(5_000);
        }
        SpbSummary s = SpbSummary.scan(file, SpbLimits.DEFAULT);
        assertEquals("12345678.G", s.taskID());
        assertEquals("4000000001.1", s.jobID());
        assertEquals(header().getInputDsName(), s.inputDsName());
        assertEquals(header().getStartProcTime(), s.startProcTime());
        assertEquals(5_000, s.endProcTime());
        assertEquals(Files.size(file), s.compressedBytes());
        assertEquals(5, s.nevents());
        assertEquals(4, s.nuevents());
        assertEquals(2, s.guids().size());

        GuidInfo a = s.guids().get(0);
        assertEquals(GUID_A, a.guid());
        assertEquals(0, a.fileno());
        assertEquals(4, a.nevents());
        assertEquals(3, a.nuevents());
        assertEquals(begin(GUID_A).getStartProcTime(), a.fileStartProcTime());
        assertEquals(2_000, a.fileEndProcTime());
        assertEquals("f838_m1824", a.amiTag());
        assertEquals("physics_Main", a.trigStream());
        assertEquals("data17_13TeV", a.projName());
        // one run per dataset (ContentRules): the map has its one run
        assertEquals(Map.of("327636", new EventRange(0, 10)), a.runevtRanges());
        assertEquals(List.of("327636"), List.copyOf(a.runevtRanges().keySet()));

        GuidInfo b = s.guids().get(1);
        assertEquals(1, b.fileno());
        assertEquals(1, b.nuevents());
        assertEquals(3_000, b.fileStartProcTime());
        assertEquals("r1", b.amiTag());
    }

    /** Event numbers are uint64: 2^63 and above are the largest, not negative. */
    @Test
    void eventRangesAreInUnsignedOrder() throws IOException {
        long above = Long.parseUnsignedLong("9223372036854776007");
        Path file = dir.resolve("big.ei.spb");
        try (OutputStream out = Files.newOutputStream(file); SpbWriter w = new SpbWriter(out)) {
            w.header(header());
            w.beginGuid(begin(GUID_A));
            w.event(event(327636, above));
            w.event(event(327636, 7));
            w.event(event(327636, -1L)); // 18446744073709551615
            w.endGuid(2_000);
            w.beginGuid(begin(GUID_B));
            w.event(event(327636, above));
            w.event(event(327636, Long.MAX_VALUE));
            w.endGuid(2_000);
            w.finish(3_000);
        }
        SpbSummary s = SpbSummary.scan(file, SpbLimits.DEFAULT);
        GuidInfo g = s.guids().get(0);
        assertEquals(new EventRange(7, -1L), g.runevtRanges().get("327636"));
        assertEquals("[7, 18446744073709551615]", g.runevtRanges().get("327636").toString());
        assertEquals(new EventRange(Long.MAX_VALUE, above), s.guids().get(1).runevtRanges().get("327636"));
    }

    @Test
    void uncompressedSizeMatchesTheStream() throws IOException {
        SpbFixtures.Raw raw = SpbFixtures.Raw.valid(7);
        byte[] gz = raw.gzip();
        SpbSummary s = SpbSummary.scan(new java.io.ByteArrayInputStream(gz), "mem", SpbLimits.DEFAULT);
        assertEquals(raw.size(), s.uncompressedBytes());
        assertEquals(gz.length, s.compressedBytes());
        assertEquals(7, s.nevents());
        assertEquals(7, s.nuevents());
    }

    @Test
    void malformedFileFailsTheScan() throws IOException {
        Path file = dir.resolve("empty.ei.spb");
        Files.write(file, new byte[0]);
        SpbFormatException e = assertThrows(SpbFormatException.class, () -> SpbSummary.scan(file, SpbLimits.DEFAULT));
        assertEquals(Problem.EMPTY, e.problem());
        assertEquals(file.toString(), e.source());
    }
}
