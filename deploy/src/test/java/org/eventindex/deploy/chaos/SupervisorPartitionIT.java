package org.eventindex.deploy.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.Json;
import org.eventindex.testing.ChildJvm;
import org.eventindex.testing.hosts.HostNetwork;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The supervisors' high availability on ZooKeeper and HDFS under network partitions, every role on its own host (a
 * network namespace made here, as root): three ZooKeeper servers as processes on three hosts, HDFS, a broker, two
 * supervisors. The driver ({@link SupervisorPartitionMain}) runs on a control host, partitions and checks; this test
 * reads its report: the isolated active is taken over and, healed, exits fenced out having journalled and signalled
 * nothing; a ZooKeeper minority isolated (the active's own server) leaves never two supervisors ready and loses
 * nothing; an active cut from ZooKeeper alone suspends itself before the standby takes the next token, then exits
 * fenced out; a lost quorum stops the active, both wait for ZooKeeper, and they carry on once it is back. With CI set, a machine without root,
 * {@code ip} or {@code nft} fails the test.
 */
final class SupervisorPartitionIT {
    private static final Logger LOG = LoggerFactory.getLogger(SupervisorPartitionIT.class);

    @Test
    void theActiveIsolatedTheActivesZooKeeperServerIsolatedAndTheActiveCutFromZooKeeper() throws Exception {
        HostNetwork.requireSupported();
        Path work = Path.of("target", "supervisor-partition-" + System.currentTimeMillis()).toAbsolutePath();
        Files.createDirectories(work);
        Path report = work.resolve("report.json");
        Path log = work.resolve("driver.log");
        List<String> made;
        try (HostNetwork net = HostNetwork.create(SupervisorHaOnHosts.HOSTS)) {
            made = net.ownNamespaces();
            Process driver = ChildJvm.main(SupervisorPartitionMain.class).heap("256m").quickStart()
                    .args(net.describe(), work.toString(), report.toString()).on(net.host("control")).start(log);
            boolean exited = driver.waitFor(4, TimeUnit.MINUTES);
            if (!exited) {
                driver.destroy(); // its shutdown hooks stop what it started
                if (!driver.waitFor(60, TimeUnit.SECONDS)) {
                    driver.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                }
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            assertTrue(exited, "the driver did not finish within 4 minutes; log " + log);
            JsonNode r = Json.tree(Files.readAllBytes(report));
            LOG.info("report: {}", r.toPrettyString());
            assertEquals(0, driver.exitValue(), "the driver failed (" + r.path("failure").asText() + "); log " + log
                    + ":\n" + tail(output));
            assertFalse(r.has("failure"), r.toString());

            JsonNode isolated = r.path("isolated");
            assertEquals(75, isolated.path("oldExit").asInt(), isolated.toString());
            assertTrue(isolated.path("takeoverMillis").asLong() > SupervisorPartitionMain.LEASE.toMillis() / 2,
                    "a takeover waits for the session to expire: " + isolated);
            assertTrue(isolated.path("sealedJournalBytes").asLong() > 0, isolated.toString());
            assertEquals(0, r.path("zookeeperMinority").path("bothReadySamples").asInt(), r.toString());
            assertTrue(r.path("zookeeperMinority").path("samples").asInt() > 10, r.toString());
            JsonNode cut = r.path("cutFromZooKeeper");
            assertTrue(cut.path("oldSuspendedMillis").asLong() < cut.path("newTokenMillis").asLong(), cut.toString());
            JsonNode quorum = r.path("quorumLost");
            assertEquals(0, quorum.path("bothReadySamples").asInt(), quorum.toString());
            assertTrue(quorum.path("activeAfterQuorumMillis").asLong() > 0, quorum.toString());
            assertTrue(r.path("datasets").asInt() >= 11, r.toString());
        }
        List<String> left = HostNetwork.namespaces();
        assertTrue(made.stream().noneMatch(left::contains), "namespaces left: " + left);
    }

    private static String tail(String output) {
        String[] lines = output.split("\n");
        return String.join("\n", List.of(lines).subList(Math.max(0, lines.length - 80), lines.length));
    }
}
