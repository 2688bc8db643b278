package org.eventindex.sql;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.OperationResponse;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.Update;
import org.apache.spark.sql.SparkSession;
import org.eventindex.consolidated.ConsolidatedFileWriter;
import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.kudu.DatasetLoader;
import org.eventindex.kudu.DatasetSource;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.kudu.LoadRequest;
import org.eventindex.kudu.LoadResult;
import org.eventindex.kudu.LoaderSettings;
import org.eventindex.names.DatasetName;
import org.eventindex.names.PoolToken;
import org.eventindex.names.TriggerMask;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.testing.EmbeddedKudu;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A real Kudu holding a small generated index, loaded with the project's own code (KuduTables, then DatasetLoader
 * from consolidated Parquet files written by ConsolidatedFileWriter, as the consumer does), and a local Spark session
 * with the tables registered by create-tables.sql. The generated rows stay in memory ({@link #datasets()}) for the
 * tests' brute-force references.
 * <p>
 * The datasets (table prefix {@value #PREFIX}, 2 hash buckets, epochs 1 to 3):
 * <ul>
 *   <li>{@link #AOD_T0} (dspid 101, epoch 1): run 327636 events 1..400 in file A1; 50..59 again in A2 and 55 a third
 *       time in A3 (11 DUPLICATEDEVENTS rows). AMI count 411.</li>
 *   <li>{@link #AOD_T1} (102, epoch 2): events 401..600, the second task output of the same container. AMI 250.</li>
 *   <li>{@link #ESD} (103, epoch 2): events 300..700 (shares 101 events with AOD_T0, 200 with AOD_T1). No AMI.</li>
 *   <li>{@link #LOADING} (104, epoch 1): events 1..10 and 2000..2005, set back to LOADING after its load (its
 *       EVENTSOVERLAP rows with AOD_T0 stay, as after an interrupted reload). AMI 16.</li>
 *   <li>{@link #OTHER_RUN} (105, epoch 3): run 327700 events 1..100. AMI 100.</li>
 *   <li>{@link #MC_A} (106, epoch 1): simulation (conditions run 284500) of dataset number 361106, events 7k for
 *       k = 1..150; 14 and 21 twice.</li>
 *   <li>{@link #MC_B} (107, epoch 3): simulation, events 7k for k = 100..250 (51 shared with MC_A).</li>
 * </ul>
 * Every event fires random L1 TAV items of {5, 3, 64, 70, 127, 300, 511} (TBP also item 200, never TAV) and HLT
 * physics chains of {1, 70, 200, 4095}, so TRIGGERCOUNT has more than 50 pairs with ties.
 */
final class SqlFixture implements ExtensionContext.Store.CloseableResource {
    static final String PREFIX = "sq_";
    static final KuduTablesConfig CONFIG = new KuduTablesConfig(PREFIX, 2, 1);
    static final int RUN = 327636;
    static final int OTHER = 327700;
    static final int MC_NUMBER = 361106;
    static final int MC_CONDITIONS_RUN = 284500;
    static final String AOD_T0 = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid11111111_00";
    static final String AOD_T1 = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid11111111_01";
    static final String ESD = "data17_13TeV.00327636.physics_Main.recon.ESD.f838";
    static final String LOADING = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1825";
    static final String OTHER_RUN = "data17_13TeV.00327700.physics_Late.merge.AOD.f900_m2000";
    static final String MC_A = "mc16_13TeV.361106.PowhegPythia8_Zee.merge.AOD.e3601_r10201_tid22222222_00";
    static final String MC_B = "mc16_13TeV.361106.PowhegPythia8_Zee.merge.AOD.e3601_r10201_tid22222222_01";

    static final int[] TAV_ITEMS = {5, 3, 64, 70, 127, 300, 511};
    private static final double[] TAV_P = {0.6, 0.5, 0.35, 0.45, 0.25, 0.3, 0.2};
    static final int[] HLT_CHAINS = {1, 70, 200, 4095};
    private static final double[] HLT_P = {0.5, 0.3, 0.15, 0.1};
    private static final String CLID = "D82968A1-CF91-4320-B2DD-E0F739CBC7E6";

    /** One generated event row of a dataset file, in file order. */
    record Ev(int run, long event, boolean simulation, String file, String esd, String raw, BitSet tav,
              BitSet hltPhysics, int lumiblock) {
    }

    /** One generated dataset: name, placement, rows in file order, what happened to it. */
    record Ds(String name, int dspid, int epoch, List<Ev> rows, boolean loading, Long amiCount, Instant start) {
        DatasetName parsed() {
            return DatasetName.parse(name);
        }

        String ownStream() {
            return "Stream" + parsed().dataType();
        }
    }

    private final Path dir;
    private final EmbeddedKudu kudu;
    private final Map<String, Ds> datasets = new LinkedHashMap<>();
    private SparkSession spark;

    private SqlFixture(Path dir, EmbeddedKudu kudu) {
        this.dir = dir;
        this.kudu = kudu;
    }

    /**
     * Supplies a {@code SqlFixture} parameter: one fixture shared by every test class of this JVM, started on first
     * use and closed after the last test.
     */
    static final class Resolver implements ParameterResolver {
        @Override
        public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
            return p.getParameter().getType() == SqlFixture.class;
        }

        @Override
        public Object resolveParameter(ParameterContext p, ExtensionContext e) {
            return e.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                    .getOrComputeIfAbsent(SqlFixture.class, k -> start(), SqlFixture.class);
        }
    }

    private static SqlFixture start() {
        try {
            Path dir = Files.createTempDirectory("eventindex-sql-it-");
            EmbeddedKudu kudu = EmbeddedKudu.start(dir.resolve("kudu"), 1);
            SqlFixture f = new SqlFixture(dir, kudu);
            try {
                f.load();
                f.spark = EventIndexSql.startSpark(Files.createDirectories(dir.resolve("warehouse")), 2);
                List<String> problems = new ArrayList<>();
                List<String> registered = EventIndexSql.register(f.spark, kudu.masterAddresses(), PREFIX,
                        problems::add);
                assertEquals(List.of(), problems, "create-tables.sql through Spark");
                assertEquals(List.of("eventindex.datasets", "eventindex.events", "eventindex.mcevents",
                        "eventindex.duplicatedevents", "eventindex.eventsoverlap", "eventindex.triggercount",
                        "eventindex.loaded_datasets"), registered);
            } catch (Exception | Error e) {
                f.close();
                throw e;
            }
            return f;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    SparkSession spark() {
        return spark;
    }

    String masters() {
        return kudu.masterAddresses();
    }

    KuduClient client() {
        return kudu.client();
    }

    /** Rows of a Spark SQL statement, ints widened to long. */
    List<List<Object>> rows(String sql) {
        List<List<Object>> rows = new ArrayList<>();
        for (org.apache.spark.sql.Row r : spark.sql(sql).collectAsList()) {
            List<Object> v = new ArrayList<>();
            for (int i = 0; i < r.length(); i++) {
                Object x = r.get(i);
                v.add(x instanceof Integer || x instanceof Short ? ((Number) x).longValue() : x);
            }
            rows.add(v);
        }
        return rows;
    }

    Map<String, Ds> datasets() {
        return datasets;
    }

    Ds dataset(String name) {
        return datasets.get(name);
    }

    static String guid(int i) {
        return String.format("%08X-5555-4000-8000-%012X", i, i);
    }

    static String token(String guid, long entry) {
        return new PoolToken(guid, "POOLContainer(DataHeader)", CLID, 0x202, 0x10L, entry).format();
    }

    private void load() throws IOException {
        KuduClient client = kudu.client();
        KuduTables tables = new KuduTables(client, CONFIG);
        tables.createOrVerify(1);
        Random r = new Random(20261122);

        List<Ev> t0 = new ArrayList<>();
        range(t0, r, RUN, 1, 400, false, guid(0xA1), guid(0xE1), guid(0xF1));
        range(t0, r, RUN, 50, 59, false, guid(0xA2), guid(0xE1), guid(0xF1));
        range(t0, r, RUN, 55, 55, false, guid(0xA3), guid(0xE1), guid(0xF1));
        List<Ev> t1 = new ArrayList<>();
        range(t1, r, RUN, 401, 600, false, guid(0xB1), guid(0xE2), guid(0xF2));
        List<Ev> esd = new ArrayList<>();
        range(esd, r, RUN, 300, 700, false, guid(0xE3), null, guid(0xF3));
        List<Ev> loading = new ArrayList<>();
        range(loading, r, RUN, 1, 10, false, guid(0xC1), null, null);
        range(loading, r, RUN, 2000, 2005, false, guid(0xC1), null, null);
        List<Ev> other = new ArrayList<>();
        range(other, r, OTHER, 1, 100, false, guid(0xD1), null, null);
        List<Ev> mcA = new ArrayList<>();
        for (long k = 1; k <= 150; k++) {
            range(mcA, r, MC_CONDITIONS_RUN, 7 * k, 7 * k, true, guid(0x1A), null, null);
        }
        range(mcA, r, MC_CONDITIONS_RUN, 14, 14, true, guid(0x1B), null, null);
        range(mcA, r, MC_CONDITIONS_RUN, 21, 21, true, guid(0x1B), null, null);
        List<Ev> mcB = new ArrayList<>();
        for (long k = 100; k <= 250; k++) {
            range(mcB, r, MC_CONDITIONS_RUN, 7 * k, 7 * k, true, guid(0x2A), null, null);
        }

        DatasetLoader[] loader = new DatasetLoader[1];
        load(tables, loader, new Ds(AOD_T0, 101, 1, t0, false, 411L, instant(1)));
        load(tables, loader, new Ds(AOD_T1, 102, 2, t1, false, 250L, instant(2)));
        load(tables, loader, new Ds(ESD, 103, 2, esd, false, null, instant(3)));
        load(tables, loader, new Ds(LOADING, 104, 1, loading, true, 16L, instant(4)));
        load(tables, loader, new Ds(OTHER_RUN, 105, 3, other, false, 100L, instant(5)));
        load(tables, loader, new Ds(MC_A, 106, 1, mcA, false, 152L, instant(6)));
        load(tables, loader, new Ds(MC_B, 107, 3, mcB, false, null, instant(7)));
    }

    private static Instant instant(int i) {
        return Instant.parse("2026-11-0" + i + "T10:00:00.123456Z");
    }

    private static void range(List<Ev> rows, Random r, int run, long from, long to, boolean simulation, String file,
                              String esd, String raw) {
        for (long e = from; e <= to; e++) {
            BitSet tav = new BitSet(TriggerMask.L1_BITS);
            for (int i = 0; i < TAV_ITEMS.length; i++) {
                if (r.nextDouble() < TAV_P[i]) {
                    tav.set(TAV_ITEMS[i]);
                }
            }
            BitSet hlt = new BitSet(TriggerMask.HLT_BITS);
            for (int i = 0; i < HLT_CHAINS.length; i++) {
                if (r.nextDouble() < HLT_P[i]) {
                    hlt.set(HLT_CHAINS[i]);
                }
            }
            rows.add(new Ev(run, e, simulation, file, esd, raw, tav, hlt, (int) (e / 50) + 1));
        }
    }

    private EIEvent_p1 event(Ds ds, Ev x) {
        BitSet tbp = (BitSet) x.tav().clone();
        tbp.set(200); // before prescale only: never TAV, so never a Q2 match
        EIEvent_p1.Builder b = EIEvent_p1.newBuilder().setRunNumber(x.run()).setEventNumber(x.event())
                .setLumiBlock(x.lumiblock()).setTimeStamp(1_500_000_000).setTimeStampNSOffset(7).setBcid(11)
                .setIsSimulation(x.simulation()).setIsCalibration(false).setIsTestBeam(false)
                .setL1PassedTrigMask(TriggerMask.encodeL1(tbp, tbp, x.tav()))
                .setEFPassedTrigMask(TriggerMask.encodeHlt(x.hltPhysics(), new BitSet(), new BitSet()));
        b.addEitoken(EItoken_p1.newBuilder().setName(ds.ownStream()).setToken(token(x.file(), x.event())));
        if (x.esd() != null) {
            b.addEitoken(EItoken_p1.newBuilder().setName("StreamESD").setToken(token(x.esd(), x.event())));
        }
        if (x.raw() != null) {
            b.addEitoken(EItoken_p1.newBuilder().setName("StreamRAW").setToken(token(x.raw(), x.event())));
        }
        return b.build();
    }

    /** Writes the consolidated file (rows sorted by run and event, stable) and loads it at {@code ds.start()}. */
    private void load(KuduTables tables, DatasetLoader[] loader, Ds ds) throws IOException {
        List<Ev> sorted = new ArrayList<>(ds.rows());
        sorted.sort(Comparator.comparingInt(Ev::run).thenComparingLong(Ev::event));
        Ds placed = new Ds(ds.name(), ds.dspid(), ds.epoch(), List.copyOf(sorted), ds.loading(), ds.amiCount(),
                ds.start());
        Path file = dir.resolve(ds.dspid() + ".parquet");
        try (OutputStream out = Files.newOutputStream(file)) {
            ConsolidatedFileWriter w = new ConsolidatedFileWriter(out);
            for (Ev x : sorted) {
                w.write(event(placed, x), x.file());
            }
            String signal = "sig-" + ds.dspid();
            long simulation = sorted.stream().filter(Ev::simulation).count();
            List<Long> runs = sorted.stream().map(x -> (long) x.run()).distinct().toList();
            w.finish(new ConsolidatedMetadata(ds.name(), signal,
                    new ConsolidatedMetadata.HeaderInfo(1, "consolidated", signal, true, true),
                    List.of("s3://eventindex/" + ds.dspid()), List.of(), List.of(), w.events(), runs, simulation, 2,
                    w.finishDigest()).toKeyValues());
        }
        loader[0] = new DatasetLoader(kudu.client(), tables, LoaderSettings.defaults(),
                Clock.fixed(ds.start(), ZoneOffset.UTC));
        LoadResult result = loader[0].load(new LoadRequest(DatasetName.parse(ds.name()), ds.dspid(), ds.epoch(),
                "sig-" + ds.dspid(),
                DatasetSource.local(file)));
        assertEquals(sorted.size(), result.events(), ds.name());
        if (ds.amiCount() != null) {
            // what the AMI synchronisation writes; the loader's upserts leave these columns alone
            updateDatasetsRow(ds.name(), row -> row.addLong("ami_count", ds.amiCount()));
        }
        if (ds.loading()) {
            // what an interrupted reload leaves: rows and analytics there, state LOADING
            updateDatasetsRow(ds.name(), row -> row.addString(KuduSchemas.STATE, "LOADING"));
        }
        datasets.put(ds.name(), placed);
    }

    private void updateDatasetsRow(String dataset, Consumer<PartialRow> change) throws IOException {
        DatasetName n = DatasetName.parse(dataset);
        KuduTable t = kudu.client().openTable(CONFIG.datasetsTable());
        Update u = t.newUpdate();
        PartialRow row = u.getRow();
        KuduSchemas.addDatasetKey(row, n);
        change.accept(row);
        KuduSession session = kudu.client().newSession();
        try {
            OperationResponse resp = session.apply(u);
            if (resp.hasRowError()) {
                throw new IllegalStateException("could not update " + dataset + ": " + resp.getRowError());
            }
        } finally {
            session.close();
        }
    }

    @Override
    public void close() {
        try {
            if (spark != null) {
                spark.stop();
            }
        } finally {
            kudu.close();
            try (var paths = Files.walk(dir)) {
                for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException e) {
                // a temporary directory left behind is harmless
            }
        }
    }
}
