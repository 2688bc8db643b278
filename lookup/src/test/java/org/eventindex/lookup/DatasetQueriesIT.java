package org.eventindex.lookup;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import org.eventindex.message.Json;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.eventindex.lookup.LookupFixture.CONFIG;
import static org.eventindex.lookup.LookupFixture.DS_AOD;
import static org.eventindex.lookup.LookupFixture.DS_ESD;
import static org.eventindex.lookup.LookupFixture.DS_LOADING;
import static org.eventindex.lookup.LookupFixture.DS_MC;
import static org.eventindex.lookup.LookupFixture.DS_OTHER_RUN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 35 items 2 and 5 against a real Kudu ({@link LookupFixture}: DATASETS rows LOADED and LOADING, their events)
 * and the supervisor's {@code /progress} as its information service serves it (a JDK HTTP server with the JSON of
 * {@code DatasetProgress}, whose field names {@code DatasetProgressTest} pins on the supervisor's side): each state of
 * a dataset through the flow, over {@link DatasetQueries}, HTTP and the command; the overlap of datasets with known
 * shared events (DS_AOD 1..200 and DS_ESD 100..300 of one run share 100..200; DS_OTHER_RUN 1..50 has the same event
 * numbers in another run: nothing shared).
 */
class DatasetQueriesIT {
    static final Instant NOW = Instant.parse("2026-12-06T19:00:00Z");
    static final String COLLECTING = "data17_13TeV.00327800.physics_Main.merge.AOD.f900_m2000";
    static final String COMPLETE = "data17_13TeV.00327801.physics_Main.merge.AOD.f900_m2000";
    static final String SIGNALLED = "data17_13TeV.00327802.physics_Main.merge.AOD.f900_m2000";
    static final String CONSOLIDATING = "data17_13TeV.00327803.physics_Main.merge.AOD.f900_m2000";
    static final String FAILED = "data17_13TeV.00327804.physics_Main.merge.AOD.f900_m2000";
    static final String GONE = "data17_13TeV.00327805.physics_Main.merge.AOD.f900_m2000";
    @TempDir
    static Path dir;
    private static LookupFixture fixture;
    private static HttpServer supervisor;
    private static String supervisorUrl;
    private static DatasetQueries queries;
    private static DatasetQueries withoutSupervisor;

    private static String entry(String name, String state, String firstObjectAt, String completeAt, String takenAt,
                                String doneAt, String queryableAt, String basis) {
        return "{\"dataset\":\"" + name + "\",\"state\":\"" + state + "\",\"expectedFiles\":5,"
                + "\"filesWithCandidate\":" + ("COLLECTING".equals(state) ? 3 : 5) + ",\"expectedEvents\":"
                + ("COLLECTING".equals(state) ? 0 : 1000) + ",\"firstObjectAt\":" + q(firstObjectAt)
                + ",\"completeAt\":" + q(completeAt) + ",\"signalledAt\":" + q(completeAt) + ",\"takenAt\":"
                + q(takenAt) + ",\"doneAt\":" + q(doneAt) + ",\"consumer\":" + (takenAt == null ? "null"
                : "\"consumer-1\"") + ",\"position\":null,\"eventsAhead\":null,\"queryableAt\":" + q(queryableAt)
                + ",\"seconds\":null,\"basis\":\"" + basis + "\"}";
    }

    private static String q(String s) {
        return s == null ? "null" : "\"" + s + "\"";
    }

    @BeforeAll
    static void start() throws Exception {
        fixture = LookupFixture.start(dir);
        String body = "{\"rate\":{\"eventsPerSecond\":100.0,\"reports\":1,\"consumers\":1,\"basis\":\"b\"},"
                + "\"datasets\":[" + String.join(",",
                entry(COLLECTING, "COLLECTING", "2026-12-06T18:00:00Z", null, null, null, null,
                        "2 of 5 files have no object yet: no estimate before it is complete"),
                entry(COMPLETE, "SIGNAL_PLANNED", "2026-12-06T18:00:00Z", "2026-12-06T18:59:00Z", null, null,
                        "2026-12-06T19:10:00Z", "position 1 in the queue"),
                entry(SIGNALLED, "SIGNALLED", "2026-12-06T18:00:00Z", "2026-12-06T18:58:00Z", null, null,
                        "2026-12-06T19:05:00Z", "position 0 in the queue"),
                entry(CONSOLIDATING, "SIGNALLED", "2026-12-06T18:00:00Z", "2026-12-06T18:30:00Z",
                        "2026-12-06T18:50:00Z", null, "2026-12-06T19:01:40Z", "in work at consumer-1"),
                entry(FAILED, "FAILED_CONSUMER", "2026-12-06T18:00:00Z", "2026-12-06T18:30:00Z", null, null, null,
                        "a consumer failed on it (object gone): no estimate until it is signalled again"),
                entry(GONE, "DONE", "2026-12-06T17:00:00Z", "2026-12-06T17:10:00Z", "2026-12-06T17:11:00Z",
                        "2026-12-06T17:20:00Z", "2026-12-06T17:20:00Z", "loaded"),
                entry(DS_LOADING, "SIGNALLED", "2026-12-06T18:00:00Z", "2026-12-06T18:10:00Z",
                        "2026-12-06T18:20:00Z", null, "2026-12-06T19:00:30Z", "in work at consumer-1"),
                entry(DS_AOD, "DONE", "2026-12-06T10:00:00Z", "2026-12-06T10:10:00Z", "2026-12-06T10:11:00Z",
                        "2026-12-06T10:20:00Z", "2026-12-06T10:20:00Z", "loaded")) + "]}";
        supervisor = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        serve("/progress", body);
        String lines = "[{\"name\":\"" + CONSOLIDATING + "\",\"state\":\"SIGNALLED\",\"expectedFiles\":5,"
                + "\"filesWithCandidate\":5,\"waitingFor\":null,\"failure\":null,\"permanentFailure\":false}]";
        serve("/datasets", lines);
        supervisor.start();
        supervisorUrl = "http://127.0.0.1:" + supervisor.getAddress().getPort();
        Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
        queries = new DatasetQueries(fixture.client(), CONFIG, new SupervisorDatasets(List.of(URI.create(
                supervisorUrl)), Duration.ofSeconds(5), Duration.ofSeconds(1), System::nanoTime), 2, clock);
        withoutSupervisor = new DatasetQueries(fixture.client(), CONFIG, null, 2, clock);
    }

    private static void serve(String path, String json) {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        supervisor.createContext(path, ex -> {
            ex.sendResponseHeaders(200, b.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(b);
            }
        });
    }

    @AfterAll
    static void stop() {
        for (DatasetQueries q : new DatasetQueries[]{queries, withoutSupervisor}) {
            if (q != null) {
                q.close();
            }
        }
        if (supervisor != null) {
            supervisor.stop(0);
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    private static Map<String, DatasetStatus> all(DatasetQueries q, String glob) throws Exception {
        return q.statuses(glob).datasets().stream()
                .collect(Collectors.toMap(DatasetStatus::dataset, Function.identity()));
    }

    private static DatasetStatus.Stage stage(DatasetStatus s, String name) {
        return s.stages().stream().filter(x -> x.stage().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void eachStateOfTheFlow() throws Exception {
        Map<String, DatasetStatus> by = all(queries, "data17_13TeV.*");
        assertEquals("COLLECTING", by.get(COLLECTING).state());
        assertEquals(new DatasetStatus.Objects(5, 3), by.get(COLLECTING).objects());
        assertTrue(by.get(COLLECTING).detail().contains("2 of 5 files have no object yet"),
                by.get(COLLECTING).detail());
        assertNull(by.get(COLLECTING).estimate().queryableAt());
        assertEquals(3600.0, stage(by.get(COLLECTING), "collecting").seconds()); // in progress: up to now
        assertEquals("COMPLETE", by.get(COMPLETE).state());
        assertEquals("2026-12-06T19:10:00Z", by.get(COMPLETE).estimate().queryableAt());
        assertEquals(600.0, by.get(COMPLETE).estimate().seconds());
        assertEquals("SIGNALLED", by.get(SIGNALLED).state());
        assertEquals(120.0, stage(by.get(SIGNALLED), "signalled").seconds());
        assertEquals("CONSOLIDATING", by.get(CONSOLIDATING).state());
        assertEquals(1200.0, stage(by.get(CONSOLIDATING), "signalled").seconds());
        assertEquals(600.0, stage(by.get(CONSOLIDATING), "consolidating").seconds());
        assertEquals(100.0, by.get(CONSOLIDATING).estimate().seconds());
        assertEquals("FAILED", by.get(FAILED).state());
        assertTrue(by.get(FAILED).detail().contains("object gone"), by.get(FAILED).detail());
        assertNull(by.get(FAILED).estimate().queryableAt());
        // Kudu decides once it has the row: LOADING there, whatever the supervisor says
        DatasetStatus loading = by.get(DS_LOADING);
        assertEquals("LOADING", loading.state());
        assertTrue(stage(loading, "loading").startedAt() != null, loading.toString());
        assertNull(stage(loading, "loading").endedAt());
        assertEquals("2026-12-06T19:00:30Z", loading.estimate().queryableAt());
        DatasetStatus aod = by.get(DS_AOD);
        assertEquals("QUERYABLE", aod.state());
        assertEquals(210L, aod.events()); // DATASETS count_events: 200 events and their 10 duplicates
        assertEquals(600.0, stage(aod, "collecting").seconds());
        assertEquals(60.0, stage(aod, "signalled").seconds());
        assertTrue(stage(aod, "loading").seconds() != null && stage(aod, "queryable").startedAt() != null,
                aod.toString());
        assertEquals(0.0, aod.estimate().seconds());
        assertEquals("QUERYABLE", by.get(DS_ESD).state()); // in Kudu only: the supervisor's stages unknown
        assertNull(stage(by.get(DS_ESD), "collecting").startedAt());
        assertEquals("UNKNOWN", by.get(GONE).state());
        assertTrue(by.get(GONE).detail().contains("DATASETS has no row"), by.get(GONE).detail());
        assertFalse(by.containsKey(DS_MC)); // the pattern selects
        assertEquals(5, all(queries, "*.00327636.*").size() + 2); // AOD, ESD, LOADING (+ MC, other run elsewhere)
    }

    @Test
    void aMissInADatasetInWorkCarriesTheSupervisorsEstimate() throws Exception {
        try (EventLookup lookup = new EventLookup(fixture.client(), CONFIG, 2, false, Duration.ZERO,
                new SupervisorDatasets(List.of(URI.create(supervisorUrl)), Duration.ofSeconds(5), Duration.ZERO,
                        System::nanoTime))) {
            LookupResult r = lookup.explained(List.of(new EventKey(327803, 1)), LookupFilter.all()).get(0);
            MissExplanation.DatasetNote note = r.explanation().reasons().stream()
                    .filter(x -> x.code() == MissExplanation.Code.NOT_YET_QUERYABLE).findFirst().orElseThrow()
                    .datasets().get(0);
            assertEquals(CONSOLIDATING, note.dataset());
            assertEquals(Instant.parse("2026-12-06T19:01:40Z"), note.queryable());
            assertTrue(note.detail().contains("in work at consumer-1"), note.detail());
        }
    }

    @Test
    void withoutASupervisorKuduAloneWithACaveat() throws Exception {
        DatasetStatuses.Answer a = withoutSupervisor.statuses(null);
        assertEquals(List.of(DS_AOD, DS_ESD, DS_LOADING, DS_OTHER_RUN, DS_MC).stream().sorted().toList(),
                a.datasets().stream().map(DatasetStatus::dataset).toList());
        assertTrue(a.caveat().contains("no --supervisor-url"), a.caveat());
        assertEquals("UNKNOWN", withoutSupervisor.status(COLLECTING).state());
        assertThrows(DatasetQueries.NotQueryable.class, () -> queries.status(
                "data17_13TeV.00399999.physics_Main.merge.AOD.f1_m1"));
    }

    @Test
    void overlapOfDatasetsWithKnownSharedEvents() throws Exception {
        DatasetOverlaps.Overlap o = queries.overlap(List.of(DS_AOD, DS_ESD, DS_OTHER_RUN), null, 5);
        assertEquals(Map.of(DS_AOD, 200L, DS_ESD, 201L, DS_OTHER_RUN, 50L), o.events());
        assertEquals(List.of(new DatasetOverlaps.Pair(DS_AOD, DS_ESD, 101),
                new DatasetOverlaps.Pair(DS_AOD, DS_OTHER_RUN, 0), // same event numbers 1..50, another run
                new DatasetOverlaps.Pair(DS_ESD, DS_OTHER_RUN, 0)), o.pairs());
        assertEquals(101, o.sharedEvents());
        assertTrue(o.truncated());
        assertEquals(List.of(100L, 101L, 102L, 103L, 104L), o.shared().stream().map(DatasetOverlaps.Shared::event)
                .toList());
        assertEquals(List.of(DS_AOD, DS_ESD), o.shared().get(0).datasets());
        DatasetOverlaps.Overlap byPattern = queries.overlap(List.of(), "data17_13TeV.00327636.*", 1000);
        assertEquals(List.of(DS_AOD, DS_ESD), byPattern.datasets()); // the LOADING one is not queryable
        assertEquals(101, byPattern.shared().size());
        assertFalse(byPattern.truncated());
        DatasetQueries.NotQueryable e = assertThrows(DatasetQueries.NotQueryable.class,
                () -> queries.overlap(List.of(DS_AOD, DS_LOADING), null, 10));
        assertTrue(e.getMessage().contains(DS_LOADING + " is LOADING"), e.getMessage());
    }

    @Test
    void overHttp() throws Exception {
        try (LookupServer server = LookupServer.start(new InetSocketAddress("127.0.0.1", 0), (k, f) -> List.of(),
                ServerLimits.of(4, 10))) {
            server.serve(new DatasetResources(() -> queries));
            String base = "http://127.0.0.1:" + server.port();
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> list = get(http, base + "/datasets?pattern=data17_13TeV.0032780?.*");
            assertEquals(200, list.statusCode(), list.body());
            JsonNode ds = Json.tree(list.body().getBytes(StandardCharsets.UTF_8)).get("datasets");
            assertEquals(6, ds.size(), list.body());
            assertEquals("COLLECTING", ds.get(0).get("state").asText());
            assertEquals(5, ds.get(0).get("stages").size());
            assertTrue(ds.get(0).get("objects").has("expected") && ds.get(0).get("estimate").has("basis"));
            HttpResponse<String> one = get(http, base + "/datasets/" + DS_AOD);
            assertEquals(200, one.statusCode(), one.body());
            assertEquals("QUERYABLE", Json.tree(one.body().getBytes(StandardCharsets.UTF_8)).get("state").asText());
            HttpResponse<String> unknown = get(http, base + "/datasets/data17_13TeV.00399999.physics_Main.x.AOD.f1");
            assertEquals(404, unknown.statusCode(), unknown.body());
            assertTrue(unknown.body().contains("\"error\""), unknown.body());
            // below a dataset: no name has a '/', and this server has no figures
            assertEquals(404, get(http, base + "/datasets/" + DS_AOD + "/pie-chart").statusCode());
            HttpResponse<String> overlap = get(http, base + "/overlap?datasets=" + DS_AOD + "," + DS_ESD + "&limit=2");
            assertEquals(200, overlap.statusCode(), overlap.body());
            JsonNode o = Json.tree(overlap.body().getBytes(StandardCharsets.UTF_8));
            assertEquals(101, o.get("pairs").get(0).get("shared").asLong());
            assertEquals(2, o.get("shared").size());
            assertTrue(o.get("truncated").asBoolean());
            assertEquals(404, get(http, base + "/overlap?datasets=" + DS_AOD + "," + DS_LOADING).statusCode());
            assertEquals(400, get(http, base + "/overlap?datasets=" + DS_AOD).statusCode());
            assertEquals(400, get(http, base + "/datasets?colour=red").statusCode());
        }
    }

    private static HttpResponse<String> get(HttpClient http, String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theCommands() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = LookupMain.run(new String[]{"datasets", "--masters", fixture.masters(), "--prefix", "lk_",
                "--supervisor-url", supervisorUrl, "data17_13TeV.0032780?.*"}, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, text + err);
        assertTrue(text.startsWith("DATASET"), text);
        assertTrue(text.lines().anyMatch(l -> l.startsWith(CONSOLIDATING) && l.contains("CONSOLIDATING")), text);
        out.reset();
        status = LookupMain.run(new String[]{"overlap", "--masters", fixture.masters(), "--prefix", "lk_", DS_AOD,
                DS_ESD, "--limit", "3"}, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, text + err);
        assertTrue(text.contains("101 shared  " + DS_AOD + "  " + DS_ESD), text);
        assertTrue(text.contains("00327636 000000100 " + DS_AOD + "," + DS_ESD), text);
        out.reset();
        err.reset();
        status = LookupMain.run(new String[]{"overlap", "--masters", fixture.masters(), "--prefix", "lk_", "--json",
                DS_AOD, DS_LOADING}, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(1, status);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains(DS_LOADING + " is LOADING"), err.toString());
    }
}
