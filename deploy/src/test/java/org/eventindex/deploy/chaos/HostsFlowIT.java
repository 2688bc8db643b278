package org.eventindex.deploy.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.Json;
import org.eventindex.testing.ChildJvm;
import org.eventindex.testing.hosts.Host;
import org.eventindex.testing.hosts.HostNetwork;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The system with each role on its own host (a network namespace with its own address, made by the test as root):
 * two independent brokers, supervisor, consumer, producers, and HDFS, Kudu and S3 each on a host of its own. The test JVM
 * cannot reach the hosts' addresses from the machine's namespace, so it runs the driver ({@link HostsFlowMain}) on a
 * control host and reads its report: every process ran in its host's namespace, a round of two datasets loaded every
 * event exactly once, and so did a second round during which the consumer's host was cut from the brokers' (a connect
 * timed out, no dataset was done before the heal), and a third in which every producer message sat on broker2, cut
 * from the supervisor and the consumer and then isolated from every host, until the heal (none recorded before it),
 * and two in which the consumer's host was cut from HDFS's, then from Kudu's, while it had a dataset of the round in
 * flight (a connect timed out, the dataset was still in flight at the end of the hold, none was done before the
 * heal).
 * With CI set, a machine without root, {@code ip} or {@code nft} fails the test.
 */
final class HostsFlowIT {
    private static final Logger LOG = LoggerFactory.getLogger(HostsFlowIT.class);

    @Test
    void eachRoleOnItsOwnHostLoadsEveryEventOnceAcrossPartitionsFromBrokersHdfsAndKudu() throws Exception {
        HostNetwork.requireSupported();
        Path work = Path.of("target", "hosts-flow-" + System.currentTimeMillis()).toAbsolutePath();
        Files.createDirectories(work);
        Path report = work.resolve("report.json");
        Path log = work.resolve("driver.log");
        List<String> made;
        try (HostNetwork net = HostNetwork.create(HostsCluster.HOSTS)) {
            made = net.ownNamespaces();
            List<String> options = new ArrayList<>();
            for (String p : List.of("kuduBinDir", "ei.producer.jar")) {
                if (System.getProperty(p) != null) {
                    options.add("-D" + p + "=" + System.getProperty(p));
                }
            }
            Process driver = ChildProcess.java(HostsFlowMain.class.getName(), System.getProperty("java.class.path"),
                            "384m").options(options)
                    .args("--network", net.describe(), "--work", work.toString(), "--producer-jar",
                            System.getProperty("ei.producer.jar"), "--report", report.toString())
                    .on(net.host("control")).start(log);
            boolean exited = ChildJvm.awaitExitOrStop(driver, Duration.ofMinutes(6));
            String output = Files.readString(log, StandardCharsets.UTF_8);
            LOG.info("driver output:\n{}", output);
            assertTrue(exited, "the driver did not finish within 6 minutes; log " + log);
            assertEquals(0, driver.exitValue(), "the driver failed; log " + log + ":\n" + tail(output));

            JsonNode r = Json.tree(Files.readAllBytes(report));
            LOG.info("report: {}", r.toPrettyString());
            Map<String, String> hostOf = Map.of("broker1", "broker1", "broker2", "broker2", "supervisor",
                    "supervisor", "consumer", "consumer", "s3", "s3", "namenode", "hdfs", "datanode", "hdfs",
                    "kudu-master", "kudu", "kudu-tserver", "kudu");
            hostOf.forEach((process, host) -> {
                JsonNode p = r.path("placement").path(process);
                Host h = net.host(host);
                assertEquals(h.namespace().orElseThrow(), p.path("namespace").asText(), process + " runs in " + p);
                assertEquals(h.address(), p.path("address").asText(), process);
            });
            assertEquals(5, r.path("rounds").size(), r.toString());
            for (JsonNode round : r.path("rounds")) {
                assertEquals(0, round.path("violations").size(), round.toString());
                assertEquals(0, round.path("lost").asLong(), round.toString());
                assertEquals(0, round.path("extra").asLong(), round.toString());
                assertEquals(2, round.path("datasets").asInt(), round.toString());
                assertTrue(round.path("expectedEvents").asLong() > 0, round.toString());
                assertEquals(round.path("expectedEvents").asLong(), round.path("eventsFound").asLong(),
                        round.toString());
            }
            JsonNode cut = r.path("rounds").get(1);
            assertEquals(Host.Reach.TIMED_OUT.name(), cut.path("probeDuringCut").asText(), "the cut was no partition: "
                    + cut);
            assertEquals(0, cut.path("doneDuringCut").asInt(), "a dataset was loaded while the consumer was cut off");
            assertEquals(Host.Reach.CONNECTED.name(), cut.path("probeAfterHeal").asText(), cut.toString());
            JsonNode isolated = r.path("rounds").get(2);
            assertEquals(isolated.path("producerJobs").asLong(), isolated.path("acknowledged").asLong(),
                    "every producer stored its message on broker2: " + isolated);
            assertEquals(0, isolated.path("recordedBeforeHeal").asLong(), "the supervisor recorded a message held"
                    + " by the broker it was cut from: " + isolated);
            assertEquals(Host.Reach.TIMED_OUT.name(), isolated.path("probeWhileIsolated").asText(),
                    "the isolation was no partition: " + isolated);
            assertEquals(Host.Reach.CONNECTED.name(), isolated.path("probeAfterHeal").asText(), isolated.toString());
            for (JsonNode service : List.of(r.path("rounds").get(3), r.path("rounds").get(4))) {
                assertEquals(Host.Reach.TIMED_OUT.name(), service.path("probeDuringCut").asText(),
                        "the cut was no partition: " + service);
                assertTrue(service.path("inFlightDuringCut").asText().startsWith("data17_13TeV."),
                        "the consumer had no dataset in flight while cut off: " + service);
                assertTrue(service.path("stillInFlightAtHoldEnd").asBoolean(), "the consumer finished its dataset"
                        + " while cut off: " + service);
                assertEquals(0, service.path("doneDuringCut").asInt(), "a dataset was DONE during the cut: " + service);
                assertEquals(Host.Reach.CONNECTED.name(), service.path("probeAfterHeal").asText(), service.toString());
            }
        }
        List<String> left = HostNetwork.namespaces();
        assertTrue(made.stream().noneMatch(left::contains), "namespaces left: " + left);
    }

    private static String tail(String output) {
        String[] lines = output.split("\n");
        return String.join("\n", List.of(lines).subList(Math.max(0, lines.length - 60), lines.length));
    }
}
