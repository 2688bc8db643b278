package org.eventindex.gen;

import org.eventindex.message.DatasetManifest;
import org.eventindex.message.GuidInfo;
import org.eventindex.names.PoolToken;
import org.eventindex.names.TriggerMask;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.spb.SpbFormatException;
import org.eventindex.spb.SpbLimits;
import org.eventindex.spb.SpbReader;
import org.eventindex.spb.SpbRecord;
import org.eventindex.spb.SpbSummary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DatasetGeneratorTest {
    private static final String DATA = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
    private static final String MC =
            "mc16_13TeV.361106.PowhegPythia8EvtGen_AZNLOCTEQ6L1_Zee.merge.AOD.e3601_s3126_r9364_r9315";

    @TempDir
    Path dir;

    private static GeneratorSpec small(String name) {
        return new GeneratorSpec(name, 5, 40, 2, 1, 1, 6, name.startsWith("mc"), 99L);
    }

    @Test
    void defaultBytesPerEventAreTheSeeds() throws IOException {
        GeneratedDataset ds = new DatasetGenerator(GeneratorSpec.defaults(DATA)).generate(dir);
        assertEquals(EventSize.SEED, GeneratorSpec.defaults(DATA).eventSize());
        double bpe = ds.bytesPerEvent();
        assertTrue(bpe >= 30 && bpe <= 46, "bytes/event " + bpe);
    }

    /** Compressed and inflated bytes per event of each size, on one 20,000-event job (sizes the docs quote). */
    @Test
    void eachEventSizeHasItsBytesPerEventAndInflation() throws IOException {
        double[] seed = sizes(EventSize.SEED);
        double[] large = sizes(EventSize.LARGE_JOB);
        double[] heavy = sizes(EventSize.HEAVY);
        assertTrue(seed[0] >= 32 && seed[0] <= 44, "SEED bytes/event " + seed[0]);
        assertTrue(large[0] >= 18 && large[0] <= 26, "LARGE_JOB bytes/event " + large[0]);
        assertTrue(heavy[0] >= 105 && heavy[0] <= 130, "HEAVY bytes/event " + heavy[0]);
        assertTrue(seed[1] >= 12 && seed[1] <= 20, "SEED inflation " + seed[1]);
        assertTrue(large[1] >= 10 && large[1] <= 18, "LARGE_JOB inflation " + large[1]);
        assertTrue(heavy[1] >= 5.5 && heavy[1] <= 7.5, "HEAVY inflation " + heavy[1]);
    }

    private double[] sizes(EventSize size) throws IOException {
        GeneratorSpec spec = new GeneratorSpec(DATA, 1, 20_000, 1, 0, 0, 0, false, 5L, size);
        GeneratedDataset ds = new DatasetGenerator(spec).generate(dir.resolve(size.name()));
        Path file = ds.jobs().get(0).spbFile();
        long inflated;
        try (var in = new java.util.zip.GZIPInputStream(Files.newInputStream(file))) {
            inflated = in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        return new double[] {ds.bytesPerEvent(), (double) inflated / Files.size(file)};
    }

    @Test
    void largeJobEventsCarryOnlyTheirOwnToken() throws IOException {
        GeneratorSpec spec = small(DATA).withEventSize(EventSize.LARGE_JOB);
        GeneratedDataset ds = new DatasetGenerator(spec).generate(dir);
        Path file = ds.jobs(GeneratedJob.Outcome.REPORTED).get(0).spbFile();
        int events = 0;
        try (SpbReader r = SpbReader.open(file, SpbLimits.DEFAULT)) {
            for (SpbRecord rec = r.next(); rec != null; rec = r.next()) {
                if (rec instanceof SpbRecord.Header h) {
                    assertTrue(!h.message().getProvenanceRef(), "provenanceRef");
                } else if (rec instanceof SpbRecord.Event e) {
                    assertEquals(1, e.message().getEitokenCount());
                    assertEquals(FileEvents.OWN_STREAM, e.message().getEitoken(0).getName());
                    events++;
                }
            }
        }
        assertTrue(events > 0);
    }

    @Test
    void sameSeedSameBytes() throws IOException {
        GeneratedDataset a = new DatasetGenerator(small(DATA)).generate(dir.resolve("a"));
        GeneratedDataset b = new DatasetGenerator(small(DATA)).generate(dir.resolve("b"));
        assertEquals(a.manifest(), b.manifest());
        assertEquals(a.jobs().size(), b.jobs().size());
        for (int i = 0; i < a.jobs().size(); i++) {
            GeneratedJob ja = a.jobs().get(i);
            GeneratedJob jb = b.jobs().get(i);
            assertEquals(ja.jobID(), jb.jobID());
            assertEquals(ja.spbFile().getFileName(), jb.spbFile().getFileName());
            assertArrayEquals(Files.readAllBytes(ja.spbFile()), Files.readAllBytes(jb.spbFile()));
        }
        assertEquals(a.spbBytes(), b.spbBytes());
        GeneratedDataset c = new DatasetGenerator(small(DATA).withSeed(100)).generate(dir.resolve("c"));
        assertNotEquals(a.manifest(), c.manifest());
    }

    @Test
    void jobsAttemptsAndOutcomes() throws IOException {
        GeneratorSpec spec = small(DATA);
        GeneratedDataset ds = new DatasetGenerator(spec).generate(dir);
        assertEquals(3, spec.jobs());
        // One final attempt per job, one extra reported attempt, one crashed attempt.
        assertEquals(5, ds.jobs().size());
        assertEquals(4, ds.jobs(GeneratedJob.Outcome.REPORTED).size());
        assertEquals(1, ds.jobs(GeneratedJob.Outcome.CRASHED).size());
        Set<String> jobIds = new HashSet<>();
        for (GeneratedJob j : ds.jobs()) {
            assertTrue(j.taskID().matches("[0-9]+\\.G"), j.taskID());
            assertTrue(j.jobID().matches("[0-9]+\\.[1-3]"), j.jobID());
            assertTrue(jobIds.add(j.jobID()), "jobID reused: " + j.jobID());
            assertEquals(j.taskID() + "_" + j.jobID() + ".ei.spb", j.spbFile().getFileName().toString());
        }
        // Every job's last attempt reported.
        Map<List<String>, GeneratedJob> lastByGuids = new HashMap<>();
        for (GeneratedJob j : ds.jobs()) {
            lastByGuids.put(j.guids(), j);
        }
        assertEquals(3, lastByGuids.size());
        lastByGuids.values().forEach(j -> assertEquals(GeneratedJob.Outcome.REPORTED, j.outcome()));
    }

    @Test
    void reportedFilesValidateAndCountsAddUp() throws IOException {
        GeneratorSpec spec = small(DATA);
        GeneratedDataset ds = new DatasetGenerator(spec).generate(dir);
        assertEquals(5 * 40 + 6, ds.expectedEvents());
        assertEquals(5 * 40, ds.expectedUniqueEvents());
        assertEquals(6, ds.crossFileDuplicates());

        Map<String, GuidInfo> byGuid = new HashMap<>();
        Map<String, List<EIEvent_p1>> eventsByGuid = new HashMap<>();
        long bytes = 0;
        long events = 0;
        for (GeneratedJob j : ds.jobs(GeneratedJob.Outcome.REPORTED)) {
            SpbSummary s = SpbSummary.scan(j.spbFile(), SpbLimits.DEFAULT);
            assertEquals(j.taskID(), s.taskID());
            assertEquals(j.jobID(), s.jobID());
            assertEquals(DATA, s.inputDsName());
            assertEquals(j.guids(), s.guids().stream().map(GuidInfo::guid).toList());
            bytes += s.compressedBytes();
            events += s.nevents();
            Map<String, List<EIEvent_p1>> read = events(j.spbFile());
            for (GuidInfo g : s.guids()) {
                GuidInfo previous = byGuid.put(g.guid(), g);
                List<EIEvent_p1> previousEvents = eventsByGuid.put(g.guid(), read.get(g.guid()));
                if (previous != null) {
                    // A duplicated attempt: same file, same events.
                    assertEquals(previous.nevents(), g.nevents());
                    assertEquals(previous.runevtRanges(), g.runevtRanges());
                    assertEquals(previousEvents, read.get(g.guid()));
                }
            }
        }
        assertEquals(ds.spbBytes(), bytes);
        assertEquals(ds.spbEvents(), events);

        assertEquals(5, byGuid.size());
        for (DatasetManifest.ManifestFile f : ds.manifest()) {
            assertEquals(f.nevents(), byGuid.get(f.guid()).nevents(), f.guid());
        }
        Map<String, Integer> seen = new HashMap<>();
        long total = 0;
        for (List<EIEvent_p1> list : eventsByGuid.values()) {
            for (EIEvent_p1 e : list) {
                seen.merge(e.getRunNumber() + ":" + e.getEventNumber(), 1, Integer::sum);
                total++;
            }
        }
        assertEquals(ds.expectedEvents(), total);
        assertEquals(ds.expectedUniqueEvents(), seen.size());
        assertEquals(6, seen.values().stream().filter(n -> n == 2).count());
        assertTrue(seen.values().stream().allMatch(n -> n <= 2));
    }

    @Test
    void crossFileCopiesKeepContentButNameTheirFile() throws IOException {
        GeneratedDataset ds = new DatasetGenerator(small(DATA)).generate(dir);
        Map<String, EIEvent_p1> first = new HashMap<>();
        Map<String, String> fileOf = new HashMap<>();
        int pairs = 0;
        for (GeneratedJob j : ds.jobs(GeneratedJob.Outcome.REPORTED)) {
            for (Map.Entry<String, List<EIEvent_p1>> f : events(j.spbFile()).entrySet()) {
                for (EIEvent_p1 e : f.getValue()) {
                    String key = e.getRunNumber() + ":" + e.getEventNumber();
                    EIEvent_p1 other = first.putIfAbsent(key, e);
                    String otherFile = fileOf.putIfAbsent(key, f.getKey());
                    if (other != null && !otherFile.equals(f.getKey())) {
                        pairs++;
                        assertEquals(other.getL1PassedTrigMask(), e.getL1PassedTrigMask());
                        assertEquals(other.getEFPassedTrigMask(), e.getEFPassedTrigMask());
                        assertEquals(other.getEitoken(1), e.getEitoken(1));
                        assertEquals(other.getEitoken(2), e.getEitoken(2));
                        assertEquals(otherFile, PoolToken.parse(other.getEitoken(0).getToken()).db());
                        assertEquals(f.getKey(), PoolToken.parse(e.getEitoken(0).getToken()).db());
                    }
                }
            }
        }
        assertEquals(6, pairs);
    }

    @Test
    void crashedAttemptsAreTruncated() throws IOException {
        GeneratedDataset ds = new DatasetGenerator(small(DATA).withFaults(0, 3, 0)).generate(dir);
        assertEquals(3, ds.jobs(GeneratedJob.Outcome.CRASHED).size());
        for (GeneratedJob j : ds.jobs(GeneratedJob.Outcome.CRASHED)) {
            SpbFormatException e = assertThrows(SpbFormatException.class,
                    () -> SpbSummary.scan(j.spbFile(), SpbLimits.DEFAULT));
            assertTrue(e.problem() == SpbFormatException.Problem.TRUNCATED
                    || e.problem() == SpbFormatException.Problem.BAD_GZIP, e.getMessage());
        }
    }

    @Test
    void eventsAreRealistic() throws IOException {
        GeneratedDataset ds = new DatasetGenerator(small(DATA).withFaults(0, 0, 0)).generate(dir);
        for (GeneratedJob j : ds.jobs()) {
            for (Map.Entry<String, List<EIEvent_p1>> f : events(j.spbFile()).entrySet()) {
                long previousEvent = -1;
                int previousLb = 0;
                int entry = 0;
                for (EIEvent_p1 e : f.getValue()) {
                    assertEquals(327636, e.getRunNumber());
                    assertTrue(e.getEventNumber() > previousEvent);
                    assertTrue(e.getLumiBlock() >= previousLb && e.getLumiBlock() > 0);
                    assertTrue(e.getBcid() >= 0 && e.getBcid() < 3564);
                    assertTrue(e.getTimeStamp() > 1_490_000_000 && e.getTimeStamp() < 1_530_000_000);
                    assertTrue(e.hasExtendedLevel1ID());
                    int l1 = TriggerMask.decodeL1(e.getL1PassedTrigMask()).cardinality();
                    assertTrue(l1 >= 3 && l1 <= 120, "L1 bits " + l1);
                    BitSetCount hlt = BitSetCount.of(TriggerMask.decodeHlt(e.getEFPassedTrigMask()));
                    assertTrue(hlt.total >= 2 && hlt.total <= 100, "HLT bits " + hlt.total);
                    List<String> names = e.getEitokenList().stream().map(EItoken_p1::getName).toList();
                    assertEquals(List.of("StreamAOD", "StreamESD", "StreamRAW"), names);
                    PoolToken own = PoolToken.parse(e.getEitoken(0).getToken());
                    assertEquals(f.getKey(), own.db());
                    assertEquals(entry++, own.oid2());
                    PoolToken.parse(e.getEitoken(1).getToken());
                    PoolToken.parse(e.getEitoken(2).getToken());
                    previousEvent = e.getEventNumber();
                    previousLb = e.getLumiBlock();
                }
            }
        }
    }

    @Test
    void simulationEvents() throws IOException {
        GeneratedDataset ds = new DatasetGenerator(small(MC)).generate(dir);
        EIEvent_p1 e = events(ds.jobs().get(ds.jobs().size() - 1).spbFile()).values().iterator().next().get(0);
        assertTrue(e.getIsSimulation());
        assertEquals(361106, e.getMcChannelNumber());
        assertTrue(e.hasMcEventWeight());
    }

    @Test
    void taskNumberComesFromTheTidSuffix() throws IOException {
        GeneratedDataset ds = new DatasetGenerator(small(DATA + "_tid11223344_00")).generate(dir);
        assertEquals("11223344.G", ds.jobs().get(0).taskID());
        assertEquals(DATA + "_tid11223344_00", ds.manifestMessage().dataset());
        assertEquals(DatasetManifest.TYPE, ds.manifestMessage().type());
    }

    @Test
    void specValidation() {
        assertThrows(IllegalArgumentException.class, () -> new GeneratorSpec("bad", 1, 1, 1, 0, 0, 0, false, 1));
        assertThrows(IllegalArgumentException.class, () -> new GeneratorSpec(DATA, 0, 1, 1, 0, 0, 0, false, 1));
        assertThrows(IllegalArgumentException.class, () -> new GeneratorSpec(DATA, 1, 0, 1, 0, 0, 0, false, 1));
        assertThrows(IllegalArgumentException.class, () -> new GeneratorSpec(DATA, 1, 1, 0, 0, 0, 0, false, 1));
        assertThrows(IllegalArgumentException.class, () -> new GeneratorSpec(DATA, 4, 1, 2, 3, 0, 0, false, 1));
        assertThrows(IllegalArgumentException.class, () -> new GeneratorSpec(DATA, 4, 1, 2, 0, -1, 0, false, 1));
        assertThrows(IllegalArgumentException.class, () -> new GeneratorSpec(DATA, 1, 5, 1, 0, 0, 1, false, 1));
        assertThrows(IllegalArgumentException.class, () -> new GeneratorSpec(DATA, 2, 5, 1, 0, 0, 6, false, 1));
        assertThrows(NullPointerException.class, () -> new GeneratorSpec(null, 1, 1, 1, 0, 0, 0, false, 1));
        assertEquals(4, GeneratorSpec.defaults(DATA).jobs());
        assertTrue(GeneratorSpec.defaults(MC).simulation());
    }

    /** Events per GUID, in file order. */
    static Map<String, List<EIEvent_p1>> events(Path spb) throws IOException {
        Map<String, List<EIEvent_p1>> out = new java.util.LinkedHashMap<>();
        try (SpbReader r = SpbReader.open(spb, SpbLimits.DEFAULT)) {
            List<EIEvent_p1> current = null;
            for (SpbRecord rec = r.next(); rec != null; rec = r.next()) {
                if (rec instanceof SpbRecord.BeginGuid b) {
                    current = new ArrayList<>();
                    out.put(b.message().getGuid(), current);
                } else if (rec instanceof SpbRecord.Event e) {
                    current.add(e.message());
                }
            }
        }
        return out;
    }

    private record BitSetCount(int total) {
        static BitSetCount of(java.util.BitSet[] masks) {
            int n = 0;
            for (java.util.BitSet m : masks) {
                n += m.cardinality();
            }
            return new BitSetCount(n);
        }
    }
}
