package org.eventindex.kudu;

import org.apache.kudu.ColumnSchema;
import org.apache.kudu.Schema;
import org.apache.kudu.client.AsyncKuduScanner;
import org.apache.kudu.client.Delete;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.ReplicaSelection;
import org.apache.kudu.client.RowError;
import org.apache.kudu.client.RowErrorsAndOverflowStatus;
import org.apache.kudu.client.RowResult;
import org.apache.kudu.client.RowResultIterator;
import org.apache.kudu.client.SessionConfiguration;

import java.util.List;

import static org.eventindex.EventIndexFailure.Kind.RETRIABLE;

/**
 * Scans of the rows of one dataset in one epoch of EVENTS, MCEVENTS or DUPLICATEDEVENTS. The predicate on
 * {@code rgid} prunes the scan to one range; the one on {@code dspid} (first key column) to a key range within each
 * bucket.
 * <p>
 * Scans read the latest data on the tablet leaders: a leader applies a write before acknowledging it, so every
 * acknowledged write of any client is seen. (READ_YOUR_WRITES would not do: from a client that did not write the
 * rows, for example after a consumer crashed, it may pick a snapshot older than the leftover rows.)
 */
final class EventRows {
    private EventRows() {
    }

    /**
     * Rows of dataset {@code dspid} within {@code epoch}: events in EVENTS plus MCEVENTS (a dataset is in one of
     * them: simulation datasets in MCEVENTS), and duplicates in DUPLICATEDEVENTS.
     */
    static EventCounts counts(KuduClient client, KuduTablesConfig config, int dspid, int epoch) throws KuduException {
        return new EventCounts(
                count(client, config.eventsTable(), dspid, epoch) + count(client, config.mcEventsTable(), dspid, epoch),
                count(client, config.duplicatedEventsTable(), dspid, epoch));
    }

    /**
     * Deletes every row of {@code dspid} in {@code epoch} from EVENTS, DUPLICATEDEVENTS and MCEVENTS.
     *
     * @throws DatasetLoadException naming the dataset and the first refused deletes
     */
    static void deleteDataset(KuduClient client, KuduTablesConfig config, int dspid, int epoch, String dataset)
            throws KuduException, DatasetLoadException {
        deleteAll(client, config.eventsTable(), dspid, epoch, dataset);
        deleteAll(client, config.duplicatedEventsTable(), dspid, epoch, dataset);
        deleteAll(client, config.mcEventsTable(), dspid, epoch, dataset);
    }

    /** Number of rows of {@code dspid} in {@code epoch}. */
    static long count(KuduClient client, String tableName, int dspid, int epoch) throws KuduException {
        KuduTable table = client.openTable(tableName);
        KuduScanner scanner = scanner(client, table, dspid, epoch, List.of());
        long rows = 0;
        try {
            while (scanner.hasMoreRows()) {
                rows += scanner.nextRows().getNumRows();
            }
        } finally {
            scanner.close();
        }
        return rows;
    }

    /** Calls {@code row} with every row of {@code dspid} in {@code epoch}, every column. */
    static void forEach(KuduClient client, String tableName, int dspid, int epoch,
                        java.util.function.Consumer<RowResult> row) throws KuduException {
        KuduTable table = client.openTable(tableName);
        List<String> all = table.getSchema().getColumns().stream().map(ColumnSchema::getName).toList();
        KuduScanner scanner = scanner(client, table, dspid, epoch, all);
        try {
            while (scanner.hasMoreRows()) {
                for (RowResult r : scanner.nextRows()) {
                    row.accept(r);
                }
            }
        } finally {
            scanner.close();
        }
    }

    private static void deleteAll(KuduClient client, String tableName, int dspid, int epoch, String dataset)
            throws KuduException, DatasetLoadException {
        KuduTable table = client.openTable(tableName);
        List<ColumnSchema> key = table.getSchema().getPrimaryKeyColumns();
        KuduScanner scanner = scanner(client, table, dspid, epoch, key.stream().map(ColumnSchema::getName).toList());
        int[] keyIndex = key.stream().mapToInt(c -> table.getSchema().getColumnIndex(c.getName())).toArray();
        KuduSession session = client.newSession();
        session.setFlushMode(SessionConfiguration.FlushMode.AUTO_FLUSH_BACKGROUND);
        try {
            while (scanner.hasMoreRows()) {
                RowResultIterator rows = scanner.nextRows();
                for (RowResult r : rows) {
                    Delete delete = table.newDelete();
                    copyKey(r, delete.getRow(), key, keyIndex);
                    session.apply(delete);
                }
            }
            session.flush();
            failOnErrors(session, tableName, "delete the rows of an earlier attempt", dataset);
        } finally {
            scanner.close();
            session.close();
        }
    }

    /** Reads one row's columns by its full EVENTS key; null when absent. */
    static RowResult lookup(KuduClient client, String tableName, int dspid, long eventNumber, int epoch,
                            List<String> columns) throws KuduException {
        KuduTable table = client.openTable(tableName);
        Schema s = table.getSchema();
        KuduScanner scanner = client.newScannerBuilder(table)
                .setProjectedColumnNames(columns)
                .readMode(AsyncKuduScanner.ReadMode.READ_LATEST)
                .replicaSelection(ReplicaSelection.LEADER_ONLY)
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.DSPID),
                        KuduPredicate.ComparisonOp.EQUAL, dspid))
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.EVENTNUMBER),
                        KuduPredicate.ComparisonOp.EQUAL, eventNumber))
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.RGID),
                        KuduPredicate.ComparisonOp.EQUAL, epoch))
                .build();
        try {
            while (scanner.hasMoreRows()) {
                RowResultIterator rows = scanner.nextRows();
                if (rows.hasNext()) {
                    return rows.next();
                }
            }
            return null;
        } finally {
            scanner.close();
        }
    }

    /**
     * @throws DatasetLoadException when the session collected row errors, naming the table, what was being done
     *                              and the first few errors
     */
    static void failOnErrors(KuduSession session, String tableName, String action, String dataset)
            throws DatasetLoadException {
        if (session.countPendingErrors() == 0) {
            return;
        }
        RowErrorsAndOverflowStatus status = session.getPendingErrors();
        RowError[] errors = status.getRowErrors();
        StringBuilder first = new StringBuilder();
        for (int i = 0; i < Math.min(3, errors.length); i++) {
            first.append(i == 0 ? "" : "; ").append(errors[i].getErrorStatus()).append(" on ")
                    .append(errors[i].getOperation().getRow().stringifyRowKey());
        }
        throw new DatasetLoadException(RETRIABLE, dataset, "Kudu refused " + errors.length
                + (status.isOverflowed() ? "+" : "") + " rows in " + tableName + " while trying to " + action
                + "; first: " + first);
    }

    static KuduScanner scanner(KuduClient client, KuduTable table, int dspid, int epoch,
                                       List<String> columns) {
        Schema s = table.getSchema();
        return client.newScannerBuilder(table)
                .setProjectedColumnNames(columns)
                .readMode(AsyncKuduScanner.ReadMode.READ_LATEST)
                .replicaSelection(ReplicaSelection.LEADER_ONLY)
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.DSPID),
                        KuduPredicate.ComparisonOp.EQUAL, dspid))
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.RGID),
                        KuduPredicate.ComparisonOp.EQUAL, epoch))
                .build();
    }

    /** The scan projects the key columns in order, so result column {@code i} is key column {@code i}. */
    private static void copyKey(RowResult from, PartialRow to, List<ColumnSchema> key, int[] keyIndex) {
        for (int i = 0; i < keyIndex.length; i++) {
            ColumnSchema c = key.get(i);
            switch (c.getType()) {
                case INT32 -> to.addInt(keyIndex[i], from.getInt(i));
                case INT64, UNIXTIME_MICROS -> to.addLong(keyIndex[i], from.getLong(i));
                case STRING -> to.addString(keyIndex[i], from.getString(i));
                default -> throw new IllegalStateException("unexpected key column type " + c.getType() + " of "
                        + c.getName());
            }
        }
    }
}
