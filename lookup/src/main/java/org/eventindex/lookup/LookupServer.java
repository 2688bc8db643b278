package org.eventindex.lookup;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.ops.DependencyChecks;
import org.eventindex.ops.HttpAccess;
import org.eventindex.ops.OpsHttpServer;
import org.eventindex.ops.QueryString;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.Optional;
import java.util.Set;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Semaphore;

import static java.util.Objects.requireNonNull;

/**
 * Event lookup over HTTP, for web front-ends, on the daemons' one ops server ({@link OpsHttpServer}).
 * <ul>
 *   <li>{@code GET /events/{run}/{event}}: 200 with the {@link LookupJson} object of the event, 404 with the same
 *       object (status NOT_FOUND, no matches) when no LOADED dataset holds it, 400 for a malformed run/event or
 *       filter, 502 when Kudu failed.</li>
 *   <li>{@code POST /lookup}: body of {@code run event} lines; 200 with {@code {"results":[...],"errors":[...],
 *       "duplicates":[...]}} ({@link PickingBatch}: each distinct event once, malformed lines listed in
 *       {@code errors}); 413 above {@code maxBatch} lines.</li>
 *   <li>{@code GET /datasets/{name}/triggers|trigger-overlaps|counts|duplicates}: a dataset's figures
 *       ({@link DatasetFigures}), when started with them; {@code GET /} and {@code /page/}: the physicists' page
 *       ({@link PageAssets}), behind the same TLS and authentication.</li>
 *   <li>{@code GET /health}: 200 {@code ok}; {@code GET /ready}: 200 while Kudu answered its last background check
 *       and the tables exist, 503 naming the failure otherwise (JSON, see {@link OpsHttpServer.Readiness});
 *       {@code GET /metrics}: Prometheus text, with {@value #REQUESTS} by endpoint and outcome and
 *       {@value #DURATION} by endpoint. Not subject to the limits.</li>
 * </ul>
 * Filters as query parameters: {@code stream-type} (repeatable or comma-separated), {@code project}, {@code ami-tag},
 * {@code dataset} (globs as on the command line). More than {@code maxConcurrent} lookups at once get 503 with
 * {@code Retry-After: 1}; a user above its own limits ({@link UserQuotas}) gets 429 with {@code Retry-After}.
 * <p>
 * TLS and authentication as the {@link HttpAccess} says (keys {@value #HTTP_ACCESS}*). Every lookup request writes
 * one line to the access log (logger {@value #ACCESS_LOG}): time, user, method, path, events asked, found, status,
 * duration ({@link AccessLog}).
 */
public final class LookupServer implements AutoCloseable {
    /**
     * Counter, labels {@code endpoint} ({@code events}, {@code lookup}, {@code figures}) and {@code outcome} (see
     * {@link #outcome}).
     */
    public static final String REQUESTS = "eventindex_lookup_requests_total";
    /** Histogram, label {@code endpoint}: time from a request's arrival to its response. */
    public static final String DURATION = "eventindex_lookup_request_duration_seconds";
    /** Counter: times the lookups moved to other tables because a rebuild's swap renamed them (docs/rebuild.md). */
    public static final String TABLE_SWITCHES = "eventindex_lookup_table_switches_total";
    /** Gauge, label {@code dependency} ({@code kudu}): 1 while it answered its last check, else 0. */
    public static final String DEPENDENCY_UP = "eventindex_lookup_dependency_up";
    /** The prefix of the service's TLS and authentication keys, in the file of {@code lookup serve --http-config}. */
    public static final String HTTP_ACCESS = "lookup.http.";
    /** The logger of the access log: one line per lookup request, to its own appender (conf/logback.xml). */
    public static final String ACCESS_LOG = "eventindex.access.lookup";

    private final OpsHttpServer server;
    private final Lookups lookups;
    private final ServerLimits limits;
    private final Semaphore permits;
    private final UserQuotas users;
    private final PrometheusRegistry registry;
    private final Counter requests;
    private final Histogram duration;
    private final DependencyChecks checks;
    private final Supplier<Optional<String>> unavailable;
    private final AccessLog accessLog;
    private final DatasetFigures figures;
    /** {@code /datasets} and {@code /datasets/{name}}, once {@link #serve} gave them. */
    private volatile Handler datasetStatus;
    private final PageAssets page = PageAssets.load();

    private LookupServer(InetSocketAddress address, Lookups lookups, ServerLimits limits,
                         Map<String, DependencyChecks.Check> checks, Duration checkInterval,
                         Supplier<Optional<String>> unavailable, HttpAccess access, AccessLog accessLog,
                         DatasetFigures figures) throws IOException {
        this.accessLog = requireNonNull(accessLog, "accessLog is null");
        this.figures = figures;
        this.lookups = requireNonNull(lookups, "lookups is null");
        this.unavailable = requireNonNull(unavailable, "unavailable is null");
        this.limits = requireNonNull(limits, "limits is null");
        this.permits = new Semaphore(limits.maxConcurrent());
        this.users = new UserQuotas(limits.maxUserConcurrent(), limits.maxUserEventsPerMinute(), System::nanoTime);
        this.registry = DaemonMetrics.registry("lookup");
        this.requests = Counter.builder().name(REQUESTS).help("Lookup requests answered, by endpoint and outcome.")
                .labelNames("endpoint", "outcome").register(registry);
        // a point lookup takes milliseconds, a batch of 10,000 lines seconds
        this.duration = Histogram.builder().name(DURATION).unit(Unit.SECONDS)
                .help("Time from a lookup request's arrival to its response, by endpoint.").labelNames("endpoint")
                .classicUpperBounds(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
                .register(registry);
        this.checks = checks.isEmpty() ? null
                : new DependencyChecks(checks, checkInterval, Clock.systemUTC(), registry, DEPENDENCY_UP);
        this.server = new OpsHttpServer(requireNonNull(address, "address is null"), limits.threads(), registry,
                OpsHttpServer.Readiness::ok, this::readiness, requireNonNull(access, "access is null"));
    }

    private OpsHttpServer.Readiness readiness() {
        OpsHttpServer.Readiness checked = checks == null ? OpsHttpServer.Readiness.ok() : checks.readiness();
        return unavailable.get().map(why -> new OpsHttpServer.Readiness(false, why, checked.dependencies()))
                .orElse(checked);
    }

    /**
     * Starts serving on {@code address} (port 0: a free port, see {@link #port()}), always ready (no dependency
     * checked).
     *
     * @throws IOException when the address cannot be bound
     */
    public static LookupServer start(InetSocketAddress address, Lookups lookups, ServerLimits limits)
            throws IOException {
        return start(address, lookups, limits, Map.of(), Duration.ofSeconds(10));
    }

    /**
     * Starts serving, {@code /ready} answering from {@code checks} (e.g. {@code kudu}: {@code KuduProbe} with the
     * tables the lookup reads), run in the background every {@code checkInterval}.
     *
     * @throws IOException when the address cannot be bound
     */
    public static LookupServer start(InetSocketAddress address, Lookups lookups, ServerLimits limits,
                                     Map<String, DependencyChecks.Check> checks, Duration checkInterval)
            throws IOException {
        return start(address, lookups, limits, checks, checkInterval, Optional::empty);
    }

    /**
     * {@link #start(InetSocketAddress, Lookups, ServerLimits, Map, Duration)} for a service that may not be able to
     * look up yet: while {@code unavailable} gives a reason (e.g. "waiting for kudu: ..."), {@code /ready} and every
     * lookup answer 503 with it ({@code {"error": reason}}, {@code Retry-After: 5}; outcome {@code unavailable}).
     */
    public static LookupServer start(InetSocketAddress address, Lookups lookups, ServerLimits limits,
                                     Map<String, DependencyChecks.Check> checks, Duration checkInterval,
                                     Supplier<Optional<String>> unavailable) throws IOException {
        return start(address, lookups, limits, checks, checkInterval, unavailable, HttpAccess.open(),
                AccessLog.to(ACCESS_LOG), null);
    }

    /**
     * {@link #start(InetSocketAddress, Lookups, ServerLimits, Map, Duration, Supplier)} with TLS and authentication
     * ({@code access}), each lookup request written to {@code accessLog}; with {@code figures}, a dataset's figures
     * under {@code /datasets/{name}/} ({@link DatasetFigures}; null: none).
     */
    public static LookupServer start(InetSocketAddress address, Lookups lookups, ServerLimits limits,
                                     Map<String, DependencyChecks.Check> checks, Duration checkInterval,
                                     Supplier<Optional<String>> unavailable, HttpAccess access, AccessLog accessLog,
                                     DatasetFigures figures) throws IOException {
        LookupServer s = new LookupServer(address, lookups, limits, requireNonNull(checks, "checks is null"),
                requireNonNull(checkInterval, "checkInterval is null"), unavailable, access, accessLog, figures);
        s.server.handle("/events/", ex -> s.limited(ex, "events", s::event));
        s.server.handle("/lookup", ex -> s.limited(ex, "lookup", s::batch));
        s.server.handle("/", s.page::handle);
        // one context for everything under /datasets: a dataset's figures (DatasetFigures.isFigure), else its
        // status once serve() gave it
        s.server.handle("/datasets", s::datasets);
        if (s.checks != null) {
            s.checks.start();
        }
        s.server.start();
        return s;
    }

    /**
     * Serves {@code /datasets} and {@code /overlap} ({@link DatasetResources}) beside the lookups, within the same
     * limits, metrics (endpoints {@code datasets}, {@code overlap}) and access log.
     */
    public void serve(DatasetResources datasets) {
        requireNonNull(datasets, "datasets is null");
        datasetStatus = (e, c) -> datasets.datasets(e);
        server.handle("/overlap", ex -> limited(ex, "overlap", (e, c) -> datasets.overlap(e)));
    }

    /** The registry served at {@code /metrics}. */
    public PrometheusRegistry metrics() {
        return registry;
    }

    public int port() {
        return server.port();
    }

    /** The unauthenticated {@code /health}, {@code /ready}, {@code /metrics} port, if configured. */
    public Optional<Integer> metricsPort() {
        return server.metricsPort();
    }

    private interface Handler {
        void handle(HttpExchange ex, Counts counts) throws IOException;
    }

    /**
     * What one request asked and found, for its access log line (not exchange attributes: the JDK server keeps
     * those per context, shared by every request); -1 until the handler got that far.
     */
    private static final class Counts {
        int asked = -1;
        int found = -1;
    }

    /** Whose work a request is: its authenticated principal, else the client's address. */
    private static String user(HttpExchange ex) {
        return OpsHttpServer.user(ex).orElseGet(() -> ex.getRemoteAddress().getAddress().getHostAddress());
    }

    private void limited(HttpExchange ex, String endpoint, Handler h) throws IOException {
        long start = System.nanoTime();
        Optional<String> why = unavailable.get();
        Counts counts = new Counts();
        try (ex) {
            if (why.isPresent()) {
                ex.getResponseHeaders().set("Retry-After", "5");
                error(ex, 503, why.get());
            } else {
                limited(ex, h, counts);
            }
        } finally {
            long nanos = System.nanoTime() - start;
            requests.labelValues(endpoint, why.isPresent() ? "unavailable" : outcome(ex.getResponseCode())).inc();
            duration.labelValues(endpoint).observe(nanos / 1e9);
            accessLog.write(OpsHttpServer.user(ex).orElse(null), ex.getRequestMethod(), ex.getRequestURI(),
                    counts.asked, counts.found, ex.getResponseCode(), Duration.ofNanos(nanos));
        }
    }

    /**
     * The {@code outcome} label of a response: {@code ok} (200: the event found, or a batch answered),
     * {@code not_found} (404: no LOADED dataset holds the event, or an unknown path), {@code throttled} (429: a user
     * above its own limits), {@code bad_request} (400,
     * 405), {@code too_large} (413), {@code failed} (502: Kudu failed), {@code overloaded} (503: too many lookups
     * at once; {@code unavailable} for a 503 while the service waits for Kudu at start), {@code error} otherwise (e.g. the client went away before an answer).
     */
    static String outcome(int status) {
        return switch (status) {
            case 200 -> "ok";
            case 404 -> "not_found";
            case 400, 405 -> "bad_request";
            case 413 -> "too_large";
            case 429 -> "throttled";
            case 502 -> "failed";
            case 503 -> "overloaded";
            default -> "error";
        };
    }

    private void limited(HttpExchange ex, Handler h, Counts counts) throws IOException {
        if (!permits.tryAcquire()) {
            ex.getResponseHeaders().set("Retry-After", "1");
            error(ex, 503, "more than " + limits.maxConcurrent() + " lookups in progress; retry later");
            return;
        }
        try (UserQuotas.Permit ignored = users.enter(user(ex))) {
            h.handle(ex, counts);
        } catch (IllegalArgumentException e) {
            error(ex, 400, e.getMessage());
        } catch (UserQuotas.Exceeded e) {
            ex.getResponseHeaders().set("Retry-After", Long.toString(e.retryAfterSeconds()));
            error(ex, 429, e.getMessage());
        } finally {
            permits.release();
        }
    }

    private void event(HttpExchange ex, Counts counts) throws IOException {
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
        counts.asked = 1;
        users.charge(user(ex), 1);
        LookupResult r = lookups.lookup(List.of(key), filter(ex.getRequestURI())).get(0);
        counts.found = r.found() ? 1 : 0;
        send(ex, r.failed() ? 502 : r.found() ? 200 : 404, LookupJson.toJson(r));
    }

    private void batch(HttpExchange ex, Counts counts) throws IOException {
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
        PickingBatch picking = PickingBatch.of(input, "request");
        LookupFilter filter = filter(ex.getRequestURI());
        counts.asked = picking.keys().size();
        users.charge(user(ex), picking.keys().size());
        List<LookupResult> results = lookups.lookup(picking.keys(), filter);
        counts.found = (int) results.stream().filter(LookupResult::found).count();
        send(ex, 200, picking.toJson(results));
    }

    /** {@code /datasets} and below: a dataset's figures, else its status ({@link #serve}). */
    private void datasets(HttpExchange ex) throws IOException {
        if (figures != null && DatasetFigures.isFigure(ex.getRequestURI())) {
            limited(ex, "figures", this::figure);
            return;
        }
        Handler status = datasetStatus;
        limited(ex, "datasets", status != null ? status
                : (e, c) -> error(e, 404, "not found: " + e.getRequestURI().getPath()));
    }

    private void figure(HttpExchange ex, Counts counts) throws IOException {
        DatasetFigures.Answer a = figures.answer(ex.getRequestMethod(), ex.getRequestURI());
        send(ex, a.status(), a.body());
    }

    /** @throws IllegalArgumentException for an unknown parameter or a bad pattern */
    static LookupFilter filter(URI uri) {
        QueryString q = QueryString.parse(uri.getRawQuery()).only(List.of("stream-type", "project", "ami-tag",
                "dataset"));
        Set<String> types = new LinkedHashSet<>();
        q.all("stream-type").forEach(v -> types.addAll(List.of(v.split(","))));
        types.remove("");
        return new LookupFilter(types, q.get("project").orElse(null), q.get("ami-tag").orElse(null),
                q.get("dataset").orElse(null));
    }

    private static void error(HttpExchange ex, int status, String message) throws IOException {
        send(ex, status, LookupJson.MAPPER.createObjectNode().put("error", message));
    }

    /** {@code body} as JSON with {@code status} (also {@link DatasetResources}'s answers). */
    static void send(HttpExchange ex, int status, Object body) throws IOException {
        byte[] bytes = LookupJson.MAPPER.writeValueAsBytes(body);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** Stops accepting requests and waits up to a second for those in progress, then stops checking. Idempotent. */
    @Override
    public void close() {
        server.stop(Duration.ofSeconds(1));
        if (checks != null) {
            checks.close();
        }
    }
}
