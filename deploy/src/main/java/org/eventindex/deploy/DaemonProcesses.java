package org.eventindex.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
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
 * What a harness needs to run the daemons as processes on this machine, as in production: their configuration file,
 * a free port for their operations HTTP server, and a GET on that server.
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

    /** A TCP port free on 127.0.0.1 right now (the daemon binds it soon after; fixed so restarts keep it). */
    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free TCP port on 127.0.0.1", e);
        }
    }

    /**
     * The sum of the samples named {@code name} in a Prometheus text exposition whose labels contain {@code label}
     * (e.g. {@code area="heap"}; empty: every sample), -1 when there is none.
     */
    public static double metric(String exposition, String name, String label) {
        double sum = -1;
        for (String line : exposition.split("\n")) {
            if (!(line.startsWith(name + " ") || line.startsWith(name + "{"))) {
                continue;
            }
            int close = line.lastIndexOf('}');
            String labels = close < 0 ? "" : line.substring(name.length(), close + 1);
            if (labels.contains(label)) {
                String value = line.substring(close < 0 ? name.length() : close + 1).strip().split("\\s+")[0];
                sum = Math.max(sum, 0) + Double.parseDouble(value);
            }
        }
        return sum;
    }

    /** GET on a daemon's operations port on 127.0.0.1; empty when it does not answer within 5 s. */
    public static Optional<HttpResponse<String>> get(HttpClient http, int port, String path) {
        try {
            return Optional.of(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()));
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
