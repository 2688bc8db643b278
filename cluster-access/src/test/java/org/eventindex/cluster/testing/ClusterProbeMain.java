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
import org.eventindex.cluster.HadoopConfDir;
import org.eventindex.cluster.KerberosLogin;

import javax.security.auth.kerberos.KerberosTicket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * A long-running client of Kerberized clusters in a process of its own, as a daemon would be: logs in through
 * {@link ClusterAccess} (configuration folder, principal, keytab), then writes one HDFS file and inserts one Kudu row
 * per round with the same clients, printing {@code round N ok} or {@code round N failed: ...}. Exit status 0 when
 * every round (and every renewal asked for) worked, 1 otherwise, 2 for a refused configuration or login.
 * <p>
 * Two modes:
 * <ul>
 * <li>{@code ClusterProbeMain realtime CONF_DIR PRINCIPAL KEYTAB HDFS_DIR KUDU_MASTERS ROUNDS INTERVAL_MS}: a round
 * every {@code INTERVAL_MS} on the system clock, the login renewed by its background thread whenever the real ticket
 * reaches its renewal point (the Kerberos soak, with short tickets).</li>
 * <li>{@code ClusterProbeMain renewals CONF_DIR PRINCIPAL KEYTAB HDFS_DIR KUDU_MASTERS RENEWALS PACE_MS}: the login's
 * clock is a {@link MovableClock}. After a first round, {@code RENEWALS} times: the clock is moved past the ticket's
 * renewal point, {@link KerberosLogin#checkAndRenew()} must get a new ticket-granting ticket from the KDC, and rounds
 * go on (at least {@code PACE_MS} apart, so that idle connections close in between) until both clients have
 * authenticated to their servers again with the renewed ticket: the subject then holds an {@code hdfs/} and a
 * {@code kudu/} service ticket whose authentication time is the new ticket's. Prints {@code renewal K: ...} lines.</li>
 * </ul>
 */
public final class ClusterProbeMain {
    /** How long the rounds after a renewal may take to see both services authenticate again. */
    private static final Duration REAUTHENTICATION_TIMEOUT = Duration.ofSeconds(90);

    private ClusterProbeMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] a) {
        boolean renewals = switch (a[0]) {
            case "realtime" -> false;
            case "renewals" -> true;
            default -> throw new IllegalArgumentException("mode realtime or renewals, not " + a[0]);
        };
        MovableClock movable = new MovableClock();
        ClusterAccess access;
        try {
            ClusterSettings settings = ClusterSettings.of(a[1], a[2], a[3], Map.of(), ClusterSettings.Names.options());
            access = ClusterAccess.open(settings, HadoopConfDir.load(settings), null,
                    renewals ? movable : Clock.systemUTC());
        } catch (ClusterConfigException e) {
            System.err.println("probe: bad configuration: " + e.getMessage());
            return 2;
        }
        URI hdfsDir = URI.create(a[4]);
        String masters = a[5];
        try (access; FileSystem fs = access.fileSystem(hdfsDir);
             KuduClient kudu = access.kuduClient(masters)) {
            KuduTable table = kudu.tableExists("probe") ? kudu.openTable("probe") : kudu.createTable("probe",
                    new Schema(List.of(new ColumnSchema.ColumnSchemaBuilder("round", Type.INT32).key(true).build(),
                            new ColumnSchema.ColumnSchemaBuilder("ticket_end", Type.STRING).build())),
                    new CreateTableOptions().addHashPartitions(List.of("round"), 2).setNumReplicas(1));
            Rounds rounds = new Rounds(access, fs, hdfsDir, kudu, table);
            if (renewals) {
                return renewals(access.login().orElseThrow(), movable, rounds, Integer.parseInt(a[6]),
                        Duration.ofMillis(Long.parseLong(a[7])));
            }
            return realtime(rounds, Integer.parseInt(a[6]), Duration.ofMillis(Long.parseLong(a[7])));
        } catch (Exception e) {
            System.out.println("probe failed: " + e);
            e.printStackTrace(System.out);
            return 1;
        }
    }

    private static int realtime(Rounds rounds, int count, Duration interval) {
        long next = System.nanoTime();
        for (int round = 0; round < count; round++) {
            rounds.next();
            next += interval.toNanos();
            long wait = next - System.nanoTime();
            if (wait > 0 && round + 1 < count) {
                LockSupport.parkNanos(wait); // paces the load across the real ticket lifetimes
            }
        }
        return rounds.failed == 0 ? 0 : 1;
    }

    private static int renewals(KerberosLogin login, MovableClock clock, Rounds rounds, int count, Duration pace) {
        rounds.next();
        for (int renewal = 1; renewal <= count; renewal++) {
            KerberosTicket old = login.ticket().orElseThrow();
            String oldText = describe(old);
            Instant due = login.renewalTime().orElseThrow();
            clock.moveTo(due.plusSeconds(1));
            boolean renewed = login.checkAndRenew() || login.ticket().filter(t -> t != old).isPresent();
            clock.moveBack();
            KerberosTicket now = login.ticket().orElse(null);
            if (!renewed || now == null || now == old || !old.isDestroyed() && now.equals(old)) {
                System.out.println("renewal " + renewal + " failed: the ticket is still " + oldText + " ("
                        + login.failures() + " failures)");
                return 1;
            }
            System.out.println("renewal " + renewal + ": a new ticket-granting ticket " + describe(now)
                    + " replaced " + oldText);
            Instant deadline = Instant.now().plus(REAUTHENTICATION_TIMEOUT);
            int after = 0;
            Optional<String> missing;
            while ((missing = notYetAuthenticated(login, now)).isPresent()) {
                if (Instant.now().isAfter(deadline)) {
                    System.out.println("renewal " + renewal + " failed: " + missing.get() + " after " + after
                            + " rounds in " + REAUTHENTICATION_TIMEOUT.toSeconds() + " s");
                    return 1;
                }
                // idle connections close between rounds, so that each client negotiates (and authenticates) again
                LockSupport.parkNanos(pace.toNanos());
                rounds.next();
                after++;
            }
            System.out.println("renewal " + renewal + ": HDFS and Kudu authenticated again with the renewed ticket"
                    + " after " + after + " rounds (" + serviceTickets(login) + ")");
        }
        return rounds.failed == 0 && login.failures() == 0 ? 0 : 1;
    }

    /** What has not authenticated with {@code tgt} yet: a service without a ticket from it in the subject. */
    private static Optional<String> notYetAuthenticated(KerberosLogin login, KerberosTicket tgt) {
        for (String service : List.of("hdfs/", "kudu/")) {
            boolean has;
            synchronized (login.subject().getPrivateCredentials()) {
                has = login.subject().getPrivateCredentials(KerberosTicket.class).stream()
                        .anyMatch(t -> !t.isDestroyed() && t.getServer().getName().startsWith(service)
                                && t.getAuthTime().equals(tgt.getAuthTime()));
            }
            if (!has) {
                return Optional.of("no " + service + " service ticket of the renewed login");
            }
        }
        return Optional.empty();
    }

    private static String serviceTickets(KerberosLogin login) {
        synchronized (login.subject().getPrivateCredentials()) {
            return String.join(", ", login.subject().getPrivateCredentials(KerberosTicket.class).stream()
                    .filter(t -> !t.isDestroyed()).map(ClusterProbeMain::describe).toList());
        }
    }

    private static String describe(KerberosTicket t) {
        return t.getServer().getName() + " (auth " + t.getAuthTime().toInstant() + ", start "
                + t.getStartTime().toInstant() + ", end " + t.getEndTime().toInstant() + ")";
    }

    /** One HDFS file and one Kudu row per round, with the same clients. */
    private static final class Rounds {
        private final ClusterAccess access;
        private final FileSystem fs;
        private final URI hdfsDir;
        private final KuduClient kudu;
        private final KuduTable table;
        private int round;
        private int failed;

        Rounds(ClusterAccess access, FileSystem fs, URI hdfsDir, KuduClient kudu, KuduTable table) {
            this.access = access;
            this.fs = fs;
            this.hdfsDir = hdfsDir;
            this.kudu = kudu;
            this.table = table;
        }

        void next() {
            int r = round++;
            String end = access.login().flatMap(KerberosLogin::ticketEnd).map(Object::toString).orElse("none");
            try {
                access.hdfsCall(hdfsDir, () -> {
                    try (FSDataOutputStream out = fs.create(new Path(hdfsDir.getPath(), "round-" + r), true)) {
                        out.write(("round " + r + " ticket " + end).getBytes(StandardCharsets.UTF_8));
                    }
                    return null;
                });
                KuduSession session = kudu.newSession();
                Insert insert = table.newInsert();
                insert.getRow().addInt("round", r);
                insert.getRow().addString("ticket_end", end);
                OperationResponse response = session.apply(insert);
                session.close();
                if (response.hasRowError()) {
                    throw new IllegalStateException(response.getRowError().toString());
                }
                System.out.println("round " + r + " ok (ticket ends " + end + ")");
            } catch (Exception e) {
                failed++;
                System.out.println("round " + r + " failed: " + e);
                e.printStackTrace(System.out);
            }
            System.out.flush();
        }
    }
}
