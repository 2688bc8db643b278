package org.eventindex.lookup;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.OperationResponse;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.Update;
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

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A real Kudu with a small, fully known index, loaded through {@link DatasetLoader} from generated Parquet files:
 * <ul>
 *   <li>{@link #DS_AOD} (epoch 1, run 327636): events 1..200 in AOD file {@link #AOD_1} (provenance ESD
 *       {@link #ESD_1}, RAW {@link #RAW_1}); events 50..59 again in AOD file {@link #AOD_2} (cross-file
 *       duplicates, provenance the same ESD/RAW files). Lumiblocks 1..4 of 20, 50, 80 and 50 events
 *       (1..20, 21..70, 71..150, 151..200); triggers ({@link #triggers}): L1 item 5 in every event, L1 item 12 in even ones, L1 item 40 in
 *       multiples of 3, HLT chain 3 in multiples of 5. The other datasets: lumiblock 3, no trigger masks.</li>
 *   <li>{@link #DS_ESD} (epoch 2, run 327636): events 100..300 in ESD file {@link #ESD_2} (provenance RAW
 *       {@link #RAW_2}).</li>
 *   <li>{@link #DS_OTHER_RUN} (epoch 2, run 327700): events 1..50 in AOD file {@link #AOD_3}.</li>
 *   <li>{@link #DS_MC} (epoch 1, dataset number 361106, conditions run 284500): simulated events 7, 14 .. 700 in
 *       AOD file {@link #AOD_MC}, in MCEVENTS.</li>
 *   <li>{@link #DS_LOADING} (epoch 1, run 327636): events 1..10 in AOD file {@link #AOD_LOADING}, set back to
 *       LOADING after its load, so a lookup must not see it.</li>
 * </ul>
 */
final class LookupFixture implements AutoCloseable {
    static final KuduTablesConfig CONFIG = new KuduTablesConfig("lk_", 4, 1);
    static final int RUN = 327636;
    static final int OTHER_RUN = 327700;
    static final int MC_DATASET_NUMBER = 361106;
    static final int MC_CONDITIONS_RUN = 284500;
    static final String DS_AOD = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";
    static final String DS_ESD = "data17_13TeV.00327636.physics_Main.recon.ESD.f838";
    static final String DS_OTHER_RUN = "data17_13TeV.00327700.physics_Main.merge.AOD.f900_m2000";
    static final String DS_MC = "mc16_13TeV.361106.PowhegPythia8_Zee.merge.AOD.e3601_r10201_tid12345678_00";
    static final String DS_LOADING = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1825";
    static final String AOD_1 = guid(0xA1);
    static final String AOD_2 = guid(0xA2);
    static final String AOD_3 = guid(0xA3);
    static final String AOD_MC = guid(0xAC);
    static final String AOD_LOADING = guid(0xAF);
    static final String ESD_1 = guid(0xE1);
    static final String ESD_2 = guid(0xE2);
    static final String RAW_1 = guid(0xF1);
    static final String RAW_2 = guid(0xF2);

    private final EmbeddedKudu kudu;
    private final Path dir;

    private LookupFixture(EmbeddedKudu kudu, Path dir) {
        this.kudu = kudu;
        this.dir = dir;
    }

    static LookupFixture start(Path dir) throws Exception {
        EmbeddedKudu kudu = EmbeddedKudu.start(dir.resolve("kudu"), 1);
        LookupFixture f = new LookupFixture(kudu, dir);
        try {
            f.load();
        } catch (Exception e) {
            kudu.close();
            throw e;
        }
        return f;
    }

    KuduClient client() {
        return kudu.client();
    }

    String masters() {
        return kudu.masterAddresses();
    }

    /** Kills the only tablet server: every scan then fails (after the client's timeout). */
    void killTabletServer() {
        kudu.killTabletServer(0);
    }

    /** An AOD token in {@code guid} at entry {@code event}. */
    static String token(String guid, long event) {
        return new PoolToken(guid, "POOLContainer(DataHeader)", guid(0xC1D), 0x202, 0x10L, event).format();
    }

    static String guid(int i) {
        return String.format("%08X-3333-4000-8000-%012X", i, i);
    }

    private void load() throws Exception {
        KuduClient client = kudu.client();
        KuduTables tables = new KuduTables(client, CONFIG);
        tables.createOrVerify(1);
        tables.ensureEpoch(2);
        DatasetLoader loader = new DatasetLoader(client, tables, LoaderSettings.defaults(), Clock.systemUTC());

        List<Row> aod = new ArrayList<>();
        for (long e = 1; e <= 200; e++) {
            aod.add(new Row(triggers(event(RUN, e, false, "StreamAOD", AOD_1, ESD_1, RAW_1)), AOD_1));
        }
        for (long e = 50; e < 60; e++) {
            aod.add(new Row(triggers(event(RUN, e, false, "StreamAOD", AOD_2, ESD_1, RAW_1)), AOD_2));
        }
        LoadResult r = load(loader, DS_AOD, 10, 1, aod);
        assertEquals(10, r.duplicates(), "fixture: 10 cross-file duplicates");

        List<Row> esd = new ArrayList<>();
        for (long e = 100; e <= 300; e++) {
            esd.add(new Row(event(RUN, e, false, "StreamESD", ESD_2, null, RAW_2), ESD_2));
        }
        load(loader, DS_ESD, 11, 2, esd);

        List<Row> other = new ArrayList<>();
        for (long e = 1; e <= 50; e++) {
            other.add(new Row(event(OTHER_RUN, e, false, "StreamAOD", AOD_3, null, null), AOD_3));
        }
        load(loader, DS_OTHER_RUN, 12, 2, other);

        List<Row> mc = new ArrayList<>();
        for (long e = 1; e <= 100; e++) {
            mc.add(new Row(event(MC_CONDITIONS_RUN, 7 * e, true, "StreamAOD", AOD_MC, null, null), AOD_MC));
        }
        load(loader, DS_MC, 13, 1, mc);

        List<Row> loading = new ArrayList<>();
        for (long e = 1; e <= 10; e++) {
            loading.add(new Row(event(RUN, e, false, "StreamAOD", AOD_LOADING, null, null), AOD_LOADING));
        }
        load(loader, DS_LOADING, 14, 1, loading);
        setLoading(client, DS_LOADING);
    }

    /**
     * Loads into the tables of {@code config} (created if missing, epoch 1) the dataset {@code dataset} of {@link #RUN}
     * with events {@code first..last} in AOD file {@code guid} (lumiblock 3, no trigger masks), as the fixture's
     * datasets are loaded: another set of tables, as a rebuild's shadow tables are.
     */
    void loadInto(KuduTablesConfig config, String dataset, int dspid, long first, long last, String guid)
            throws Exception {
        KuduTables tables = new KuduTables(kudu.client(), config);
        tables.createOrVerify(1);
        DatasetLoader loader = new DatasetLoader(kudu.client(), tables, LoaderSettings.defaults(), Clock.systemUTC());
        List<Row> rows = new ArrayList<>();
        for (long e = first; e <= last; e++) {
            rows.add(new Row(event(RUN, e, false, "StreamAOD", guid, null, null), guid));
        }
        load(loader, dataset, dspid, 1, rows);
    }

    private record Row(EIEvent_p1 event, String guid) {
    }

    private static EIEvent_p1 event(int run, long number, boolean simulation, String ownStream, String own,
                                    String esd, String raw) {
        EIEvent_p1.Builder b = EIEvent_p1.newBuilder().setRunNumber(run).setEventNumber(number).setLumiBlock(3)
                .setTimeStamp(5).setTimeStampNSOffset(6).setBcid(7).setIsSimulation(simulation)
                .setIsCalibration(false).setIsTestBeam(false);
        b.addEitoken(EItoken_p1.newBuilder().setName(ownStream).setToken(token(own, number)));
        if (esd != null) {
            b.addEitoken(EItoken_p1.newBuilder().setName("StreamESD").setToken(token(esd, number)));
        }
        if (raw != null) {
            b.addEitoken(EItoken_p1.newBuilder().setName("StreamRAW").setToken(token(raw, number)));
        }
        return b.build();
    }

    /** {@link #DS_AOD}'s lumiblock and trigger masks for its event (see the class comment). */
    private static EIEvent_p1 triggers(EIEvent_p1 event) {
        long e = event.getEventNumber();
        BitSet tav = new BitSet();
        tav.set(5);
        tav.set(12, e % 2 == 0);
        tav.set(40, e % 3 == 0);
        BitSet physics = new BitSet();
        physics.set(3, e % 5 == 0);
        return event.toBuilder().setLumiBlock(1 + (e > 20 ? 1 : 0) + (e > 70 ? 1 : 0) + (e > 150 ? 1 : 0))
                .setL1PassedTrigMask(TriggerMask.encodeL1(tav, tav, tav))
                .setEFPassedTrigMask(TriggerMask.encodeHlt(physics, new BitSet(), new BitSet())).build();
    }

    private LoadResult load(DatasetLoader loader, String dataset, int dspid, int epoch, List<Row> rows)
            throws Exception {
        List<Row> sorted = new ArrayList<>(rows);
        sorted.sort(Comparator.comparingLong((Row x) -> x.event().getRunNumber())
                .thenComparingLong(x -> x.event().getEventNumber()));
        Path file = dir.resolve(dspid + ".parquet");
        long simulation = rows.stream().filter(x -> x.event().getIsSimulation()).count();
        try (OutputStream out = Files.newOutputStream(file)) {
            ConsolidatedFileWriter w = new ConsolidatedFileWriter(out);
            for (Row x : sorted) {
                w.write(x.event(), x.guid());
            }
            List<Long> runs = sorted.stream().map(x -> (long) x.event().getRunNumber()).distinct().toList();
            w.finish(new ConsolidatedMetadata(dataset, "sig-" + dspid,
                    new ConsolidatedMetadata.HeaderInfo(1, "consolidated", "sig-" + dspid, true, true),
                    List.of("s3://x/" + dspid), List.of(), List.of(), w.events(), runs, simulation, 2, w.finishDigest())
                    .toKeyValues());
        }
        return loader.load(new LoadRequest(DatasetName.parse(dataset), dspid, epoch, "sig-" + dspid,
                DatasetSource.local(file)));
    }

    /** What an interrupted load leaves: the rows are there, the state says LOADING. */
    private static void setLoading(KuduClient client, String dataset) throws Exception {
        DatasetName n = DatasetName.parse(dataset);
        KuduTable t = client.openTable(CONFIG.datasetsTable());
        Update u = t.newUpdate();
        PartialRow row = u.getRow();
        KuduSchemas.addDatasetKey(row, n);
        row.addString(KuduSchemas.STATE, "LOADING");
        KuduSession session = client.newSession();
        try {
            OperationResponse resp = session.apply(u);
            if (resp.hasRowError()) {
                throw new IllegalStateException("could not set " + dataset + " LOADING: " + resp.getRowError());
            }
        } finally {
            session.close();
        }
    }

    @Override
    public void close() {
        kudu.close();
    }
}
