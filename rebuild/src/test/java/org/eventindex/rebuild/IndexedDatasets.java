package org.eventindex.rebuild;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kudu.client.Delete;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.Operation;
import org.apache.kudu.client.OperationResponse;
import org.apache.kudu.client.RowResult;
import org.eventindex.consolidated.ConsolidatedFileWriter;
import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.kudu.DatasetLoader;
import org.eventindex.kudu.DatasetQueries;
import org.eventindex.kudu.DatasetSource;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.kudu.LoadRequest;
import org.eventindex.kudu.LoaderSettings;
import org.eventindex.names.DatasetName;
import org.eventindex.names.PoolToken;
import org.eventindex.names.TriggerMask;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A small index as the consumer makes it: consolidated files written to HDFS by the project's writer, then loaded into
 * Kudu by the loader (real clock: the rebuild must replay the recorded load times). Two runs of real data (datasets
 * that overlap, duplicates of one, two and three occurrences) and a simulation dataset, over two epochs:
 * <ul>
 *   <li>{@link #AOD} (dspid 11, epoch 1): run 327636 events 1..300, 50..59 again and 55 a third time.</li>
 *   <li>{@link #ESD} (12, epoch 1): run 327636 events 200..450, loaded after AOD (101 shared: EVENTSOVERLAP).</li>
 *   <li>{@link #LATE} (13, epoch 2): run 327700 events 1..150.</li>
 *   <li>{@link #MC} (14, epoch 1): simulation of 361106, events 7k for k = 1..120, 14 and 21 twice.</li>
 *   <li>{@link #BIG} (15, epoch 2): run 327800, {@value #BIG_EVENTS} events.</li>
 * </ul>
 * and, loaded later by {@link #loadLater} (a dataset the consumers load while a rebuild runs):
 * <ul>
 *   <li>{@link #LATER} (16, epoch 1): run 327636 events 440..500 (11 shared with ESD).</li>
 * </ul>
 */
final class IndexedDatasets {
    static final String AOD = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824_tid11111111_00";
    static final String ESD = "data17_13TeV.00327636.physics_Main.recon.ESD.f838";
    static final String LATE = "data17_13TeV.00327700.physics_Late.merge.AOD.f900_m2000";
    static final String MC = "mc16_13TeV.361106.PowhegPythia8_Zee.merge.AOD.e3601_r10201";
    static final String BIG = "data17_13TeV.00327800.physics_Main.merge.AOD.f900_m2001";
    static final String LATER = "data17_13TeV.00327636.physics_Main.merge.AOD.f999_m3000";
    /** Events of {@link #BIG}: enough for its load to take a second or so, a window to kill the job in. */
    static final int BIG_EVENTS = 40_000;
    private static final String CLID = "D82968A1-CF91-4320-B2DD-E0F739CBC7E6";
    private static final int[] L1_ITEMS = {3, 5, 64, 127, 300, 511};
    private static final int[] HLT_CHAINS = {1, 70, 4095};

    private record Ev(int run, long event, boolean simulation, int file) {
    }

    private IndexedDatasets() {
    }

    /** Writes the five files under {@code /ei} and loads them, in the order above, into {@code config}'s tables. */
    static void load(FileSystem fs, KuduClient client, KuduTablesConfig config) throws IOException {
        load(fs, client, config, true);
    }

    /**
     * {@link #load} without {@link #BIG}: the four small datasets (two runs, an overlap, duplicates, simulation, two
     * epochs), for a test that needs no kill window.
     */
    static void loadSmall(FileSystem fs, KuduClient client, KuduTablesConfig config) throws IOException {
        load(fs, client, config, false);
    }

    private static void load(FileSystem fs, KuduClient client, KuduTablesConfig config, boolean withBig)
            throws IOException {
        KuduTables tables = new KuduTables(client, config);
        tables.createOrVerify(1);
        List<Ev> aod = new ArrayList<>();
        range(aod, 327636, 1, 300, false, 0xA1);
        range(aod, 327636, 50, 59, false, 0xA2);
        range(aod, 327636, 55, 55, false, 0xA3);
        List<Ev> esd = new ArrayList<>();
        range(esd, 327636, 200, 450, false, 0xE1);
        List<Ev> late = late();
        List<Ev> mc = new ArrayList<>();
        for (long k = 1; k <= 120; k++) {
            range(mc, 284500, 7 * k, 7 * k, true, 0xC1);
        }
        range(mc, 284500, 14, 14, true, 0xC2);
        range(mc, 284500, 21, 21, true, 0xC2);
        Random random = new Random(20261206);
        load(fs, client, tables, AOD, 11, 1, aod, random);
        load(fs, client, tables, ESD, 12, 1, esd, random);
        load(fs, client, tables, LATE, 13, 2, late, random);
        load(fs, client, tables, MC, 14, 1, mc, random);
        if (withBig) {
            List<Ev> big = new ArrayList<>();
            range(big, 327800, 1, BIG_EVENTS, false, 0xD1);
            load(fs, client, tables, BIG, 15, 2, big, random);
        }
    }

    /** Every row of {@code table}, every column, as text; sorted. */
    static List<String> rows(KuduClient client, String table) throws IOException {
        KuduScanner scanner = client.newScannerBuilder(client.openTable(table)).build();
        List<String> rows = new ArrayList<>();
        while (scanner.hasMoreRows()) {
            for (RowResult r : scanner.nextRows()) {
                rows.add(r.rowToString());
            }
        }
        scanner.close();
        rows.sort(null);
        return rows;
    }

    /** Deletes events 100, 101... of {@code dataset} from {@code config}'s EVENTS; returns how many. */
    static int deleteEvents(KuduClient client, KuduTablesConfig config, String dataset, int count)
            throws IOException {
        DatasetsRow row = new DatasetQueries(client, config).dataset(dataset).orElseThrow();
        KuduTable table = client.openTable(config.eventsTable());
        List<Operation> deletes = new ArrayList<>();
        for (long event = 100; event < 100 + count; event++) {
            Delete delete = table.newDelete();
            KuduSchemas.addEventKey(delete.getRow(), row.dspid(), event, row.rgid());
            deletes.add(delete);
        }
        apply(client, deletes);
        return deletes.size();
    }

    /** Applies the operations in one session; none may fail. */
    static void apply(KuduClient client, List<? extends Operation> operations) throws IOException {
        KuduSession session = client.newSession();
        try {
            for (Operation op : operations) {
                OperationResponse response = session.apply(op);
                assertFalse(response.hasRowError(), () -> String.valueOf(response.getRowError()));
            }
        } finally {
            session.close();
        }
    }

    /** Every column of every row of {@code actual}'s six tables equals {@code expected}'s, each with rows. */
    static void assertTablesEqual(KuduClient client, KuduTablesConfig expected, KuduTablesConfig actual)
            throws IOException {
        for (int i = 0; i < expected.tables().size(); i++) {
            String source = expected.tables().get(i);
            String target = actual.tables().get(i);
            List<String> rows = rows(client, source);
            assertFalse(rows.isEmpty(), source + " has rows");
            assertEquals(rows, rows(client, target), target + " against " + source + ", every column of every row");
        }
    }

    /** Writes {@link #LATER}'s file and loads it into {@code config}'s tables. */
    static void loadLater(FileSystem fs, KuduClient client, KuduTablesConfig config) throws IOException {
        List<Ev> later = new ArrayList<>();
        range(later, 327636, 440, 500, false, 0xF1);
        load(fs, client, new KuduTables(client, config), LATER, 16, 1, later, new Random(16));
    }

    /**
     * Loads {@link #MC}'s file again into {@code config}'s tables under another load id ({@code loadId}), as a consumer
     * does when the supervisor signals the dataset again: a new {@code load_id} and {@code insert_start} in DATASETS,
     * its duplicates under new {@code insertion_time}s.
     */
    static void reloadMc(FileSystem fs, KuduClient client, KuduTablesConfig config, String loadId) throws IOException {
        new DatasetLoader(client, new KuduTables(client, config), LoaderSettings.defaults(), Clock.systemUTC())
                .load(new LoadRequest(DatasetName.parse(MC), 14, 1, loadId, DatasetSource.hadoop(fs, file(MC)),
                        System.currentTimeMillis()));
    }

    private static List<Ev> late() {
        List<Ev> late = new ArrayList<>();
        range(late, 327700, 1, 150, false, 0xB1);
        return late;
    }

    /**
     * Writes {@link #LATE}'s file again with the same events but other trigger bits ({@code seed}): the catalogue's
     * counts, other rows.
     */
    static void rewriteLate(FileSystem fs, long seed) throws IOException {
        write(fs, LATE, 13, late(), new Random(seed));
    }

    /** The HDFS file of {@code dataset}, in the consumer's layout (a folder per container). */
    static Path file(String dataset) {
        DatasetName name = DatasetName.parse(dataset);
        return new Path("/ei/" + name.container() + "/" + dataset + ".parquet");
    }

    private static void range(List<Ev> rows, int run, long from, long to, boolean simulation, int file) {
        for (long e = from; e <= to; e++) {
            rows.add(new Ev(run, e, simulation, file));
        }
    }

    private static void load(FileSystem fs, KuduClient client, KuduTables tables, String dataset, int dspid,
                             int epoch, List<Ev> rows, Random random) throws IOException {
        Path file = write(fs, dataset, dspid, rows, random);
        new DatasetLoader(client, tables, LoaderSettings.defaults(), Clock.systemUTC())
                .load(new LoadRequest(DatasetName.parse(dataset), dspid, epoch, "sig-" + dspid,
                        DatasetSource.hadoop(fs, file), System.currentTimeMillis()));
    }

    private static Path write(FileSystem fs, String dataset, int dspid, List<Ev> rows, Random random)
            throws IOException {
        List<Ev> sorted = new ArrayList<>(rows);
        sorted.sort((a, b) -> a.run() != b.run() ? Integer.compare(a.run(), b.run()) : Long.compare(a.event(),
                b.event()));
        String own = "Stream" + DatasetName.parse(dataset).dataType();
        Path file = file(dataset);
        try (OutputStream out = fs.create(file, true)) {
            ConsolidatedFileWriter w = new ConsolidatedFileWriter(out);
            for (Ev x : sorted) {
                EIEvent_p1.Builder b = EIEvent_p1.newBuilder().setRunNumber(x.run()).setEventNumber(x.event())
                        .setLumiBlock((int) (x.event() / 50) + 1).setTimeStamp(1_500_000_000 + (int) x.event())
                        .setTimeStampNSOffset(7).setBcid(11).setIsSimulation(x.simulation()).setIsCalibration(false)
                        .setIsTestBeam(false)
                        .setL1PassedTrigMask(TriggerMask.encodeL1(bits(random, L1_ITEMS), new BitSet(),
                                bits(random, L1_ITEMS)))
                        .setEFPassedTrigMask(TriggerMask.encodeHlt(bits(random, HLT_CHAINS), new BitSet(),
                                new BitSet()));
                b.addEitoken(EItoken_p1.newBuilder().setName(own).setToken(token(x.file(), x.event())));
                if (!x.simulation()) {
                    b.addEitoken(EItoken_p1.newBuilder().setName("StreamRAW").setToken(token(0xF0, x.event())));
                }
                w.write(b.build(), guid(x.file()));
            }
            String signal = "sig-" + dspid;
            List<Long> runs = sorted.stream().map(x -> (long) x.run()).distinct().toList();
            long simulation = sorted.stream().filter(Ev::simulation).count();
            w.finish(new ConsolidatedMetadata(dataset, signal,
                    new ConsolidatedMetadata.HeaderInfo(1, "consolidated", signal, true, true),
                    List.of("s3://eventindex/" + dspid), List.of(), List.of(), w.events(), runs, simulation, 2,
                    w.finishDigest()).toKeyValues());
        }
        return file;
    }

    private static BitSet bits(Random random, int[] candidates) {
        BitSet set = new BitSet();
        for (int c : candidates) {
            if (random.nextBoolean()) {
                set.set(c);
            }
        }
        return set;
    }

    private static String guid(int i) {
        return String.format("%08X-5555-4000-8000-%012X", i, i);
    }

    private static String token(int file, long entry) {
        return new PoolToken(guid(file), "POOLContainer(DataHeader)", CLID, 0x202, 0x10L, entry).format();
    }
}
