package org.eventindex.supervisor;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.ops.OpsHttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The supervisor's one operations HTTP server: {@code /health}, {@code /ready} and {@code /metrics}; the information
 * service's JSON ({@code /datasets}, {@code /consumers}, {@code /supervisor}) and its {@code /events} stream (each
 * subscriber has its own writer thread, see {@link EventBus}); the web console at {@code /} with its own JSON under
 * {@code /console} ({@link ConsoleAssets}). It serves from the start, a standby's too; the resources made of the
 * state answer once the supervisor is active ({@link #serve}), before that with 400 and why.
 */
final class InfoService implements AutoCloseable {
    private final OpsHttpServer server;
    private final Supplier<OpsHttpServer.Readiness> readiness;
    private final Supplier<Map<String, Object>> role;
    private volatile InfoResources resources;
    private volatile ConsoleResources console;

    /**
     * Binds the port ({@link #start} serves).
     *
     * @param readiness {@code /ready}: the supervisor's, whatever its role
     * @param role      {@code /console/role}: active, standby, fenced or stopped
     * @throws IOException naming {@code supervisor.http.port} when it is taken
     */
    InfoService(SupervisorConfig config, PrometheusRegistry metrics, EventBus events,
                Supplier<OpsHttpServer.Readiness> readiness, Supplier<Map<String, Object>> role) throws IOException {
        this.readiness = Objects.requireNonNull(readiness, "readiness is null");
        this.role = Objects.requireNonNull(role, "role is null");
        try {
            server = new OpsHttpServer(new InetSocketAddress(config.httpHost(), config.httpPort()),
                    OpsHttpServer.DEFAULT_THREADS, metrics, OpsHttpServer.Readiness::ok, readiness, config.httpAccess());
        } catch (IOException e) {
            throw new IOException(e.getMessage() + " (" + SupervisorConfig.HTTP_PORT + ")", e);
        }
        server.json("/datasets", (rest, query) -> rest.isEmpty() ? resources().datasets(query)
                : resources().dataset(rest));
        server.json("/consumers", (rest, query) -> rest.isEmpty() ? resources().consumers() : null);
        server.json("/progress", (rest, query) -> rest.isEmpty() ? resources().progress() : null);
        server.json("/supervisor", (rest, query) -> rest.isEmpty() ? supervisor() : null);
        server.eventStream("/events", events::subscribe);
        server.json("/console", (rest, query) -> rest.equals("role") ? role.get() : console().get(rest, query));
        server.handle("/", new ConsoleAssets());
    }

    void start() {
        server.start();
    }

    int port() {
        return server.port();
    }

    /** The active supervisor's state, from now on served. */
    void serve(InfoResources info, ConsoleResources consoleJson) {
        console = Objects.requireNonNull(consoleJson, "consoleJson is null");
        resources = Objects.requireNonNull(info, "info is null");
    }

    private InfoResources resources() {
        InfoResources r = resources;
        if (r == null) {
            throw new IllegalArgumentException(notActive());
        }
        return r;
    }

    private ConsoleResources console() {
        ConsoleResources c = console;
        if (c == null) {
            throw new IllegalArgumentException(notActive());
        }
        return c;
    }

    private String notActive() {
        return readiness.get().reason() + " (this supervisor has no state until it is active; see /console/role)";
    }

    /** {@code /supervisor}: the daemon and its datasets once active; its role before. */
    private Object supervisor() {
        InfoResources r = resources;
        return r == null ? Map.of("supervisor", role.get()) : r.supervisor();
    }

    @Override
    public void close() {
        server.close();
    }
}
