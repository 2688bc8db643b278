package org.eventindex.cluster.testing;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.security.UserGroupInformation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A Kerberized MiniDFSCluster in this JVM: {@code hadoop.security.authentication=kerberos}, the NameNode and DataNode
 * as {@code hdfs/localhost} and their web endpoints as {@code HTTP/localhost} from keytabs of a {@link MitKdc}, block
 * access tokens on, the DataNode on unprivileged ports ({@code ignore.secure.ports.for.testing}). This JVM logs in as
 * {@code hdfs/localhost} (the superuser) and renews that login on its own (Hadoop's keytab auto-renewal), so clients
 * with another principal belong in another process. The JVM must have read the KDC's krb5.conf
 * ({@code java.security.krb5.conf}) before.
 */
public final class KerberizedHdfs implements AutoCloseable {
    public static final String HDFS_PRINCIPAL = "hdfs/localhost";
    private final MiniDFSCluster cluster;
    private final Map<String, String> clientSite;

    private KerberizedHdfs(MiniDFSCluster cluster, Map<String, String> clientSite) {
        this.cluster = cluster;
        this.clientSite = clientSite;
    }

    public static KerberizedHdfs start(MitKdc kdc, java.nio.file.Path dir) throws IOException, InterruptedException {
        return start(kdc, dir, Map.of());
    }

    /**
     * {@link #start(MitKdc, java.nio.file.Path)} with {@code serverSettings} set on the NameNode and DataNode (e.g. a
     * short {@code dfs.namenode.delegation.token.renew-interval}).
     */
    public static KerberizedHdfs start(MitKdc kdc, java.nio.file.Path dir, Map<String, String> serverSettings)
            throws IOException, InterruptedException {
        java.nio.file.Path hdfsKeytab = kdc.keytab(HDFS_PRINCIPAL, dir.resolve("hdfs.keytab"));
        java.nio.file.Path httpKeytab = kdc.keytab("HTTP/localhost", dir.resolve("http.keytab"));
        String hdfs = MitKdc.inRealm(HDFS_PRINCIPAL);
        Configuration conf = new Configuration();
        conf.set("hadoop.security.authentication", "kerberos");
        conf.set("hadoop.security.authorization", "true");
        conf.set("hadoop.rpc.protection", "authentication");
        conf.set("dfs.namenode.kerberos.principal", hdfs);
        conf.set("dfs.namenode.keytab.file", hdfsKeytab.toString());
        conf.set("dfs.datanode.kerberos.principal", hdfs);
        conf.set("dfs.datanode.keytab.file", hdfsKeytab.toString());
        conf.set("dfs.web.authentication.kerberos.principal", MitKdc.inRealm("HTTP/localhost"));
        conf.set("dfs.web.authentication.kerberos.keytab", httpKeytab.toString());
        conf.setBoolean("dfs.block.access.token.enable", true);
        conf.setBoolean("ignore.secure.ports.for.testing", true);
        conf.set("dfs.namenode.safemode.extension", "0");
        // the servers' own tickets are as short as everyone's: Hadoop renews the login user's
        conf.setBoolean("hadoop.kerberos.keytab.login.autorenewal.enabled", true);
        conf.set("hadoop.kerberos.min.seconds.before.relogin", "1");
        serverSettings.forEach(conf::set);
        UserGroupInformation.setConfiguration(conf);
        UserGroupInformation.loginUserFromKeytab(hdfs, hdfsKeytab.toString());
        MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, dir.resolve("dfs").toFile()).numDataNodes(1)
                .build();
        cluster.waitActive();
        Map<String, String> site = new LinkedHashMap<>();
        site.put("hadoop.security.authentication", "kerberos");
        site.put("hadoop.rpc.protection", "authentication");
        site.put("dfs.namenode.kerberos.principal", hdfs);
        site.put("dfs.datanode.kerberos.principal", hdfs);
        site.put("dfs.block.access.token.enable", "true");
        site.put("fs.defaultFS", "hdfs://localhost:" + cluster.getNameNodePort());
        return new KerberizedHdfs(cluster, site);
    }

    /** {@code hdfs://localhost:<port>}. */
    public String uri() {
        return "hdfs://localhost:" + cluster.getNameNodePort();
    }

    /** The client settings {@link #writeClientConf} writes (Kerberos, the principals, {@code fs.defaultFS}). */
    public Map<String, String> clientSettings() {
        return Map.copyOf(clientSite);
    }

    /** As the superuser: a folder owned by {@code user} (a principal's short name). */
    public void mkdirFor(String path, String user) throws IOException {
        FileSystem fs = cluster.getFileSystem();
        fs.mkdirs(new Path(path));
        fs.setOwner(new Path(path), user, "supergroup");
    }

    /** The superuser's file system. */
    public FileSystem fileSystem() throws IOException {
        return cluster.getFileSystem();
    }

    /** Writes core-site.xml and hdfs-site.xml for clients of this cluster into {@code dir}. */
    public java.nio.file.Path writeClientConf(java.nio.file.Path dir) throws IOException {
        return writeClientConf(dir, Map.of());
    }

    /**
     * {@link #writeClientConf(java.nio.file.Path)} with {@code core} added to core-site.xml (e.g.
     * {@code ipc.client.connection.maxidletime}).
     */
    public java.nio.file.Path writeClientConf(java.nio.file.Path dir, Map<String, String> core) throws IOException {
        Files.createDirectories(dir);
        Map<String, String> site = new LinkedHashMap<>(clientSite);
        site.putAll(core);
        Files.writeString(dir.resolve("core-site.xml"), xml(site), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("hdfs-site.xml"), xml(Map.of("dfs.replication", "1")), StandardCharsets.UTF_8);
        return dir;
    }

    private static String xml(Map<String, String> properties) {
        StringBuilder b = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
        properties.forEach((k, v) -> b.append("  <property><name>").append(k).append("</name><value>").append(v)
                .append("</value></property>\n"));
        return b.append("</configuration>\n").toString();
    }

    @Override
    public void close() {
        cluster.shutdown();
    }
}
