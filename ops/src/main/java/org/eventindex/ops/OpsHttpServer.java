package org.eventindex.ops;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpPrincipal;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.message.Json;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * The one HTTP server of every daemon: {@code /health} (liveness: 200 while the daemon can work, 503 with the reason
 * when it cannot recover by itself and must be restarted), {@code /ready} (200 only when the daemon's dependencies are
 * reachable, 503 otherwise; a JSON {@link Readiness} naming the failing dependency and its error), {@code /metrics}
 * (the daemon's registry, see {@link DaemonMetrics}, in the Prometheus text format), plus what the daemon adds before
 * {@link #start()}: JSON resources ({@link #json}), Server-Sent Events streams ({@link #eventStream}) and its own API
 * ({@link #handle}). Port 0 picks a free port ({@link #port()} tells which).
 * <p>
 * Its {@link HttpAccess} decides how it is reached: over TLS or plain HTTP, every path behind the authentication or
 * none, and whether {@code /health}, {@code /ready} and {@code /metrics} are also served on a second, plain and
 * unauthenticated bind ({@link #metricsPort()}). A handler finds the authenticated user with {@link #user}.
 */
public final class OpsHttpServer implements AutoCloseable {
    /** Request threads when the daemon does not say; a stream subscriber is handed off and holds none. */
    public static final int DEFAULT_THREADS = 4;
    /** Gauge registered in the daemon's registry: 1 while {@code /ready} would answer 200, else 0. */
    public static final String READY = "eventindex_ready";

    static {
        // TCP_NODELAY on the server's connections (read once, when the JDK's HTTP server first starts): an event
        // stream writes small frames, and without it each waited for the client's delayed ACK, 40 ms a change
        // (measured by the supervisor's InformationServiceTest). A value set on the command line is kept.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    /** The HTTP server's key store, client trust store and keytab in {@value CredentialFiles#AGE}. */
    private static void credentialAges(HttpAccess access, PrometheusRegistry metrics) {
        Clock clock = Clock.systemUTC();
        access.keyStore().ifPresent(f -> CredentialFiles.age(metrics, clock, access.prefix() + "keystore", "keystore",
                f));
        if (access.mechanisms().contains(HttpAccess.Mechanism.CERTIFICATE) && access.clientTrust() != null) {
            CredentialFiles.age(metrics, clock, access.prefix() + "truststore", "truststore",
                    access.clientTrust().file());
        }
        if (access.mechanisms().contains(HttpAccess.Mechanism.KERBEROS)) {
            CredentialFiles.age(metrics, clock, access.prefix() + "kerberos.keytab", "keytab",
                    access.kerberosKeytab());
        }
    }

    private final HttpServer server;
    private final HttpServer metricsServer;
    private final HttpAuthenticator authenticator;
    private final HttpAccess access;
    private final ExecutorService executor;
    private final AtomicInteger subscriberIds = new AtomicInteger();

    /**
     * @param health    whether the daemon is alive ({@code /health}); not ready means it must be restarted
     * @param readiness whether it can do its work now ({@code /ready})
     */
    public OpsHttpServer(String bindHost, int port, PrometheusRegistry metrics, Supplier<Readiness> health,
                         Supplier<Readiness> readiness) throws IOException {
        this(new InetSocketAddress(bindHost, port), DEFAULT_THREADS, metrics, health, readiness);
    }

    /**
     * @param threads request threads (a daemon serving its own API sizes them for it)
     * @throws IOException when the address cannot be bound (the message names it)
     */
    public OpsHttpServer(InetSocketAddress address, int threads, PrometheusRegistry metrics, Supplier<Readiness> health,
                         Supplier<Readiness> readiness) throws IOException {
        this(address, threads, metrics, health, readiness, HttpAccess.open());
    }

    /**
     * @param access TLS, authentication and the separate metrics bind
     * @throws IOException when an address cannot be bound or the keytab cannot be read (the message names it)
     * @throws IllegalArgumentException when the key store or trust store cannot be used (the message names the key)
     */
    public OpsHttpServer(InetSocketAddress address, int threads, PrometheusRegistry metrics, Supplier<Readiness> health,
                         Supplier<Readiness> readiness, HttpAccess access) throws IOException {
        Objects.requireNonNull(address, "address is null");
        this.access = Objects.requireNonNull(access, "access is null");
        Objects.requireNonNull(metrics, "metrics is null");
        Objects.requireNonNull(health, "health is null");
        Objects.requireNonNull(readiness, "readiness is null");
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, got " + threads);
        }
        SSLContext tls = access.tls() ? access.sslContext(f -> {
            CredentialFiles.reloadFailures(metrics, f.what(), f::failures);
            if (f.current() instanceof X509ExtendedKeyManager) {
                // the certificate served now, for its expiry
                CertificateExpiry.served(metrics, "http", () -> (X509ExtendedKeyManager) f.current());
            }
        }) : null;
        credentialAges(access, metrics);
        authenticator = access.authenticated() ? new HttpAuthenticator(access,
                access.mechanisms().contains(HttpAccess.Mechanism.KERBEROS) ? SpnegoAcceptor.login(
                        access.kerberosPrincipal(), access.kerberosKeytab(), access.prefix() + "kerberos.keytab")
                        : null, metrics) : null;
        server = bind(address, tls, access.mechanisms().contains(HttpAccess.Mechanism.CERTIFICATE),
                !access.mechanisms().contains(HttpAccess.Mechanism.KERBEROS));
        if (access.metricsPort().isPresent()) {
            InetSocketAddress open = new InetSocketAddress(access.metricsHost().isEmpty() ? address.getHostString()
                    : access.metricsHost(), access.metricsPort().get());
            try {
                metricsServer = bind(open, null, false, false);
            } catch (IOException e) {
                server.stop(0);
                throw new IOException(e.getMessage() + " (" + access.prefix() + "metrics.port)", e);
            }
        } else {
            metricsServer = null;
        }
        executor = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "ops-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        DaemonMetrics.gauge(metrics, READY, "1 while the daemon is ready (its /ready answers 200), else 0.",
                () -> readiness.get().ready() ? 1 : 0);
        HttpHandler healthHandler = ex -> {
            Readiness h = health.get();
            respond(ex, h.ready() ? 200 : 503, "text/plain", (h.ready() ? "ok" : "failed: " + h.reason()) + "\n");
        };
        HttpHandler readyHandler = ex -> {
            Readiness r = readiness.get();
            respondJson(ex, r.ready() ? 200 : 503, r);
        };
        PrometheusTextFormatWriter text = PrometheusTextFormatWriter.create();
        HttpHandler metricsHandler = ex -> {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            text.write(body, metrics.scrape());
            respond(ex, 200, text.getContentType(), body.toByteArray());
        };
        context("/health", healthHandler);
        context("/ready", readyHandler);
        context("/metrics", metricsHandler);
        if (metricsServer != null) {
            // the one rule of the separate bind: only these three read-only paths, no authentication, plain HTTP
            metricsServer.setExecutor(executor);
            metricsServer.createContext("/health", healthHandler);
            metricsServer.createContext("/ready", readyHandler);
            metricsServer.createContext("/metrics", metricsHandler);
            metricsServer.createContext("/", ex -> respond(ex, 404, "text/plain",
                    "only /health, /ready and /metrics are served on this port\n"));
        }
    }

    /**
     * @param askCertificate ask the client for its certificate
     * @param needCertificate refuse the handshake without one (certificates are the only way in)
     */
    private static HttpServer bind(InetSocketAddress address, SSLContext tls, boolean askCertificate,
                                   boolean needCertificate) throws IOException {
        try {
            if (tls == null) {
                return HttpServer.create(address, 128);
            }
            HttpsServer https = HttpsServer.create(address, 128);
            https.setHttpsConfigurator(new HttpsConfigurator(tls) {
                @Override
                public void configure(HttpsParameters params) {
                    SSLParameters p = tls.getDefaultSSLParameters();
                    p.setProtocols(new String[]{"TLSv1.3", "TLSv1.2"});
                    if (askCertificate && needCertificate) {
                        p.setNeedClientAuth(true);
                    } else if (askCertificate) {
                        p.setWantClientAuth(true);
                    }
                    params.setSSLParameters(p);
                }
            });
            return https;
        } catch (IOException e) {
            throw new IOException("cannot serve " + (tls == null ? "HTTP" : "HTTPS") + " on " + address.getHostString()
                    + ":" + address.getPort() + ": " + e.getMessage(), e);
        }
    }

    /** Every path of the main bind goes through here: under the authentication when there is one. */
    private void context(String path, HttpHandler handler) {
        HttpContext context = server.createContext(path, handler);
        if (authenticator != null) {
            context.setAuthenticator(authenticator);
        }
    }

    /**
     * The authenticated user of a request: a Kerberos principal ({@code alice@EXAMPLE.ORG}) or a certificate's
     * subject DN ({@code CN=alice,OU=Users,O=Example}); empty when the server requires no authentication.
     */
    public static Optional<String> user(HttpExchange ex) {
        HttpPrincipal p = ex.getPrincipal();
        return p == null ? Optional.empty() : Optional.of(p.getUsername());
    }

    /** Serves {@code supplier.get()} as JSON at {@code path}; a null result is a 404. */
    public void json(String path, Supplier<Object> supplier) {
        Objects.requireNonNull(supplier, "supplier is null");
        json(path, (rest, query) -> rest.isEmpty() ? supplier.get() : null);
    }

    /**
     * Serves JSON at {@code path} and below it: the resource gets the rest of the path after {@code path} and
     * {@code /} (empty for {@code path} itself) and the raw query. A null result is a 404, an
     * {@link IllegalArgumentException} a 400 with its message.
     */
    public void json(String path, JsonResource resource) {
        Objects.requireNonNull(resource, "resource is null");
        context(path, ex -> {
            String full = ex.getRequestURI().getPath();
            String rest = full.length() <= path.length() ? "" : full.substring(path.length());
            if (!rest.isEmpty() && !rest.startsWith("/")) {
                respondJson(ex, 404, error("not found: " + full));
                return;
            }
            Object body;
            try {
                body = resource.get(rest.isEmpty() ? "" : rest.substring(1),
                        QueryString.parse(ex.getRequestURI().getRawQuery()));
            } catch (IllegalArgumentException e) {
                respondJson(ex, 400, error(e.getMessage()));
                return;
            }
            if (body == null) {
                respondJson(ex, 404, error("not found: " + full));
            } else {
                respondJson(ex, 200, body);
            }
        });
    }

    /**
     * Serves a Server-Sent Events stream at {@code path}: the response headers go out at once and the open body is
     * handed to {@code subscriber}, which must not block the request thread (it writes from its own thread and calls
     * the close action when done).
     */
    public void eventStream(String path, StreamSubscriber subscriber) {
        Objects.requireNonNull(subscriber, "subscriber is null");
        context(path, ex -> {
            ex.getResponseHeaders().set("Content-Type", "text/event-stream");
            ex.getResponseHeaders().set("Cache-Control", "no-cache");
            ex.sendResponseHeaders(200, 0);
            subscriber.subscribe(ex.getRemoteAddress() + "#" + subscriberIds.incrementAndGet(), ex.getResponseBody(),
                    ex::close);
        });
    }

    /** Serves the daemon's own API at {@code path} (and below it) on the ops server's request threads. */
    public void handle(String path, HttpHandler handler) {
        context(path, Objects.requireNonNull(handler, "handler is null"));
    }

    public void start() {
        server.start();
        if (metricsServer != null) {
            metricsServer.start();
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** The port of the unauthenticated {@code /health}, {@code /ready} and {@code /metrics} bind, if there is one. */
    public Optional<Integer> metricsPort() {
        return metricsServer == null ? Optional.empty() : Optional.of(metricsServer.getAddress().getPort());
    }

    /** How the server is reached and who may use it. */
    public HttpAccess access() {
        return access;
    }

    /** Stops at once, dropping requests in progress. Idempotent. */
    @Override
    public void close() {
        stop(Duration.ZERO);
    }

    /** Stops accepting requests and waits up to {@code grace} for those in progress. Idempotent. */
    public void stop(Duration grace) {
        if (metricsServer != null) {
            metricsServer.stop(0);
        }
        server.stop((int) Math.min(Integer.MAX_VALUE, grace.toSeconds()));
        executor.shutdownNow();
    }

    private static Map<String, String> error(String message) {
        Map<String, String> err = new LinkedHashMap<>();
        err.put("error", message);
        return err;
    }

    private static void respondJson(HttpExchange ex, int status, Object body) throws IOException {
        respond(ex, status, "application/json", new String(Json.write(body), StandardCharsets.UTF_8));
    }

    private static void respond(HttpExchange ex, int status, String type, String body) throws IOException {
        respond(ex, status, type, body.getBytes(StandardCharsets.UTF_8));
    }

    private static void respond(HttpExchange ex, int status, String type, byte[] bytes) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** A JSON resource with sub-paths and a query (e.g. {@code /datasets}, {@code /datasets/<name>}). */
    @FunctionalInterface
    public interface JsonResource {
        /**
         * @param rest  the path below the resource's, without the leading slash; empty for the resource itself
         * @param query the request's query string, parsed (empty without one)
         * @return the body, or null for 404
         * @throws IllegalArgumentException for a bad query (400 with the message)
         */
        Object get(String rest, QueryString query);
    }

    /** Takes over a stream connection: writes to {@code out} from its own thread, runs {@code close} at the end. */
    @FunctionalInterface
    public interface StreamSubscriber {
        void subscribe(String clientId, OutputStream out, Runnable close) throws IOException;
    }

    /**
     * Whether a daemon can do its work now, and if not, why; {@code /ready} serves it as JSON
     * ({@code {"ready":false,"reason":"kudu: ...","dependencies":[...]}}).
     *
     * @param reason       empty when ready
     * @param dependencies the last check of each dependency checked in the background ({@link DependencyChecks});
     *                     empty when the daemon checks none
     */
    public record Readiness(@JsonProperty("ready") boolean ready, @JsonProperty("reason") String reason,
                            @JsonProperty("dependencies") List<DependencyStatus> dependencies) {
        public Readiness {
            Objects.requireNonNull(reason, "reason is null");
            dependencies = List.copyOf(Objects.requireNonNull(dependencies, "dependencies is null"));
        }

        public static Readiness ok() {
            return new Readiness(true, "", List.of());
        }

        public static Readiness notReady(String reason) {
            return new Readiness(false, reason, List.of());
        }

        /**
         * The brokers' part of a daemon's readiness: ready while every queue is subscribed on at least one broker.
         * Each broker is a dependency named {@code broker <broker>}, down (with the queues it does not serve) while
         * some queue is not subscribed on it, so that {@code /ready} says which brokers are missing while the daemon
         * works through the others.
         *
         * @param subscriptions queue to (broker to subscribed), as {@link DaemonMetrics#brokerSubscriptions} takes
         * @param now           the time of the verdict
         */
        public static Readiness brokers(Map<String, Map<String, Boolean>> subscriptions, Instant now) {
            Map<String, List<String>> missing = new TreeMap<>();
            List<String> unread = new ArrayList<>();
            subscriptions.forEach((queue, brokers) -> {
                if (!brokers.containsValue(true)) {
                    unread.add(queue + " (brokers " + (brokers.isEmpty() ? "not resolved yet" : brokers.keySet()) + ")");
                }
                brokers.forEach((b, up) -> {
                    List<String> queues = missing.computeIfAbsent(b, k -> new ArrayList<>());
                    if (!up) {
                        queues.add(queue);
                    }
                });
            });
            List<DependencyStatus> deps = new ArrayList<>();
            missing.forEach((b, queues) -> deps.add(new DependencyStatus("broker " + b, queues.isEmpty(),
                    queues.isEmpty() ? null : "not subscribed to " + String.join(", ", queues), now)));
            return new Readiness(unread.isEmpty(), unread.isEmpty() ? ""
                    : "not subscribed on any broker to " + String.join(", ", unread), deps);
        }

        /** Ready when every dependency is up; otherwise the reason names the first one down and its error. */
        public static Readiness of(List<DependencyStatus> dependencies) {
            return dependencies.stream().filter(d -> !d.up()).findFirst()
                    .map(d -> new Readiness(false, d.name() + ": " + d.error(), dependencies))
                    .orElseGet(() -> new Readiness(true, "", dependencies));
        }
    }
}
