package org.eventindex.rebuild;

import org.eventindex.testing.ChildJvm;
import org.eventindex.testing.KuduBinaries;
import org.eventindex.testing.hosts.HostNetwork;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code eventindex rebuild} on a Spark standalone cluster whose parts are on separate hosts (network namespaces on a
 * bridge, made by the test as root): HDFS (a NameNode and a DataNode process) on {@code hdfs}, Kudu (a master and a
 * tablet server) on {@code kudu}, the Spark master on {@code spark}, a worker on each of {@code worker1} and
 * {@code worker2}, each bound to its host's address only, and the Spark driver on {@code control}. This JVM cannot
 * reach the hosts' addresses, so {@link RebuildOnHostsMain} does the work on {@code control} and this test checks its
 * report: the services answered at their hosts' addresses, the master saw a worker at each worker host's address, the
 * rebuild of the four small datasets (the tablet split) wrote every column of every row of the six tables as the
 * loader did, and both workers started an executor. The network's close kills whatever still runs on a host. With CI
 * set, a machine without root, {@code ip} or {@code nft} fails the test.
 */
final class RebuildOnHostsIT {
    @Test
    void rebuildOnAClusterWhoseHdfsKuduMasterAndWorkersAreOnHostsOfTheirOwn() throws Exception {
        HostNetwork.requireSupported();
        // under target, not a temporary folder: the daemons' logs stay for a failure's diagnosis
        Path dir = Files.createDirectories(Path.of("target", "rebuild-on-hosts-" + System.currentTimeMillis())
                .toAbsolutePath());
        Path report = dir.resolve("report.properties");
        Path log = dir.resolve("driver.log");
        List<String> made;
        try (HostNetwork net = HostNetwork.create(RebuildOnHostsMain.HOSTS)) {
            made = net.ownNamespaces();
            List<String> options = SparkJvmOptions.get();
            String kuduBinDir = System.getProperty(KuduBinaries.PROPERTY);
            if (kuduBinDir != null) {
                options.add("-D" + KuduBinaries.PROPERTY + "=" + kuduBinDir);
            }
            Process driver = ChildJvm.main(RebuildOnHostsMain.class).heap("600m").options(options)
                    .args(net.describe(), dir.resolve("work").toString(), report.toString())
                    .on(net.host("control")).start(log);
            boolean exited = ChildJvm.awaitExitOrStop(driver, Duration.ofMinutes(5));
            String output = Files.readString(log, StandardCharsets.UTF_8);
            assertTrue(exited, "the driver did not finish within 5 minutes; log " + log + ":\n" + tail(output));
            assertEquals(0, driver.exitValue(), "the driver failed; log " + log + ":\n" + tail(output));

            Properties r = new Properties();
            try (InputStream in = Files.newInputStream(report)) {
                r.load(in);
            }
            System.out.println("RebuildOnHostsIT report: " + r);
            assertTrue(r.getProperty("hdfs.uri").startsWith("hdfs://" + net.host("hdfs").address() + ":"), r::toString);
            assertTrue(r.getProperty("kudu.masters").startsWith(net.host("kudu").address() + ":"), r::toString);
            assertTrue(r.getProperty("spark.master").startsWith("spark://" + net.host("spark").address() + ":"),
                    r::toString);
            assertEquals(net.host("worker1").address() + "," + net.host("worker2").address(),
                    r.getProperty("spark.worker.hosts"), r::toString);
            assertEquals("0", r.getProperty("rebuild.status"), output);
            assertTrue(r.getProperty("rebuild.summary").startsWith("rebuild: 4 datasets"), r::toString);
            assertEquals("true", r.getProperty("tables.equal"), r::toString);
            assertTrue(Integer.parseInt(r.getProperty("rows.EVENTS", "0")) > 0, r::toString);
            assertEquals("2", r.getProperty("workers.with.executors"), "workers that started an executor: " + r);
        }
        List<String> left = HostNetwork.namespaces();
        assertTrue(made.stream().noneMatch(left::contains), "namespaces left: " + left);
    }

    private static String tail(String output) {
        String[] lines = output.split("\n");
        return String.join("\n", List.of(lines).subList(Math.max(0, lines.length - 80), lines.length));
    }
}
