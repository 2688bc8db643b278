package org.eventindex.lookup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kudu.client.KuduClient;
import org.eventindex.kudu.KuduProbe;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.ops.DependencyWait;
import org.eventindex.testing.Await;
import org.eventindex.testing.DaemonProcess;
import org.eventindex.testing.EmbeddedKudu;
import org.eventindex.testing.Ports;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code lookup serve}'s {@code /ready} and {@code /metrics} against a real Kudu: not ready while the tables are
 * missing or the masters are down (naming which), ready once they answer; requests counted by outcome and timed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LookupReadinessIT {
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The tables of the readiness test; the request test has its own, so that the two run in any order. */
    private static final KuduTablesConfig CONFIG = new KuduTablesConfig("rd_", 2, 1);
    private static final KuduTablesConfig REQUEST_TABLES = new KuduTablesConfig("rq_", 2, 1);

    @TempDir
    static Path dir;

    private EmbeddedKudu kudu;
    private EventLookup lookup;
    private LookupServer server;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    void start() throws Exception {
        kudu = EmbeddedKudu.start(dir.resolve("kudu"), 1);
    }

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    @AfterAll
    void stop() {
        if (lookup != null) {
            lookup.close();
        }
        if (kudu != null) {
            kudu.close();
        }
    }

    private HttpResponse<String> get(String path) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError("GET " + path + " failed", e);
        }
    }

    private JsonNode ready() {
        try {
            return JSON.readTree(get("/ready").body());
        } catch (java.io.IOException e) {
            throw new AssertionError("/ready is not JSON", e);
        }
    }

    private double metric(String name, String... labels) {
        return DaemonMetrics.value(server.metrics(), name, labels);
    }

    @Test
    void readyNeedsTheTablesAndTheMastersAndRequestsAreCountedByOutcome() throws Exception {
        KuduClient client = kudu.client();
        List<String> tables = LookupMain.readTables(CONFIG.prefix());
        // no lookup is made in this test: only the readiness of a server whose tables do not exist yet
        server = LookupServer.start(new InetSocketAddress("127.0.0.1", 0), (keys, filter) -> {
            throw new IllegalStateException("not looked up in this phase");
        }, ServerLimits.of(4, 10), Map.of("kudu", () -> KuduProbe.check(client, tables)), Duration.ofSeconds(1));

        Await.until("not ready: the tables are missing", WAIT, () -> get("/ready").statusCode() == 503
                && ready().get("reason").asText().contains("do not exist"));
        String reason = ready().get("reason").asText();
        assertTrue(reason.startsWith("kudu: Kudu masters " + kudu.masterAddresses() + " answer but table(s)"
                + " rd_DATASETS, rd_EVENTS, rd_MCEVENTS, rd_DUPLICATEDEVENTS do not exist"), reason);
        assertEquals(0, metric(LookupServer.DEPENDENCY_UP, "dependency", "kudu"));

        new KuduTables(client, CONFIG).createOrVerify(1);
        Await.until("ready once the tables exist", WAIT, () -> get("/ready").statusCode() == 200);
        assertEquals(1, metric(LookupServer.DEPENDENCY_UP, "dependency", "kudu"));

        kudu.killMasters();
        Await.until("not ready while the masters are down", WAIT, () -> get("/ready").statusCode() == 503);
        JsonNode down = ready();
        assertTrue(down.get("reason").asText().startsWith("kudu: "), down.toString());
        assertEquals("kudu", down.get("dependencies").get(0).get("name").asText());
        assertEquals(0, metric(LookupServer.DEPENDENCY_UP, "dependency", "kudu"));
        kudu.startMasters();
        Await.until("ready again once the masters answer", WAIT, () -> get("/ready").statusCode() == 200);
    }

    /**
     * {@code lookup serve} started while the Kudu masters are down (a power cut, Kudu still starting): the process
     * stays up, {@code /health} 200, {@code /ready} and every lookup 503 naming Kudu, and it serves by itself once
     * the masters answer.
     */
    @Test
    void serveStartedWithKuduDownWaitsAndServesOnceTheMastersAnswer() throws Exception {
        KuduTablesConfig tables = new KuduTablesConfig("wt_", 2, 1);
        new KuduTables(kudu.client(), tables).createOrVerify(1);
        kudu.killMasters();
        int port = Ports.free();
        try (DaemonProcess serve = DaemonProcess.start(LookupMain.class, dir.resolve("serve-kudu-down.log"), "serve",
                "--masters", kudu.masterAddresses(), "--prefix", "wt_", "--kudu-timeout", "1",
                "--ready-check-seconds", "1", "--port", String.valueOf(port))) {
            String base = "http://127.0.0.1:" + port;
            serve.awaitHttpOk(port, "/health", WAIT);
            Await.until("/ready naming Kudu after a failed attempt", WAIT, () -> {
                HttpResponse<String> r = send(base + "/ready");
                return r.statusCode() == 503 && r.body().contains("waiting for kudu: Kudu masters "
                        + kudu.masterAddresses() + " unreachable");
            });
            HttpResponse<String> lookup = send(base + "/events/00327636/000000005");
            assertEquals(503, lookup.statusCode(), lookup.body());
            assertTrue(JSON.readTree(lookup.body()).get("error").asText().startsWith("waiting for kudu: "),
                    lookup.body());
            assertTrue(serve.isAlive(), serve.log());
            assertTrue(send(base + "/metrics").body().contains(DependencyWait.FAILURES + "{dependency=\"kudu\"}"),
                    "the failed attempts are counted");

            kudu.startMasters();
            Await.until("ready by itself once the masters answer", WAIT,
                    () -> send(base + "/ready").statusCode() == 200);
            HttpResponse<String> absent = send(base + "/events/00327636/000000005");
            assertEquals(404, absent.statusCode(), absent.body());
        }
    }

    private HttpResponse<String> send(String url) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError("GET " + url + " failed", e);
        }
    }

    @Test
    void requestsAreCountedByEndpointAndOutcomeAndTimed() throws Exception {
        KuduClient client = kudu.client();
        new KuduTables(client, REQUEST_TABLES).createOrVerify(1);
        lookup = new EventLookup(client, REQUEST_TABLES, 2, false);
        server = LookupServer.start(new InetSocketAddress("127.0.0.1", 0), lookup::lookup, ServerLimits.of(4, 2));

        assertEquals(404, get("/events/00327636/000000005").statusCode(), "nothing loaded");
        assertEquals(400, get("/events/run/event").statusCode());
        HttpResponse<String> batch = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/lookup")).POST(HttpRequest.BodyPublishers.ofString("327636 5\n")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, batch.statusCode(), batch.body());
        HttpResponse<String> tooMany = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + server.port() + "/lookup")).POST(HttpRequest.BodyPublishers.ofString("1 1\n1 2\n1 3\n")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(413, tooMany.statusCode(), tooMany.body());

        assertEquals(1, metric(LookupServer.REQUESTS, "endpoint", "events", "outcome", "not_found"));
        assertEquals(1, metric(LookupServer.REQUESTS, "endpoint", "events", "outcome", "bad_request"));
        assertEquals(1, metric(LookupServer.REQUESTS, "endpoint", "lookup", "outcome", "ok"));
        assertEquals(1, metric(LookupServer.REQUESTS, "endpoint", "lookup", "outcome", "too_large"));
        String text = get("/metrics").body();
        assertTrue(text.contains(LookupServer.DURATION + "_count{endpoint=\"events\"} 2"), text);
        assertTrue(text.contains(LookupServer.DURATION + "_count{endpoint=\"lookup\"} 2"), text);
        assertTrue(text.contains("eventindex_build_info{daemon=\"lookup\",dirty=\""), text);
        assertEquals(200, get("/ready").statusCode(), "without checks, always ready");
    }
}
