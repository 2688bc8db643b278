package org.eventindex.lookup;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.Json;
import org.eventindex.names.DatasetName;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;

import static java.util.Objects.requireNonNull;

/**
 * {@link PendingDatasets} from the supervisor's information service: {@code GET <url>/datasets?state=COLLECTING,
 * HELD,SIGNAL_PLANNED,SIGNALLED,FAILED_CONSUMER} (its {@code DatasetSummary} lines). With several URLs (an active and
 * standby supervisors), the first that answers 200 is used: a standby answers 400 until it is active. One answer is
 * reused for {@code ttl}, so a burst of misses asks once; a failure is not kept.
 */
final class SupervisorDatasets implements PendingDatasets {
    static final String STATES = "COLLECTING,HELD,SIGNAL_PLANNED,SIGNALLED,FAILED_CONSUMER";

    private record Fetched(List<Pending> all, long atNanos) {
    }

    private final List<URI> urls;
    private final Duration timeout;
    private final long ttlNanos;
    private final LongSupplier nanoTime;
    private final HttpClient http;
    private volatile Fetched last;

    /**
     * @param urls    supervisor base URLs ({@code http://host:port}), tried in order
     * @param timeout how long one supervisor may take to answer
     */
    SupervisorDatasets(List<URI> urls, Duration timeout, Duration ttl, LongSupplier nanoTime) {
        this.urls = List.copyOf(urls);
        if (this.urls.isEmpty()) {
            throw new IllegalArgumentException("at least one supervisor URL is needed");
        }
        this.timeout = requireNonNull(timeout, "timeout is null");
        this.ttlNanos = ttl.toNanos();
        this.nanoTime = requireNonNull(nanoTime, "nanoTime is null");
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    /**
     * The URLs of a comma-separated {@code --supervisor-url} value.
     *
     * @throws IllegalArgumentException naming the value that is not an http(s) URL
     */
    static List<URI> parseUrls(String value) {
        List<URI> out = new ArrayList<>();
        for (String u : value.split(",")) {
            String t = u.strip();
            if (t.isEmpty()) {
                continue;
            }
            URI uri;
            try {
                uri = URI.create(t.endsWith("/") ? t.substring(0, t.length() - 1) : t);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--supervisor-url '" + t + "' is not a URL: " + e.getMessage(), e);
            }
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw new IllegalArgumentException("--supervisor-url '" + t + "' is not an http(s)://host:port URL");
            }
            out.add(uri);
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("--supervisor-url is empty");
        }
        return out;
    }

    @Override
    public Answer pending(Set<Integer> runs) {
        Fetched f = last;
        if (f == null || nanoTime.getAsLong() - f.atNanos() >= ttlNanos) {
            long start = nanoTime.getAsLong();
            List<String> failures = new ArrayList<>();
            f = null;
            for (URI base : urls) {
                try {
                    f = new Fetched(fetch(base), start);
                    break;
                } catch (IOException e) {
                    failures.add(base + ": " + e.getMessage());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    failures.add(base + ": interrupted");
                    break;
                }
            }
            if (f == null) {
                return new Answer(List.of(), "datasets still collecting at the supervisor are not known: "
                        + String.join("; ", failures));
            }
            last = f;
        }
        return new Answer(f.all().stream().filter(p -> runs.contains(p.run())).toList(), null);
    }

    private List<Pending> fetch(URI base) throws IOException, InterruptedException {
        JsonNode list = get(base, "/datasets?state=" + STATES);
        if (!list.isArray()) {
            throw new IOException("GET " + base + "/datasets did not answer a JSON array");
        }
        java.util.Map<String, JsonNode> estimates = new java.util.HashMap<>();
        try {
            for (JsonNode e : get(base, "/progress").path("datasets")) {
                estimates.put(e.path("dataset").asText(), e);
            }
        } catch (IOException e) {
            // a supervisor older than /progress: the datasets without an estimate
        }
        List<Pending> out = new ArrayList<>();
        for (JsonNode d : list) {
            DatasetName name;
            try {
                name = DatasetName.parse(d.path("name").asText());
            } catch (IllegalArgumentException e) {
                continue; // a name the lookup could never be asked about
            }
            JsonNode e = estimates.get(d.path("name").asText());
            java.time.Instant at = null;
            if (e != null && e.hasNonNull("queryableAt")) {
                try {
                    at = java.time.Instant.parse(e.get("queryableAt").asText());
                } catch (java.time.format.DateTimeParseException ignored) {
                    // not a time: no estimate
                }
            }
            out.add(new Pending(name.toString(), name.runNumber(), d.path("state").asText(), missing(d), at,
                    e == null ? null : e.path("basis").asText(null)));
        }
        return out;
    }

    /**
     * The JSON answer to {@code GET <url><path>} of the first supervisor that answers 200 (not cached).
     *
     * @throws IOException naming each URL and why it gave no answer
     */
    JsonNode first(String path) throws IOException, InterruptedException {
        List<String> failures = new ArrayList<>();
        for (URI base : urls) {
            try {
                return get(base, path);
            } catch (IOException e) {
                failures.add(base + ": " + e.getMessage());
            }
        }
        throw new IOException(String.join("; ", failures));
    }

    private JsonNode get(URI base, String path) throws IOException, InterruptedException {
        URI uri = URI.create(base + path);
        HttpResponse<byte[]> r;
        try {
            r = http.send(HttpRequest.newBuilder(uri).timeout(timeout).GET().build(),
                    HttpResponse.BodyHandlers.ofByteArray());
        } catch (java.net.http.HttpTimeoutException e) {
            throw new IOException("no answer within " + timeout.toMillis() + " ms", e);
        } catch (IOException e) {
            throw new IOException(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage(), e);
        }
        if (r.statusCode() != 200) {
            JsonNode err = tree(r.body());
            throw new IOException("HTTP " + r.statusCode() + (err != null && err.hasNonNull("error")
                    ? " (" + err.get("error").asText() + ")" : ""));
        }
        JsonNode tree = tree(r.body());
        if (tree == null) {
            throw new IOException("GET " + uri + " did not answer JSON");
        }
        return tree;
    }

    private static JsonNode tree(byte[] body) {
        try {
            return Json.tree(body);
        } catch (IOException e) {
            return null;
        }
    }

    /** What a {@code DatasetSummary} line says the dataset still waits for. */
    static String missing(JsonNode d) {
        String state = d.path("state").asText();
        int expected = d.path("expectedFiles").asInt(-1);
        int withObject = d.path("filesWithCandidate").asInt(0);
        String waitingFor = d.hasNonNull("waitingFor") ? d.get("waitingFor").asText() : null;
        return switch (state) {
            case "COLLECTING" -> expected >= 0
                    ? (expected - withObject) + " of " + expected + " files have no object yet"
                    : "waiting for " + (waitingFor != null ? waitingFor : "its file list") + " (" + withObject
                    + " files have an object)";
            case "HELD" -> "attempts of a file disagree: waiting for an operator";
            case "SIGNAL_PLANNED", "SIGNALLED" -> "complete; waiting for a consumer to consolidate and load it";
            case "FAILED_CONSUMER" -> "a consumer failed on it" + (d.hasNonNull("failure")
                    ? " (" + d.get("failure").asText() + ")" : "") + (d.path("permanentFailure").asBoolean()
                    ? ": waiting for an operator" : ": retried automatically");
            default -> waitingFor != null ? "waiting for " + waitingFor : "";
        };
    }
}
