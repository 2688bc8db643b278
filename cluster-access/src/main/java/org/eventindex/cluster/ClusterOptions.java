package org.eventindex.cluster;

import picocli.CommandLine.Option;

import java.util.Map;

/**
 * The command options of the tools that reach HDFS or Kudu (picocli mixin): {@code --hadoop-conf-dir} (else
 * {@code HADOOP_CONF_DIR}), {@code --kerberos-principal}, {@code --kerberos-keytab}.
 */
public final class ClusterOptions {
    @Option(names = "--hadoop-conf-dir", paramLabel = "DIR", description = "Hadoop configuration folder (core-site.xml,"
            + " hdfs-site.xml; e.g. an HA nameservice); default: $HADOOP_CONF_DIR, else Hadoop's defaults")
    String hadoopConfDir;
    @Option(names = "--kerberos-principal", paramLabel = "P",
            description = "log in to Kerberos as P from the keytab (default: no Kerberos)")
    String principal;
    @Option(names = "--kerberos-keytab", paramLabel = "FILE", description = "the principal's keytab")
    String keytab;

    /** The settings these options give, with {@code HADOOP_CONF_DIR} from {@code env} when no folder is given. */
    public ClusterSettings settings(Map<String, String> env) {
        return ClusterSettings.of(hadoopConfDir, principal, keytab, env, ClusterSettings.Names.options());
    }

    /** Loads the configuration folder and logs in (no renewal metrics: a tool's run is short or has its own). */
    public ClusterAccess open() {
        return ClusterAccess.open(settings(System.getenv()), null);
    }
}
