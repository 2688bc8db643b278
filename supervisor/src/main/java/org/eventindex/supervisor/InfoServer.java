package org.eventindex.supervisor;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.eventindex.message.Json;
import org.eventindex.ops.Metrics;
import org.eventindex.ops.OpsHttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The supervisor's HTTP information service: {@code /health}, {@code /ready}, {@code /metrics} (Prometheus),
 * {@code /datasets}, {@code /datasets/<name>}, {@code /consumers}, {@code /supervisor} (JSON) and {@code /events}
 * (Server-Sent Events of every state change). Requests are served by a small pool; an {@code /events} connection is
 * handed to its own writer thread at once, so subscribers never hold a request thread.
 */
final class InfoServer implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService executor;
    private final AtomicInteger subscriberIds = new AtomicInteger();

    InfoServer(String host, int port, Metrics metrics, Supplier<OpsHttpServer.Readiness> readiness, EventBus events,
               InfoResources resources) throws IOException {
        Objects.requireNonNull(metrics, "metrics is null");
        Objects.requireNonNull(readiness, "readiness is null");
        Objects.requireNonNull(events, "events is null");
        Objects.requireNonNull(resources, "resources is null");
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 64);
        } catch (IOException e) {
            throw new IOException("cannot serve HTTP on " + host + ":" + port + " (" + SupervisorConfig.HTTP_PORT
                    + "): " + e.getMessage(), e);
        }
        executor = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "supervisor-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/health", ex -> respond(ex, 200, "text/plain", "ok\n"));
        server.createContext("/ready", ex -> {
            OpsHttpServer.Readiness r = readiness.get();
            respond(ex, r.ready() ? 200 : 503, "text/plain", (r.ready() ? "ready" : "not ready: " + r.reason()) + "\n");
        });
        server.createContext("/metrics", ex -> respond(ex, 200, "text/plain; version=0.0.4",
                metrics.renderPrometheus()));
        server.createContext("/datasets", ex -> {
            String path = ex.getRequestURI().getPath();
            String rest = path.length() <= "/datasets".length() ? "" : path.substring("/datasets".length());
            if (!rest.isEmpty() && !rest.equals("/")) {
                json(ex, rest.startsWith("/") ? resources.dataset(rest.substring(1)) : null);
                return;
            }
            try {
                json(ex, resources.datasets(ex.getRequestURI().getRawQuery()));
            } catch (IllegalArgumentException e) {
                respond(ex, 400, "application/json", new String(Json.write(Map.of("error", e.getMessage())),
                        StandardCharsets.UTF_8));
            }
        });
        server.createContext("/consumers", ex -> json(ex, resources.consumers()));
        server.createContext("/supervisor", ex -> json(ex, resources.supervisor()));
        server.createContext("/events", ex -> {
            ex.getResponseHeaders().set("Content-Type", "text/event-stream");
            ex.getResponseHeaders().set("Cache-Control", "no-cache");
            ex.sendResponseHeaders(200, 0);
            OutputStream out = ex.getResponseBody();
            events.subscribe(ex.getRemoteAddress() + "#" + subscriberIds.incrementAndGet(), out, ex::close);
        });
    }

    void start() {
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private static void json(HttpExchange ex, Object body) throws IOException {
        if (body == null) {
            respond(ex, 404, "application/json", new String(Json.write(Map.of("error", "not found: "
                    + ex.getRequestURI().getPath())), StandardCharsets.UTF_8));
        } else {
            respond(ex, 200, "application/json", new String(Json.write(body), StandardCharsets.UTF_8));
        }
    }

    private static void respond(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }
}
