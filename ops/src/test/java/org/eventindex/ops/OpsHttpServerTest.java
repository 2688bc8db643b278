package org.eventindex.ops;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.ProjectVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

final class OpsHttpServerTest {
    private final HttpClient http = HttpClient.newHttpClient();
    private OpsHttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void servesHealthReadinessAndTheRegistryInPrometheusText() throws Exception {
        PrometheusRegistry registry = DaemonMetrics.registry("test");
        Counter refused = Counter.builder().name("eventindex_test_refused_total").help("Refused.").labelNames("reason")
                .register(registry);
        refused.labelValues("oversize").inc(2);
        refused.labelValues("bad_json").inc();
        start(registry, OpsHttpServer.Readiness.ok(), OpsHttpServer.Readiness.notReady("queue q not subscribed"));

        assertEquals("ok\n", get("/health").body());
        HttpResponse<String> ready = get("/ready");
        assertEquals(503, ready.statusCode());
        assertEquals("{\"ready\":false,\"reason\":\"queue q not subscribed\",\"dependencies\":[]}", ready.body());
        HttpResponse<String> metrics = get("/metrics");
        assertEquals(200, metrics.statusCode());
        assertTrue(metrics.headers().firstValue("Content-Type").orElseThrow().startsWith("text/plain; version=0.0.4"));
        String body = metrics.body();
        assertTrue(body.contains("\neventindex_test_refused_total{reason=\"oversize\"} 2.0\n"), body);
        assertTrue(body.contains("\neventindex_build_info{daemon=\"test\",dirty=\"" + ProjectVersion.dirty()
                + "\",revision=\"" + ProjectVersion.commit() + "\",version=\"" + ProjectVersion.get() + "\"} 1.0\n"), body);
        assertTrue(body.contains("\njvm_memory_used_bytes{"), body);
        assertTrue(body.contains("\neventindex_ready 0.0\n"), "readiness as a metric: " + body);
        assertEquals(3, DaemonMetrics.value(registry, "eventindex_test_refused_total"));
        assertEquals(1, DaemonMetrics.value(registry, "eventindex_test_refused_total", "reason", "bad_json"));
        assertEquals(0, DaemonMetrics.value(registry, "eventindex_test_absent_total"));
    }

    @Test
    void jsonResourcesAnswer404ForNullAnd400ForABadQuery() throws Exception {
        server = new OpsHttpServer("127.0.0.1", 0, new PrometheusRegistry(), OpsHttpServer.Readiness::ok,
                OpsHttpServer.Readiness::ok);
        server.json("/items", (rest, query) -> {
            if (query.names().contains("bad")) {
                throw new IllegalArgumentException("unknown filter 'bad'");
            }
            return rest.isEmpty() ? List.of("a", "b") : rest.equals("a") ? Map.of("name", "a") : null;
        });
        server.json("/status", () -> Map.of("up", true));
        server.start();

        assertEquals("[\"a\",\"b\"]", get("/items").body());
        assertEquals("[\"a\",\"b\"]", get("/items/").body());
        assertEquals("{\"name\":\"a\"}", get("/items/a").body());
        assertEquals(404, get("/items/z").statusCode());
        assertEquals(404, get("/itemsz").statusCode());
        HttpResponse<String> bad = get("/items?bad=1");
        assertEquals(400, bad.statusCode());
        assertTrue(bad.body().contains("unknown filter 'bad'"), bad.body());
        assertEquals("{\"up\":true}", get("/status").body());
        assertTrue(get("/metrics").body().contains("\neventindex_ready 1.0\n"), "ready");
        assertEquals(404, get("/status/more").statusCode());
    }

    @Test
    void anEventStreamIsHandedToItsSubscriberThread() throws Exception {
        server = new OpsHttpServer("127.0.0.1", 0, new PrometheusRegistry(), OpsHttpServer.Readiness::ok,
                OpsHttpServer.Readiness::ok);
        server.eventStream("/events", (client, out, close) -> {
            Thread writer = new Thread(() -> {
                try (out) {
                    out.write("event: hello\ndata: {}\n\n".getBytes(StandardCharsets.UTF_8));
                } catch (IOException e) {
                    throw new IllegalStateException("writing to " + client + " failed", e);
                } finally {
                    close.run();
                }
            });
            writer.start();
        });
        server.start();

        HttpResponse<String> events = get("/events");
        assertEquals("text/event-stream", events.headers().firstValue("Content-Type").orElseThrow());
        assertEquals("event: hello\ndata: {}\n\n", events.body());
    }

    private void start(PrometheusRegistry registry, OpsHttpServer.Readiness health, OpsHttpServer.Readiness ready)
            throws IOException {
        server = new OpsHttpServer("127.0.0.1", 0, registry, () -> health, () -> ready);
        server.start();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void queryStringsAreParsedOnceForEveryResource() {
        QueryString q = QueryString.parse("state=DONE,FAILED&a%20b=x+y&&flag&state=NEW&c=%C3%A9");
        assertEquals(List.of("DONE,FAILED", "NEW"), q.all("state"));
        assertEquals(java.util.Optional.of("NEW"), q.get("state"), "a later value overrides");
        assertEquals(java.util.Optional.of("x y"), q.get("a b"));
        assertEquals(java.util.Optional.of(""), q.get("flag"));
        assertEquals(java.util.Optional.of("\u00e9"), q.get("c"));
        assertEquals(List.of("state", "a b", "flag", "c"), List.copyOf(q.names()));
        assertTrue(QueryString.parse(null).isEmpty());
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> q.only(List.of("state", "c")));
        assertEquals("unknown parameter 'a b' (known: state, c)", e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> QueryString.parse("x=%E"));
        assertTrue(e.getMessage().startsWith("query parameter 'x=%E' is not URL-encoded"), e.getMessage());
    }
}
