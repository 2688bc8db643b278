package org.eventindex.testing;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * A real in-JVM HDFS (one NameNode, one DataNode, replication 1) on free loopback ports, for tests and the embedded
 * demo stack. Storage lives under the given directory.
 */
public final class EmbeddedHdfs implements AutoCloseable {
    private final MiniDFSCluster cluster;
    private final Configuration conf;
    private final URI uri;
    private final FileSystem fs;
    private final Duration startTime;
    private MiniDFSCluster.DataNodeProperties stoppedDataNode;

    private EmbeddedHdfs(MiniDFSCluster cluster, Configuration conf, URI uri, FileSystem fs, Duration startTime) {
        this.cluster = cluster;
        this.conf = conf;
        this.uri = uri;
        this.fs = fs;
        this.startTime = startTime;
    }

    /**
     * Formats and starts a cluster under {@code dir} (created if missing) and waits until it is out of safe mode.
     *
     * @throws UncheckedIOException when the cluster does not come up
     */
    public static EmbeddedHdfs start(Path dir) {
        requireNonNull(dir, "dir is null");
        long t0 = System.nanoTime();
        try {
            Path base = Files.createDirectories(dir.toAbsolutePath()).resolve("hdfs");
            Configuration conf = new Configuration();
            conf.setInt("dfs.replication", 1);
            conf.setLong("dfs.namenode.safemode.extension", 0);
            conf.set("dfs.namenode.rpc-bind-host", "127.0.0.1");
            // ports below the ephemeral range, for the NameNode and the DataNode a test stops and restarts on them
            // (a restarted NameNode binds its HTTP port again too):
            // while one is down no outgoing connection can take its port (Ports.freeForRestart)
            conf.set("dfs.datanode.address", "127.0.0.1:" + Ports.freeForRestart());
            conf.set("dfs.datanode.ipc.address", "127.0.0.1:" + Ports.freeForRestart());
            conf.set("dfs.datanode.http.address", "127.0.0.1:" + Ports.freeForRestart());
            MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, base.toFile())
                    .numDataNodes(1)
                    .checkDataNodeAddrConfig(true)
                    .nameNodePort(Ports.freeForRestart())
                    .nameNodeHttpPort(Ports.freeForRestart())
                    .format(true)
                    .build();
            cluster.waitActive();
            URI uri = URI.create("hdfs://127.0.0.1:" + cluster.getNameNodePort());
            Configuration clientConf = new Configuration(cluster.getConfiguration(0));
            clientConf.set("fs.defaultFS", uri.toString());
            FileSystem fs = FileSystem.newInstance(uri, clientConf);
            return new EmbeddedHdfs(cluster, clientConf, uri, fs, Duration.ofNanos(System.nanoTime() - t0));
        } catch (IOException e) {
            throw new UncheckedIOException("HDFS mini cluster under " + dir + " did not start", e);
        }
    }

    /** A client configuration whose {@code fs.defaultFS} is {@link #uri()}; callers may copy and extend it. */
    public Configuration conf() {
        return new Configuration(conf);
    }

    /**
     * Writes a Hadoop client configuration folder into {@code dir} (created if missing), as a site's
     * {@code HADOOP_CONF_DIR} would be: {@code core-site.xml} naming {@link #uri()} the default file system,
     * {@code hdfs-site.xml} with replication 1. Returns {@code dir}.
     */
    public Path writeClientConfDir(Path dir) throws IOException {
        Files.createDirectories(dir);
        Configuration core = new Configuration(false);
        core.set(FileSystem.FS_DEFAULT_NAME_KEY, uri.toString());
        try (var out = Files.newOutputStream(dir.resolve("core-site.xml"))) {
            core.writeXml(out);
        }
        Configuration site = new Configuration(false);
        site.set("dfs.replication", "1");
        try (var out = Files.newOutputStream(dir.resolve("hdfs-site.xml"))) {
            site.writeXml(out);
        }
        return dir;
    }

    /** A file system client shared by all callers of this fixture; closed by {@link #close()}. */
    public FileSystem fs() {
        return fs;
    }

    /** {@code hdfs://127.0.0.1:<port>}. */
    public URI uri() {
        return uri;
    }

    /** The port the DataNode takes blocks on (its transfer port), the same after {@link #restartDataNode()}. */
    public int dataNodePort() {
        return cluster.getDataNodes().get(0).getXferPort();
    }

    /** Stops the NameNode: clients get "connection refused" until {@link #restartNameNode()}. */
    public void stopNameNode() {
        cluster.shutdownNameNode(0);
    }

    /** Restarts the NameNode after {@link #stopNameNode()} on the same port and waits until it is active. */
    public void restartNameNode() {
        try {
            cluster.restartNameNode(0, true);
        } catch (IOException e) {
            throw new UncheckedIOException("could not restart the HDFS NameNode", e);
        }
    }

    /**
     * Stops the DataNode: a file being written loses its pipeline (its writer's next {@code hsync} fails) and its last
     * block cannot be recovered until {@link #restartDataNode()}.
     */
    public synchronized void stopDataNode() {
        if (stoppedDataNode != null) {
            throw new IllegalStateException("the DataNode is already stopped");
        }
        stoppedDataNode = cluster.stopDataNode(0);
    }

    /** Starts the DataNode again after {@link #stopDataNode()}, on its ports and storage, and waits until it serves. */
    public synchronized void restartDataNode() {
        try {
            cluster.restartDataNode(requireNonNull(stoppedDataNode, "the DataNode was not stopped"), true);
            cluster.waitActive();
            stoppedDataNode = null;
        } catch (IOException e) {
            throw new UncheckedIOException("could not restart the HDFS DataNode", e);
        }
    }

    /** Wall time {@link #start} took to bring the cluster up. */
    public Duration startTime() {
        return startTime;
    }

    @Override
    public void close() {
        try {
            fs.close();
        } catch (IOException e) {
            // Shutting the cluster down matters more; a failing client close leaves nothing behind.
        } finally {
            cluster.shutdown();
        }
    }
}
