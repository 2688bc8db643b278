package org.eventindex.cluster.testing;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kudu.ColumnSchema;
import org.apache.kudu.Schema;
import org.apache.kudu.Type;
import org.apache.kudu.client.CreateTableOptions;
import org.apache.kudu.client.Insert;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.OperationResponse;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.cluster.ClusterConfigException;
import org.eventindex.cluster.ClusterSettings;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * A long-running client of Kerberized clusters in a process of its own, as a daemon would be: logs in through
 * {@link ClusterAccess} (configuration folder, principal, keytab), then every {@code interval} writes one HDFS file and
 * inserts one Kudu row with the same clients, printing {@code round N ok} or {@code round N failed: ...}. Exit status 0
 * when every round worked, 1 otherwise, 2 for a refused configuration or login.
 * <p>
 * {@code ClusterProbeMain CONF_DIR PRINCIPAL KEYTAB HDFS_DIR KUDU_MASTERS ROUNDS INTERVAL_MS}
 */
public final class ClusterProbeMain {
    private ClusterProbeMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] a) {
        ClusterSettings settings;
        ClusterAccess access;
        try {
            settings = ClusterSettings.of(a[0], a[1], a[2], Map.of(), ClusterSettings.Names.options());
            access = ClusterAccess.open(settings, null);
        } catch (ClusterConfigException e) {
            System.err.println("probe: bad configuration: " + e.getMessage());
            return 2;
        }
        URI hdfsDir = URI.create(a[3]);
        String masters = a[4];
        int rounds = Integer.parseInt(a[5]);
        Duration interval = Duration.ofMillis(Long.parseLong(a[6]));
        int failed = 0;
        try (access; FileSystem fs = access.fileSystem(hdfsDir);
             KuduClient kudu = access.kuduClient(masters)) {
            KuduTable table = kudu.tableExists("probe") ? kudu.openTable("probe") : kudu.createTable("probe",
                    new Schema(List.of(new ColumnSchema.ColumnSchemaBuilder("round", Type.INT32).key(true).build(),
                            new ColumnSchema.ColumnSchemaBuilder("ticket_end", Type.STRING).build())),
                    new CreateTableOptions().addHashPartitions(List.of("round"), 2).setNumReplicas(1));
            long next = System.nanoTime();
            for (int round = 0; round < rounds; round++) {
                String end = access.login().flatMap(l -> l.ticketEnd()).map(Object::toString).orElse("none");
                try {
                    int r = round;
                    access.hdfsCall(hdfsDir, () -> {
                        try (FSDataOutputStream out = fs.create(new Path(hdfsDir.getPath(), "round-" + r), true)) {
                            out.write(("round " + r + " ticket " + end).getBytes(StandardCharsets.UTF_8));
                        }
                        return null;
                    });
                    KuduSession session = kudu.newSession();
                    Insert insert = table.newInsert();
                    insert.getRow().addInt("round", round);
                    insert.getRow().addString("ticket_end", end);
                    OperationResponse response = session.apply(insert);
                    session.close();
                    if (response.hasRowError()) {
                        throw new IllegalStateException(response.getRowError().toString());
                    }
                    System.out.println("round " + round + " ok (ticket ends " + end + ")");
                } catch (Exception e) {
                    failed++;
                    System.out.println("round " + round + " failed: " + e);
                    e.printStackTrace(System.out);
                }
                System.out.flush();
                next += interval.toNanos();
                long wait = next - System.nanoTime();
                if (wait > 0 && round + 1 < rounds) {
                    LockSupport.parkNanos(wait); // paces the load across the ticket lifetimes
                }
            }
        } catch (Exception e) {
            System.out.println("probe failed: " + e);
            e.printStackTrace(System.out);
            return 1;
        }
        return failed == 0 ? 0 : 1;
    }
}
