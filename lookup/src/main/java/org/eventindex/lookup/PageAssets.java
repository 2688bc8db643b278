package org.eventindex.lookup;

import com.sun.net.httpserver.HttpExchange;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The physicists' page: a fixed set of files from the jar ({@code org/eventindex/lookup/page/}), served under
 * {@code /page/} by the lookup service, so the page needs no network access beyond the service. {@code /} and
 * {@code /page} redirect to {@code /page/}. The page reads only the service's own JSON endpoints, from the same
 * origin, so it passes the service's TLS and authentication as any request does.
 */
final class PageAssets {
    static final String PATH = "/page/";
    private static final String FOLDER = "page/";
    /** Served name -> content type; nothing else is served (no path is ever resolved against the jar). */
    private static final Map<String, String> FILES = Map.of(
            "index.html", "text/html; charset=utf-8",
            "page.js", "text/javascript; charset=utf-8",
            "plots.js", "text/javascript; charset=utf-8",
            "page.css", "text/css; charset=utf-8");
    private final Map<String, byte[]> content;

    private PageAssets(Map<String, byte[]> content) {
        this.content = content;
    }

    /** Reads every file once, at start: a missing one is a build error, said before the service serves. */
    static PageAssets load() {
        Map<String, byte[]> content = new java.util.HashMap<>();
        for (String name : FILES.keySet()) {
            try (InputStream in = PageAssets.class.getResourceAsStream(FOLDER + name)) {
                if (in == null) {
                    throw new IllegalStateException("the page's file " + FOLDER + name + " is not in the jar");
                }
                content.put(name, in.readAllBytes());
            } catch (IOException e) {
                throw new UncheckedIOException("reading the page's file " + FOLDER + name + " failed", e);
            }
        }
        return new PageAssets(Map.copyOf(content));
    }

    /** Serves a request for {@code /} or anything under {@code /page}. */
    void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getPath();
            if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
                send(ex, 405, "text/plain; charset=utf-8", ("use GET " + path + "\n").getBytes(StandardCharsets.UTF_8));
                return;
            }
            if (path.equals("/") || path.equals("/page")) {
                ex.getResponseHeaders().set("Location", PATH);
                ex.sendResponseHeaders(302, -1);
                return;
            }
            String name = path.equals(PATH) ? "index.html"
                    : path.startsWith(PATH) ? path.substring(PATH.length()) : "";
            byte[] body = content.get(name);
            if (body == null) {
                send(ex, 404, "text/plain; charset=utf-8", ("not found: " + path + "\n")
                        .getBytes(StandardCharsets.UTF_8));
                return;
            }
            // no-cache: a browser revalidates, so a new version of the service shows its page at once
            ex.getResponseHeaders().set("Cache-Control", "no-cache");
            ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
            ex.getResponseHeaders().set("Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:;"
                    + " style-src 'self'; script-src 'self'; connect-src 'self'");
            send(ex, 200, FILES.get(name), "HEAD".equals(ex.getRequestMethod()) ? null : body);
        }
    }

    private static void send(HttpExchange ex, int status, String type, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, body == null ? -1 : body.length);
        if (body != null) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
