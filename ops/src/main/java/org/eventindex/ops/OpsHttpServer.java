package org.eventindex.ops;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.eventindex.message.Json;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The operations endpoint every daemon exposes: {@code /health} (liveness: 200 while the daemon can work, 503 with
 * the reason when it cannot recover by itself and must be restarted), {@code /ready} (200 only when the daemon's
 * dependencies are reachable, 503 with the reason otherwise),
 * {@code /metrics} (Prometheus text) and any JSON resources the daemon adds with {@link #json}.
 * Port 0 picks a free port ({@link #port()} tells which).
 */
public final class OpsHttpServer implements AutoCloseable {
    private final HttpServer server;

    /**
     * @param health    whether the daemon is alive ({@code /health}); not ready means it must be restarted
     * @param readiness whether it can do its work now ({@code /ready})
     */
    public OpsHttpServer(String bindHost, int port, Metrics metrics, Supplier<Readiness> health,
                         Supplier<Readiness> readiness) throws IOException {
        server = HttpServer.create(new InetSocketAddress(bindHost, port), 64);
        server.setExecutor(Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "ops-http");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/health", ex -> {
            Readiness h = health.get();
            respond(ex, h.ready() ? 200 : 503, "text/plain", (h.ready() ? "ok" : "failed: " + h.reason()) + "\n");
        });
        server.createContext("/ready", ex -> {
            Readiness r = readiness.get();
            respond(ex, r.ready() ? 200 : 503, "text/plain", (r.ready() ? "ready" : "not ready: " + r.reason()) + "\n");
        });
        server.createContext("/metrics", ex -> respond(ex, 200, "text/plain; version=0.0.4", metrics.renderPrometheus()));
    }

    /** Serves {@code supplier.get()} as JSON at {@code path}; a null result is a 404. */
    public void json(String path, Supplier<Object> supplier) {
        server.createContext(path, ex -> {
            Object body = supplier.get();
            if (body == null) {
                Map<String, String> err = new LinkedHashMap<>();
                err.put("error", "not found: " + ex.getRequestURI().getPath());
                respond(ex, 404, "application/json", new String(Json.write(err), StandardCharsets.UTF_8));
            } else {
                respond(ex, 200, "application/json", new String(Json.write(body), StandardCharsets.UTF_8));
            }
        });
    }

    public void start() {
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }

    private static void respond(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** Whether a daemon can do its work now, and if not, why. */
    public record Readiness(boolean ready, String reason) {
        public static Readiness ok() {
            return new Readiness(true, "");
        }

        public static Readiness notReady(String reason) {
            return new Readiness(false, reason);
        }
    }
}
