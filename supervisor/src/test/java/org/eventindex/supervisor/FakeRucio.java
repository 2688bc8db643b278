package org.eventindex.supervisor;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local HTTP server speaking the two Rucio REST endpoints the supervisor uses: {@code GET /auth/userpass}
 * (account/user/password headers -> {@code X-Rucio-Auth-Token}) and {@code GET /dids/{scope}/{name}/files}
 * (token required; JSON lines). Tokens can be expired at will to exercise re-authentication.
 */
final class FakeRucio implements AutoCloseable {
    static final String ACCOUNT = "eventindex";
    static final String USER = "ei-robot";
    static final String PASSWORD = "pw-123";

    private final HttpServer server;
    private final Map<String, List<String>> filesByDid = new ConcurrentHashMap<>();
    private final Set<String> validTokens = ConcurrentHashMap.newKeySet();
    private final AtomicInteger logins = new AtomicInteger();
    private final AtomicInteger listings = new AtomicInteger();
    private volatile Instant tokenExpiry = Instant.parse("2100-01-01T00:00:00Z");
    private volatile boolean arrayBodies;

    FakeRucio() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.createContext("/auth/userpass", this::auth);
        server.createContext("/dids/", this::files);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Sets the files of {@code scope:name}: each a JSON object line as Rucio returns them. */
    void dataset(String scope, String name, List<String> fileJson) {
        filesByDid.put(scope + ":" + name, List.copyOf(fileJson));
    }

    static String file(String name, String guid, Long events) {
        return "{\"scope\":\"data17_13TeV\",\"name\":\"" + name + "\",\"bytes\":1000,\"adler32\":\"0a0b0c0d\","
                + "\"guid\":\"" + guid + "\",\"events\":" + events + "}";
    }

    void expireAllTokens() {
        validTokens.clear();
    }

    void tokenExpiry(Instant at) {
        tokenExpiry = at;
    }

    void arrayBodies(boolean on) {
        arrayBodies = on;
    }

    int logins() {
        return logins.get();
    }

    int listings() {
        return listings.get();
    }

    private void auth(HttpExchange ex) throws IOException {
        String account = ex.getRequestHeaders().getFirst("X-Rucio-Account");
        String user = ex.getRequestHeaders().getFirst("X-Rucio-Username");
        String password = ex.getRequestHeaders().getFirst("X-Rucio-Password");
        if (!ACCOUNT.equals(account) || !USER.equals(user) || !PASSWORD.equals(password)) {
            respond(ex, 401, "{\"ExceptionClass\":\"CannotAuthenticate\",\"ExceptionMessage\":\"Cannot authenticate"
                    + " to account " + account + " with given credentials\"}");
            return;
        }
        String token = ACCOUNT + "-" + USER + "-" + logins.incrementAndGet();
        validTokens.add(token);
        ex.getResponseHeaders().set("X-Rucio-Auth-Token", token);
        // Rucio's own date format (RFC 1123 with "UTC").
        ex.getResponseHeaders().set("X-Rucio-Auth-Token-Expires", DateTimeFormatter.ofPattern(
                "EEE, dd MMM yyyy HH:mm:ss 'UTC'", java.util.Locale.ENGLISH).format(tokenExpiry.atZone(ZoneOffset.UTC)));
        respond(ex, 200, "");
    }

    private void files(HttpExchange ex) throws IOException {
        String token = ex.getRequestHeaders().getFirst("X-Rucio-Auth-Token");
        if (token == null || !validTokens.contains(token)) {
            respond(ex, 401, "{\"ExceptionClass\":\"CannotAuthenticate\",\"ExceptionMessage\":\"token invalid\"}");
            return;
        }
        String[] parts = ex.getRequestURI().getRawPath().split("/");
        // "", "dids", scope, name, "files"
        if (parts.length != 5 || !"files".equals(parts[4])) {
            respond(ex, 404, "{\"ExceptionClass\":\"DataIdentifierNotFound\"}");
            return;
        }
        String did = URLDecoder.decode(parts[2], StandardCharsets.UTF_8) + ":"
                + URLDecoder.decode(parts[3], StandardCharsets.UTF_8);
        List<String> files = filesByDid.get(did);
        listings.incrementAndGet();
        if (files == null) {
            respond(ex, 404, "{\"ExceptionClass\":\"DataIdentifierNotFound\",\"ExceptionMessage\":\"Data identifier '"
                    + did + "' not found\"}");
            return;
        }
        ex.getResponseHeaders().set("Content-Type", "application/x-json-stream");
        respond(ex, 200, arrayBodies ? "[" + String.join(",", files) + "]" : String.join("\n", files) + "\n");
    }

    private static void respond(HttpExchange ex, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(status, b.length == 0 ? -1 : b.length);
        if (b.length > 0) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(b);
            }
        }
        ex.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
