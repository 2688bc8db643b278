package org.eventindex.lookup;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.Json;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.eventindex.lookup.LookupFixture.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Event picking as the workload system does it, against a real Kudu ({@link LookupFixture}) through
 * {@code lookup serve}'s HTTP server with its default limits: a list of 10,000 lines in the experiment's client
 * format ({@code %08d %09d}) with present, absent, duplicated and malformed lines, sent in batches of 500; then the
 * limits per request (413) and per user (429), each naming its option.
 */
class PickingSessionIT {
    private static final int LINES = 10_000;
    private static final int BATCH = 500;
    @TempDir
    static Path dir;
    private static LookupFixture fixture;
    private static EventLookup lookup;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void start() throws Exception {
        fixture = LookupFixture.start(dir);
        lookup = new EventLookup(fixture.client(), CONFIG, 4, false, Duration.ofSeconds(1), PendingDatasets.NONE);
    }

    @AfterAll
    static void stop() {
        if (lookup != null) {
            lookup.close();
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    /** One line of the list and what the index says of it: the own file's GUID, null when absent or malformed. */
    private record Line(String text, EventKey key, String ownGuid) {
    }

    private static String text(EventKey k) {
        return String.format("%08d %09d", k.run(), k.event());
    }

    private static Line present(Random rnd) {
        return switch (rnd.nextInt(3)) {
            case 0 -> {
                EventKey k = new EventKey(RUN, 1 + rnd.nextInt(300));
                yield new Line(text(k), k, k.event() <= 200 ? AOD_1 : ESD_2);
            }
            case 1 -> {
                EventKey k = new EventKey(OTHER_RUN, 1 + rnd.nextInt(50));
                yield new Line(text(k), k, AOD_3);
            }
            default -> {
                EventKey k = new EventKey(MC_DATASET_NUMBER, 7L * (1 + rnd.nextInt(100)));
                yield new Line(text(k), k, AOD_MC);
            }
        };
    }

    private static Line absent(Random rnd) {
        EventKey k = switch (rnd.nextInt(3)) {
            case 0 -> new EventKey(RUN, 301 + rnd.nextInt(1_000_000));
            case 1 -> new EventKey(400_000 + rnd.nextInt(20), rnd.nextInt(1000));
            default -> new EventKey(MC_DATASET_NUMBER, 7L * rnd.nextInt(100) + 1 + rnd.nextInt(6));
        };
        return new Line(text(k), k, null);
    }

    private static final String[] MALFORMED = {"00327636", "abc 000000005", "00327636 000000005 7",
        "-1 5", "00327636 99999999999999999999999", "00327636,000000005"};

    /** The picking list: 60% present, 20% absent, 10% repeating a line of the same batch, 10% malformed. */
    private static List<Line> pickingList() {
        Random rnd = new Random(35);
        List<Line> lines = new ArrayList<>(LINES);
        for (int i = 0; i < LINES; i++) {
            int kind = rnd.nextInt(10);
            int inBatch = i % BATCH;
            if (kind < 6) {
                lines.add(present(rnd));
            } else if (kind < 8) {
                lines.add(absent(rnd));
            } else if (kind < 9 && inBatch > 0) {
                lines.add(lines.get(i - 1 - rnd.nextInt(inBatch)));
            } else {
                lines.add(new Line(MALFORMED[rnd.nextInt(MALFORMED.length)], null, null));
            }
        }
        return lines;
    }

    private static HttpResponse<String> post(LookupServer s, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + "/lookup?ami-tag=*"))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void tenThousandEventsInBatchesOf500AreAnsweredOneRoundTripEach() throws Exception {
        List<Line> list = pickingList();
        int found = 0;
        int notFound = 0;
        int malformed = 0;
        long start = System.nanoTime();
        try (LookupServer server = LookupServer.start(new InetSocketAddress("127.0.0.1", 0), lookup::explained,
                ServerLimits.defaults())) {
            for (int b = 0; b < LINES; b += BATCH) {
                List<Line> batch = list.subList(b, b + BATCH);
                StringBuilder body = new StringBuilder();
                Map<EventKey, Integer> times = new LinkedHashMap<>();
                Map<EventKey, Line> byKey = new LinkedHashMap<>();
                int badLines = 0;
                for (Line l : batch) {
                    body.append(l.text()).append('\n');
                    if (l.key() == null) {
                        badLines++;
                    } else {
                        times.merge(l.key(), 1, Integer::sum);
                        byKey.putIfAbsent(l.key(), l);
                    }
                }
                HttpResponse<String> r = post(server, body.toString());
                assertEquals(200, r.statusCode(), r.body());
                JsonNode j = Json.tree(r.body().getBytes(StandardCharsets.UTF_8));
                assertEquals(badLines, j.get("errors").size(), "batch at line " + b);
                j.get("errors").forEach(e -> assertTrue(e.asText().startsWith("request:"), e.asText()));
                assertEquals(times.values().stream().filter(n -> n > 1).count(), j.get("duplicates").size());
                JsonNode results = j.get("results");
                List<EventKey> expectedOrder = List.copyOf(byKey.keySet());
                assertEquals(expectedOrder.size(), results.size(), "one result per distinct event");
                for (int i = 0; i < results.size(); i++) {
                    JsonNode res = results.get(i);
                    Line l = byKey.get(expectedOrder.get(i));
                    assertEquals(l.key().run(), res.get("run").asInt());
                    assertEquals(l.key().event(), res.get("event").asLong());
                    if (l.ownGuid() != null) {
                        assertEquals("FOUND", res.get("status").asText(), res.toString());
                        assertEquals(l.ownGuid(), res.get("matches").get(0).get("guid").asText(), res.toString());
                        assertFalse(res.has("explanation"), res.toString());
                        found++;
                    } else {
                        assertEquals("NOT_FOUND", res.get("status").asText(), res.toString());
                        String code = res.get("explanation").get("reasons").get(0).get("code").asText();
                        assertTrue(List.of("RUN_NOT_INDEXED", "OUTSIDE_RANGES", "WITHIN_RANGES").contains(code),
                                res.toString());
                        notFound++;
                    }
                }
                malformed += badLines;
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        // present events repeat within a batch (a few hundred of them), so found counts distinct events per batch
        assertTrue(found > 3_000 && notFound > 1_000 && malformed > 500, found + " found, " + notFound
                + " not found, " + malformed + " malformed");
        // bounded loosely: 10.5 s on 2 cores under a load average of 20 (docs/lookup.md)
        assertTrue(seconds < 120, "session took " + seconds + " s");
    }

    @Test
    void aBatchAboveTheLimitIs413AndAUserAboveItsMinuteIs429NamingTheLimits() throws Exception {
        try (LookupServer server = LookupServer.start(new InetSocketAddress("127.0.0.1", 0), lookup::explained,
                ServerLimits.of(8, BATCH).perUser(2, BATCH + BATCH / 5))) {
            String full = (text(new EventKey(OTHER_RUN, 1)) + "\n").repeat(BATCH);
            HttpResponse<String> tooLarge = post(server, full + text(new EventKey(OTHER_RUN, 2)) + "\n");
            assertEquals(413, tooLarge.statusCode());
            assertTrue(tooLarge.body().contains("more than 500 lookup lines"), tooLarge.body());

            // 500 lines of one event cost one event: the work bound counts distinct events
            assertEquals(200, post(server, full).statusCode());
            StringBuilder distinct = new StringBuilder();
            for (int e = 1; e <= BATCH; e++) {
                distinct.append(text(new EventKey(OTHER_RUN, e))).append('\n');
            }
            assertEquals(200, post(server, distinct.toString()).statusCode());
            HttpResponse<String> throttled = post(server, distinct.toString());
            assertEquals(429, throttled.statusCode(), throttled.body());
            assertTrue(throttled.body().contains("--max-user-events-per-minute"), throttled.body());
            // 600 a minute: 1 + 500 taken, 99 left (refilled at 10 a second), so the next 500 wait up to 40 s
            assertTrue(throttled.body().matches(".*user 127\\.0\\.0\\.1 asked for 500 events with [0-9]+ left of its"
                    + " 600 per minute.*"), throttled.body());
            long retryAfter = Long.parseLong(throttled.headers().firstValue("Retry-After").orElse("0"));
            assertTrue(retryAfter >= 1 && retryAfter <= 41, "Retry-After " + retryAfter);
            String metrics = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                    + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(metrics.contains(LookupServer.REQUESTS + "{endpoint=\"lookup\",outcome=\"throttled\"} 1"),
                    metrics);
        }
    }
}
