package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.Json;
import org.eventindex.names.DatasetName;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * {@link Catalogue} over the Rucio REST API.
 * <ul>
 *   <li>Authentication: {@code GET /auth/userpass} with {@code X-Rucio-Account}, {@code X-Rucio-Username},
 *       {@code X-Rucio-Password}; the token comes back in {@code X-Rucio-Auth-Token} (expiry in
 *       {@code X-Rucio-Auth-Token-Expires}, {@code Mon, 13 May 2013 10:23:03 UTC}). It is reused until it expires or the server answers 401, then renewed
 *       once per request.</li>
 *   <li>Files: {@code GET /dids/{scope}/{name}/files} with {@code X-Rucio-Auth-Token}; the answer is JSON lines
 *       ({@code application/x-json-stream}) or a JSON array of {@code {scope, name, guid, events, bytes, adler32}}.
 *       The scope is the dataset's project ({@code data17_13TeV}). 404 = unknown dataset.</li>
 * </ul>
 * Rucio writes GUIDs without dashes in any case; they are turned into the producers' upper-case 8-4-4-4-12 form.
 * Thread-safe.
 */
final class RucioCatalogue implements Catalogue {
    static final String ACCOUNT = "X-Rucio-Account";
    static final String USERNAME = "X-Rucio-Username";
    static final String PASSWORD = "X-Rucio-Password";
    static final String TOKEN = "X-Rucio-Auth-Token";
    static final String TOKEN_EXPIRES = "X-Rucio-Auth-Token-Expires";
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final DateTimeFormatter RUCIO_DATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'UTC'", Locale.ENGLISH);

    private final URI base;
    private final SupervisorConfig.CatalogueSettings settings;
    private final Clock clock;
    private final HttpClient http;
    private String token;
    private long tokenExpiresMillis;

    RucioCatalogue(SupervisorConfig.CatalogueSettings settings, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        String url = settings.url();
        this.base = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
        this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    }

    @Override
    public Optional<List<File>> files(DatasetName dataset) throws IOException {
        String scope = dataset.project();
        URI uri = URI.create(base + "/dids/" + enc(scope) + "/" + enc(dataset.toString()) + "/files");
        HttpResponse<String> r = get(uri, token(false));
        if (r.statusCode() == 401) {
            r = get(uri, token(true));
        }
        if (r.statusCode() == 404) {
            return Optional.empty();
        }
        if (r.statusCode() != 200) {
            throw new IOException("Rucio " + uri + " answered " + r.statusCode() + " for dataset " + dataset + ": "
                    + abbreviate(r.body()));
        }
        return Optional.of(parseFiles(dataset.toString(), r.body()));
    }

    static List<File> parseFiles(String dataset, String body) throws IOException {
        List<JsonNode> nodes = new ArrayList<>();
        String trimmed = body.strip();
        if (trimmed.startsWith("[")) {
            Json.tree(trimmed.getBytes(StandardCharsets.UTF_8)).forEach(nodes::add);
        } else {
            for (String line : trimmed.split("\n")) {
                if (!line.isBlank()) {
                    nodes.add(Json.tree(line.getBytes(StandardCharsets.UTF_8)));
                }
            }
        }
        List<File> files = new ArrayList<>(nodes.size());
        for (JsonNode n : nodes) {
            JsonNode guid = n.get("guid");
            if (guid == null || !guid.isTextual() || guid.asText().isBlank()) {
                throw new IOException("Rucio lists file " + n.path("name").asText() + " of dataset " + dataset
                        + " without a GUID");
            }
            JsonNode events = n.get("events");
            long ev = events == null || events.isNull() ? -1 : events.asLong(-1);
            files.add(new File(n.path("name").asText(null), normaliseGuid(guid.asText()), ev, n.path("bytes").asLong(-1)));
        }
        return files;
    }

    /** {@code 6a3b...} or {@code 6A3B-...} -> {@code 6A3B....-....-....-....-............}. */
    static String normaliseGuid(String guid) {
        String hex = guid.replace("-", "").toUpperCase(Locale.ROOT);
        if (hex.length() != 32 || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            return guid.toUpperCase(Locale.ROOT);
        }
        return hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-"
                + hex.substring(16, 20) + "-" + hex.substring(20);
    }

    private synchronized String token(boolean renew) throws IOException {
        if (!renew && token != null && clock.millis() < tokenExpiresMillis) {
            return token;
        }
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + "/auth/userpass")).timeout(TIMEOUT).GET()
                .header(ACCOUNT, settings.account());
        if (settings.username() != null && !settings.username().isBlank()) {
            b.header(USERNAME, settings.username());
        }
        if (settings.password() != null) {
            b.header(PASSWORD, settings.password());
        }
        HttpResponse<String> r = send(b.build());
        Optional<String> t = r.headers().firstValue(TOKEN);
        if (r.statusCode() != 200 || t.isEmpty()) {
            throw new IOException("Rucio " + base + "/auth/userpass refused account " + settings.account()
                    + " (status " + r.statusCode() + "): " + abbreviate(r.body())
                    + "; check " + SupervisorConfig.CATALOGUE_USERNAME + " and the password");
        }
        token = t.get();
        tokenExpiresMillis = r.headers().firstValue(TOKEN_EXPIRES).map(this::parseExpiry)
                .orElse(clock.millis() + Duration.ofMinutes(50).toMillis());
        return token;
    }

    /** Rucio writes {@code Mon, 13 May 2013 10:23:03 UTC}; RFC 1123 with {@code GMT} is accepted too. */
    private long parseExpiry(String v) {
        // A minute early, so a token never expires between the check and the request.
        try {
            return LocalDateTime.parse(v.trim(), RUCIO_DATE).toInstant(ZoneOffset.UTC).toEpochMilli() - 60_000;
        } catch (DateTimeParseException e) {
            try {
                return ZonedDateTime.parse(v.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli()
                        - 60_000;
            } catch (DateTimeParseException e2) {
                return clock.millis() + Duration.ofMinutes(50).toMillis();
            }
        }
    }

    private HttpResponse<String> get(URI uri, String authToken) throws IOException {
        return send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().header(TOKEN, authToken)
                .header("Accept", "application/x-json-stream").build());
    }

    private HttpResponse<String> send(HttpRequest request) throws IOException {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while asking Rucio " + request.uri(), e);
        }
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String abbreviate(String s) {
        return s == null ? "" : s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }
}
