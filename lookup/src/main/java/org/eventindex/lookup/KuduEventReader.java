package org.eventindex.lookup;

import org.apache.kudu.Schema;
import org.apache.kudu.client.AsyncKuduScanner;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduScanner.KuduScannerBuilder;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.ReplicaSelection;
import org.apache.kudu.client.RowResult;
import org.eventindex.kudu.LoadState;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.kudu.KuduTablesConfig;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

import static java.util.Objects.requireNonNull;

/**
 * The Kudu reads of a lookup: the LOADED datasets of one run (a range scan on the first DATASETS key column), and the
 * rows of one event in one dataset by the full EVENTS key (dspid, eventnumber, rgid), which Kudu prunes to one
 * tablet (rgid selects the epoch range, eventnumber the hash bucket). Thread-safe.
 * <p>
 * The tables follow a rebuild's swap ({@link NamedTables}): lookups move to the swapped-in tables within a second.
 */
final class KuduEventReader {
    /** The columns of one event row that a lookup reports. */
    record EventRow(Integer run, String db, String tk, String dbRaw, String tkRaw, String dbEsd, String tkEsd,
                    String dbAod, String tkAod) {
    }

    private static final List<String> DATASET_COLUMNS = List.of(KuduSchemas.PROJECT, KuduSchemas.STREAMNAME,
            KuduSchemas.PRODSTEP, KuduSchemas.DATATYPE, KuduSchemas.VERSION, KuduSchemas.DSPID, KuduSchemas.RGID,
            KuduSchemas.STATE);
    private static final List<String> ALL_STATES_COLUMNS = List.of(KuduSchemas.PROJECT, KuduSchemas.STREAMNAME,
            KuduSchemas.PRODSTEP, KuduSchemas.DATATYPE, KuduSchemas.VERSION, KuduSchemas.DSPID, KuduSchemas.RGID,
            KuduSchemas.STATE, KuduSchemas.INSERT_START);
    static final List<String> EVENT_COLUMNS = List.of(KuduSchemas.RUNNUMBER, KuduSchemas.DB, KuduSchemas.TK,
            KuduSchemas.DBRAW, KuduSchemas.TKRAW, KuduSchemas.DBESD, KuduSchemas.TKESD, KuduSchemas.DBAOD,
            KuduSchemas.TKAOD);

    private final KuduClient client;
    private final KuduTablesConfig config;
    private final NamedTables tables;

    /** @throws KuduException when a table is missing (names the table) or Kudu is unreachable */
    KuduEventReader(KuduClient client, KuduTablesConfig config) throws KuduException {
        this(client, config, System::nanoTime);
    }

    /** @param nanoTime the clock of the table checks */
    KuduEventReader(KuduClient client, KuduTablesConfig config, LongSupplier nanoTime) throws KuduException {
        this.client = requireNonNull(client, "client is null");
        this.config = requireNonNull(config, "config is null");
        this.tables = new NamedTables(client, config.datasetsTable(), List.of(config.eventsTable(),
                config.mcEventsTable(), config.duplicatedEventsTable()), "lookups", nanoTime);
    }

    /** How many times the tables were reopened because a swap put other tables under their names. */
    long tableSwitches() {
        return tables.switches();
    }

    /**
     * A DATASETS row of any state, for explaining a miss.
     *
     * @param loaded      the row as a lookup reads it when it is LOADED with its ids, else null
     * @param insertStart when its (last) load started, null when not recorded
     */
    record DatasetRow(String name, String state, Instant insertStart, LoadedDataset loaded) {
    }

    /** The LOADED datasets of {@code run}; rows of any other state may be partial and are skipped. */
    List<LoadedDataset> loadedDatasets(int run) throws KuduException {
        List<LoadedDataset> out = new ArrayList<>();
        for (DatasetRow r : datasetRows(run, true)) {
            if (r.loaded() != null) {
                out.add(r.loaded());
            }
        }
        return out;
    }

    /** Every DATASETS row of {@code run}, whatever its state. */
    List<DatasetRow> allDatasets(int run) throws KuduException {
        return datasetRows(run, false);
    }

    private List<DatasetRow> datasetRows(int run, boolean loadedOnly) throws KuduException {
        KuduTable datasets = tables.table(config.datasetsTable());
        Schema s = datasets.getSchema();
        KuduScannerBuilder b = client.newScannerBuilder(datasets)
                .setProjectedColumnNames(loadedOnly ? DATASET_COLUMNS : ALL_STATES_COLUMNS)
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.RUNNUMBER),
                        KuduPredicate.ComparisonOp.EQUAL, run));
        if (loadedOnly) {
            b.addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.STATE),
                    KuduPredicate.ComparisonOp.EQUAL, LoadState.LOADED.name()));
        }
        KuduScanner scanner = b.build();
        List<DatasetRow> out = new ArrayList<>();
        try {
            while (scanner.hasMoreRows()) {
                for (RowResult r : scanner.nextRows()) {
                    String project = r.getString(KuduSchemas.PROJECT);
                    String dataType = r.getString(KuduSchemas.DATATYPE);
                    String version = r.getString(KuduSchemas.VERSION);
                    String name = datasetName(r, run);
                    String state = r.isNull(KuduSchemas.STATE) ? "" : r.getString(KuduSchemas.STATE);
                    boolean ids = !r.isNull(KuduSchemas.DSPID) && !r.isNull(KuduSchemas.RGID);
                    LoadedDataset loaded = ids && LoadState.LOADED.name().equals(state)
                            ? new LoadedDataset(name, project, dataType, version, r.getInt(KuduSchemas.DSPID),
                            r.getInt(KuduSchemas.RGID)) : null;
                    Instant started = loadedOnly || r.isNull(KuduSchemas.INSERT_START) ? null
                            : r.getTimestamp(KuduSchemas.INSERT_START).toInstant();
                    out.add(new DatasetRow(name, state, started, loaded));
                }
            }
        } finally {
            scanner.close();
        }
        return out;
    }

    /**
     * Whether the dataset holds an event of {@code run} numbered below (or, with {@code above}, above) {@code event}
     * in {@code table}: one scan of the dataset's epoch, a key range per tablet ({@code dspid}, {@code eventnumber}
     * lead the key), stopped at the first row. Event numbers compare as Kudu stores them (signed 64 bits).
     *
     * @param run null: rows of any run (simulation, whose rows carry the conditions run)
     */
    boolean hasEventBeyond(boolean mc, LoadedDataset d, Integer run, Long event, boolean above)
            throws KuduException {
        KuduTable table = tables.table(mc ? config.mcEventsTable() : config.eventsTable());
        Schema s = table.getSchema();
        KuduScannerBuilder b = client.newScannerBuilder(table)
                .setProjectedColumnNames(List.of(KuduSchemas.EVENTNUMBER))
                .readMode(AsyncKuduScanner.ReadMode.READ_LATEST)
                .limit(1)
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.DSPID),
                        KuduPredicate.ComparisonOp.EQUAL, d.dspid()))
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.RGID),
                        KuduPredicate.ComparisonOp.EQUAL, d.rgid()));
        if (event != null) {
            b.addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.EVENTNUMBER),
                    above ? KuduPredicate.ComparisonOp.GREATER : KuduPredicate.ComparisonOp.LESS, event));
        }
        if (run != null) {
            b.addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.RUNNUMBER),
                    KuduPredicate.ComparisonOp.EQUAL, run));
        }
        KuduScanner scanner = b.build();
        try {
            while (scanner.hasMoreRows()) {
                if (scanner.nextRows().getNumRows() > 0) {
                    return true;
                }
            }
            return false;
        } finally {
            scanner.close();
        }
    }

    /**
     * The EVENTS or MCEVENTS row of one event; null when absent. The table the project suggests (MCEVENTS for
     * non-{@code data*} projects) is read first; the loader decides by the file's content, so on a miss the other
     * table is read too.
     */
    EventRow eventRow(LoadedDataset d, long event) throws KuduException {
        String first = d.simulation() ? config.mcEventsTable() : config.eventsTable();
        List<EventRow> rows = scan(tables.table(first), d, event);
        if (rows.isEmpty()) {
            String other = d.simulation() ? config.eventsTable() : config.mcEventsTable();
            rows = scan(tables.table(other), d, event);
        }
        return rows.isEmpty() ? null : rows.get(0);
    }

    /** The DUPLICATEDEVENTS rows of one event (later occurrences), in insertion order. */
    List<EventRow> duplicateRows(LoadedDataset d, long event) throws KuduException {
        return scan(tables.table(config.duplicatedEventsTable()), d, event);
    }

    private List<EventRow> scan(KuduTable table, LoadedDataset d, long event) throws KuduException {
        Schema s = table.getSchema();
        KuduScanner scanner = client.newScannerBuilder(table)
                .setProjectedColumnNames(EVENT_COLUMNS)
                .readMode(AsyncKuduScanner.ReadMode.READ_LATEST)
                .replicaSelection(ReplicaSelection.LEADER_ONLY)
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.DSPID),
                        KuduPredicate.ComparisonOp.EQUAL, d.dspid()))
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.EVENTNUMBER),
                        KuduPredicate.ComparisonOp.EQUAL, event))
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.RGID),
                        KuduPredicate.ComparisonOp.EQUAL, d.rgid()))
                .build();
        List<EventRow> out = new ArrayList<>(1);
        try {
            while (scanner.hasMoreRows()) {
                for (RowResult r : scanner.nextRows()) {
                    out.add(new EventRow(r.isNull(KuduSchemas.RUNNUMBER) ? null : r.getInt(KuduSchemas.RUNNUMBER),
                            str(r, KuduSchemas.DB), str(r, KuduSchemas.TK), str(r, KuduSchemas.DBRAW),
                            str(r, KuduSchemas.TKRAW), str(r, KuduSchemas.DBESD), str(r, KuduSchemas.TKESD),
                            str(r, KuduSchemas.DBAOD), str(r, KuduSchemas.TKAOD)));
                }
            }
        } finally {
            scanner.close();
        }
        return out;
    }

    private static String str(RowResult r, String column) {
        return r.isNull(column) ? null : r.getString(column);
    }

    /** The dataset name of a DATASETS row of {@code run}, as {@code DatasetName} prints it. */
    static String datasetName(RowResult r, int run) {
        String project = r.getString(KuduSchemas.PROJECT);
        return project + "." + runText(project, run) + "." + r.getString(KuduSchemas.STREAMNAME) + "."
                + r.getString(KuduSchemas.PRODSTEP) + "." + r.getString(KuduSchemas.DATATYPE) + "."
                + r.getString(KuduSchemas.VERSION);
    }

    /** The canonical run field of a dataset name: 8 digits for data projects, 6 for the others. */
    private static String runText(String project, int run) {
        String digits = Integer.toString(run);
        int width = project.startsWith("data") ? 8 : 6;
        return digits.length() >= width ? digits : "0".repeat(width - digits.length()) + digits;
    }
}
