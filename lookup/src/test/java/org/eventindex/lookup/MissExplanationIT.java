package org.eventindex.lookup;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import org.eventindex.lookup.MissExplanation.Code;
import org.eventindex.lookup.MissExplanation.DatasetNote;
import org.eventindex.lookup.MissExplanation.Reason;
import org.eventindex.message.Json;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.eventindex.lookup.LookupFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each answer of an explained miss against a real Kudu ({@link LookupFixture}) and the supervisor's {@code /datasets}
 * as its information service serves it (a JDK HTTP server with its JSON lines: the supervisor's own state needs a
 * broker and a journal, which this question does not).
 */
class MissExplanationIT {
    /** A dataset the supervisor still collects, of a run with nothing in Kudu. */
    static final String COLLECTING = "data17_13TeV.00327800.physics_Main.merge.AOD.f900_m2000";
    /** A dataset of an indexed run signalled to the consumers. */
    static final String SIGNALLED = "data17_13TeV.00327700.physics_Main.recon.ESD.f900";
    @TempDir
    static Path dir;
    private static LookupFixture fixture;
    private static HttpServer supervisor;
    private static EventLookup lookup;
    private static EventLookup withoutSupervisor;
    private static EventLookup supervisorDown;

    @BeforeAll
    static void start() throws Exception {
        fixture = LookupFixture.start(dir);
        supervisor = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        String body = "[{\"name\":\"" + COLLECTING + "\",\"state\":\"COLLECTING\",\"expectedFiles\":5,"
                + "\"filesWithCandidate\":3,\"objectsReported\":4,\"selectedObjects\":3,\"dspid\":null,"
                + "\"signalId\":null,\"traversalTime\":null,\"waitingFor\":null,\"failure\":null,"
                + "\"permanentFailure\":false,\"internalError\":false},"
                + "{\"name\":\"" + SIGNALLED + "\",\"state\":\"SIGNALLED\",\"expectedFiles\":2,"
                + "\"filesWithCandidate\":2,\"objectsReported\":2,\"selectedObjects\":2,\"dspid\":40,"
                + "\"signalId\":\"s-40\",\"traversalTime\":null,\"waitingFor\":null,\"failure\":null,"
                + "\"permanentFailure\":false,\"internalError\":false}]";
        supervisor.createContext("/datasets", ex -> {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            // the states a lookup asks for are the ones not done
            int status = ("state=" + SupervisorDatasets.STATES).equals(ex.getRequestURI().getQuery()) ? 200 : 400;
            ex.sendResponseHeaders(status, b.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(b);
            }
        });
        supervisor.start();
        URI url = URI.create("http://127.0.0.1:" + supervisor.getAddress().getPort());
        lookup = new EventLookup(fixture.client(), CONFIG, 4, false, Duration.ZERO,
                new SupervisorDatasets(List.of(url), Duration.ofSeconds(5), Duration.ofSeconds(1), System::nanoTime));
        withoutSupervisor = new EventLookup(fixture.client(), CONFIG, 2, false, Duration.ZERO, PendingDatasets.NONE);
        // a standby (400) first, then nothing listening: both named
        HttpServer standby = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        standby.createContext("/", ex -> {
            byte[] b = "{\"error\":\"standby: not active\"}".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(400, b.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(b);
            }
        });
        standby.start();
        standbyServer = standby;
        supervisorDown = new EventLookup(fixture.client(), CONFIG, 2, false, Duration.ZERO,
                new SupervisorDatasets(List.of(URI.create("http://127.0.0.1:" + standby.getAddress().getPort()),
                        URI.create("http://127.0.0.1:" + org.eventindex.testing.Ports.free())),
                        Duration.ofSeconds(5), Duration.ofSeconds(1), System::nanoTime));
    }

    private static HttpServer standbyServer;

    @AfterAll
    static void stop() {
        for (EventLookup l : new EventLookup[]{lookup, withoutSupervisor, supervisorDown}) {
            if (l != null) {
                l.close();
            }
        }
        if (supervisor != null) {
            supervisor.stop(0);
        }
        if (standbyServer != null) {
            standbyServer.stop(0);
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    private static Map<EventKey, LookupResult> explain(EventLookup l, LookupFilter filter, EventKey... keys) {
        return l.explained(List.of(keys), filter).stream()
                .collect(Collectors.toMap(LookupResult::key, Function.identity(), (a, b) -> a));
    }

    private static List<Code> codes(LookupResult r) {
        return r.explanation().reasons().stream().map(Reason::code).toList();
    }

    private static Reason reason(LookupResult r, Code code) {
        return r.explanation().reasons().stream().filter(x -> x.code() == code).findFirst().orElseThrow(
                () -> new AssertionError(code + " not in " + r.explanation()));
    }

    private static Set<String> notes(Reason r) {
        return r.datasets().stream().map(DatasetNote::toString).collect(Collectors.toSet());
    }

    @Test
    void aHitHasNoExplanation() {
        LookupResult r = lookup.explained(List.of(new EventKey(RUN, 5)), LookupFilter.all()).get(0);
        assertTrue(r.found());
        assertNull(r.explanation());
    }

    @Test
    void aRunWithoutAnyDatasetIsNotIndexed() {
        LookupResult r = explain(lookup, LookupFilter.all(), new EventKey(400_000, 1)).get(new EventKey(400_000, 1));
        assertEquals(List.of(Code.RUN_NOT_INDEXED), codes(r));
        assertEquals("no LOADED dataset holds run 400000", r.explanation().text());
        assertNull(r.explanation().caveat(), "the supervisor answered");
    }

    @Test
    void eventsOutsideEveryLoadedRangeAreSaidBelowOrAbove() {
        EventKey below = new EventKey(OTHER_RUN, 0);
        EventKey above = new EventKey(OTHER_RUN, 51);
        EventKey far = new EventKey(OTHER_RUN, 1_000_000);
        Map<EventKey, LookupResult> r = explain(withoutSupervisor, LookupFilter.all(), far, below,
                new EventKey(OTHER_RUN, 7), above);
        assertTrue(r.get(new EventKey(OTHER_RUN, 7)).found());
        assertEquals(List.of(Code.OUTSIDE_RANGES), codes(r.get(below)));
        assertEquals(Set.of(DS_OTHER_RUN + " (LOADED: below its first event)"),
                notes(reason(r.get(below), Code.OUTSIDE_RANGES)));
        for (EventKey k : List.of(above, far)) {
            assertEquals(Set.of(DS_OTHER_RUN + " (LOADED: above its last event)"),
                    notes(reason(r.get(k), Code.OUTSIDE_RANGES)), k.text());
        }
        assertTrue(r.get(far).explanation().text().startsWith("run 327700 is indexed, but event 1000000 is outside"
                + " the event range of every LOADED dataset of it"), r.get(far).explanation().text());
        assertEquals("datasets still collecting at the supervisor are not known: no --supervisor-url",
                r.get(far).explanation().caveat());
    }

    @Test
    void aGapInsideARangeIsWithinRanges() {
        // simulation: dataset 361106 holds events 7, 14 .. 700
        EventKey gap = new EventKey(MC_DATASET_NUMBER, 8);
        EventKey after = new EventKey(MC_DATASET_NUMBER, 701);
        Map<EventKey, LookupResult> r = explain(withoutSupervisor, LookupFilter.all(), gap, after);
        assertEquals(List.of(Code.WITHIN_RANGES), codes(r.get(gap)));
        assertEquals(Set.of(DS_MC + " (LOADED: within its event range, not in it)"),
                notes(reason(r.get(gap), Code.WITHIN_RANGES)));
        assertEquals(List.of(Code.OUTSIDE_RANGES), codes(r.get(after)));
    }

    @Test
    void aDatasetStillLoadingOrCollectingIsNamedWithItsStateAndWhatIsMissing() {
        // run 327636: DS_LOADING is LOADING in DATASETS; both LOADED datasets end below 5000
        EventKey loading = new EventKey(RUN, 5000);
        EventKey collecting = new EventKey(327_800, 3);
        EventKey signalled = new EventKey(OTHER_RUN, 60);
        Map<EventKey, LookupResult> r = explain(lookup, LookupFilter.all(), loading, collecting, signalled);

        assertEquals(List.of(Code.OUTSIDE_RANGES, Code.NOT_YET_QUERYABLE), codes(r.get(loading)));
        assertEquals(Set.of(DS_AOD + " (LOADED: above its last event)", DS_ESD + " (LOADED: above its last event)"),
                notes(reason(r.get(loading), Code.OUTSIDE_RANGES)));
        DatasetNote inKudu = reason(r.get(loading), Code.NOT_YET_QUERYABLE).datasets().get(0);
        assertEquals(DS_LOADING, inKudu.dataset());
        assertEquals("LOADING", inKudu.state());
        assertTrue(inKudu.detail().startsWith("being loaded into Kudu since 20"), inKudu.detail());
        assertTrue(inKudu.detail().endsWith("no estimate published"), inKudu.detail());
        assertNull(inKudu.queryable());

        assertEquals(List.of(Code.RUN_NOT_INDEXED, Code.NOT_YET_QUERYABLE), codes(r.get(collecting)));
        assertEquals(Set.of(COLLECTING + " (COLLECTING: 2 of 5 files have no object yet; no estimate published by"
                + " the supervisor)"), notes(reason(r.get(collecting), Code.NOT_YET_QUERYABLE)));

        assertEquals(List.of(Code.OUTSIDE_RANGES, Code.NOT_YET_QUERYABLE), codes(r.get(signalled)));
        assertEquals(Set.of(SIGNALLED + " (SIGNALLED: complete; waiting for a consumer to consolidate and load it;"
                + " no estimate published by the supervisor)"), notes(reason(r.get(signalled),
                Code.NOT_YET_QUERYABLE)));
    }

    @Test
    void aSupervisorThatDoesNotAnswerIsACaveatNamingEachUrl() {
        LookupResult r = explain(supervisorDown, LookupFilter.all(), new EventKey(327_800, 3))
                .get(new EventKey(327_800, 3));
        assertEquals(List.of(Code.RUN_NOT_INDEXED), codes(r));
        String caveat = r.explanation().caveat();
        assertTrue(caveat.startsWith("datasets still collecting at the supervisor are not known: http://127.0.0.1:"),
                caveat);
        assertTrue(caveat.contains("HTTP 400 (standby: not active)"), caveat);
        assertEquals(2, caveat.split("; ").length, caveat);
    }

    @Test
    void anEventOnlyInExcludedDatasetsOrTypesNamesThemAndTheFilter() {
        EventKey e5 = new EventKey(RUN, 5);
        LookupResult byProject = explain(lookup, new LookupFilter(Set.of(), "data18_13TeV", null, null), e5).get(e5);
        assertEquals(List.of(Code.FILTERED), codes(byProject));
        assertEquals(Set.of(DS_AOD + " (LOADED: types StreamAOD,StreamESD,StreamRAW; excluded by project=data18_13TeV"
                + " (its project: data17_13TeV))"), notes(reason(byProject, Code.FILTERED)));

        EventKey e250 = new EventKey(RUN, 250);
        LookupResult byType = explain(lookup, new LookupFilter(Set.of("StreamAOD"), null, null, null), e250)
                .get(e250);
        assertEquals(Set.of(DS_ESD + " (LOADED: types StreamESD,StreamRAW; excluded by stream-type=StreamAOD)"),
                notes(reason(byType, Code.FILTERED)));

        EventKey e150 = new EventKey(RUN, 150);
        LookupResult byTag = explain(lookup, new LookupFilter(Set.of(), null, "f999_*", null), e150).get(e150);
        assertEquals(Set.of(DS_AOD + " (LOADED: types StreamAOD,StreamESD,StreamRAW; excluded by ami-tag=f999_*"
                        + " (its AMI tags: f838_m1824))",
                DS_ESD + " (LOADED: types StreamESD,StreamRAW; excluded by ami-tag=f999_* (its AMI tags: f838))"),
                notes(reason(byTag, Code.FILTERED)));
        // absent everywhere: the filters are not the reason; the LOADING dataset of the run is of another project,
        // so it would not answer this lookup either
        EventKey absent = new EventKey(RUN, 5000);
        assertEquals(List.of(Code.OUTSIDE_RANGES), codes(explain(lookup, new LookupFilter(Set.of(), "data18_13TeV",
                null, null), absent).get(absent)));
    }

    @Test
    void overHttpEveryMissIsExplained() throws Exception {
        try (LookupServer server = LookupServer.start(new InetSocketAddress("127.0.0.1", 0), lookup::explained,
                ServerLimits.of(4, 10))) {
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                    + "/events/00327800/000000003")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(404, r.statusCode(), r.body());
            JsonNode reasons = Json.tree(r.body().getBytes(StandardCharsets.UTF_8)).get("explanation").get("reasons");
            assertEquals("RUN_NOT_INDEXED", reasons.get(0).get("code").asText());
            assertEquals("NOT_YET_QUERYABLE", reasons.get(1).get("code").asText());
            JsonNode ds = reasons.get(1).get("datasets").get(0);
            assertEquals(COLLECTING, ds.get("dataset").asText());
            assertEquals("COLLECTING", ds.get("state").asText());
            assertTrue(ds.get("queryable").isNull(), r.body());
            HttpResponse<String> hit = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + server.port() + "/events/327636/5")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, hit.statusCode());
            assertTrue(!hit.body().contains("explanation"), hit.body());
        }
    }
}
