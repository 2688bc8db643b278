package org.eventindex.deploy.chaos;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.eventindex.cluster.ClusterAccess;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.eventindex.testing.Ports;
import org.eventindex.testing.hosts.Host;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * HDFS as two separate java processes, a NameNode and a DataNode, from the Hadoop classes on this JVM's class path
 * (the shaded minicluster jar holds the server classes). Configuration is a {@code core-site.xml} and
 * {@code hdfs-site.xml} in a folder put first on the daemons' class path, next to the empty {@code webapps/} folders
 * the HTTP servers need. The DataNode's data directory is given by the caller (the harness may mount a small tmpfs
 * there to fill it). Both run on one {@link Host}, bound to its address (127.0.0.1 for {@link Host#local()}).
 * Public for the tests of other modules that need HDFS on a host of its own (the rebuild's RebuildOnHostsIT).
 */
public final class HdfsDaemons implements AutoCloseable {
    /** Block size of every writer (daemons, consumers, harness): a few MiB so that a small tmpfs disk can take it. */
    static final long BLOCK_SIZE = 4L << 20;

    private final Path dir;
    private final Host host;
    private final int nameNodePort;
    private final ChildProcess nameNode;
    private final ChildProcess dataNode;
    private final Configuration clientConf;
    private FileSystem fs;

    private HdfsDaemons(Path dir, Host host, int nameNodePort, ChildProcess nameNode, ChildProcess dataNode) {
        this.dir = dir;
        this.host = host;
        this.nameNodePort = nameNodePort;
        this.nameNode = nameNode;
        this.dataNode = dataNode;
        this.clientConf = new Configuration(false);
        clientConf.set("fs.defaultFS", uri().toString());
        clientConf.set("fs.hdfs.impl.disable.cache", "true");
        clientConf.setLong("dfs.blocksize", BLOCK_SIZE);
        clientConf.set("dfs.client.retry.policy.enabled", "false");
        clientConf.set("ipc.client.connect.max.retries", "3");
    }

    /**
     * Formats a new file system under {@code dir}, starts both daemons on {@code host} and waits for a live DataNode.
     */
    public static HdfsDaemons start(Path dir, Path dataNodeDir, Host host, Duration timeout)
            throws IOException, InterruptedException {
        String address = host.address();
        Path conf = Files.createDirectories(dir.resolve("conf"));
        for (String app : List.of("hdfs", "datanode", "static", "secondary", "journal")) {
            Files.createDirectories(conf.resolve("webapps").resolve(app));
        }
        int port = Ports.freeForRestart();
        Map<String, String> hdfs = new LinkedHashMap<>();
        hdfs.put("dfs.namenode.name.dir", dir.resolve("name").toUri().toString());
        hdfs.put("dfs.datanode.data.dir", dataNodeDir.toUri().toString());
        hdfs.put("dfs.replication", "1");
        hdfs.put("dfs.namenode.safemode.extension", "0");
        hdfs.put("dfs.namenode.http-address", address + ":0");
        hdfs.put("dfs.namenode.rpc-bind-host", address);
        hdfs.put("dfs.datanode.address", address + ":0");
        hdfs.put("dfs.datanode.http.address", address + ":0");
        hdfs.put("dfs.datanode.ipc.address", address + ":0");
        hdfs.put("dfs.datanode.hostname", address);
        hdfs.put("dfs.permissions.enabled", "false");
        hdfs.put("dfs.heartbeat.interval", "1");
        hdfs.put("dfs.namenode.heartbeat.recheck-interval", "5000");
        hdfs.put("dfs.namenode.stale.datanode.interval", "3000");
        hdfs.put("dfs.datanode.failed.volumes.tolerated", "0");
        hdfs.put("dfs.namenode.redundancy.interval.seconds", "1");
        // A DataNode takes a block only with a block size of free space; the small test disk needs small blocks.
        hdfs.put("dfs.blocksize", Long.toString(BLOCK_SIZE));
        // By default a volume must have 1 GiB beyond the block size free to take a block: too much for a test disk.
        hdfs.put("dfs.datanode.round-robin-volume-choosing-policy.additional-available-space", "0");
        Files.writeString(conf.resolve("hdfs-site.xml"), xml(hdfs));
        Files.writeString(conf.resolve("core-site.xml"), xml(Map.of("fs.defaultFS", "hdfs://" + address + ":" + port,
                "hadoop.tmp.dir", dir.resolve("tmp").toString())));
        String cp = conf + java.io.File.pathSeparator + System.getProperty("java.class.path");

        ChildProcess format = new ChildProcess("namenode-format",
                command(host, cp, "org.apache.hadoop.hdfs.server.namenode.NameNode", "-format", "-force",
                        "-nonInteractive"),
                Map.of(), dir.resolve("logs").resolve("namenode-format.log"));
        format.start();
        ProcessHandle handle = ProcessHandle.of(format.pid()).orElseThrow();
        handle.onExit().orTimeout(120, TimeUnit.SECONDS).join();
        ChildProcess nn = new ChildProcess("namenode", command(host, cp,
                "org.apache.hadoop.hdfs.server.namenode.NameNode"),
                Map.of(), dir.resolve("logs").resolve("namenode.log"));
        ChildProcess dn = new ChildProcess("datanode", command(host, cp,
                "org.apache.hadoop.hdfs.server.datanode.DataNode"),
                Map.of(), dir.resolve("logs").resolve("datanode.log"));
        HdfsDaemons d = new HdfsDaemons(dir, host, port, nn, dn);
        try {
            nn.start();
            dn.start();
            d.awaitWritable(timeout);
            return d;
        } catch (RuntimeException e) {
            d.close();
            throw e;
        }
    }

    private static List<String> command(Host host, String classPath, String main, String... args) {
        // The embedded stack's logging silences the DataNode; a chaos run wants its warnings in the log.
        return ChildProcess.java(main, classPath, "384m")
                .options("-Dorg.slf4j.simpleLogger.log.org.apache.hadoop.hdfs.server.datanode.DataNode=warn")
                .args(args).on(host).command();
    }

    private static String xml(Map<String, String> properties) {
        StringBuilder sb = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
        properties.forEach((k, v) -> sb.append("  <property><name>").append(k).append("</name><value>").append(v)
                .append("</value></property>\n"));
        return sb.append("</configuration>\n").toString();
    }

    /**
     * The folder holding {@code core-site.xml} and {@code hdfs-site.xml}: put first on a client JVM's class path
     * (the consumers) so that its HDFS client writes with the same small block size.
     */
    Path confDir() {
        return dir.resolve("conf");
    }

    public URI uri() {
        return URI.create("hdfs://" + host.address() + ":" + nameNodePort);
    }

    /** The host the NameNode and DataNode run on. */
    Host host() {
        return host;
    }

    ChildProcess nameNode() {
        return nameNode;
    }

    ChildProcess dataNode() {
        return dataNode;
    }

    /** A client file system for the harness and the checker (kept open; closed with the daemons). */
    public synchronized FileSystem fs() throws IOException {
        if (fs == null) {
            fs = ClusterAccess.unsecured(clientConf).fileSystem(uri());
        }
        return fs;
    }

    /**
     * What a reader sees of the file {@code path} (every byte its writer synced, as a new journal writer reads it),
     * -1 when it is absent or HDFS does not answer.
     */
    long visibleBytes(String path) {
        try {
            org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(path);
            if (!fs().exists(p)) {
                return -1;
            }
            try (java.io.InputStream in = fs().open(p)) {
                return in.transferTo(java.io.OutputStream.nullOutputStream());
            }
        } catch (IOException e) {
            return -1;
        }
    }

    /** Waits until the NameNode is out of safe mode and has a live DataNode with room for a block. */
    void awaitWritable(Duration timeout) {
        ChaosWait.until("HDFS NameNode out of safe mode with a live DataNode (logs in " + dir.resolve("logs") + ")",
                timeout, () -> {
                    if (!nameNode.isAlive()) {
                        throw new IllegalStateException("the NameNode exited; see " + nameNode.log());
                    }
                    try {
                        DistributedFileSystem dfs = (DistributedFileSystem) fs();
                        return !dfs.setSafeMode(HdfsConstants.SafeModeAction.SAFEMODE_GET)
                                && dfs.getDataNodeStats(HdfsConstants.DatanodeReportType.LIVE).length >= 1
                                && dfs.getStatus().getRemaining() >= BLOCK_SIZE;
                    } catch (IOException | RuntimeException e) {
                        return false;
                    }
                });
    }

    /**
     * Waits until the NameNode, from the DataNode's heartbeats, has less than a block of room left: from then on it
     * places no new block ("could only be written to 0 of the 1 minReplication nodes"), so every write fails.
     */
    void awaitNoRoom(Duration timeout) {
        ChaosWait.until("the NameNode reporting less than a block (" + (BLOCK_SIZE >> 20) + " MiB) of room", timeout,
                () -> {
                    try {
                        return fs().getStatus().getRemaining() < BLOCK_SIZE;
                    } catch (IOException | RuntimeException e) {
                        return false;
                    }
                });
    }

    @Override
    public void close() {
        try {
            if (fs != null) {
                fs.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the HDFS client of " + uri(), e);
        } finally {
            dataNode.close();
            nameNode.close();
        }
    }
}
