package org.eventindex.rebuild;

import org.apache.kudu.client.Insert;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduPartitioner;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.NonCoveredRangeException;
import org.apache.kudu.client.Operation;
import org.eventindex.kudu.KuduTablesConfig;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The tablets of a rebuild's event tables (EVENTS, MCEVENTS, DUPLICATEDEVENTS), numbered one after the other with
 * Kudu's own partitioner ({@link KuduPartitioner}, as the loader routes its sessions: decision 0072): which tablet a
 * decided row goes to, and the row as bytes for the task that writes that tablet. One per task (the codecs' buffers);
 * every task numbers the tablets alike as long as no range is added meanwhile (the driver adds the epochs first).
 */
final class TabletRoutes {
    private final KuduTable[] tables;
    private final KuduPartitioner[] partitioners;
    private final RowCodec[] codecs;
    private final int[] offsets;
    private final int tablets;

    TabletRoutes(KuduClient client, KuduTablesConfig config) throws KuduException {
        requireNonNull(client, "client is null");
        List<String> names = List.of(config.eventsTable(), config.mcEventsTable(), config.duplicatedEventsTable());
        tables = new KuduTable[names.size()];
        partitioners = new KuduPartitioner[names.size()];
        codecs = new RowCodec[names.size()];
        offsets = new int[names.size()];
        int next = 0;
        for (int i = 0; i < tables.length; i++) {
            tables[i] = client.openTable(names.get(i));
            partitioners[i] = new KuduPartitioner.KuduPartitionerBuilder(tables[i]).build();
            codecs[i] = new RowCodec(names.get(i), tables[i].getSchema());
            offsets[i] = next;
            next += partitioners[i].numPartitions();
        }
        tablets = next;
    }

    /** Tablets of the three tables together. */
    int tablets() {
        return tablets;
    }

    /** The number of {@code row}'s tablet (of table {@code t}) among {@link #tablets()}. */
    int tablet(int t, Insert row, String dataset) {
        try {
            return offsets[t] + partitioners[t].partitionRow(row.getRow());
        } catch (NonCoveredRangeException e) {
            throw new IllegalStateException("a row of " + dataset + " (" + row.getRow().stringifyRowKey()
                    + ") falls in no range of Kudu table " + tables[t].getName() + ": " + e.getMessage(), e);
        }
    }

    /** The table (0: EVENTS, 1: MCEVENTS, 2: DUPLICATEDEVENTS) of {@code row}. */
    int table(Insert row) {
        return table(row.getTable());
    }

    byte[] encode(int table, Insert row) {
        return codecs[table].encode(row.getRow());
    }

    /**
     * The write of an encoded row of table {@code table}: an INSERT_IGNORE, so that a write task retried after some
     * of its rows reached Kudu writes the rest and leaves the others as they are (the same row, decided again).
     */
    Operation insertIgnore(int table, byte[] encoded) {
        Operation op = tables[table].newInsertIgnore();
        codecs[table].decode(encoded, op.getRow());
        return op;
    }

    private int table(KuduTable table) {
        for (int t = 0; t < tables.length; t++) {
            if (tables[t].getName().equals(table.getName())) {
                return t;
            }
        }
        throw new IllegalArgumentException("a row for Kudu table " + table.getName() + ", not one of the rebuild's"
                + " event tables");
    }
}
