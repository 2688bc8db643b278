package org.eventindex.consumer;

import org.eventindex.consolidated.ConsolidatedSchema;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.SignalObject;
import org.eventindex.names.DatasetName;
import org.eventindex.names.PoolToken;
import org.eventindex.names.TriggerMask;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.SpbLimits;
import org.eventindex.spb.SpbWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Generated SPB objects -> consolidation (fetch, select, sort with a tiny memory budget so many sorted runs are
 * merged, and with room for one run per object: same bytes) -> Parquet file -> read back by DuckDB (an independent
 * Parquet implementation) -> every field of every event equal to the input, in (run, event) order; the footer
 * metadata as documented; a second run gives the same bytes.
 */
class ParquetRoundTripTest {
    /** Runs merged at once here: small, so that a few hundred chunks take intermediate merge passes. */
    private static final int FAN_IN = 16;
    /**
     * A simulation dataset: its events carry one conditions run, here one with the top bit set (unsigned), and are all
     * simulated (the content rules: one run and one simulation flag per dataset).
     */
    private static final String DATASET =
            "mc16_13TeV.361106.PowhegPythia8EvtGen_AZNLOCTEQ6L1_Zee.merge.AOD.e3601_s3126_r9364_tid12345678_00";
    private static final String CONTAINER = DatasetName.parse(DATASET).container();
    private static final int RUN = 0xF000_0002;
    private static final String CLID = "D82968A1-CF91-4320-B2DD-E0F739CBC7E6";

    @TempDir
    Path dir;

    private final MemoryObjectFetcher store = new MemoryObjectFetcher();

    /** An input event with the GUID of its file. */
    private record In(EIEvent_p1 event, String guid) {
    }

    @Test
    void everyFieldSurvivesAndRowsAreSortedWithBoundedSortMemory() throws Exception {
        Random r = new Random(42);
        List<In> expected = new ArrayList<>();
        List<SignalObject> objects = new ArrayList<>();
        for (int o = 0; o < 4; o++) {
            String key = "obj" + o;
            List<String> guids = List.of(guid(o, 0), guid(o, 1));
            store.put(key, object(key, r, guids, 400, expected));
            objects.add(new SignalObject(MemoryObjectFetcher.url(key).toString(), 100, guids, 800));
        }
        ValidSignal signal = new SignalValidator("s3.test", 7480, "eventindex").validate(new ConsumerSignal(
                ConsumerSignal.TYPE, "sig-rt", DATASET, CONTAINER, 7, 1, objects, 3200L, 1L));

        // ~3,200 events of ~300-600 B, each object sorted on its fetch thread: one run each with room to spare; with
        // 8 KiB shared by 3 fetch threads, hundreds of chunks (several per object), more than the merge's fan-in
        // (intermediate passes). The reference is the roomy file.
        Consolidated roomy = consolidate(signal, 1L << 30);
        assertEquals(4, roomy.runs(), "one run per object");
        byte[] first = roomy.bytes();
        assertArrayEquals(first, consolidate(signal, 1L << 30).bytes(),
                "a redelivered signal must rewrite identical bytes");
        Consolidated tight = consolidate(signal, 8 * 1024);
        assertTrue(tight.runs() > FAN_IN, "runs: " + tight.runs());
        assertArrayEquals(first, tight.bytes(), "chunked objects and intermediate merges must not change the output");
        assertArrayEquals(first, consolidate(signal, 64 * 1024).bytes());

        Path file = dir.resolve(DATASET + ConsolidatedSchema.SUFFIX);
        Files.write(file, first);
        List<In> sorted = new ArrayList<>(expected);
        sorted.sort(Comparator.<In>comparingLong(i -> Integer.toUnsignedLong(i.event().getRunNumber()))
                .thenComparing((a, b) -> Long.compareUnsigned(a.event().getEventNumber(), b.event().getEventNumber())));

        List<In> actual = readWithDuckDb(file);
        assertEquals(sorted.size(), actual.size());
        for (int i = 0; i < sorted.size(); i++) {
            assertEquals(key(sorted.get(i)), key(actual.get(i)), "row " + i + " order");
        }
        // Stable sort: equal (run, event) keep signal order, so whole rows compare one to one.
        for (int i = 0; i < sorted.size(); i++) {
            assertEquals(sorted.get(i).event(), actual.get(i).event(), "row " + i);
            assertEquals(sorted.get(i).guid(), actual.get(i).guid(), "guid of row " + i);
        }

        Map<String, String> meta = readMetadataWithDuckDb(file);
        assertEquals(DATASET, meta.get(ConsolidatedSchema.META_DATASET));
        assertEquals("sig-rt", meta.get(ConsolidatedSchema.META_SIGNAL_ID));
        assertEquals("3200", meta.get(ConsolidatedSchema.META_EVENTS));
        assertTrue(meta.get(ConsolidatedSchema.META_OBJECTS).contains("obj3"), meta.toString());
        assertTrue(meta.get(ConsolidatedSchema.META_FILES).contains(guid(2, 1)), meta.toString());
        assertEquals(64, meta.get(ConsolidatedSchema.META_CHECKSUM).length());
    }

    private record Consolidated(byte[] bytes, int runs) {
    }

    private Consolidated consolidate(ValidSignal signal, long sortBudget) throws Exception {
        Path spill = Files.createTempDirectory(dir, "spill");
        ConsumerMetrics metrics = new ConsumerMetrics(new PrometheusRegistry());
        Consolidator c = new Consolidator(store, SpbLimits.DEFAULT, 3, 1, metrics);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ObservedWriter observed;
        AtomicLong rows = new AtomicLong();
        try (ConsolidatedWriter w = new ParquetConsolidatedFormat(spill, sortBudget, 2, 0,
                ParquetConsolidatedFormat.OWN_ENCODERS, FAN_IN, rows::addAndGet).open(out)) {
            observed = ObservedWriter.recordingRuns(w);
            assertEquals(3200, c.consolidate(signal, observed).eventsWritten());
        }
        assertEquals(3200, rows.get(), "every row written is told as work done");
        assertEquals(signal.objects().size(), metrics.workDone.get(), "every object read is work done");
        try (Stream<Path> left = Files.list(spill)) {
            assertEquals(0, left.count(), "run files are removed");
        }
        return new Consolidated(out.toByteArray(), observed.runCount());
    }

    private static String key(In in) {
        return Integer.toUnsignedString(in.event().getRunNumber()) + "/"
                + Long.toUnsignedString(in.event().getEventNumber());
    }

    private static String guid(int object, int file) {
        return String.format("%08X-1111-4000-8000-%012X", object, file);
    }

    private static byte[] object(String name, Random r, List<String> guids, int perGuid, List<In> expected) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (SpbWriter w = new SpbWriter(bytes)) {
            w.header(Header_p1.newBuilder().setStartProcTime(1000).setTaskID(TestSpb.TASK_ID).setJobID(name)
                    .setInputDsName(DATASET).setProvenanceRef(true).setTriggerInfo(true).build());
            for (String g : guids) {
                w.beginGuid(BeginGUID_p1.newBuilder().setStartProcTime(1000).setAMITag("f838_m1824")
                        .setTrigStream("physics_Main").setProjName("data17_13TeV").setGuid(g).build());
                w.triggerMenu(TriggerMenu_p1.newBuilder().setSMK(2747).setL1PSK(19).setHLTPSK(8)
                        .setL1Menu("L1_EM3;L1_MU4").setHLTMenu("HLT_e26").build());
                for (int i = 0; i < perGuid; i++) {
                    EIEvent_p1 e = event(r, g, i);
                    expected.add(new In(e, g));
                    w.event(e);
                }
                w.endGuid(2000);
            }
            w.finish(2000);
        }
        return bytes.toByteArray();
    }

    /** Random events exercising every field: optional ones present or not, unsigned values with the top bit set. */
    private static EIEvent_p1 event(Random r, String guid, int entry) {
        EIEvent_p1.Builder b = EIEvent_p1.newBuilder()
                .setRunNumber(RUN)
                // a small range makes cross-file duplicates; some numbers beyond 2^63
                .setEventNumber(r.nextInt(20) == 0 ? Long.MIN_VALUE + r.nextInt(100) : r.nextInt(2500))
                .setLumiBlock(r.nextInt(1000)).setTimeStamp(0x8000_0000 + r.nextInt(1000))
                .setTimeStampNSOffset(r.nextInt(1_000_000_000)).setBcid(r.nextInt(3564))
                .setIsSimulation(true).setIsCalibration(r.nextBoolean()).setIsTestBeam(r.nextBoolean());
        if (r.nextBoolean()) {
            b.setExtendedLevel1ID(r.nextInt());
        }
        if (r.nextInt(10) > 0) {
            b.setL1PassedTrigMask(TriggerMask.encodeL1(bits(r, 512, 20), bits(r, 512, 15), bits(r, 512, 12)));
        }
        if (r.nextInt(10) == 0) {
            b.setL2PassedTrigMask("");
        }
        if (r.nextInt(10) > 0) {
            b.setEFPassedTrigMask(TriggerMask.encodeHlt(bits(r, 4096, 20), bits(r, 4096, 1), bits(r, 4096, 0)));
        }
        if (r.nextBoolean()) {
            b.setSMK(2747).setHLTPSK(8).setL1PSK(0xFFFF_FFFF);
        }
        if (r.nextBoolean()) {
            b.setMcEventWeight(r.nextFloat() * 3 - 1).setMcChannelNumber(361106);
        }
        int tokens = r.nextInt(4);
        String[] names = {"StreamAOD", "StreamESD", "StreamRAW"};
        for (int t = 0; t < tokens; t++) {
            String db = t == 0 ? guid : String.format("%08X-2222-4000-8000-%012X", t, entry);
            b.addEitoken(EItoken_p1.newBuilder().setName(names[t])
                    .setToken(new PoolToken(db, "POOLContainer(DataHeader)", CLID, 0x202, 3, entry).format()));
        }
        return b.build();
    }

    private static BitSet bits(Random r, int width, int n) {
        BitSet b = new BitSet(width);
        for (int i = 0; i < n; i++) {
            b.set(r.nextInt(width));
        }
        return b;
    }

    private static List<In> readWithDuckDb(Path file) throws Exception {
        List<In> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
             Statement st = c.createStatement();
             // a stage's token is its entry of the eitoken list (format 2 keeps no tk_* copies)
             ResultSet rs = st.executeQuery("SELECT *, eitoken[1].token AS own_token, "
                     + "list_filter(eitoken, t -> t.name = 'StreamRAW')[1].token AS raw_token FROM read_parquet('"
                     + file + "')")) {
            java.sql.ResultSetMetaData md = rs.getMetaData();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                assertFalse(md.getColumnName(i).matches("tk(_.*)?"), "copy of a token: " + md.getColumnName(i));
            }
            while (rs.next()) {
                EIEvent_p1.Builder b = EIEvent_p1.newBuilder()
                        .setRunNumber((int) rs.getLong("run_number"))
                        .setEventNumber(new java.math.BigInteger(rs.getString("event_number")).longValue())
                        .setLumiBlock((int) rs.getLong("lumi_block"))
                        .setTimeStamp((int) rs.getLong("time_stamp"))
                        .setTimeStampNSOffset((int) rs.getLong("time_stamp_ns_offset"))
                        .setBcid((int) rs.getLong("bcid"))
                        .setIsSimulation(rs.getBoolean("is_simulation"))
                        .setIsCalibration(rs.getBoolean("is_calibration"))
                        .setIsTestBeam(rs.getBoolean("is_test_beam"));
                long l1id = rs.getLong("extended_level1_id");
                if (!rs.wasNull()) {
                    b.setExtendedLevel1ID((int) l1id);
                }
                String s = rs.getString("l1_passed_trig_mask");
                if (s != null) {
                    b.setL1PassedTrigMask(s);
                }
                s = rs.getString("l2_passed_trig_mask");
                if (s != null) {
                    b.setL2PassedTrigMask(s);
                }
                s = rs.getString("ef_passed_trig_mask");
                if (s != null) {
                    b.setEFPassedTrigMask(s);
                }
                long v = rs.getLong("smk");
                if (!rs.wasNull()) {
                    b.setSMK((int) v);
                }
                v = rs.getLong("hltpsk");
                if (!rs.wasNull()) {
                    b.setHLTPSK((int) v);
                }
                v = rs.getLong("l1psk");
                if (!rs.wasNull()) {
                    b.setL1PSK((int) v);
                }
                float w = rs.getFloat("mc_event_weight");
                if (!rs.wasNull()) {
                    b.setMcEventWeight(w);
                }
                v = rs.getLong("mc_channel_number");
                if (!rs.wasNull()) {
                    b.setMcChannelNumber((int) v);
                }
                Array tokens = rs.getArray("eitoken");
                if (tokens != null) {
                    for (Object o : (Object[]) tokens.getArray()) {
                        java.sql.Struct t = (java.sql.Struct) o;
                        Object[] f = t.getAttributes();
                        b.addEitoken(EItoken_p1.newBuilder().setName((String) f[0]).setToken((String) f[1]));
                    }
                }
                EIEvent_p1 e = b.build();
                String guid = rs.getString("guid");
                // the derived stage columns agree with the tokens
                if (e.getEitokenCount() > 0) {
                    assertEquals(e.getEitoken(0).getToken(), rs.getString("own_token"));
                    assertEquals(PoolToken.parse(e.getEitoken(0).getToken()).db(), rs.getString("db"));
                    assertEquals(rs.getString("db"), rs.getString("db_aod"));
                } else {
                    assertEquals(guid, rs.getString("db"));
                    assertNull(rs.getString("own_token"));
                }
                String raw = e.getEitokenList().stream().filter(t -> t.getName().equals("StreamRAW"))
                        .map(EItoken_p1::getToken).findFirst().orElse(null);
                assertEquals(raw, rs.getString("raw_token"));
                assertEquals(raw == null ? null : PoolToken.parse(raw).db(), rs.getString("db_raw"));
                rows.add(new In(e, guid));
            }
        }
        return rows;
    }

    private static Map<String, String> readMetadataWithDuckDb(Path file) throws Exception {
        Map<String, String> meta = new java.util.HashMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:");
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('"
                     + file + "')")) {
            while (rs.next()) {
                meta.put(rs.getString("k"), rs.getString("v"));
            }
        }
        return meta;
    }
}
