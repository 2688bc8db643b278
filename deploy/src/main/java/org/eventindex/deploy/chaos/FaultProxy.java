package org.eventindex.deploy.chaos;

import org.eventindex.testing.Ports;
import org.eventindex.testing.TcpProxy;
import org.eventindex.testing.hosts.Host;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * The driver's handle on a {@link FaultProxyMain} process running on a service's host: where clients reach the service
 * through it ({@link #endpoint()}), and its faults (latency, resets, a kill of the service as a pattern passes).
 */
final class FaultProxy implements AutoCloseable {
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

    private final ChildProcess process;
    private final Host host;
    private final int port;
    private final int controlPort;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private FaultProxy(ChildProcess process, Host host, int port, int controlPort) {
        this.process = process;
        this.host = host;
        this.port = port;
        this.controlPort = controlPort;
    }

    /** Starts a proxy named {@code name} on {@code host} in front of {@code target} and waits until it answers. */
    static FaultProxy start(String name, Host host, String target, String classPath, Path log, Duration timeout) {
        int port = Ports.freeForRestart();
        int controlPort = Ports.freeForRestart();
        ChildProcess p = new ChildProcess(name, ChildProcess.java(FaultProxyMain.class.getName(), classPath, "64m")
                .args("--listen", host.address(), "--port", Integer.toString(port), "--control-port",
                        Integer.toString(controlPort), "--target", Objects.requireNonNull(target, "target is null"))
                .on(host).command(), Map.of(), log);
        FaultProxy proxy = new FaultProxy(p, host, port, controlPort);
        p.start();
        try {
            ChaosWait.until(name + " answering on " + host.endpoint(controlPort) + " (log " + log + ")", timeout,
                    () -> {
                        if (!p.isAlive()) {
                            throw new IllegalStateException(name + " exited; see " + log);
                        }
                        return proxy.command("GET", "/ready").isPresent();
                    });
            return proxy;
        } catch (RuntimeException e) {
            p.close();
            throw e;
        }
    }

    /** {@code ADDRESS:PORT} clients connect to. */
    String endpoint() {
        return host.endpoint(port);
    }

    Host host() {
        return host;
    }

    /** Delays every chunk by {@code delay} from now on; zero lifts it. */
    void latency(Duration delay) {
        require("POST", "/latency?ms=" + delay.toMillis());
    }

    /** Aborts every open connection (TCP RST); the number of sockets aborted. */
    int resetAll() {
        return Integer.parseInt(require("POST", "/reset").strip());
    }

    /**
     * Kills (SIGKILL) process {@code pid} the first time {@code pattern} passes from the service to a client, that
     * chunk dropped with its connection; {@link #struck()} tells when it happened, {@link #disarm()} stops a watch that
     * did not strike from killing.
     */
    void killAt(String pattern, long pid) {
        require("POST", "/kill-at?pattern=" + URLEncoder.encode(pattern, StandardCharsets.UTF_8) + "&pid=" + pid);
    }

    boolean struck() {
        return "struck".equals(require("GET", "/kill-at").strip());
    }

    /** Disarms the watch; true when it had struck before (the kill happened). */
    boolean disarm() {
        return "struck".equals(require("POST", "/disarm").strip());
    }

    /**
     * Holds back the first bytes carrying {@code pattern} in {@code direction} (that connection only) until
     * {@link #release()}; {@link #holding()} tells when it happened.
     */
    void holdAt(TcpProxy.Direction direction, String pattern) {
        require("POST", "/hold-at?direction=" + direction + "&pattern=" + URLEncoder.encode(pattern,
                StandardCharsets.UTF_8));
    }

    boolean holding() {
        return "holding".equals(require("GET", "/hold-at").strip());
    }

    /** Forwards what is held (or disarms the watch that did not strike). */
    void release() {
        require("POST", "/release");
    }

    ChildProcess process() {
        return process;
    }

    private String require(String method, String pathAndQuery) {
        return command(method, pathAndQuery).orElseThrow(() -> new IllegalStateException(process.name() + " on "
                + host + " did not answer " + method + " " + pathAndQuery + " (log " + process.log() + ")"));
    }

    private java.util.Optional<String> command(String method, String pathAndQuery) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + host.endpoint(controlPort) + pathAndQuery))
                .timeout(COMMAND_TIMEOUT).method(method, HttpRequest.BodyPublishers.noBody()).build();
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException(process.name() + " refused " + method + " " + pathAndQuery + ": "
                        + r.statusCode() + " " + r.body().strip());
            }
            return java.util.Optional.of(r.body());
        } catch (IOException e) {
            return java.util.Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while commanding " + process.name(), e);
        }
    }

    @Override
    public void close() {
        process.close();
    }

    @Override
    public String toString() {
        return process.name() + " (" + endpoint() + ")";
    }
}
