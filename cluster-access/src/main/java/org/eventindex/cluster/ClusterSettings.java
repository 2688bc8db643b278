package org.eventindex.cluster;

import org.eventindex.config.ConfigKey;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where a daemon or tool finds its clusters' client configuration and who it is there: the Hadoop configuration
 * folder (core-site.xml, hdfs-site.xml) and the Kerberos principal and keytab. Kerberos is off when the principal is
 * empty.
 *
 * @param hadoopConfDir the folder, or null for Hadoop's built-in defaults (no folder given and no HADOOP_CONF_DIR)
 * @param principal     e.g. {@code eventindex/host.example.org@EXAMPLE.ORG}; empty for no Kerberos
 * @param keytab        the principal's keytab; null when Kerberos is off
 * @param names         the keys or options these came from, for the error messages
 */
public record ClusterSettings(Path hadoopConfDir, String principal, Path keytab, Names names) {
    /** The environment variable naming the Hadoop configuration folder when no key or option does. */
    public static final String ENV_HADOOP_CONF_DIR = "HADOOP_CONF_DIR";

    /** The names of the three settings as the user wrote them: properties keys or command options. */
    public record Names(String hadoopConfDir, String principal, String keytab) {
        public Names {
            Objects.requireNonNull(hadoopConfDir, "hadoopConfDir is null");
            Objects.requireNonNull(principal, "principal is null");
            Objects.requireNonNull(keytab, "keytab is null");
        }

        /** The properties keys {@code <prefix>hadoop.conf.dir}, {@code <prefix>kerberos.principal}, ... */
        public static Names keys(String prefix) {
            return new Names(prefix + "hadoop.conf.dir", prefix + "kerberos.principal", prefix + "kerberos.keytab");
        }

        /** The command options {@code --hadoop-conf-dir}, {@code --kerberos-principal}, {@code --kerberos-keytab}. */
        public static Names options() {
            return new Names("--hadoop-conf-dir", "--kerberos-principal", "--kerberos-keytab");
        }
    }

    public ClusterSettings {
        Objects.requireNonNull(names, "names is null");
        principal = principal == null ? "" : principal.strip();
        if (principal.isEmpty() && keytab != null) {
            throw new ClusterConfigException(names.keytab() + " is " + keytab + " but " + names.principal()
                    + " is empty: set the principal to log in from the keytab, or remove the keytab");
        }
        if (!principal.isEmpty() && keytab == null) {
            throw new ClusterConfigException(names.principal() + " is " + principal + " but " + names.keytab()
                    + " is empty: the daemons log in from a keytab only");
        }
    }

    /** No folder (Hadoop's defaults), no Kerberos: the embedded test clusters. */
    public static ClusterSettings defaults() {
        return new ClusterSettings(null, "", null, Names.options());
    }

    /**
     * From the values as given (each null or blank when unset): the folder, else {@value #ENV_HADOOP_CONF_DIR} from
     * {@code env}, else none.
     */
    public static ClusterSettings of(String hadoopConfDir, String principal, String keytab, Map<String, String> env,
                                     Names names) {
        Objects.requireNonNull(env, "env is null");
        String dir = blank(hadoopConfDir) ? env.get(ENV_HADOOP_CONF_DIR) : hadoopConfDir;
        return new ClusterSettings(blank(dir) ? null : Path.of(dir.strip()), principal,
                blank(keytab) ? null : Path.of(keytab.strip()), names);
    }

    /** Whether the daemon logs in to Kerberos. */
    public boolean kerberos() {
        return !principal.isEmpty();
    }

    /**
     * The documented keys {@code <prefix>hadoop.conf.dir} (when {@code withHadoopConfDir}), {@code
     * <prefix>kerberos.principal} and {@code <prefix>kerberos.keytab}.
     */
    public static List<ConfigKey> configKeys(String prefix, boolean withHadoopConfDir) {
        Names n = Names.keys(prefix);
        List<ConfigKey> keys = new ArrayList<>();
        if (withHadoopConfDir) {
            keys.add(new ConfigKey(n.hadoopConfDir(), "", ENV_HADOOP_CONF_DIR, "Hadoop configuration folder"
                    + " (core-site.xml and hdfs-site.xml, e.g. an HA nameservice); if unset, the environment variable;"
                    + " if neither, Hadoop's defaults."));
        }
        keys.add(new ConfigKey(n.principal(), "", null, "Kerberos principal to log in as from the keytab, e.g."
                + " eventindex/host.example.org@EXAMPLE.ORG; empty: no Kerberos. The login is renewed before the"
                + " ticket expires (docs/security.md)."));
        keys.add(new ConfigKey(n.keytab(), "", null, "Keytab file holding the principal's keys (readable by the"
                + " daemon's user only); required with the principal.").secretPath());
        return List.copyOf(keys);
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    @Override
    public String toString() {
        return "ClusterSettings[hadoopConfDir=" + (hadoopConfDir == null ? "none" : hadoopConfDir)
                + ", principal=" + (principal.isEmpty() ? "none" : principal) + ", keytab=" + keytab + "]";
    }
}
