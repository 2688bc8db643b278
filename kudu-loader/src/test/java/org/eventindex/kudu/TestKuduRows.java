package org.eventindex.kudu;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.RowResult;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The analytics rows the loader wrote, read back for the tests' comparisons. */
final class TestKuduRows {
    private TestKuduRows() {
    }

    /** {@code row} to be filled by an {@link EventRowMapper}. */
    static RowValues values(PartialRow row) {
        return new RowValues().of(row);
    }

    /** TRIGGERCOUNT of one dataset: (trig1, trig2) to count, ordered. */
    static Map<List<Integer>, Long> triggerCounts(KuduClient client, KuduTablesConfig config, int dspid)
            throws Exception {
        Map<List<Integer>, Long> counts = pairMap();
        KuduTable t = client.openTable(config.triggerCountTable());
        KuduScanner s = client.newScannerBuilder(t).addPredicate(KuduPredicate.newComparisonPredicate(
                t.getSchema().getColumn(KuduSchemas.DATASET_ID), KuduPredicate.ComparisonOp.EQUAL, dspid)).build();
        while (s.hasMoreRows()) {
            for (RowResult row : s.nextRows()) {
                counts.put(List.of(row.getInt(KuduSchemas.TRIG1), row.getInt(KuduSchemas.TRIG2)),
                        row.getLong(KuduSchemas.COUNT));
            }
        }
        s.close();
        return counts;
    }

    /** Every EVENTSOVERLAP row: (ds1, ds2) to count, ordered. */
    static Map<List<Integer>, Long> overlaps(KuduClient client, KuduTablesConfig config) throws Exception {
        Map<List<Integer>, Long> out = pairMap();
        KuduScanner s = client.newScannerBuilder(client.openTable(config.eventsOverlapTable())).build();
        while (s.hasMoreRows()) {
            for (RowResult row : s.nextRows()) {
                out.put(List.of(row.getInt(KuduSchemas.DS1), row.getInt(KuduSchemas.DS2)),
                        row.getLong(KuduSchemas.COUNT));
            }
        }
        s.close();
        return out;
    }

    /** {@code schema} with the coded mask text columns of event tables created before decision 0037 appended. */
    static org.apache.kudu.Schema withMaskText(org.apache.kudu.Schema schema) {
        List<org.apache.kudu.ColumnSchema> columns = new java.util.ArrayList<>(schema.getColumns());
        columns.addAll(KuduSchemas.maskTextColumns());
        return new org.apache.kudu.Schema(columns);
    }

    private static Map<List<Integer>, Long> pairMap() {
        return new TreeMap<>(Comparator.<List<Integer>>comparingInt(l -> l.get(0)).thenComparingInt(l -> l.get(1)));
    }
}
