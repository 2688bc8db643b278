package org.eventindex.supervisor;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The web console's pages and assets, served from the jar at {@code /} (every path no other resource of the ops
 * server takes): {@code /} the overview, {@code /view/datasets}, {@code /view/datasets/<name>},
 * {@code /view/consumers}, {@code /view/plots} (one page, {@code console/index.html}, whose script draws the view
 * the path names; the server puts the view's title in), and {@code /static/<file>} (the script, the style sheet).
 * Nothing is fetched from elsewhere: the Content-Security-Policy allows this origin only. Read-only: GET and HEAD.
 */
final class ConsoleAssets implements HttpHandler {
    private static final String ROOT = "/console/";
    private static final Pattern ASSET = Pattern.compile("[a-z0-9-]+\\.(js|css|svg)");
    private static final Map<String, String> TYPES = Map.of("js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8", "svg", "image/svg+xml");
    private static final String CSP = "default-src 'self'; img-src 'self' data:; style-src 'self';"
            + " script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

    private final String page;

    ConsoleAssets() {
        page = new String(resource("index.html"), StandardCharsets.UTF_8);
    }

    /** The title of the view at {@code path}, null when no view is there. */
    static String title(String path) {
        if (path.equals("/")) {
            return "Overview";
        } else if (path.equals("/view/datasets")) {
            return "Datasets";
        } else if (path.startsWith("/view/datasets/") && path.length() > "/view/datasets/".length()) {
            return "Dataset " + path.substring("/view/datasets/".length());
        } else if (path.equals("/view/consumers")) {
            return "Consumers";
        } else if (path.equals("/view/plots")) {
            return "Plots";
        }
        return null;
    }

    @Override
    public void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String method = ex.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                ex.getResponseHeaders().set("Allow", "GET, HEAD");
                send(ex, 405, "text/plain; charset=utf-8", ("the console is read-only: " + method
                        + " is not allowed\n").getBytes(StandardCharsets.UTF_8));
                return;
            }
            String path = ex.getRequestURI().getPath();
            String title = title(path);
            if (title != null) {
                String html = page.replace("{{title}}", escape(title) + " \u2014 EventIndex supervisor");
                send(ex, 200, "text/html; charset=utf-8", html.getBytes(StandardCharsets.UTF_8));
            } else if (path.startsWith("/static/") && ASSET.matcher(path.substring(8)).matches()) {
                String name = path.substring(8);
                byte[] body = resourceOrNull(name);
                if (body == null) {
                    notFound(ex, path);
                } else {
                    send(ex, 200, TYPES.get(name.substring(name.lastIndexOf('.') + 1)), body);
                }
            } else {
                notFound(ex, path);
            }
        }
    }

    private static void notFound(HttpExchange ex, String path) throws IOException {
        send(ex, 404, "text/plain; charset=utf-8", ("not found: " + path + " (the console is at /; the JSON at"
                + " /datasets, /consumers, /supervisor, /console/...; docs/supervisor.md lists them)\n")
                .getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange ex, int status, String type, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.getResponseHeaders().set("Content-Security-Policy", CSP);
        ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        ex.getResponseHeaders().set("Cache-Control", "no-cache");
        boolean head = ex.getRequestMethod().equals("HEAD");
        ex.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static byte[] resource(String name) {
        byte[] b = resourceOrNull(name);
        if (b == null) {
            throw new IllegalStateException("console asset " + ROOT + name + " is missing from the supervisor's jar");
        }
        return b;
    }

    private static byte[] resourceOrNull(String name) {
        try (InputStream in = ConsoleAssets.class.getResourceAsStream(ROOT + name)) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("reading console asset " + ROOT + name, e);
        }
    }
}
