package org.eventindex.cluster;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HadoopConfDirTest {
    @TempDir
    Path dir;

    private static final ClusterSettings.Names KEYS = ClusterSettings.Names.keys("consumer.");

    private static String site(String name, String value) {
        return "<?xml version=\"1.0\"?>\n<configuration>\n  <property><name>" + name + "</name><value>" + value
                + "</value></property>\n</configuration>\n";
    }

    @Test
    void theFolderIsReadOverHadoopsDefaults() throws Exception {
        Files.writeString(dir.resolve("core-site.xml"), site("fs.defaultFS", "hdfs://ns1"));
        Files.writeString(dir.resolve("hdfs-site.xml"), site("dfs.nameservices", "ns1"));
        Configuration conf = HadoopConfDir.load(ClusterSettings.of(dir.toString(), "", "", Map.of(), KEYS));
        assertEquals("hdfs://ns1", conf.get("fs.defaultFS"));
        assertEquals("ns1", conf.get("dfs.nameservices"));
        assertEquals("simple", conf.get("hadoop.security.authentication"), "core-default.xml is still underneath");
        // a copy made later (as the consumer does) still holds the folder's values
        assertEquals("ns1", new Configuration(conf).get("dfs.nameservices"));
    }

    @Test
    void theFolderAloneGivesItsOwnPropertiesForTasksElsewhere() throws Exception {
        Files.writeString(dir.resolve("core-site.xml"), site("hadoop.security.authentication", "kerberos"));
        Files.writeString(dir.resolve("hdfs-site.xml"), site("dfs.namenode.rpc-address.ns1.nn1", "${nn}:8020"));
        Map<String, String> folder = HadoopConfDir.properties(ClusterSettings.of(dir.toString(), "", "", Map.of(),
                KEYS));
        assertEquals(Map.of("hadoop.security.authentication", "kerberos", "dfs.namenode.rpc-address.ns1.nn1",
                "${nn}:8020"), folder, "the files' properties as written, none of Hadoop's defaults");
        assertEquals(Map.of(), HadoopConfDir.properties(ClusterSettings.of(null, "", "", Map.of(), KEYS)));
        Files.delete(dir.resolve("hdfs-site.xml"));
        assertThrows(ClusterConfigException.class, () -> HadoopConfDir.properties(ClusterSettings.of(dir.toString(),
                "", "", Map.of(), KEYS)));
    }

    @Test
    void hadoopConfDirFromTheEnvironmentWhenNoKeyIsSet() throws Exception {
        Files.writeString(dir.resolve("core-site.xml"), site("a.b", "from-env"));
        Files.writeString(dir.resolve("hdfs-site.xml"), site("c.d", "x"));
        ClusterSettings s = ClusterSettings.of("", "", "", Map.of("HADOOP_CONF_DIR", dir.toString()), KEYS);
        assertEquals(dir, s.hadoopConfDir());
        assertEquals("from-env", HadoopConfDir.load(s).get("a.b"));
        assertNull(ClusterSettings.of(null, null, null, Map.of(), KEYS).hadoopConfDir());
    }

    @Test
    void aMissingFolderIsAConfigurationErrorNamingIt() {
        Path missing = dir.resolve("no-such-conf");
        ClusterConfigException e = assertThrows(ClusterConfigException.class,
                () -> HadoopConfDir.load(ClusterSettings.of(missing.toString(), "", "", Map.of(), KEYS)));
        assertEquals("Hadoop configuration folder " + missing + " from consumer.hadoop.conf.dir (else"
                + " HADOOP_CONF_DIR) does not exist", e.getMessage());
    }

    @Test
    void aMissingOrBrokenFileIsAConfigurationErrorNamingIt() throws Exception {
        Files.writeString(dir.resolve("core-site.xml"), site("a", "b"));
        ClusterSettings s = ClusterSettings.of(dir.toString(), "", "", Map.of(), ClusterSettings.Names.options());
        ClusterConfigException missing = assertThrows(ClusterConfigException.class, () -> HadoopConfDir.load(s));
        assertTrue(missing.getMessage().startsWith("Hadoop configuration file " + dir.resolve("hdfs-site.xml")
                + " (folder from --hadoop-conf-dir (else HADOOP_CONF_DIR)) does not exist"), missing.getMessage());

        Files.writeString(dir.resolve("hdfs-site.xml"), "<configuration><property><name>x</name>");
        ClusterConfigException broken = assertThrows(ClusterConfigException.class, () -> HadoopConfDir.load(s));
        assertTrue(broken.getMessage().startsWith("Hadoop configuration file " + dir.resolve("hdfs-site.xml")
                + " (folder from --hadoop-conf-dir (else HADOOP_CONF_DIR)) is not a valid Hadoop configuration: "),
                broken.getMessage());
    }

    @Test
    void principalAndKeytabComeTogether() {
        ClusterConfigException noKeytab = assertThrows(ClusterConfigException.class,
                () -> ClusterSettings.of(null, "ei@R", "", Map.of(), KEYS));
        assertEquals("consumer.kerberos.principal is ei@R but consumer.kerberos.keytab is empty: the daemons log in"
                + " from a keytab only", noKeytab.getMessage());
        ClusterConfigException noPrincipal = assertThrows(ClusterConfigException.class,
                () -> ClusterSettings.of(null, " ", "/k.keytab", Map.of(), KEYS));
        assertTrue(noPrincipal.getMessage().startsWith("consumer.kerberos.keytab is /k.keytab but"
                + " consumer.kerberos.principal is empty"), noPrincipal.getMessage());
        assertTrue(!ClusterSettings.of(null, "", "", Map.of(), KEYS).kerberos());
    }
}
