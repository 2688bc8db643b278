package org.eventindex.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.message.Json;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import org.eventindex.config.SecretFile;
import org.eventindex.config.TrustStore;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code eventindex status} (also {@code eventindex supervisor status}): the site at a glance from the supervisors'
 * HTTP endpoints (no broker login needed): each supervisor's role ({@code /console/role}: the active one and the
 * standby), then from the active one the datasets by state and the brokers it reads with each queue's subscription
 * ({@code /supervisor}), the datasets themselves with filters ({@code /datasets?state=}), the work in flight and the
 * consumers ({@code /consumers}). A table, or the documents as one JSON object with {@code --json}.
 */
@Command(name = "status", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"The site at a glance from the supervisors' HTTP endpoints: each supervisor's role, datasets by"
            + " state, the brokers and the queues subscribed on each, the datasets (filtered by --state and"
            + " --dataset), the signals in flight and the consumers.",
            "Exit 0 when an active supervisor answered, 1 otherwise (each unreachable URL is named)."})
public final class SiteStatus implements Callable<Integer> {
    /** The top-level command's name; {@code eventindex supervisor status} is the same command. */
    private static final String TOP_LEVEL = "eventindex status";

    @Spec
    private CommandSpec spec;
    @Option(names = "--url", paramLabel = "URL[,URL...]", required = true, split = ",",
            description = "the supervisors' operations URLs (supervisor.http.host and .port), e.g."
                    + " http://sv1:8082,http://sv2:8082 with a standby")
    private List<String> urls;
    @Option(names = "--state", paramLabel = "S[,S...]", split = ",",
            description = "list only the datasets in these states (COLLECTING, HELD, SIGNAL_PLANNED, SIGNALLED, DONE,"
                    + " FAILED_CONSUMER); default: every state but DONE")
    private List<String> states;
    @Option(names = "--dataset", paramLabel = "GLOB", description = "list only the datasets whose name matches, e.g."
            + " 'data17_13TeV.*'")
    private String dataset;
    @Option(names = "--limit", paramLabel = "N", defaultValue = "50",
            description = "at most this many datasets in the table (default: ${DEFAULT-VALUE}; --json lists all)")
    private int limit;
    @Option(names = "--json", description = "one JSON object: supervisors, overview, brokers, datasets, consumers")
    private boolean json;
    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "10",
            description = "how long to wait for each answer (default: ${DEFAULT-VALUE})")
    private int timeoutSeconds;
    @Option(names = "--cert-store", paramLabel = "FILE", description = "PKCS12 file of the operator's certificate and"
            + " key, for supervisors that take client certificates (supervisor.http.auth)")
    private Path certStore;
    @Option(names = "--cert-store-password-file", paramLabel = "FILE", description = "file (mode 0600) holding that"
            + " file's password")
    private Path certStorePasswordFile;
    @Option(names = "--trust-store", paramLabel = "FILE", description = "PKCS12 or JKS trust store of the CA of the"
            + " supervisors' HTTPS certificates (default: the JVM's)")
    private Path trustStore;
    @Option(names = "--trust-store-password-file", paramLabel = "FILE", description = "file (mode 0600) holding the"
            + " trust store's password (default: none)")
    private Path trustStorePasswordFile;

    private final PrintStream out;
    private final PrintStream err;

    SiteStatus(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** {@code eventindex status}. */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs {@code eventindex status} with {@code args}; returns the exit code. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.of(new SiteStatus(out, err), out, err).setCommandName(TOP_LEVEL).execute(args);
    }

    @Override
    public Integer call() {
        if (limit < 0 || timeoutSeconds < 1) {
            throw new ParameterException(spec.commandLine(), "--limit must be 0 or more and --timeout at least 1");
        }
        List<String> bases = new ArrayList<>();
        for (String u : urls) {
            String base = u.strip().replaceAll("/+$", "");
            if (!base.startsWith("http://") && !base.startsWith("https://")) {
                throw new ParameterException(spec.commandLine(), "--url " + u + " is not an http(s) URL");
            }
            bases.add(base);
        }
        PathMatcher names = dataset == null ? null : FileSystems.getDefault().getPathMatcher("glob:" + dataset);
        HttpClient http;
        try {
            http = client();
        } catch (IOException | IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        ObjectNode doc = JsonNodeFactory.instance.objectNode();
        ArrayNode supervisors = doc.putArray("supervisors");
        String active = null;
        for (String base : bases) {
            ObjectNode s = supervisors.addObject().put("url", base);
            try {
                JsonNode role = get(http, base + "/console/role");
                s.setAll((ObjectNode) role);
                if (!s.has("ready")) {
                    // without a standby the role says nothing of readiness: /ready does (503 with the reason)
                    JsonNode ready = get(http, base + "/ready", 503);
                    s.put("ready", ready.path("ready").asBoolean());
                    s.put("reason", ready.path("reason").asText(""));
                }
                if (active == null && "active".equals(role.path("role").asText())) {
                    active = base;
                }
            } catch (IOException e) {
                s.put("error", e.getMessage());
            }
        }
        if (active == null) {
            if (json) {
                out.println(new String(Json.write(doc), StandardCharsets.UTF_8));
            } else {
                printRoles(supervisors);
            }
            err.println(name() + ": no active supervisor among " + String.join(", ", bases));
            return 1;
        }
        try {
            doc.set("overview", get(http, active + "/supervisor"));
            String query = states == null || states.isEmpty() ? "COLLECTING,HELD,SIGNAL_PLANNED,SIGNALLED,FAILED_CONSUMER"
                    : String.join(",", states).toUpperCase(Locale.ROOT);
            JsonNode all = get(http, active + "/datasets?state=" + URLEncoder.encode(query, StandardCharsets.UTF_8));
            ArrayNode datasets = doc.putArray("datasets");
            for (JsonNode d : all) {
                if (names == null || names.matches(Path.of(d.path("name").asText()))) {
                    datasets.add(d);
                }
            }
            doc.set("brokers", brokers(doc.path("overview").path("supervisor").path("brokers")));
            doc.set("consumers", get(http, active + "/consumers"));
        } catch (IOException e) {
            err.println(name() + ": " + e.getMessage());
            return 1;
        }
        if (json) {
            out.println(new String(Json.write(doc), StandardCharsets.UTF_8));
        } else {
            printTables(doc);
        }
        return 0;
    }

    /** The command as typed: {@code eventindex status} or {@code eventindex supervisor status}. */
    private String name() {
        return spec.qualifiedName();
    }

    /**
     * The brokers of {@code /supervisor} ({@code {"H:P/ip": {"queue": true, ...}}}) as a list: each broker, whether it
     * serves every queue, and the queues not subscribed on it.
     */
    private static ArrayNode brokers(JsonNode byBroker) {
        ArrayNode list = JsonNodeFactory.instance.arrayNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = byBroker.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> b = it.next();
            ObjectNode broker = list.addObject().put("broker", b.getKey());
            ArrayNode missing = JsonNodeFactory.instance.arrayNode();
            int queues = 0;
            for (Iterator<Map.Entry<String, JsonNode>> q = b.getValue().fields(); q.hasNext(); queues++) {
                Map.Entry<String, JsonNode> queue = q.next();
                if (!queue.getValue().asBoolean()) {
                    missing.add(queue.getKey());
                }
            }
            broker.put("subscribed", missing.isEmpty()).put("queues", queues)
                    .put("queuesSubscribed", queues - missing.size()).set("notSubscribed", missing);
        }
        return list;
    }

    /** The HTTP client, with the operator's certificate and the supervisors' CA when given. */
    private HttpClient client() throws IOException {
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(timeoutSeconds));
        if ((certStore == null) != (certStorePasswordFile == null)) {
            throw new IllegalArgumentException("--cert-store and --cert-store-password-file go together");
        }
        if (certStore == null && trustStore == null) {
            return b.build();
        }
        try {
            KeyManager[] keys = null;
            if (certStore != null) {
                char[] pw = SecretFile.read(certStorePasswordFile, "--cert-store-password-file").toCharArray();
                KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(KeyStore.getInstance(certStore.toFile(), pw), pw);
                keys = kmf.getKeyManagers();
            }
            TrustManager[] trust = trustStore == null ? null : new TrustStore(trustStore,
                    trustStorePasswordFile == null ? null : SecretFile.read(trustStorePasswordFile,
                            "--trust-store-password-file")).trustManagers("--trust-store");
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(keys, trust, null);
            return b.sslContext(tls).build();
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("--cert-store " + certStore + ": " + e.getMessage()
                    + " (check the file and its password)", e);
        }
    }

    private JsonNode get(HttpClient http, String url) throws IOException {
        return get(http, url, 200);
    }

    /** GETs a JSON document; an HTTP status other than 200 and {@code alsoOk} fails naming the URL. */
    private JsonNode get(HttpClient http, String url, int alsoOk) throws IOException {
        HttpResponse<byte[]> r;
        try {
            r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(timeoutSeconds))
                    .build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new IOException("GET " + url + ": " + (e.getMessage() == null ? e.getClass().getSimpleName()
                    : e.getMessage()) + " (is the supervisor running, and its supervisor.http.host reachable from"
                    + " here?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("GET " + url + ": interrupted", e);
        }
        if (r.statusCode() == 401 || r.statusCode() == 403) {
            throw new IOException("GET " + url + ": HTTP " + r.statusCode() + ": the supervisor requires"
                    + " authentication (supervisor.http.auth): give --cert-store with an allowed certificate");
        }
        JsonNode body;
        try {
            body = Json.tree(r.body());
        } catch (IOException e) {
            throw new IOException("GET " + url + ": HTTP " + r.statusCode() + " and not JSON", e);
        }
        if (r.statusCode() != 200 && r.statusCode() != alsoOk) {
            throw new IOException("GET " + url + ": HTTP " + r.statusCode() + ": " + body.path("error").asText(""));
        }
        return body;
    }

    private void printRoles(ArrayNode supervisors) {
        Table t = new Table("SUPERVISOR", "ROLE", "READY", "NOTE");
        for (JsonNode s : supervisors) {
            String note = s.has("error") ? s.path("error").asText() : s.path("reason").asText("");
            t.row(s.path("url").asText(), s.has("error") ? "unreachable" : s.path("role").asText(),
                    s.has("ready") ? s.path("ready").asText() : s.has("error") ? "" : "-", note);
        }
        t.print(out);
    }

    private void printTables(ObjectNode doc) {
        printRoles((ArrayNode) doc.get("supervisors"));
        JsonNode overview = doc.path("overview");
        StringBuilder byState = new StringBuilder("datasets:");
        for (Iterator<Map.Entry<String, JsonNode>> it = overview.path("datasetsByState").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            byState.append(' ').append(e.getKey()).append(' ').append(e.getValue().asText());
            byState.append(it.hasNext() ? "," : "");
        }
        byState.append("; retired ").append(overview.path("datasetsRetired").asText("0"))
                .append("; epoch ").append(overview.path("currentEpoch").asText("?"));
        out.println();
        out.println(byState);
        for (JsonNode u : overview.path("deletesUnfinished")) {
            List<String> steps = new ArrayList<>();
            u.path("stepsLeft").forEach(x -> steps.add(x.asText()));
            out.println("delete-dataset of " + u.path("dataset").asText() + " did not finish (left: "
                    + String.join(", ", steps) + "); finish with: " + u.path("finishWith").asText());
        }
        out.println();
        Table b = new Table("BROKER", "SUBSCRIBED", "QUEUES", "NOTE");
        for (JsonNode x : doc.path("brokers")) {
            List<String> missing = new ArrayList<>();
            x.path("notSubscribed").forEach(q -> missing.add(q.asText()));
            b.row(x.path("broker").asText(), x.path("subscribed").asBoolean() ? "yes" : "no",
                    x.path("queuesSubscribed").asText() + "/" + x.path("queues").asText(),
                    missing.isEmpty() ? "" : "not subscribed to " + String.join(", ", missing));
        }
        b.print(out);
        out.println();
        JsonNode datasets = doc.path("datasets");
        Table d = new Table("DATASET", "STATE", "FILES", "OBJECTS", "DSPID", "NOTE");
        int shown = 0;
        for (JsonNode x : datasets) {
            if (shown++ == limit) {
                break;
            }
            String note = x.path("failure").isTextual() ? x.path("failure").asText()
                    : x.path("waitingFor").isTextual() ? x.path("waitingFor").asText() : "";
            d.row(x.path("name").asText(), x.path("state").asText(),
                    x.path("filesWithCandidate").asText() + "/" + x.path("expectedFiles").asText(),
                    x.path("objectsReported").asText(), x.path("dspid").isNull() ? "" : x.path("dspid").asText(),
                    note);
        }
        d.print(out);
        if (datasets.size() > limit) {
            out.println("... " + (datasets.size() - limit) + " more (--limit, --state, --dataset, --json)");
        }
        out.println();
        Table c = new Table("CONSUMER", "HEARTBEAT", "AGE_S", "DATASET", "PROGRESS", "DONE", "FAILED");
        for (JsonNode x : doc.path("consumers").path("consumers")) {
            JsonNode hb = x.path("heartbeat");
            c.row(x.path("consumer").asText(), hb.path("state").asText("-"),
                    hb.has("ageSeconds") ? String.format(Locale.ROOT, "%.0f", hb.path("ageSeconds").asDouble()) : "",
                    hb.path("dataset").isTextual() ? hb.path("dataset").asText() : "",
                    hb.path("progress").isNumber() ? hb.path("progress").asText() : "",
                    x.path("datasetsDone").asText(), x.path("datasetsFailed").asText());
        }
        c.print(out);
        int flight = doc.path("consumers").path("inFlight").size();
        out.println();
        out.println("signals in flight: " + flight);
    }

    /** A plain text table: columns as wide as their widest cell, two spaces apart. */
    private static final class Table {
        private final List<String[]> rows = new ArrayList<>();

        Table(String... header) {
            rows.add(header);
        }

        void row(String... cells) {
            rows.add(cells);
        }

        void print(PrintStream out) {
            int[] width = new int[rows.get(0).length];
            for (String[] r : rows) {
                for (int i = 0; i < r.length; i++) {
                    width[i] = Math.max(width[i], r[i].length());
                }
            }
            for (String[] r : rows) {
                StringBuilder line = new StringBuilder();
                for (int i = 0; i < r.length; i++) {
                    line.append(i == r.length - 1 ? r[i] : String.format("%-" + width[i] + "s  ", r[i]));
                }
                out.println(line.toString().stripTrailing());
            }
        }
    }
}
