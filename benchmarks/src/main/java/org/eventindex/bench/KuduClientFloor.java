package org.eventindex.bench;

import org.apache.kudu.ColumnSchema;
import org.apache.kudu.Schema;
import org.apache.kudu.client.Insert;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.SessionConfiguration;
import org.eventindex.kudu.DatasetQueries;
import org.eventindex.kudu.KuduSchemas;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The floor of the Kudu load's client CPU (issue 37 item 2): the rows a load wrote, written again with the Kudu client
 * and nothing else. The rows are read back from the loaded tables into memory first (every set cell, untimed), put
 * back in the file's order (by run and event number, duplicates beside their first occurrence) so that each flush
 * spreads over the tablets as the loader's do, then, timed: one session in AUTO_FLUSH_BACKGROUND with the loader's
 * mutation buffer, one {@link Insert} per row built cell by cell from the stored values and applied, one flush.
 * No file is read, no duplicate decided, no trigger mask decoded, no pair counted.
 */
final class KuduClientFloor {
    private static final byte INT32 = 0;
    private static final byte INT64 = 1;
    private static final byte BYTES = 2;

    /** The rows of one load, each with its table (0 or 1) and its set cells, in the file's order. */
    static final class Rows {
        final List<String> tables;
        final byte[] table;
        final int[][] columns;
        final long[][] numbers;
        final byte[][][] bytes;

        private Rows(List<String> tables, byte[] table, int[][] columns, long[][] numbers, byte[][][] bytes) {
            this.tables = tables;
            this.table = table;
            this.columns = columns;
            this.numbers = numbers;
            this.bytes = bytes;
        }

        int size() {
            return table.length;
        }
    }

    /** What writing the rows cost. */
    record Result(long rows, double seconds, long cpuNanos, Map<String, Double> threads, Map<String, Long> allocated) {
    }

    private KuduClientFloor() {
    }

    /** Reads every row of {@code dspid} in epoch {@code epoch} of {@code tableNames} into memory, in file order. */
    static Rows capture(KuduClient client, DatasetQueries queries, List<String> tableNames, int dspid, int epoch)
            throws Exception {
        List<int[]> cols = new ArrayList<>();
        List<long[]> nums = new ArrayList<>();
        List<byte[][]> strs = new ArrayList<>();
        List<Byte> owner = new ArrayList<>();
        List<long[]> order = new ArrayList<>();
        for (int t = 0; t < tableNames.size(); t++) {
            Schema schema = client.openTable(tableNames.get(t)).getSchema();
            byte[] kinds = kinds(schema);
            int run = schema.getColumnIndex(KuduSchemas.RUNNUMBER);
            int event = schema.getColumnIndex(KuduSchemas.EVENTNUMBER);
            byte tableIndex = (byte) t;
            // one row's cells, reused as scratch while the row is read
            int[] c = new int[schema.getColumnCount()];
            long[] n = new long[c.length];
            byte[][] s = new byte[c.length][];
            queries.forEachRow(tableNames.get(t), dspid, epoch, r -> {
                int k = 0;
                for (int i = 0; i < kinds.length; i++) {
                    if (r.isNull(i)) {
                        continue;
                    }
                    c[k] = i;
                    switch (kinds[i]) {
                        case INT32 -> n[k] = r.getInt(i);
                        case INT64 -> n[k] = r.getLong(i);
                        default -> s[k] = r.getString(i).getBytes(StandardCharsets.UTF_8);
                    }
                    k++;
                }
                cols.add(Arrays.copyOf(c, k));
                nums.add(Arrays.copyOf(n, k));
                strs.add(Arrays.copyOf(s, k));
                owner.add(tableIndex);
                order.add(new long[]{r.getInt(run), r.getLong(event), tableIndex, owner.size() - 1});
            });
        }
        order.sort((a, b) -> {
            for (int i = 0; i < 3; i++) {
                int d = Long.compare(a[i], b[i]);
                if (d != 0) {
                    return d;
                }
            }
            return 0;
        });
        int size = order.size();
        byte[] table = new byte[size];
        int[][] columns = new int[size][];
        long[][] numbers = new long[size][];
        byte[][][] bytes = new byte[size][][];
        for (int i = 0; i < size; i++) {
            int from = (int) order.get(i)[3];
            table[i] = owner.get(from);
            columns[i] = cols.get(from);
            numbers[i] = nums.get(from);
            bytes[i] = strs.get(from);
        }
        return new Rows(List.copyOf(tableNames), table, columns, numbers, bytes);
    }

    /**
     * Writes {@code rows} into {@code targets} (same order as the captured tables: tables of the same schema and
     * partitioning, empty) with one session, {@code bufferRows} mutations buffered; measured with the JVM's CPU and
     * per thread role.
     */
    static Result write(KuduClient client, List<String> targets, Rows rows, int bufferRows) throws Exception {
        KuduTable[] tables = new KuduTable[targets.size()];
        byte[][] kinds = new byte[targets.size()][];
        for (int t = 0; t < tables.length; t++) {
            tables[t] = client.openTable(targets.get(t));
            kinds[t] = kinds(tables[t].getSchema());
        }
        ThreadCpuMeter meter = new ThreadCpuMeter();
        long cpu0 = KuduBench.processCpuNanos();
        long t0 = System.nanoTime();
        KuduSession session = client.newSession();
        session.setFlushMode(SessionConfiguration.FlushMode.AUTO_FLUSH_BACKGROUND);
        session.setMutationBufferSpace(bufferRows);
        try {
            for (int i = 0; i < rows.size(); i++) {
                int t = rows.table[i];
                Insert insert = tables[t].newInsert();
                PartialRow row = insert.getRow();
                int[] c = rows.columns[i];
                long[] n = rows.numbers[i];
                byte[][] s = rows.bytes[i];
                byte[] kind = kinds[t];
                for (int k = 0; k < c.length; k++) {
                    switch (kind[c[k]]) {
                        case INT32 -> row.addInt(c[k], (int) n[k]);
                        case INT64 -> row.addLong(c[k], n[k]);
                        default -> row.addStringUtf8(c[k], s[k]);
                    }
                }
                session.apply(insert);
            }
            session.flush();
            if (session.countPendingErrors() > 0) {
                throw new IOException("the minimal client's rows were refused: "
                        + session.getPendingErrors().getRowErrors()[0]);
            }
        } finally {
            session.close();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        long cpu = KuduBench.processCpuNanos() - cpu0;
        Map<String, Double> threads = meter.stop();
        return new Result(rows.size(), seconds, cpu, threads, meter.allocated());
    }

    private static byte[] kinds(Schema schema) {
        byte[] kinds = new byte[schema.getColumnCount()];
        for (int i = 0; i < kinds.length; i++) {
            ColumnSchema c = schema.getColumnByIndex(i);
            kinds[i] = switch (c.getType()) {
                case INT32 -> INT32;
                case INT64, UNIXTIME_MICROS -> INT64;
                case STRING -> BYTES;
                default -> throw new IllegalStateException("the floor does not write columns of type "
                        + c.getType() + " (" + c.getName() + ")");
            };
        }
        return kinds;
    }
}
