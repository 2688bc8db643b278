package org.eventindex.brokerwatch;

import org.eventindex.ops.OpsHttpServer;
import org.eventindex.testing.HttpGets;
import org.eventindex.testing.Await;
import org.eventindex.testing.ChildJvm;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.Ports;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code eventindex broker-watchdog} as a process serves {@code /health}, {@code /ready} and {@code /metrics} like the
 * other daemons: ready and answering beside a real broker; not ready, with its silent probes counted, beside a port
 * that takes connections and never answers (a stopped broker).
 */
class BrokerWatchdogHttpIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void beside_aBrokerThatAnswers_itIsReadyAndSaysSo() throws Exception {
        try (EmbeddedBroker broker = EmbeddedBroker.start(dir.resolve("broker"))) {
            int port = Ports.free();
            Process watchdog = start(broker.stompPort(), port, "answering.log");
            try {
                String base = "http://127.0.0.1:" + port;
                Await.until("the watchdog ready", TIMEOUT, () -> HttpGets.status(base + "/ready") == 200);
                assertEquals(200, HttpGets.status(base + "/health"));
                String metrics = HttpGets.body(base + "/metrics");
                assertTrue(metrics.contains("\n" + BrokerWatchMetrics.ANSWERING + " 1.0\n"), metrics);
                assertTrue(metrics.contains("\n" + BrokerWatchMetrics.LISTENING + " 1.0\n"), metrics);
                assertTrue(metrics.contains("\n" + OpsHttpServer.READY + " 1.0\n"), metrics);
                assertTrue(metrics.contains("eventindex_build_info{daemon=\"brokerwatch\""), metrics);
                assertTrue(metrics.contains("\n" + BrokerWatchMetrics.KILLS + " 0.0\n"), metrics);
            } finally {
                stop(watchdog);
            }
        }
    }

    @Test
    void beside_aSilentBroker_itIsNotReadyAndCountsTheSilentProbes() throws Exception {
        try (ServerSocket mute = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int port = Ports.free();
            Process watchdog = start(mute.getLocalPort(), port, "silent.log");
            try {
                String base = "http://127.0.0.1:" + port;
                Await.until("a silent probe counted", TIMEOUT, () -> HttpGets.status(base + "/health") == 200
                        && silentProbes(HttpGets.body(base + "/metrics")) >= 1);
                HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(base + "/ready")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(503, ready.statusCode());
                assertTrue(ready.body().contains("the broker listens but did not answer"), ready.body());
                String metrics = HttpGets.body(base + "/metrics");
                assertTrue(metrics.contains("\n" + BrokerWatchMetrics.ANSWERING + " 0.0\n"), metrics);
                assertTrue(metrics.contains("\n" + OpsHttpServer.READY + " 0.0\n"), metrics);
            } finally {
                stop(watchdog);
            }
        }
    }

    private Process start(int brokerPort, int httpPort, String log) throws IOException {
        // many silent probes before a kill, and no pid file: this test never kills anything
        return ChildJvm.main(BrokerWatchdogMain.class).quickStart().args("--broker", "127.0.0.1:" + brokerPort,
                "--pid-file", dir.resolve("none.pid").toString(), "--interval", "200ms", "--timeout", "500ms",
                "--silent-probes", "1000", "--http-port", Integer.toString(httpPort)).start(dir.resolve(log));
    }

    private void stop(Process p) throws Exception {
        p.destroy();
        if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
        }
    }

    private static double silentProbes(String metrics) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\n" + BrokerWatchMetrics.PROBES
                + "\\{outcome=\"silent\"} ([0-9.E]+)\n").matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }
}
