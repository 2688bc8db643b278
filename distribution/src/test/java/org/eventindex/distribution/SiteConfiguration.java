package org.eventindex.distribution;

import org.eventindex.config.ConfigKey;
import org.eventindex.consumer.ConsumerConfig;
import org.eventindex.deploy.BrokerLogins;
import org.eventindex.deploy.DaemonProcesses;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.testing.Ports;

import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A site's configuration folder as docs/install.md has an operator make it from the distribution's {@code conf/}:
 * the folder copied, and {@code supervisor.properties} and {@code consumer.properties} derived from the examples with
 * the site's services put in (Kerberos and TLS left out: the test services have neither), and a Hadoop configuration
 * folder as a site's {@code /etc/hadoop/conf}.
 */
final class SiteConfiguration {
    /** The HA nameservice of the conf/ examples. */
    static final String NAMESERVICE = "eventindex-ns";
    /** The Kerberos and Hadoop configuration keys of the examples (issue 21, item 2). */
    private static final Set<String> CLUSTER_ACCESS_KEYS = Set.of("supervisor.kerberos.principal",
            "supervisor.kerberos.keytab", "consumer.kerberos.principal", "consumer.kerberos.keytab",
            "consumer.hadoop.conf.dir");

    /**
     * The services of a site, as its operator knows them.
     *
     * @param brokerSecrets the folder of the broker logins' password files ({@link BrokerLogins#passwordFile})
     * @param nameNode      the HDFS NameNode ({@code hdfs://HOST:PORT}) behind the nameservice
     */
    record Services(String brokers, Path brokerSecrets, String s3Endpoint, String bucket, String s3AccessKey,
                    Path s3SecretKeyFile, URI nameNode, String hdfsRoot, String kuduMasters) {
    }

    private SiteConfiguration() {
    }

    /**
     * Copies {@code conf} to {@code site} and writes the daemons' files there for {@code services}; their state under
     * {@code varLib}, their HTTP port a free one on {@code httpHost}, HDFS through {@code hadoopConf}.
     */
    static void write(Path conf, Path site, Services services, Path hadoopConf, Path varLib, String httpHost)
            throws IOException {
        Files.createDirectories(site);
        try (Stream<Path> files = Files.walk(conf)) {
            for (Path f : files.toList()) {
                Path to = site.resolve(conf.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to);
                }
            }
        }
        Map<String, String> s = fromExample(conf.resolve("supervisor.properties"), SupervisorConfig.KEYS);
        s.keySet().removeIf(k -> k.contains(".truststore") || k.startsWith("supervisor.kerberos.keytab")
                || k.startsWith(SupervisorConfig.HTTP_ACCESS)); // the site's HTTPS and logins: HttpAccessIT
        s.put(SupervisorConfig.BROKERS, services.brokers());
        s.put("supervisor.stomp.tls", "false");
        s.put(SupervisorConfig.STOMP_PASSWORD_FILE,
                BrokerLogins.passwordFile(services.brokerSecrets(), BrokerLogins.SUPERVISOR).toString());
        s.put(SupervisorConfig.JOURNAL_DIR, varLib.resolve("supervisor/journal").toString());
        s.put(SupervisorConfig.JOURNAL_MIN_FREE_BYTES, "1048576");
        s.put(SupervisorConfig.HTTP_HOST, httpHost);
        s.put(SupervisorConfig.HTTP_PORT, Integer.toString(Ports.free()));
        s.put(SupervisorConfig.S3_BUCKET, services.bucket());
        s.put(SupervisorConfig.S3_ENDPOINT, services.s3Endpoint());
        s.put(SupervisorConfig.S3_ACCESS_KEY, services.s3AccessKey());
        s.put(SupervisorConfig.S3_SECRET_KEY_FILE, services.s3SecretKeyFile().toString());
        s.put(SupervisorConfig.KUDU_MASTERS, services.kuduMasters());
        s.put(SupervisorConfig.KUDU_REPLICAS, "1");
        s.replace("supervisor.kerberos.principal", "");
        DaemonProcesses.writeConfig(site.resolve("supervisor.properties"), s);

        Map<String, String> c = fromExample(conf.resolve("consumer.properties"), ConsumerConfig.KEYS);
        c.keySet().removeIf(k -> k.contains(".truststore") || k.startsWith("consumer.kerberos.keytab")
                || k.startsWith(ConsumerConfig.HTTP_ACCESS));
        c.put(ConsumerConfig.BROKERS, services.brokers());
        c.put("consumer.stomp.tls", "false");
        c.put(ConsumerConfig.STOMP_PASSWORD_FILE,
                BrokerLogins.passwordFile(services.brokerSecrets(), BrokerLogins.CONSUMER).toString());
        c.put(ConsumerConfig.S3_ENDPOINT, services.s3Endpoint());
        c.put(ConsumerConfig.S3_BUCKET, services.bucket());
        c.put(ConsumerConfig.S3_ACCESS_KEY, services.s3AccessKey());
        c.put(ConsumerConfig.S3_SECRET_KEY_FILE, services.s3SecretKeyFile().toString());
        assertEquals("hdfs://" + NAMESERVICE, c.get(ConsumerConfig.HDFS_URI), "the example's nameservice");
        c.replace("consumer.hadoop.conf.dir", hadoopConf.toString());
        c.put(ConsumerConfig.HDFS_ROOT, services.hdfsRoot());
        c.put(ConsumerConfig.KUDU_MASTERS, services.kuduMasters());
        c.put(ConsumerConfig.KUDU_REPLICAS, "1");
        c.replace("consumer.kerberos.principal", "");
        c.put(ConsumerConfig.SPOOL_DIR, varLib.resolve("consumer/spool").toString());
        c.put(ConsumerConfig.HTTP_HOST, httpHost);
        c.put(ConsumerConfig.HTTP_PORT, Integer.toString(Ports.free()));
        DaemonProcesses.writeConfig(site.resolve("consumer.properties"), c);
    }

    /**
     * A Hadoop configuration folder {@code dir} as a site's /etc/hadoop/conf: the HA nameservice of the conf/
     * examples ({@value #NAMESERVICE}), whose first NameNode is {@code nameNode} and whose second is down (nothing
     * listens on its port), so that the daemons reach HDFS only through the folder.
     */
    static Path hadoopConfiguration(Path dir, URI nameNode) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("core-site.xml"), "<?xml version=\"1.0\"?>\n<configuration>\n"
                + property("fs.defaultFS", "hdfs://" + NAMESERVICE) + "</configuration>\n");
        Files.writeString(dir.resolve("hdfs-site.xml"), "<?xml version=\"1.0\"?>\n<configuration>\n"
                + property("dfs.nameservices", NAMESERVICE)
                + property("dfs.ha.namenodes." + NAMESERVICE, "nn1,nn2")
                + property("dfs.namenode.rpc-address." + NAMESERVICE + ".nn1", nameNode.getHost() + ":"
                        + nameNode.getPort())
                + property("dfs.namenode.rpc-address." + NAMESERVICE + ".nn2", "127.0.0.1:" + Ports.free())
                + property("dfs.client.failover.proxy.provider." + NAMESERVICE,
                        "org.apache.hadoop.hdfs.server.namenode.ha.ConfiguredFailoverProxyProvider")
                + "</configuration>\n");
        return dir;
    }

    private static String property(String name, String value) {
        return "  <property><name>" + name + "</name><value>" + value + "</value></property>\n";
    }

    /**
     * An example's keys, in order, less those this build does not know yet: only the Kerberos and Hadoop keys of
     * {@link #CLUSTER_ACCESS_KEYS} may be such (any other unknown key is a mistake in the example).
     */
    private static Map<String, String> fromExample(Path example, List<ConfigKey> known) throws IOException {
        Properties p = properties(example);
        Set<String> names = known.stream().map(ConfigKey::name).collect(Collectors.toSet());
        Map<String, String> kept = new LinkedHashMap<>();
        for (String key : p.stringPropertyNames()) {
            if (names.contains(key)) {
                kept.put(key, p.getProperty(key));
            } else {
                assertTrue(CLUSTER_ACCESS_KEYS.contains(key), "unknown key " + key + " in " + example);
            }
        }
        return kept;
    }

    static Properties properties(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        return p;
    }
}
