package org.eventindex.operator;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.supervisor.Supervisor;
import org.eventindex.testing.CommandTreeWalk;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.Ports;
import org.eventindex.testing.TestPki;
import org.eventindex.supervisor.SupervisorConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code eventindex status} (and its alias {@code eventindex supervisor status}) against a real supervisor that knows
 * one COLLECTING dataset and reads two brokers of which one is down: the table, the filters, the brokers with their
 * subscriptions, {@code --json}, and an unreachable second URL named without failing the command.
 */
class SiteStatusTest {
    private static final String DATASET = "data18_13TeV.00350099.physics_Main.merge.AOD.f934_m1831_tid13500099_00";

    @TempDir
    static Path dir;
    private static EmbeddedBroker broker;
    private static Supervisor supervisor;
    private static String url;
    /** A broker address where nothing listens: the supervisor reads it as a second broker of its alias. */
    private static String deadBroker;

    @BeforeAll
    static void start() throws IOException {
        broker = EmbeddedBroker.start(dir.resolve("broker"));
        deadBroker = "127.0.0.1:" + Ports.free();
        supervisor = RunningSupervisor.start(broker.stompEndpoints() + "," + deadBroker, dir.resolve("journal"),
                new Properties(), Map.of());
        url = "http://127.0.0.1:" + supervisor.httpPort();
        Path manifest = Files.writeString(dir.resolve("manifest.json"), "{\"type\":\"manifest\",\"dataset\":\""
                + DATASET + "\",\"files\":[{\"guid\":\"G1\",\"nevents\":10},{\"guid\":\"G2\",\"nevents\":5}]}");
        CommandTreeWalk.Result r = run("register-manifest", "--brokers", broker.stompEndpoints(), "--file", manifest.toString());
        assertEquals(0, r.exit(), r.err());
    }

    @AfterAll
    static void stop() {
        if (supervisor != null) {
            supervisor.stop();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void theTableShowsTheActiveSupervisorTheDatasetsByStateAndTheDataset() {
        String down = "http://127.0.0.1:" + Ports.free();
        CommandTreeWalk.Result r = run("status", "--url", url + "," + down);
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith(url) && l.contains("active") && l.contains("true")),
                r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith(down) && l.contains("unreachable")), r.out());
        assertTrue(r.out().contains("datasets: COLLECTING 1, HELD 0,"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith(DATASET) && l.contains("COLLECTING")
                && l.contains("0/2")), r.out());
        assertTrue(r.out().contains("CONSUMER") && r.out().contains("signals in flight: 0"), r.out());

        CommandTreeWalk.Result done = run("status", "--url", url, "--state", "done");
        assertEquals(0, done.exit(), done.err());
        assertTrue(done.out().lines().noneMatch(l -> l.startsWith(DATASET)), "only DONE datasets: " + done.out());
        CommandTreeWalk.Result other = run("status", "--url", url, "--dataset", "data17_*");
        assertTrue(other.out().lines().noneMatch(l -> l.startsWith(DATASET)), "another project: " + other.out());
        CommandTreeWalk.Result glob = run("status", "--url", url, "--dataset", "data18_13TeV.00350099.*");
        assertTrue(glob.out().lines().anyMatch(l -> l.startsWith(DATASET)), glob.out());
    }

    /** A delete-dataset that did not finish is listed with what is left and the command that finishes it. */
    @Test
    void anUnfinishedDeleteIsListedWithTheCommandThatFinishesIt() throws IOException {
        String deleted = "data18_13TeV.00350098.physics_Main.merge.AOD.f934_m1831_tid13500098_00";
        Path manifest = Files.writeString(dir.resolve("deleted.json"), "{\"type\":\"manifest\",\"dataset\":\""
                + deleted + "\",\"files\":[{\"guid\":\"G9\",\"nevents\":1}]}");
        assertEquals(0, run("register-manifest", "--brokers", broker.stompEndpoints(), "--file",
                manifest.toString()).exit());
        org.eventindex.supervisor.DeleteCommand.Where where = new org.eventindex.supervisor.DeleteCommand.Where(
                broker.stompEndpoints(), "hdfs://nn.example:8020", "/eventindex/datasets", "km.example:7051", "", null);
        assertTrue(OperatorClient.request(org.eventindex.stomp.StompSettings.of(org.eventindex.stomp.StompEndpoint
                        .parseList(broker.stompEndpoints()), null, null), Queues.SUPERVISOR_CONTROL,
                Json.write(org.eventindex.supervisor.DeleteCommand.start(deleted, "test", where)),
                java.time.Duration.ofSeconds(30)).orElseThrow().isOk());

        CommandTreeWalk.Result r = run("status", "--url", url);
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("delete-dataset of " + deleted + " did not finish (left: HDFS_FILE, KUDU_ROWS);"
                + " finish with: eventindex supervisor delete-dataset --brokers " + broker.stompEndpoints()
                + " --dataset " + deleted + " --hdfs-uri hdfs://nn.example:8020 --hdfs-root /eventindex/datasets"
                + " --kudu-masters km.example:7051 --yes"), r.out());
    }

    @Test
    void theTopLevelCommandListsEachBrokerWithTheQueuesSubscribedOnIt() {
        CommandTreeWalk.Result r = top("--url", url);
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("BROKER"), r.out());
        String live = broker.stompEndpoints();
        assertTrue(r.out().lines().anyMatch(l -> firstCell(l).equals(live) && l.contains(" yes ")
                && l.contains("3/3")), "the live broker serves the three queues: " + r.out());
        assertTrue(r.out().lines().anyMatch(l -> firstCell(l).equals(deadBroker) && l.contains(" no ")
                && l.contains("0/3") && l.contains("not subscribed to " + Queues.SUPERVISOR)), "the dead broker: " + r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith(DATASET) && l.contains("COLLECTING")), r.out());

        CommandTreeWalk.Result help = top("--help");
        assertEquals(0, help.exit(), help.err());
        assertTrue(help.out().startsWith("Usage: eventindex status "), help.out());
        CommandTreeWalk.Result none = top("--url", "http://127.0.0.1:" + Ports.free());
        assertEquals(1, none.exit());
        assertTrue(none.err().startsWith("eventindex status: no active supervisor among "), none.err());
    }

    @Test
    void theTopLevelCommandFollowsTheCommandLineConventions() {
        assertEquals(List.of(List.of()), CommandTreeWalk.check("eventindex status", SiteStatusTest::top));
    }

    @Test
    void jsonHoldsTheDocumentsOfTheEndpoints() throws IOException {
        CommandTreeWalk.Result r = run("status", "--url", url + "/", "--json");
        assertEquals(0, r.exit(), r.err());
        JsonNode doc = Json.tree(r.out().getBytes(StandardCharsets.UTF_8));
        assertEquals("active", doc.path("supervisors").get(0).path("role").asText(), r.out());
        assertTrue(doc.path("supervisors").get(0).path("ready").asBoolean(), r.out());
        assertEquals(1, doc.path("overview").path("datasetsByState").path("COLLECTING").asInt(), r.out());
        assertEquals(DATASET, doc.path("datasets").get(0).path("name").asText(), r.out());
        assertEquals(2, doc.path("datasets").get(0).path("expectedFiles").asInt(), r.out());
        assertTrue(doc.path("consumers").path("consumers").isArray(), r.out());
        Map<String, JsonNode> brokers = new HashMap<>();
        doc.path("brokers").forEach(b -> brokers.put(b.path("broker").asText(), b));
        assertEquals(Set.of(broker.stompEndpoints(), deadBroker), brokers.keySet(), r.out());
        assertTrue(brokers.get(broker.stompEndpoints()).path("subscribed").asBoolean(), r.out());
        assertEquals(3, brokers.get(broker.stompEndpoints()).path("queuesSubscribed").asInt(), r.out());
        assertEquals(false, brokers.get(deadBroker).path("subscribed").asBoolean(true), r.out());
        assertEquals(3, brokers.get(deadBroker).path("notSubscribed").size(), r.out());
        assertEquals(false, doc.path("overview").path("supervisor").path("brokers").path(deadBroker)
                .path(Queues.SUPERVISOR).asBoolean(true), r.out());
    }

    @Test
    void noActiveSupervisorOrABadStateFailsNamingWhy() {
        String down = "http://127.0.0.1:" + Ports.free();
        CommandTreeWalk.Result none = run("status", "--url", down);
        assertEquals(1, none.exit());
        assertTrue(none.err().contains("no active supervisor among " + down), none.err());
        assertTrue(none.out().contains("unreachable") && none.out().contains("GET " + down + "/console/role"), none.out());

        CommandTreeWalk.Result bad = run("status", "--url", url, "--state", "FINISHED");
        assertEquals(1, bad.exit());
        assertTrue(bad.err().contains("HTTP 400") && bad.err().contains("unknown state 'FINISHED'"), bad.err());

        CommandTreeWalk.Result notUrl = run("status", "--url", "sv1:8082");
        assertEquals(2, notUrl.exit());
        assertTrue(notUrl.err().contains("--url sv1:8082 is not an http(s) URL"), notUrl.err());
    }

    private static String firstCell(String line) {
        return line.split("\\s+", 2)[0];
    }

    /** {@code eventindex status ARGS}. */
    private static CommandTreeWalk.Result top(String... args) {
        return CommandTreeWalk.capture((out, err) -> SiteStatus.run(args, out, err));
    }

    /** {@code eventindex supervisor ARGS}. */
    @Test
    void againstASupervisorTakingCertificatesTheOperatorsCertificateGetsInAndAnotherIsNamedAsRefused()
            throws IOException {
        TestPki pki = TestPki.create(dir, "site");
        TestPki.Issued server = pki.server("localhost");
        TestPki.Issued operator = pki.client("operator");
        TestPki.Issued other = pki.client("other");
        Properties tls = new Properties();
        String p = SupervisorConfig.HTTP_ACCESS;
        tls.setProperty(p + "tls", "true");
        tls.setProperty(p + "keystore", server.keyStore().toString());
        tls.setProperty(p + "keystore.password.file", pki.passwordFile().toString());
        tls.setProperty(p + "auth", "certificate");
        tls.setProperty(p + "truststore", pki.trustStore().toString());
        tls.setProperty(p + "truststore.password.file", pki.passwordFile().toString());
        tls.setProperty(p + "allowed.subjects", "CN=operator,OU=Users,O=EventIndex Test");
        try (EmbeddedBroker own = EmbeddedBroker.start(dir.resolve("tls-broker"))) {
            Supervisor secured = RunningSupervisor.start(own.stompEndpoints(), dir.resolve("tls-journal"), tls, Map.of());
            try {
                String https = "https://127.0.0.1:" + secured.httpPort();
                String trust = "--trust-store=" + pki.trustStore();
                String trustPw = "--trust-store-password-file=" + pki.passwordFile();
                CommandTreeWalk.Result in = run("status", "--url", https, trust, trustPw,
                        "--cert-store", operator.keyStore().toString(), "--cert-store-password-file",
                        pki.passwordFile().toString());
                assertEquals(0, in.exit(), in.err());
                assertTrue(in.out().lines().anyMatch(l -> l.startsWith(https) && l.contains("active")), in.out());

                CommandTreeWalk.Result refused = run("status", "--url", https, trust, trustPw,
                        "--cert-store", other.keyStore().toString(), "--cert-store-password-file",
                        pki.passwordFile().toString());
                assertEquals(1, refused.exit(), refused.out());
                assertTrue((refused.out() + refused.err()).contains("HTTP 403: the supervisor requires authentication"
                        + " (supervisor.http.auth): give --cert-store with an allowed certificate"),
                        refused.out() + refused.err());
            } finally {
                secured.stop();
            }
        }
    }

    private static CommandTreeWalk.Result run(String... args) {
        return CommandTreeWalk.capture((out, err) -> OperatorMain.run(args, out, err, Map.of()));
    }
}
