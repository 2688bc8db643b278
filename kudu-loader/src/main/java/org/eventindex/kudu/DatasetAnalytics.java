package org.eventindex.kudu;

import org.apache.kudu.Schema;
import org.apache.kudu.client.AsyncKuduScanner;
import org.apache.kudu.client.Delete;
import org.apache.kudu.client.Insert;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.ReplicaSelection;
import org.apache.kudu.client.RowResult;
import org.apache.kudu.client.SessionConfiguration;
import org.apache.kudu.client.Upsert;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * TRIGGERCOUNT and EVENTSOVERLAP of one dataset, computed while its events are loaded (no second pass).
 * <p>
 * Overlap: the loaded dataset's distinct (run, event) are sent in batches of {@link #BATCH} as IN-list scans against
 * the rows of every other LOADED dataset of the same run (DATASETS runnumber) in the same event table; each scan is
 * pruned to that dataset's epoch range and the buckets of the batch's event numbers. Memory: one batch. Result rows
 * are written in both directions, (ds1, ds2) and (ds2, ds1), so a dataset loaded later completes the pair.
 */
final class DatasetAnalytics {
    static final int BATCH = 1000;

    private final KuduClient client;
    private final KuduTablesConfig config;

    DatasetAnalytics(KuduClient client, KuduTablesConfig config) {
        this.client = requireNonNull(client, "client is null");
        this.config = requireNonNull(config, "config is null");
    }

    /** Accumulates the overlap of one load with the other datasets. */
    static final class Overlap {
        private final KuduClient client;
        private final String eventTable;
        private final List<Placement> others;
        private final long[] counts;
        private final List<Long> batch = new ArrayList<>(BATCH);
        private int batchRun;

        /** @param others the other LOADED datasets of the run ({@link DatasetsTable#loadedInRun}) */
        Overlap(KuduClient client, String eventTable, List<Placement> others) {
            this.client = requireNonNull(client, "client is null");
            this.eventTable = requireNonNull(eventTable, "eventTable is null");
            this.others = List.copyOf(others);
            this.counts = new long[others.size()];
        }

        /** One distinct (run, event) of the dataset being loaded. */
        void add(int run, long event) throws KuduException {
            if (others.isEmpty()) {
                return;
            }
            if ((!batch.isEmpty() && run != batchRun) || batch.size() == BATCH) {
                flush();
            }
            batchRun = run;
            batch.add(event);
        }

        void flush() throws KuduException {
            if (batch.isEmpty()) {
                return;
            }
            KuduTable table = client.openTable(eventTable);
            Schema s = table.getSchema();
            for (int i = 0; i < others.size(); i++) {
                KuduScanner scanner = client.newScannerBuilder(table)
                        .setProjectedColumnNames(List.of(KuduSchemas.EVENTNUMBER))
                        .readMode(AsyncKuduScanner.ReadMode.READ_LATEST)
                        .replicaSelection(ReplicaSelection.LEADER_ONLY)
                        .addPredicate(eq(s, KuduSchemas.DSPID, others.get(i).dspid()))
                        .addPredicate(eq(s, KuduSchemas.RGID, others.get(i).rgid()))
                        .addPredicate(eq(s, KuduSchemas.RUNNUMBER, batchRun))
                        .addPredicate(KuduPredicate.newInListPredicate(s.getColumn(KuduSchemas.EVENTNUMBER), batch))
                        .build();
                try {
                    while (scanner.hasMoreRows()) {
                        counts[i] += scanner.nextRows().getNumRows();
                    }
                } finally {
                    scanner.close();
                }
            }
            batch.clear();
        }

        /** Overlap count per other dataset id (only non-zero ones). */
        Map<Integer, Long> result() throws KuduException {
            flush();
            Map<Integer, Long> r = new LinkedHashMap<>();
            for (int i = 0; i < others.size(); i++) {
                if (counts[i] > 0) {
                    r.merge(others.get(i).dspid(), counts[i], Long::sum);
                }
            }
            return r;
        }
    }

    /**
     * Replaces the TRIGGERCOUNT rows of {@code dspid} with {@code pairs}. The dataset's earlier rows are deleted
     * first, so the new ones are INSERTs: a row that is nevertheless present can only come from another load of the
     * same dataset writing at the same time, and it fails this load (Kudu refuses the row) instead of being
     * overwritten into a mix of the two loads' counts.
     */
    void writeTriggerCounts(int dspid, PairCounter.Pairs pairs, String dataset) throws IOException {
        deleteTriggerCounts(dspid, dataset);
        KuduTable table = client.openTable(config.triggerCountTable());
        Schema s = table.getSchema();
        // column positions resolved once, not by name for each of the (many) pair rows
        int datasetId = s.getColumnIndex(KuduSchemas.DATASET_ID);
        int trig1 = s.getColumnIndex(KuduSchemas.TRIG1);
        int trig2 = s.getColumnIndex(KuduSchemas.TRIG2);
        int count = s.getColumnIndex(KuduSchemas.COUNT);
        KuduSession session = session();
        try {
            pairs.forEach((t1, t2, c) -> {
                Insert u = table.newInsert();
                PartialRow row = u.getRow();
                row.addInt(datasetId, dspid);
                row.addInt(trig1, t1);
                row.addInt(trig2, t2);
                row.addLong(count, c);
                session.apply(u);
            });
            session.flush();
            EventRows.failOnErrors(session, config.triggerCountTable(), "write trigger pair counts", dataset);
        } finally {
            session.close();
        }
    }

    /** Replaces the EVENTSOVERLAP rows of {@code dspid} (both directions) with {@code overlaps}. */
    void writeOverlaps(int dspid, Map<Integer, Long> overlaps, String dataset) throws IOException {
        deleteOverlaps(dspid, dataset);
        KuduTable table = client.openTable(config.eventsOverlapTable());
        KuduSession session = session();
        try {
            for (Map.Entry<Integer, Long> e : overlaps.entrySet()) {
                for (int[] pair : new int[][]{{dspid, e.getKey()}, {e.getKey(), dspid}}) {
                    Upsert u = table.newUpsert();
                    u.getRow().addInt(KuduSchemas.DS1, pair[0]);
                    u.getRow().addInt(KuduSchemas.DS2, pair[1]);
                    u.getRow().addLong(KuduSchemas.COUNT, e.getValue());
                    session.apply(u);
                }
            }
            session.flush();
            EventRows.failOnErrors(session, config.eventsOverlapTable(), "write dataset overlaps", dataset);
        } finally {
            session.close();
        }
    }

    void deleteTriggerCounts(int dspid, String dataset) throws IOException {
        deleteWhere(config.triggerCountTable(), KuduSchemas.DATASET_ID, dspid, dataset);
    }

    void deleteOverlaps(int dspid, String dataset) throws IOException {
        deleteWhere(config.eventsOverlapTable(), KuduSchemas.DS1, dspid, dataset);
        deleteWhere(config.eventsOverlapTable(), KuduSchemas.DS2, dspid, dataset);
    }

    private void deleteWhere(String tableName, String column, int value, String dataset) throws IOException {
        KuduTable table = client.openTable(tableName);
        Schema s = table.getSchema();
        List<String> key = s.getPrimaryKeyColumns().stream().map(c -> c.getName()).toList();
        int[] keyIndex = key.stream().mapToInt(s::getColumnIndex).toArray();
        KuduScanner scanner = client.newScannerBuilder(table).setProjectedColumnNames(key)
                .readMode(AsyncKuduScanner.ReadMode.READ_LATEST).replicaSelection(ReplicaSelection.LEADER_ONLY)
                .addPredicate(eq(s, column, value)).build();
        KuduSession session = session();
        try {
            while (scanner.hasMoreRows()) {
                for (RowResult r : scanner.nextRows()) {
                    Delete d = table.newDelete();
                    // the projection is the key columns in order: result column i is key column i
                    for (int i = 0; i < keyIndex.length; i++) {
                        d.getRow().addInt(keyIndex[i], r.getInt(i));
                    }
                    session.apply(d);
                }
            }
            session.flush();
            EventRows.failOnErrors(session, tableName, "delete earlier results", dataset);
        } finally {
            scanner.close();
            session.close();
        }
    }

    private KuduSession session() {
        KuduSession session = client.newSession();
        session.setFlushMode(SessionConfiguration.FlushMode.AUTO_FLUSH_BACKGROUND);
        session.setMutationBufferSpace(10_000);
        return session;
    }

    private static KuduPredicate eq(Schema s, String column, int value) {
        return KuduPredicate.newComparisonPredicate(s.getColumn(column), KuduPredicate.ComparisonOp.EQUAL, value);
    }
}
