package org.eventindex.lookup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kudu.client.AlterTableOptions;
import org.apache.kudu.client.KuduClient;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.ops.HttpAccess;
import org.eventindex.testing.Await;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static org.eventindex.lookup.LookupFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The dataset pages of a running lookup service (figures, statuses, overlaps) follow a rebuild's swap and swap-back
 * without a restart, on a real Kudu: {@link LookupFixture}'s tables are live ({@code lk_}); other tables ({@code sw_},
 * as a rebuild's shadow tables) hold two other datasets that share ten events. The swap renames as {@code rebuild
 * swap} does, table by table and DATASETS last: each live table to {@code old_}, the shadow one to the live name.
 */
class DatasetPagesSwapIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final KuduTablesConfig SHADOW = new KuduTablesConfig("sw_", 4, 1);
    private static final KuduTablesConfig RETIRED = new KuduTablesConfig("old_", 4, 1);
    private static final String DS_A = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1900";
    private static final String DS_B = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1901";

    @TempDir
    static Path dir;
    private static LookupFixture fixture;
    private static EventLookup lookup;
    private static DatasetQueries queries;
    private static LookupServer server;

    @BeforeAll
    static void start() throws Exception {
        fixture = LookupFixture.start(dir);
        // dspids the live tables do not use: pages still reading the live tables find no rows of them
        fixture.loadInto(SHADOW, DS_A, 20, 1, 30, guid(0xB1));
        fixture.loadInto(SHADOW, DS_B, 21, 21, 40, guid(0xB2));
        lookup = new EventLookup(fixture.client(), CONFIG, 2, false);
        server = LookupServer.start(new InetSocketAddress("127.0.0.1", 0), lookup::explained,
                ServerLimits.defaults(), Map.of(), Duration.ofSeconds(10), Optional::empty,
                HttpAccess.open(), AccessLog.to(LookupServer.ACCESS_LOG),
                new DatasetFigures(fixture::client, CONFIG));
        queries = DatasetQueries.of(fixture.client(), CONFIG, 2);
        server.serve(new DatasetResources(() -> queries));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        if (queries != null) {
            queries.close();
        }
        if (lookup != null) {
            lookup.close();
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void pagesFollowASwapAndASwapBack() throws Exception {
        // the readers open their tables at the first request: these are answered from the fixture's tables
        assertLiveTables();
        assertEquals(404, get(figure(DS_A, "counts")).statusCode());

        rename(CONFIG, RETIRED, SHADOW);
        awaitAnswer(figure(DS_A, "counts"), "[{\"run\":327636,\"events\":30}]", j -> j.get("counts").toString());
        awaitAnswer(figure(DS_B, "duplicates"), "0", j -> j.get("duplicates").toString());
        awaitAnswer(status(DS_A), "QUERYABLE 30", j -> j.get("state").asText() + " " + j.get("events").asText());
        awaitAnswer(overlap(DS_A, DS_B), "{\"" + DS_A + "\":30,\"" + DS_B + "\":20} 10",
                j -> j.get("events").toString() + " " + j.get("sharedEvents").asText());
        assertEquals(404, get(figure(DS_AOD, "counts")).statusCode(), "the live tables' dataset is gone");
        assertEquals("UNKNOWN", state(DS_AOD), "not in DATASETS (no supervisor asked)");
        assertEquals(404, get(overlap(DS_AOD, DS_ESD)).statusCode());

        rename(CONFIG, SHADOW, RETIRED);
        assertLiveTables();
        assertEquals(404, get(figure(DS_A, "counts")).statusCode());
        assertEquals("UNKNOWN", state(DS_A));
        assertEquals(404, get(overlap(DS_A, DS_B)).statusCode());
    }

    /** The fixture's datasets, as each page answers them from the fixture's tables (waited for after a swap-back). */
    private static void assertLiveTables() {
        awaitAnswer(figure(DS_AOD, "counts"), "[{\"run\":327636,\"events\":200}]", j -> j.get("counts").toString());
        awaitAnswer(figure(DS_AOD, "triggers"), "4", j -> Integer.toString(j.get("triggers").size()));
        awaitAnswer(figure(DS_AOD, "duplicates"), "10", j -> j.get("duplicates").toString());
        awaitAnswer(status(DS_AOD), "QUERYABLE 210", j -> j.get("state").asText() + " " + j.get("events").asText());
        awaitAnswer(overlap(DS_AOD, DS_ESD), "101", j -> j.get("sharedEvents").asText());
    }

    /**
     * Renames every table as a swap does, DATASETS last: {@code live}'s to {@code retired}'s name, then {@code
     * incoming}'s to {@code live}'s.
     */
    private static void rename(KuduTablesConfig live, KuduTablesConfig retired, KuduTablesConfig incoming)
            throws Exception {
        KuduClient client = fixture.client();
        List<Integer> order = new ArrayList<>();
        for (int i = 1; i < live.tables().size(); i++) {
            order.add(i);
        }
        order.add(0); // tables() lists DATASETS first
        for (int i : order) {
            client.alterTable(live.tables().get(i), new AlterTableOptions().renameTable(retired.tables().get(i)));
            client.alterTable(incoming.tables().get(i), new AlterTableOptions().renameTable(live.tables().get(i)));
        }
    }

    /** Polls {@code path} until it answers 200 and {@code value} of its body is {@code expected}. */
    private static void awaitAnswer(String path, String expected, java.util.function.Function<JsonNode, String> value) {
        AtomicReference<String> last = new AtomicReference<>();
        try {
            Await.until(path + " to answer " + expected, WAIT, () -> {
                HttpResponse<String> r = get(path);
                last.set(r.statusCode() + " " + r.body());
                try {
                    return r.statusCode() == 200 && expected.equals(value.apply(JSON.readTree(r.body())));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; last answer: " + last.get(), e);
        }
    }

    /** The state {@code GET /datasets/{name}} answers. */
    private static String state(String dataset) throws IOException {
        HttpResponse<String> r = get(status(dataset));
        assertEquals(200, r.statusCode(), r.body());
        return JSON.readTree(r.body()).get("state").asText();
    }

    private static HttpResponse<String> get(String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static String figure(String dataset, String rest) {
        return status(dataset) + "/" + rest;
    }

    private static String status(String dataset) {
        return "/datasets/" + URLEncoder.encode(dataset, StandardCharsets.UTF_8);
    }

    private static String overlap(String a, String b) {
        return "/overlap?datasets=" + URLEncoder.encode(a + "," + b, StandardCharsets.UTF_8);
    }
}
