package org.eventindex.deploy.chaos;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.testing.TcpProxy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The chaos cluster's fault-injecting proxy ({@link TcpProxy}) as a process of its own, on the host of the service it
 * fronts (a broker, the S3 gateway): it listens on that host's address and forwards to the service, so that a partition
 * between a client's host and the service's host is one of the proxy's traffic too. The driver on the control host
 * commands it over HTTP on the same address ({@link FaultProxy} is its client):
 * <ul>
 *   <li>{@code POST /latency?ms=N}: delay every chunk by N ms from now on (0 lifts it);</li>
 *   <li>{@code POST /reset}: abort every open connection with a TCP RST; answers how many sockets;</li>
 *   <li>{@code POST /kill-at?pattern=P&pid=N}: the first time P passes from the service to a client, drop it with the
 *       connection and kill -9 process N (the service) before anything else passes; {@code GET /kill-at} answers
 *       {@code armed}, {@code struck} or {@code disarmed}, {@code POST /disarm} disarms a watch that has not struck;</li>
 *   <li>{@code POST /hold-at?direction=D&pattern=P}: the first time P passes in direction D ({@code CLIENT_TO_SERVER}
 *       or {@code SERVER_TO_CLIENT}), hold those bytes (that connection only) until {@code POST /release}; {@code GET /hold-at} answers {@code armed}, {@code holding} or
 *       {@code released};</li>
 *   <li>{@code GET /ready}: 200 once forwarding.</li>
 * </ul>
 */
@Command(name = "chaos-proxy", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "A fault-injecting TCP proxy commanded over HTTP, for the chaos cluster on hosts; until SIGTERM.")
public final class FaultProxyMain implements Callable<Integer> {
    @Option(names = "--listen", required = true, paramLabel = "ADDRESS", description = "the address to listen on")
    private String listen;
    @Option(names = "--port", required = true, paramLabel = "PORT", description = "the port clients connect to")
    private int port;
    @Option(names = "--control-port", required = true, paramLabel = "PORT", description = "the HTTP port the driver"
            + " commands the proxy on (same address)")
    private int controlPort;
    @Option(names = "--target", required = true, paramLabel = "HOST:PORT", description = "the service forwarded to")
    private String target;

    private final AtomicReference<String> watch = new AtomicReference<>("none");
    private volatile AtomicBoolean armed = new AtomicBoolean();
    private final AtomicReference<String> hold = new AtomicReference<>("none");
    private volatile CountDownLatch release = new CountDownLatch(0);

    private FaultProxyMain() {
    }

    public static void main(String[] args) {
        int status = execute(args, System.out, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    static int execute(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new FaultProxyMain(), args, out, err);
    }

    @Override
    public Integer call() throws Exception {
        int colon = target.lastIndexOf(':');
        if (colon < 1) {
            throw new IllegalArgumentException("--target must be HOST:PORT, was '" + target + "'");
        }
        InetAddress address = InetAddress.getByName(listen);
        TcpProxy proxy = TcpProxy.start(address, port, target.substring(0, colon),
                Integer.parseInt(target.substring(colon + 1)));
        HttpServer control = HttpServer.create(new InetSocketAddress(address, controlPort), 8);
        control.createContext("/", exchange -> {
            try {
                answer(exchange, 200, handle(proxy, exchange));
            } catch (IllegalArgumentException | IllegalStateException e) {
                answer(exchange, 400, e.getMessage() + "\n");
            }
        });
        control.start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            control.stop(0);
            proxy.close();
            stopped.countDown();
        }, "proxy-stop"));
        System.out.println("proxy on " + proxy.endpoint() + " to " + target + ", commanded on " + listen + ":"
                + controlPort);
        stopped.await();
        return 0;
    }

    private String handle(TcpProxy proxy, HttpExchange exchange) {
        String method = exchange.getRequestMethod();
        String path = exchange.getRequestURI().getPath();
        Map<String, String> q = query(exchange.getRequestURI().getRawQuery());
        return switch (method + " " + path) {
            case "GET /ready" -> "ready\n";
            case "POST /latency" -> {
                proxy.latency(Duration.ofMillis(Long.parseLong(required(q, "ms"))));
                yield "ok\n";
            }
            case "POST /reset" -> proxy.resetAll() + "\n";
            case "POST /kill-at" -> {
                String pattern = required(q, "pattern");
                long pid = Long.parseLong(required(q, "pid"));
                // A proxy's watch cannot be removed: one that did not strike stays and cuts one connection when its
                // pattern passes later (a reset, which every client survives); the flag keeps it from killing.
                AtomicBoolean flag = new AtomicBoolean(true);
                armed = flag;
                watch.set("armed");
                proxy.cutOnce(TcpProxy.Direction.SERVER_TO_CLIENT, pattern, () -> {
                    if (flag.compareAndSet(true, false)) {
                        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                        watch.set("struck");
                        System.out.println("killed " + pid + " as '" + pattern.strip() + "' passed");
                    }
                });
                yield "armed\n";
            }
            case "GET /kill-at" -> watch.get() + "\n";
            case "POST /hold-at" -> {
                String pattern = required(q, "pattern");
                CountDownLatch latch = new CountDownLatch(1);
                release = latch;
                hold.set("armed");
                TcpProxy.Direction direction = TcpProxy.Direction.valueOf(required(q, "direction"));
                proxy.holdOnce(direction, pattern, () -> {
                    if (hold.compareAndSet("armed", "holding")) {
                        System.out.println("holding '" + pattern.strip() + "' until released");
                        try {
                            // bounded: a driver that died must not hold a connection forever
                            latch.await(2, java.util.concurrent.TimeUnit.MINUTES);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        hold.set("released");
                    }
                });
                yield "armed\n";
            }
            case "GET /hold-at" -> hold.get() + "\n";
            case "POST /release" -> {
                hold.compareAndSet("armed", "released");
                release.countDown();
                yield hold.get() + "\n";
            }
            case "POST /disarm" -> {
                if (armed.compareAndSet(true, false)) {
                    watch.set("disarmed");
                }
                yield watch.get() + "\n";
            }
            default -> throw new IllegalArgumentException("no such command: " + method + " " + path);
        };
    }

    private static String required(Map<String, String> q, String name) {
        String v = q.get(name);
        if (v == null) {
            throw new IllegalArgumentException("missing query parameter " + name);
        }
        return v;
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new HashMap<>();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                }
            }
        }
        return out;
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
