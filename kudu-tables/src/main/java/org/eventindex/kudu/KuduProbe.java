package org.eventindex.kudu;

import org.apache.kudu.ColumnSchema;
import org.apache.kudu.client.Delete;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.OperationResponse;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.SessionConfiguration;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.ListTablesResponse;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Whether a Kudu cluster answers, through a client built by its owner (who logged it in, e.g. with Kerberos): one
 * table listing from the masters, and the tables the caller needs. No tablet server is asked. The call takes up to the
 * client's admin operation timeout when the masters are down; callers that must answer sooner run it on a thread of
 * its own with a deadline (the ops module's {@code DependencyChecks} does).
 */
public final class KuduProbe {
    private KuduProbe() {
    }

    /**
     * Returns when the masters answered and every table of {@code tables} exists.
     *
     * @throws IOException naming the masters and what failed, or the missing tables
     */
    public static void check(KuduClient client, List<String> tables) throws IOException {
        Objects.requireNonNull(client, "client is null");
        Objects.requireNonNull(tables, "tables is null");
        String masters = client.getMasterAddressesAsString();
        ListTablesResponse listed;
        try {
            listed = client.getTablesList();
        } catch (KuduException e) {
            throw new IOException("Kudu masters " + masters + " unreachable: " + firstLine(e), e);
        }
        Set<String> present = new HashSet<>(listed.getTablesList());
        List<String> missing = new ArrayList<>();
        for (String t : tables) {
            if (!present.contains(t)) {
                missing.add(t);
            }
        }
        if (!missing.isEmpty()) {
            throw new IOException("Kudu masters " + masters + " answer but table(s) " + String.join(", ", missing)
                    + " do not exist (create them with kudu-loader create-tables)");
        }
    }

    /**
     * The right to read {@code table}: a scan of at most one row, as the client's user.
     *
     * @throws IOException naming the table and the reason (e.g. Kudu's NotAuthorized)
     */
    public static void scan(KuduClient client, String table) throws IOException {
        try {
            KuduScanner scanner = client.newScannerBuilder(client.openTable(table)).limit(1).build();
            try {
                while (scanner.hasMoreRows()) {
                    scanner.nextRows();
                }
            } finally {
                scanner.close();
            }
        } catch (KuduException e) {
            throw new IOException("Kudu table " + table + " refuses a scan: " + firstLine(e), e);
        }
    }

    /**
     * The right to write {@code table} without changing it: the delete of a row that cannot exist (its string key
     * columns set to a value no dataset name has). Kudu answers NotFound for the row once the user may write; any
     * other answer fails.
     *
     * @throws IOException naming the table and Kudu's answer
     */
    public static void writeNothing(KuduClient client, String table) throws IOException {
        KuduSession session = client.newSession();
        try {
            KuduTable t = client.openTable(table);
            Delete delete = t.newDelete();
            PartialRow row = delete.getRow();
            for (ColumnSchema c : t.getSchema().getPrimaryKeyColumns()) {
                switch (c.getType()) {
                    case STRING -> row.addString(c.getName(), "eventindex check: no such row");
                    case INT8 -> row.addByte(c.getName(), Byte.MIN_VALUE);
                    case INT16 -> row.addShort(c.getName(), Short.MIN_VALUE);
                    case INT32 -> row.addInt(c.getName(), Integer.MIN_VALUE);
                    case INT64, UNIXTIME_MICROS -> row.addLong(c.getName(), Long.MIN_VALUE);
                    default -> throw new IOException("Kudu table " + table + ": key column " + c.getName()
                            + " of type " + c.getType() + " cannot take a probe value");
                }
            }
            session.setFlushMode(SessionConfiguration.FlushMode.AUTO_FLUSH_SYNC);
            OperationResponse response = session.apply(delete);
            if (response.hasRowError() && !response.getRowError().getErrorStatus().isNotFound()) {
                throw new IOException("Kudu table " + table + " refuses a write: "
                        + response.getRowError().getErrorStatus());
            }
        } catch (KuduException e) {
            throw new IOException("Kudu table " + table + " refuses a write: " + firstLine(e), e);
        } finally {
            try {
                session.close();
            } catch (KuduException ignored) {
                // nothing was buffered: the probe's answer is what counts
            }
        }
    }

    private static String firstLine(Exception e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return m.lines().findFirst().orElse(m);
    }
}
