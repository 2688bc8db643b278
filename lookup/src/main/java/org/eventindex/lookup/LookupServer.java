package org.eventindex.lookup;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.ops.OpsHttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.time.Duration;
import java.util.concurrent.Semaphore;

import static java.util.Objects.requireNonNull;

/**
 * Event lookup over HTTP, for web front-ends, on the daemons' one ops server ({@link OpsHttpServer}).
 * <ul>
 *   <li>{@code GET /events/{run}/{event}}: 200 with the {@link LookupJson} object of the event, 404 with the same
 *       object (status NOT_FOUND, no matches) when no LOADED dataset holds it, 400 for a malformed run/event or
 *       filter, 502 when Kudu failed.</li>
 *   <li>{@code POST /lookup}: body of {@code run event} lines; 200 with {@code {"results":[...],"errors":[...]}}
 *       (malformed lines listed in {@code errors}); 413 above {@code maxBatch} lines.</li>
 *   <li>{@code GET /health}, {@code GET /ready}: 200 {@code ok} / {@code ready}; {@code GET /metrics}: Prometheus
 *       text. Not subject to the limits.</li>
 * </ul>
 * Filters as query parameters: {@code stream-type} (repeatable or comma-separated), {@code project}, {@code ami-tag},
 * {@code dataset} (globs as on the command line). More than {@code maxConcurrent} lookups at once get 503 with
 * {@code Retry-After: 1}.
 */
public final class LookupServer implements AutoCloseable {
    private final OpsHttpServer server;
    private final Lookups lookups;
    private final ServerLimits limits;
    private final Semaphore permits;

    private LookupServer(OpsHttpServer server, Lookups lookups, ServerLimits limits) {
        this.server = server;
        this.lookups = lookups;
        this.limits = limits;
        this.permits = new Semaphore(limits.maxConcurrent());
    }

    /**
     * Starts serving on {@code address} (port 0: a free port, see {@link #port()}).
     *
     * @throws IOException when the address cannot be bound
     */
    public static LookupServer start(InetSocketAddress address, Lookups lookups, ServerLimits limits)
            throws IOException {
        requireNonNull(address, "address is null");
        requireNonNull(lookups, "lookups is null");
        requireNonNull(limits, "limits is null");
        OpsHttpServer http = new OpsHttpServer(address, limits.threads(), DaemonMetrics.registry("lookup"),
                OpsHttpServer.Readiness::ok, OpsHttpServer.Readiness::ok);
        LookupServer s = new LookupServer(http, lookups, limits);
        http.handle("/events/", ex -> s.limited(ex, s::event));
        http.handle("/lookup", ex -> s.limited(ex, s::batch));
        http.start();
        return s;
    }

    public int port() {
        return server.port();
    }

    private interface Handler {
        void handle(HttpExchange ex) throws IOException;
    }

    private void limited(HttpExchange ex, Handler h) throws IOException {
        try (ex) {
            if (!permits.tryAcquire()) {
                ex.getResponseHeaders().set("Retry-After", "1");
                error(ex, 503, "more than " + limits.maxConcurrent() + " lookups in progress; retry later");
                return;
            }
            try {
                h.handle(ex);
            } catch (IllegalArgumentException e) {
                error(ex, 400, e.getMessage());
            } finally {
                permits.release();
            }
        }
    }

    private void event(HttpExchange ex) throws IOException {
        if (!"GET".equals(ex.getRequestMethod())) {
            error(ex, 405, "use GET /events/{run}/{event}");
            return;
        }
        String[] parts = ex.getRequestURI().getPath().split("/");
        // "", "events", run, event
        if (parts.length != 4) {
            error(ex, 404, "expected /events/{run}/{event}, got " + ex.getRequestURI().getPath());
            return;
        }
        EventKey key = new EventKey(LookupInput.parseRun(parts[2]), LookupInput.parseEvent(parts[3]));
        LookupResult r = lookups.lookup(List.of(key), filter(ex.getRequestURI())).get(0);
        send(ex, r.failed() ? 502 : r.found() ? 200 : 404, LookupJson.toJson(r));
    }

    private void batch(HttpExchange ex) throws IOException {
        if (!"POST".equals(ex.getRequestMethod())) {
            error(ex, 405, "use POST /lookup with 'run event' lines");
            return;
        }
        // A line is at most ~32 bytes ("%08d %09d" up to 10 + 20 digits); bound the body before parsing it.
        long maxBytes = 64L * limits.maxBatch();
        byte[] bytes;
        try (InputStream body = ex.getRequestBody()) {
            bytes = body.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
        }
        if (bytes.length > maxBytes) {
            error(ex, 413, "request body above " + maxBytes + " bytes (" + limits.maxBatch() + " lines of at most 64)");
            return;
        }
        LookupInput input;
        try {
            input = LookupInput.read(new InputStreamReader(new java.io.ByteArrayInputStream(bytes),
                    StandardCharsets.UTF_8), "request", limits.maxBatch());
        } catch (LookupInput.TooManyLinesException e) {
            error(ex, 413, e.getMessage());
            return;
        }
        List<LookupResult> results = lookups.lookup(input.keys(), filter(ex.getRequestURI()));
        ObjectNode o = LookupJson.MAPPER.createObjectNode();
        ArrayNode rs = o.putArray("results");
        results.forEach(r -> rs.add(LookupJson.toJson(r)));
        ArrayNode errors = o.putArray("errors");
        input.errors().forEach(e -> errors.add(e.message()));
        send(ex, 200, o);
    }

    /** @throws IllegalArgumentException for an unknown parameter or a bad pattern */
    static LookupFilter filter(URI uri) {
        Map<String, String> single = new HashMap<>();
        Set<String> types = new LinkedHashSet<>();
        String q = uri.getRawQuery();
        if (q != null && !q.isEmpty()) {
            for (String pair : q.split("&")) {
                int eq = pair.indexOf('=');
                String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                switch (name) {
                    case "stream-type" -> types.addAll(List.of(value.split(",")));
                    case "project", "ami-tag", "dataset" -> single.put(name, value);
                    default -> throw new IllegalArgumentException("unknown parameter '" + name
                            + "' (known: stream-type, project, ami-tag, dataset)");
                }
            }
        }
        types.remove("");
        return new LookupFilter(types, single.get("project"), single.get("ami-tag"), single.get("dataset"));
    }

    private static void error(HttpExchange ex, int status, String message) throws IOException {
        send(ex, status, LookupJson.MAPPER.createObjectNode().put("error", message));
    }

    private static void send(HttpExchange ex, int status, ObjectNode body) throws IOException {
        byte[] bytes = LookupJson.MAPPER.writeValueAsBytes(body);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** Stops accepting requests and waits up to a second for those in progress. Idempotent. */
    @Override
    public void close() {
        server.stop(Duration.ofSeconds(1));
    }
}
