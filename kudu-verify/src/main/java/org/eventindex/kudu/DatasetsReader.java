package org.eventindex.kudu;

import org.apache.kudu.Schema;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.RowResult;
import org.eventindex.names.DatasetName;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Reads DATASETS rows as {@link DatasetsRow}s: the catalogue that verify, a rebuild and the loader's bookkeeping
 * ({@code DatasetsTable}, which writes the rows) start from. The key is parsed from the dataset name; the version
 * column holds the version with its {@code _tid}/{@code _sub} suffix so task outputs of one dataset stay distinct rows.
 */
final class DatasetsReader {
    private static final List<String> COLUMNS = List.of(KuduSchemas.DSPID, KuduSchemas.RGID, KuduSchemas.STATE,
            KuduSchemas.LOAD_ID, KuduSchemas.HDFS_PATH, KuduSchemas.COUNT_EVENTS, KuduSchemas.UNIQ_DUPL_EVENTS,
            KuduSchemas.NUM_DUPLICATES, KuduSchemas.INSERT_START, KuduSchemas.INSERT_END, KuduSchemas.SIGNAL_TS,
            KuduSchemas.CONTENT_CHECKSUM);
    /** Columns added since the first release: a table not yet upgraded by {@code createOrVerify} lacks them. */
    private static final List<String> ADDED = List.of(KuduSchemas.SIGNAL_TS, KuduSchemas.CONTENT_CHECKSUM);

    private final KuduClient client;
    private final String tableName;

    DatasetsReader(KuduClient client, String tableName) {
        this.client = requireNonNull(client, "client is null");
        this.tableName = requireNonNull(tableName, "tableName is null");
    }

    /** The row of {@code name}, if any. */
    Optional<DatasetsRow> find(DatasetName name) throws KuduException {
        KuduTable table = client.openTable(tableName);
        Schema s = table.getSchema();
        KuduScanner scanner = client.newScannerBuilder(table)
                .setProjectedColumnNames(columns(s))
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.RUNNUMBER),
                        KuduPredicate.ComparisonOp.EQUAL, name.runNumber()))
                .addPredicate(eq(s, KuduSchemas.PROJECT, name.project()))
                .addPredicate(eq(s, KuduSchemas.STREAMNAME, name.stream()))
                .addPredicate(eq(s, KuduSchemas.PRODSTEP, name.prodStep()))
                .addPredicate(eq(s, KuduSchemas.DATATYPE, name.dataType()))
                .addPredicate(eq(s, KuduSchemas.VERSION, version(name)))
                .build();
        try {
            while (scanner.hasMoreRows()) {
                for (RowResult r : scanner.nextRows()) {
                    return Optional.of(toRecord(name.toString(), r));
                }
            }
            return Optional.empty();
        } finally {
            scanner.close();
        }
    }

    /** Every row of the table, in no particular order (a scan of DATASETS: thousands of rows, not billions). */
    List<DatasetsRow> all() throws KuduException {
        KuduTable table = client.openTable(tableName);
        Schema s = table.getSchema();
        List<String> columns = new ArrayList<>(KuduSchemas.DATASETS_KEY);
        columns.addAll(columns(s));
        KuduScanner scanner = client.newScannerBuilder(table).setProjectedColumnNames(columns).build();
        List<DatasetsRow> rows = new ArrayList<>();
        try {
            while (scanner.hasMoreRows()) {
                for (RowResult r : scanner.nextRows()) {
                    DatasetName name = DatasetName.fromKey(r.getString(KuduSchemas.PROJECT),
                            r.getInt(KuduSchemas.RUNNUMBER), r.getString(KuduSchemas.STREAMNAME),
                            r.getString(KuduSchemas.PRODSTEP), r.getString(KuduSchemas.DATATYPE),
                            r.getString(KuduSchemas.VERSION));
                    rows.add(toRecord(name.toString(), r));
                }
            }
        } finally {
            scanner.close();
        }
        return rows;
    }

    /** {@link #COLUMNS} that {@code s} has (a table of an earlier version lacks the {@link #ADDED} ones). */
    private static List<String> columns(Schema s) {
        return COLUMNS.stream().filter(c -> !ADDED.contains(c) || s.hasColumn(c)).toList();
    }

    private static DatasetsRow toRecord(String dataset, RowResult r) {
        return new DatasetsRow(dataset,
                r.isNull(KuduSchemas.DSPID) ? -1 : r.getInt(KuduSchemas.DSPID),
                r.isNull(KuduSchemas.RGID) ? -1 : r.getInt(KuduSchemas.RGID),
                r.isNull(KuduSchemas.STATE) ? null : state(r.getString(KuduSchemas.STATE)),
                r.isNull(KuduSchemas.LOAD_ID) ? null : r.getString(KuduSchemas.LOAD_ID),
                r.isNull(KuduSchemas.HDFS_PATH) ? null : r.getString(KuduSchemas.HDFS_PATH),
                longOrNull(r, KuduSchemas.COUNT_EVENTS),
                longOrNull(r, KuduSchemas.UNIQ_DUPL_EVENTS),
                longOrNull(r, KuduSchemas.NUM_DUPLICATES),
                instantOrNull(r, KuduSchemas.INSERT_START),
                instantOrNull(r, KuduSchemas.INSERT_END),
                r.getSchema().hasColumn(KuduSchemas.SIGNAL_TS) ? longOrNull(r, KuduSchemas.SIGNAL_TS) : null,
                r.getSchema().hasColumn(KuduSchemas.CONTENT_CHECKSUM)
                        ? longOrNull(r, KuduSchemas.CONTENT_CHECKSUM) : null);
    }

    /** @return null for a state this loader does not know (set by an operator or a newer version) */
    private static LoadState state(String text) {
        for (LoadState s : LoadState.values()) {
            if (s.name().equals(text)) {
                return s;
            }
        }
        return null;
    }

    private static Long longOrNull(RowResult r, String column) {
        return r.isNull(column) ? null : r.getLong(column);
    }

    private static Instant instantOrNull(RowResult r, String column) {
        return r.isNull(column) ? null : Instant.EPOCH.plus(r.getLong(column), ChronoUnit.MICROS);
    }

    private static KuduPredicate eq(Schema s, String column, String value) {
        return KuduPredicate.newComparisonPredicate(s.getColumn(column), KuduPredicate.ComparisonOp.EQUAL, value);
    }

    static String version(DatasetName name) {
        return name.version() + name.suffix();
    }

    static long micros(Instant t) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, t);
    }
}
