package org.eventindex.deploy;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * What a harness needs to run the daemons as processes on this machine, as in production: their configuration file
 * and a GET on their operations HTTP server (free ports, child JVMs and the /metrics text: the test kit's Ports,
 * ChildJvm and MetricsText).
 */
public final class DaemonProcesses {
    private DaemonProcesses() {
    }

    /** Writes {@code config} as a properties file that {@code run --config FILE} reads (backslashes escaped). */
    public static Path writeConfig(Path file, Map<String, String> config) throws IOException {
        StringBuilder sb = new StringBuilder();
        config.forEach((k, v) -> sb.append(k).append('=').append(v.replace("\\", "\\\\")).append('\n'));
        return Files.writeString(file, sb.toString());
    }

    /** GET on a daemon's operations port on 127.0.0.1; empty when it does not answer within 5 s. */
    public static Optional<HttpResponse<String>> get(HttpClient http, int port, String path) {
        return get(http, "127.0.0.1", port, path);
    }

    /** GET on a daemon's operations port on {@code address}; empty when it does not answer within 5 s. */
    public static Optional<HttpResponse<String>> get(HttpClient http, String address, int port, String path) {
        try {
            return Optional.of(http.send(HttpRequest.newBuilder(URI.create("http://" + address + ":" + port + path))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()));
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
