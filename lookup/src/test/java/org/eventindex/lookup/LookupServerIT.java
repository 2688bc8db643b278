package org.eventindex.lookup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.KeyStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.eventindex.config.TrustStore;
import org.eventindex.ops.HttpAccess;
import org.eventindex.testing.Await;
import org.eventindex.testing.TestPki;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.eventindex.lookup.LookupFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The lookup HTTP server against a real Kudu: values, status codes and request limits. */
class LookupServerIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    static Path dir;
    private static LookupFixture fixture;
    private static EventLookup lookup;
    private static LookupServer server;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        fixture = LookupFixture.start(dir);
        lookup = new EventLookup(fixture.client(), CONFIG, 4, false);
        server = LookupServer.start(new InetSocketAddress("127.0.0.1", 0), lookup::lookup, ServerLimits.of(8, 5));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        if (lookup != null) {
            lookup.close();
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    private static HttpResponse<String> get(LookupServer s, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(LookupServer s, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + "/lookup"))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static Set<String> guidTypes(JsonNode result) {
        Set<String> out = new HashSet<>();
        result.get("matches").forEach(m -> out.add(m.get("guid").asText() + " " + m.get("type").asText()));
        return out;
    }

    @Test
    void overTlsEachRequestIsAnAccessLogLineNamingTheCertificateUserWhatWasAskedFoundAndHowLong() throws Exception {
        TestPki pki = TestPki.create(dir, "lookup-ca");
        TestPki.Issued server = pki.server("localhost");
        TestPki.Issued alice = pki.client("alice");
        HttpAccess access = new HttpAccess("lookup.http.", Optional.of(server.keyStore()), pki.password(),
                new TrustStore(pki.trustStore(), pki.password()), Set.of(HttpAccess.Mechanism.CERTIFICATE), List.of(),
                List.of(), null, null, List.of(), "", Optional.empty());
        List<String> lines = new CopyOnWriteArrayList<>();
        Clock clock = Clock.fixed(Instant.parse("2026-12-06T16:40:01.123Z"), ZoneOffset.UTC);
        try (LookupServer tls = LookupServer.start(new InetSocketAddress("localhost", 0), lookup::lookup,
                ServerLimits.of(8, 5), Map.of(), Duration.ofSeconds(10), Optional::empty, access,
                new AccessLog(clock, lines::add), new DatasetFigures(fixture::client, CONFIG))) {
            KeyStore keys = KeyStore.getInstance(alice.keyStore().toFile(), pki.password().toCharArray());
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, pki.password().toCharArray());
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(KeyStore.getInstance(pki.trustStore().toFile(), pki.password().toCharArray()));
            SSLContext ssl = SSLContext.getInstance("TLS");
            ssl.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            HttpClient client = HttpClient.newBuilder().sslContext(ssl).build();
            String base = "https://localhost:" + tls.port();
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + "/lookup"))
                    .POST(HttpRequest.BodyPublishers.ofString("00327636 000000005\n00000001 000000001\n")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            assertEquals(200, client.send(HttpRequest.newBuilder(URI.create(base + "/events/00327636/000000005"))
                    .build(), HttpResponse.BodyHandlers.ofString()).statusCode());
            assertEquals(400, client.send(HttpRequest.newBuilder(URI.create(base + "/events/x/1")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode());
            // the physicists' page and a dataset's figures behind the same client certificate
            HttpResponse<String> page = client.send(HttpRequest.newBuilder(URI.create(base + "/page/")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, page.statusCode());
            assertTrue(page.body().contains("<title>EventIndex lookup</title>"), page.body());
            assertEquals(200, client.send(HttpRequest.newBuilder(URI.create(base + "/datasets/" + DS_AOD
                    + "/counts")).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
            SSLContext noCertificate = SSLContext.getInstance("TLS");
            noCertificate.init(null, tmf.getTrustManagers(), null);
            assertThrows(IOException.class, () -> HttpClient.newBuilder().sslContext(noCertificate).build()
                    .send(HttpRequest.newBuilder(URI.create(base + "/page/")).build(),
                            HttpResponse.BodyHandlers.ofString()), "the page needs the client certificate too");
            // the line is written once the response is out
            Await.until("four access log lines", Duration.ofSeconds(10), () -> lines.size() >= 4);
        }
        assertEquals(4, lines.size(), String.join("\n", lines));
        assertTrue(lines.get(3).contains(" path=/datasets/" + DS_AOD + "/counts asked=- found=- status=200 "),
                lines.get(3));
        assertTrue(lines.get(0).startsWith("2026-12-06T16:40:01.123Z user=\"CN=alice,OU=Users,O=EventIndex Test\""
                + " method=POST path=/lookup asked=2 found=1 status=200 duration_ms="), lines.get(0));
        assertTrue(lines.get(1).contains(" method=GET path=/events/00327636/000000005 asked=1 found=1 status=200 "),
                lines.get(1));
        assertTrue(lines.get(2).contains(" path=/events/x/1 asked=- found=- status=400 "), lines.get(2));
    }

    @Test
    void eventUrlReturnsMatchesWithGuidTypeTokenAndDataset() throws Exception {
        HttpResponse<String> r = get(server, "/events/00327636/000000005");
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("application/json", r.headers().firstValue("Content-Type").orElse(""));
        JsonNode j = JSON.readTree(r.body());
        assertEquals(RUN, j.get("run").asInt());
        assertEquals(5, j.get("event").asLong());
        assertEquals("FOUND", j.get("status").asText());
        assertEquals(Set.of(AOD_1 + " StreamAOD", ESD_1 + " StreamESD", RAW_1 + " StreamRAW"), guidTypes(j));
        JsonNode own = j.get("matches").get(0);
        assertEquals(token(AOD_1, 5), own.get("token").asText());
        assertEquals(DS_AOD, own.get("dataset").asText());
        assertTrue(own.get("own").asBoolean());
    }

    @Test
    void absentEventIs404AndBadInputIs400() throws Exception {
        HttpResponse<String> r = get(server, "/events/327636/999999");
        assertEquals(404, r.statusCode());
        assertEquals("NOT_FOUND", JSON.readTree(r.body()).get("status").asText());
        assertEquals(0, JSON.readTree(r.body()).get("matches").size());

        HttpResponse<String> bad = get(server, "/events/abc/5");
        assertEquals(400, bad.statusCode());
        assertTrue(JSON.readTree(bad.body()).get("error").asText().contains("'abc'"), bad.body());
        assertEquals(400, get(server, "/events/327636/5?colour=red").statusCode());
        assertEquals(404, get(server, "/events/327636").statusCode());
    }

    @Test
    void filtersAndSimulationOverHttp() throws Exception {
        JsonNode raw = JSON.readTree(get(server, "/events/327636/150?stream-type=StreamRAW").body());
        assertEquals(Set.of(RAW_1 + " StreamRAW", RAW_2 + " StreamRAW"), guidTypes(raw));
        JsonNode esd = JSON.readTree(get(server, "/events/327636/150?dataset=*.ESD.*").body());
        assertEquals(Set.of(ESD_2 + " StreamESD", RAW_2 + " StreamRAW"), guidTypes(esd));
        JsonNode mc = JSON.readTree(get(server, "/events/361106/700").body());
        assertEquals(Set.of(AOD_MC + " StreamAOD"), guidTypes(mc));
    }

    @Test
    void batchPostListsResultsAndMalformedLines() throws Exception {
        HttpResponse<String> r = post(server, "327636 5\nnot a line\n327700 999\n");
        assertEquals(200, r.statusCode(), r.body());
        JsonNode j = JSON.readTree(r.body());
        assertEquals(2, j.get("results").size());
        assertEquals("FOUND", j.get("results").get(0).get("status").asText());
        assertEquals("NOT_FOUND", j.get("results").get(1).get("status").asText());
        assertEquals(1, j.get("errors").size());
        assertTrue(j.get("errors").get(0).asText().startsWith("request:2: 'not a line'"), r.body());
    }

    @Test
    void batchAboveTheLimitIs413() throws Exception {
        assertEquals(200, post(server, "1 1\n2 2\n3 3\n4 4\n5 5\n").statusCode(), "5 lines is the limit");
        HttpResponse<String> r = post(server, "1 1\n2 2\n3 3\n4 4\n5 5\n6 6\n");
        assertEquals(413, r.statusCode());
        assertTrue(r.body().contains("more than 5"), r.body());
        assertEquals(413, post(server, "1".repeat(1000)).statusCode(), "body above 64 bytes per line");
    }

    @Test
    void health() throws Exception {
        HttpResponse<String> r = get(server, "/health");
        assertEquals(200, r.statusCode());
        assertEquals("ok\n", r.body());
        assertEquals(200, get(server, "/ready").statusCode());
        assertEquals(200, get(server, "/metrics").statusCode());
    }

    @Test
    void requestsAboveMaxConcurrentGet503() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Lookups blocking = (keys, filter) -> {
            hold(entered, release);
            return lookup.lookup(keys, filter);
        };
        try (LookupServer limited = LookupServer.start(new InetSocketAddress("127.0.0.1", 0), blocking,
                ServerLimits.of(1, 10))) {
            CompletableFuture<HttpResponse<String>> first = HTTP.sendAsync(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + limited.port() + "/events/327636/5")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(entered.await(30, TimeUnit.SECONDS), "first request reached the lookup");
            HttpResponse<String> second = get(limited, "/events/327636/6");
            assertEquals(503, second.statusCode(), second.body());
            assertEquals("1", second.headers().firstValue("Retry-After").orElse(""));
            assertEquals(200, get(limited, "/health").statusCode(), "health is not limited");
            release.countDown();
            assertEquals(200, first.get(30, TimeUnit.SECONDS).statusCode());
            assertEquals(200, get(limited, "/events/327636/6").statusCode(), "permit released");
        }
    }

    @Test
    void aDatasetsFiguresCountInTheUsersLimitsAndThePageDoesNot() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // the figures' first request waits here, holding the user's one request in progress
        DatasetFigures blocking = new DatasetFigures(() -> {
            hold(entered, release);
            return fixture.client();
        }, CONFIG);
        try (LookupServer limited = LookupServer.start(new InetSocketAddress("127.0.0.1", 0), lookup::lookup,
                ServerLimits.of(4, 10).perUser(1, 100), Map.of(), Duration.ofSeconds(10), Optional::empty,
                HttpAccess.open(), AccessLog.to(LookupServer.ACCESS_LOG), blocking)) {
            CompletableFuture<HttpResponse<String>> first = HTTP.sendAsync(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + limited.port() + "/datasets/" + DS_AOD + "/triggers")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(entered.await(30, TimeUnit.SECONDS), "first request reached the figures");
            HttpResponse<String> second = get(limited, "/datasets/" + DS_AOD + "/counts");
            assertEquals(429, second.statusCode(), second.body());
            HttpResponse<String> lookupToo = post(limited, "00327636 000000005\n");
            assertEquals(429, lookupToo.statusCode(), "one limit for the user's figures and lookups");
            assertEquals(200, get(limited, "/page/page.js").statusCode(), "the page's files are not limited");
            release.countDown();
            assertEquals(200, first.get(30, TimeUnit.SECONDS).statusCode());
            assertEquals(200, get(limited, "/datasets/" + DS_AOD + "/counts").statusCode(), "permit released");
        }
    }

    /** Says it {@code entered}, then waits (at most 30 s) for the test to {@code release} it. */
    private static void hold(CountDownLatch entered, CountDownLatch release) {
        entered.countDown();
        try {
            if (!release.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test did not release the request");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
