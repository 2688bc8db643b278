package org.eventindex.deploy.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.Json;
import org.eventindex.testing.EmbeddedCeph;
import org.eventindex.testing.hosts.HostNetwork;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The chaos suite on hosts: makes the chaos cluster's hosts ({@link ChaosCluster#HOSTS}, network namespaces, as root)
 * and runs {@link ChaosScenarios} in a driver JVM on the control host ({@link ChaosScenariosMain}; the test JVM cannot
 * reach the hosts' addresses from the machine's namespace), then requires every scenario to have run and passed, as
 * the driver's report says; a failure names the scenario and carries its stack trace. With CI set, a machine without
 * root, {@code ip}, {@code nft} or Ceph fails the test, and so does a scenario's missing prerequisite (the driver
 * inherits {@code CI}); elsewhere such a scenario is skipped with the reason.
 */
final class ChaosIT {
    private static final Logger LOG = LoggerFactory.getLogger(ChaosIT.class);
    private static final long DRIVER_MINUTES = 20;

    @Test
    void everyScenarioPassesWithEachRoleOnItsOwnHost() throws Exception {
        HostNetwork.requireSupported();
        EmbeddedCeph.requireInstalled();
        Path work = Path.of("target", "chaos-it-" + System.currentTimeMillis()).toAbsolutePath();
        Files.createDirectories(work);
        Path report = work.resolve("scenarios.json");
        Path log = work.resolve("driver.log");
        List<String> made;
        try (HostNetwork net = HostNetwork.create(ChaosCluster.HOSTS)) {
            made = net.ownNamespaces();
            List<String> options = new ArrayList<>(List.of("-D" + ChaosScenarios.NETWORK + "=" + net.describe(),
                    "-D" + ChaosScenarios.WORK + "=" + work.resolve("cluster")));
            // -Dchaos.scenario=METHOD (e.g. activeSupervisorIsolatedThenZooKeeperLeaderIsolated) runs that one only
            String only = System.getProperty(ChaosScenariosMain.SCENARIO, "");
            for (String p : List.of("kuduBinDir", "ei.producer.jar", ChaosScenariosMain.SCENARIO)) {
                if (System.getProperty(p) != null) {
                    options.add("-D" + p + "=" + System.getProperty(p));
                }
            }
            Process driver = ChildProcess.java(ChaosScenariosMain.class.getName(),
                            System.getProperty("java.class.path"), "768m").options(options)
                    .args(report.toString()).on(net.host("control")).start(log);
            boolean exited = driver.waitFor(DRIVER_MINUTES, TimeUnit.MINUTES);
            if (!exited) {
                // SIGTERM first: the driver's shutdown hooks stop every role it started
                driver.destroy();
                if (!driver.waitFor(60, TimeUnit.SECONDS)) {
                    driver.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                }
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            LOG.info("driver output (also in {}):\n{}", log, tail(output, 400));
            assertTrue(exited, "the driver did not finish within " + DRIVER_MINUTES + " minutes; log " + log);
            JsonNode r = Json.tree(Files.readAllBytes(report));
            List<String> failures = new ArrayList<>();
            List<String> aborted = new ArrayList<>();
            for (JsonNode t : r.path("tests")) {
                String status = t.path("status").asText();
                String line = t.path("test").asText() + " " + status + ": " + t.path("failure").asText();
                // ABORTED: a scenario's prerequisite missing on a developer machine (under CI it fails instead)
                if ("ABORTED".equals(status)) {
                    aborted.add(line);
                } else if (!"SUCCESSFUL".equals(status)) {
                    failures.add(line);
                }
            }
            aborted.forEach(a -> LOG.warn("scenario skipped: {}", a));
            LOG.info("scenarios: {} started, {} succeeded, {} failed, {} aborted", r.path("started"),
                    r.path("succeeded"), r.path("failed"), r.path("aborted"));
            assertEquals(List.of(), failures, "scenarios that did not pass (driver log " + log + ")");
            assertEquals(0, driver.exitValue(), "the driver failed; log " + log);
            long scenarios = only.isEmpty() ? Arrays.stream(ChaosScenarios.class.getDeclaredMethods())
                    .filter(m -> m.isAnnotationPresent(Test.class)).count() : 1;
            assertEquals(scenarios, r.path("started").asLong(), "every scenario ran: " + r);
            assertEquals(scenarios, r.path("succeeded").asLong() + aborted.size(), "every scenario passed: " + r);
        }
        List<String> left = HostNetwork.namespaces();
        assertTrue(made.stream().noneMatch(left::contains), "namespaces left: " + left);
    }

    private static String tail(String output, int lines) {
        String[] all = output.split("\n");
        return String.join("\n", List.of(all).subList(Math.max(0, all.length - lines), all.length));
    }
}
