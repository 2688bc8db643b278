package org.eventindex.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Plain GETs of a daemon's HTTP endpoints, for tests that poll them with {@link Await} while the daemon may not
 * listen yet: a failed request is an answer ({@code ""} or {@code -1}), not an exception. Connect timeout 2 s.
 */
public final class HttpGets {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private HttpGets() {
    }

    /** The body of a GET of {@code url}, {@code ""} when it fails (within 5 s). */
    public static String body(String url) {
        try {
            return HTTP.send(request(url, TIMEOUT), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** The status of a GET of {@code url}, -1 when it fails (within 5 s). */
    public static int status(String url) {
        return status(url, TIMEOUT);
    }

    /** The status of a GET of {@code url}, -1 when it fails (within {@code timeout}). */
    public static int status(String url, Duration timeout) {
        try {
            return HTTP.send(request(url, timeout), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static HttpRequest request(String url, Duration timeout) {
        return HttpRequest.newBuilder(URI.create(url)).timeout(timeout).build();
    }
}
