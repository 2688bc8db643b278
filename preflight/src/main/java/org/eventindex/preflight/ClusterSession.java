package org.eventindex.preflight;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.cluster.ClusterSettings;
import org.eventindex.cluster.HdfsRootCheck;
import org.eventindex.kudu.KuduProbe;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.ops.Preflight;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The cluster side of a run of checks: the Kerberos login (or the Hadoop configuration folder alone) made by the
 * first check and used by the HDFS and Kudu checks after it, and the Kudu client the masters' check connects. A check
 * whose login or client is missing because an earlier check failed says so instead of trying.
 */
final class ClusterSession implements AutoCloseable {
    private final ClusterSettings settings;
    private final Duration timeout;
    private volatile ClusterAccess access;
    private volatile KuduClient kudu;

    ClusterSession(ClusterSettings settings, Duration timeout) {
        this.settings = Objects.requireNonNull(settings, "settings is null");
        this.timeout = Objects.requireNonNull(timeout, "timeout is null");
    }

    /** The login: the keytab and the KDC when a principal is set, else only the configuration folder is read. */
    Preflight.Check login() {
        String thing = settings.kerberos()
                ? "Kerberos principal " + settings.principal() + " (keytab " + settings.keytab() + ")"
                : "Hadoop configuration folder " + (settings.hadoopConfDir() == null ? "(Hadoop's defaults)"
                : settings.hadoopConfDir()) + ", no Kerberos";
        String fix = settings.kerberos()
                ? "check " + settings.names().principal() + " and " + settings.names().keytab()
                + " (klist -kt KEYTAB lists its principals; the keytab must be mode 0600) and the KDC of krb5.conf"
                : "set " + settings.names().hadoopConfDir() + " to the site's Hadoop configuration folder";
        return new Preflight.Check("cluster.login", thing, fix, () -> access = ClusterAccess.open(settings, null));
    }

    ClusterAccess access() throws IOException {
        ClusterAccess a = access;
        if (a == null) {
            throw new Preflight.NotTried("cluster.login");
        }
        return a;
    }

    /**
     * The HDFS folder: its nameservice known to the configuration folder, present, owned by the user, writable.
     *
     * @param uri the file system; null: the configuration folder's default file system
     */
    List<Preflight.Check> hdfs(URI uri, String root, String rootKey) {
        List<Preflight.Check> out = new ArrayList<>();
        String fs = uri == null ? "the default file system" : uri.toString();
        out.add(new Preflight.Check("hdfs.nameservice", "HDFS " + fs, "set " + settings.names().hadoopConfDir()
                + " to the folder whose hdfs-site.xml defines this nameservice, or fix the URI",
                () -> HdfsRootCheck.nameservice(fileSystem(uri), access().configuration(), settings)));
        String user = user();
        out.add(new Preflight.Check("hdfs.root", "HDFS folder " + root + " on " + fs,
                "create it and give it to the daemon's user (" + rootKey + "): hdfs dfs -mkdir -p " + root
                        + " && hdfs dfs -chown " + user + " " + root,
                () -> HdfsRootCheck.usable(access(), fileSystem(uri), new Path(root))));
        return out;
    }

    private URI fileSystem(URI uri) throws IOException {
        return uri != null ? uri : FileSystem.getDefaultUri(access().configuration());
    }

    /**
     * The Kudu checks: the masters answer, every table is there with the expected schema, the user may read
     * (a scan of DATASETS) and, with {@code write}, write (a delete of a row that cannot exist).
     */
    List<Preflight.Check> kudu(String masters, String prefix, boolean write) {
        KuduTablesConfig tables = new KuduTablesConfig(prefix, KuduTablesConfig.DEFAULT_HASH_BUCKETS, 1);
        String who = settings.kerberos() ? "principal " + settings.principal() : "user " + user();
        List<Preflight.Check> out = new ArrayList<>();
        out.add(new Preflight.Check("kudu.masters", "Kudu masters " + masters,
                "check the masters' addresses and that they run (kudu master list " + masters + ")",
                // within the check's timeout, so that the failure is the client's, naming the masters and why
                () -> kudu = access().connectedKuduClient(masters, timeout.multipliedBy(3).dividedBy(4))));
        out.add(new Preflight.Check("kudu.tables", "Kudu tables with prefix '" + prefix + "'",
                "run eventindex kudu-loader create-tables with these masters and prefix (it creates what is missing"
                        + " and upgrades older tables)", () -> {
                    // what /ready of the lookup service asks (the tables are there), then their schema
                    KuduProbe.check(kudu(), tables.tables());
                    new KuduTables(kudu(), tables).verifyExisting();
                }));
        out.add(new Preflight.Check("kudu.read", "Kudu table " + tables.datasetsTable() + " read by " + who,
                "grant " + who + " SELECT on the EventIndex tables (Kudu's authorization, e.g. Ranger)",
                () -> KuduProbe.scan(kudu(), tables.datasetsTable())));
        if (write) {
            out.add(new Preflight.Check("kudu.write", "Kudu table " + tables.datasetsTable() + " written by " + who,
                    "grant " + who + " INSERT, UPDATE and DELETE on the EventIndex tables (Kudu's authorization,"
                            + " e.g. Ranger)", () -> KuduProbe.writeNothing(kudu(), tables.datasetsTable())));
        }
        return out;
    }

    private KuduClient kudu() throws IOException {
        KuduClient k = kudu;
        if (k == null) {
            throw new Preflight.NotTried("kudu.masters");
        }
        return k;
    }

    /** Who the clusters see: the principal's first part, or without Kerberos the user running the check. */
    private String user() {
        return settings.kerberos() ? shortName(settings.principal()) : System.getProperty("user.name");
    }

    private static String shortName(String principal) {
        int cut = principal.indexOf('/');
        cut = cut < 0 ? principal.indexOf('@') : cut;
        return cut < 0 ? principal : principal.substring(0, cut);
    }

    @Override
    public void close() {
        KuduClient k = kudu;
        if (k != null) {
            try {
                k.close();
            } catch (KuduException ignored) {
                // the checks are done; a failed close changes none of their results
            }
        }
        ClusterAccess a = access;
        if (a != null) {
            a.close();
        }
    }
}
