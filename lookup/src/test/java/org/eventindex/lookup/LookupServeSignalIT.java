package org.eventindex.lookup;

import static org.eventindex.lookup.LookupFixture.CONFIG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.eventindex.testing.DaemonProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.eventindex.testing.Ports;

/**
 * {@code eventindex lookup serve} as its own process on a real Kudu, stopped by a real SIGTERM (systemd's stop) or
 * SIGINT (Ctrl-C) after it answered a lookup: it closes its server and exits 0, as docs/lookup.md says (the JVM alone
 * exits 143 or 130).
 */
class LookupServeSignalIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @TempDir
    static Path dir;
    private static LookupFixture fixture;

    @BeforeAll
    static void start() throws Exception {
        fixture = LookupFixture.start(dir);
    }

    @AfterAll
    static void stop() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void aSignalStopsTheServerWithExitZero(String signal) throws Exception {
        int port = Ports.free();
        try (DaemonProcess serve = DaemonProcess.start(LookupMain.class, dir.resolve("serve-" + signal + ".log"),
                "serve", "--masters", fixture.masters(), "--prefix", CONFIG.prefix(), "--port",
                Integer.toString(port))) {
            // /health answers as soon as it serves; /ready once Kudu answered
            serve.awaitHttpOk(port, "/ready", TIMEOUT);
            HttpResponse<String> found = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + port + "/events/" + LookupFixture.RUN + "/5")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, found.statusCode(), found.body());
            serve.signal(signal);
            assertEquals(0, serve.awaitExit(TIMEOUT), serve.log());
            assertTrue(serve.log().contains("lookup serve: SIG" + signal + " received, stopping"), serve.log());
        }
    }

    /** A stop while it still waits for Kudu masters that do not answer (nothing listens on the port) also exits 0. */
    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void aSignalDuringTheWaitForKuduExitsZero(String signal) throws Exception {
        String masters = "127.0.0.1:" + Ports.free();
        try (DaemonProcess serve = DaemonProcess.start(LookupMain.class, dir.resolve("wait-" + signal + ".log"),
                "serve", "--masters", masters, "--kudu-timeout", "600", "--port", "0")) {
            serve.awaitLog("waiting for the Kudu masters " + masters, TIMEOUT);
            serve.signal(signal);
            // well within the 600 s the wait would take
            assertEquals(0, serve.awaitExit(TIMEOUT), serve.log());
            assertTrue(serve.log().contains("lookup serve: SIG" + signal + " received while waiting for Kudu,"
                    + " stopping"), serve.log());
        }
    }
}
