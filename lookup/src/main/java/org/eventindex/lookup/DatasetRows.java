package org.eventindex.lookup;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.RowResult;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.kudu.KuduTablesConfig;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * Every DATASETS row, whatever its state, with what the dataset status and overlaps need: one scan of the (small)
 * table, the name columns rebuilt into the dataset name as {@code DatasetName} prints it. The table followed across a
 * rebuild's swap ({@link NamedTables}).
 */
final class DatasetRows {
    /**
     * One DATASETS row.
     *
     * @param countEvents events loaded (first occurrences), null when not recorded
     * @param insertStart when its (last) load started; {@code insertEnd} when it ended; null when not recorded
     */
    record Row(String name, String project, String dataType, String version, int run, String state, Integer dspid,
               Integer rgid, Long countEvents, Instant insertStart, Instant insertEnd) {

        /** The row as a lookup reads a LOADED dataset; null without ids. */
        LoadedDataset loaded() {
            return dspid == null || rgid == null ? null
                    : new LoadedDataset(name, project, dataType, version, dspid, rgid);
        }
    }

    private static final List<String> COLUMNS = List.of(KuduSchemas.RUNNUMBER, KuduSchemas.PROJECT,
            KuduSchemas.STREAMNAME, KuduSchemas.PRODSTEP, KuduSchemas.DATATYPE, KuduSchemas.VERSION,
            KuduSchemas.DSPID, KuduSchemas.RGID, KuduSchemas.STATE, KuduSchemas.COUNT_EVENTS,
            KuduSchemas.INSERT_START, KuduSchemas.INSERT_END);

    private final KuduClient client;
    private final String table;
    private final NamedTables tables;

    /**
     * @param nanoTime the clock of the checks for a swap ({@link NamedTables})
     * @throws KuduException when the table is missing (names it) or Kudu is unreachable
     */
    DatasetRows(KuduClient client, KuduTablesConfig config, LongSupplier nanoTime) throws KuduException {
        this.client = requireNonNull(client, "client is null");
        this.table = config.datasetsTable();
        this.tables = new NamedTables(client, table, List.of(), "dataset statuses", nanoTime);
    }

    /** The rows whose name matches {@code name} (a glob's pattern, null: all), sorted by name. */
    List<Row> rows(Pattern name) throws KuduException {
        KuduScanner scanner = client.newScannerBuilder(tables.table(table)).setProjectedColumnNames(COLUMNS)
                .build();
        List<Row> out = new ArrayList<>();
        try {
            while (scanner.hasMoreRows()) {
                for (RowResult r : scanner.nextRows()) {
                    int run = r.getInt(KuduSchemas.RUNNUMBER);
                    String n = KuduEventReader.datasetName(r, run);
                    if (name != null && !name.matcher(n).matches()) {
                        continue;
                    }
                    out.add(new Row(n, r.getString(KuduSchemas.PROJECT), r.getString(KuduSchemas.DATATYPE),
                            r.getString(KuduSchemas.VERSION), run,
                            r.isNull(KuduSchemas.STATE) ? "" : r.getString(KuduSchemas.STATE),
                            r.isNull(KuduSchemas.DSPID) ? null : r.getInt(KuduSchemas.DSPID),
                            r.isNull(KuduSchemas.RGID) ? null : r.getInt(KuduSchemas.RGID),
                            r.isNull(KuduSchemas.COUNT_EVENTS) ? null : r.getLong(KuduSchemas.COUNT_EVENTS),
                            time(r, KuduSchemas.INSERT_START), time(r, KuduSchemas.INSERT_END)));
                }
            }
        } finally {
            scanner.close();
        }
        out.sort(java.util.Comparator.comparing(Row::name));
        return out;
    }

    private static Instant time(RowResult r, String column) {
        return r.isNull(column) ? null : r.getTimestamp(column).toInstant();
    }
}
