package org.eventindex.deploy.monitoring;

import org.eventindex.brokerwatch.BrokerWatchMetrics;
import org.eventindex.testing.HttpGets;
import org.eventindex.cluster.KerberosLogin;
import org.eventindex.deploy.EmbeddedStack;
import org.eventindex.deploy.PipelineRun;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.lookup.LookupMain;
import org.eventindex.ops.CertificateExpiry;
import org.eventindex.ops.CredentialFiles;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.ops.OpsHttpServer;
import org.eventindex.testing.Await;
import org.eventindex.testing.ChildJvm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every metric named in {@code deploy/monitoring/}'s alert rules and Grafana dashboard exists in the live
 * {@code /metrics} of the daemon it belongs to: the embedded stack's supervisor and consumer (after a dataset went
 * through them, so that labelled series and histograms have samples) and a {@code lookup serve} process (after a
 * request). A name counts only when a sample of it is exposed, not a bare {@code # TYPE} line.
 * <p>
 * The daemon is found from the name: {@code eventindex_<daemon>_*} belongs to that daemon; {@code jvm_*},
 * {@code process_*}, {@code eventindex_build_info} and {@code eventindex_ready} to all three; the broker subscriptions
 * and the credential files' metrics ({@code eventindex_credential_*}, the stack's daemons read their secrets from
 * files) to the supervisor and the consumer. Names outside the daemons are allowed only
 * where they are documented: {@code up} (Prometheus's own per-target series), the broker's {@code activemq_*} names
 * defined by {@code activemq-jmx-exporter.yml}, and {@code eventindex_kerberos_*}, which a daemon registers only with
 * Kerberos on: they must be {@link KerberosLogin}'s two names, whose presence in a live {@code /metrics} the
 * consumer's {@code KerberizedConsumerIT} asserts against a real KDC; and the broker watchdog's
 * {@code eventindex_brokerwatch_*}, which must be {@link BrokerWatchMetrics}'s, whose presence in the watchdog's live
 * {@code /metrics} {@code BrokerWatchdogHttpIT} asserts; and {@code eventindex_tls_*}, registered only by a daemon with
 * a trust store of its own, which must be {@link CertificateExpiry}'s (checked on a real trust store by
 * {@code CertificateExpiryTest}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class MonitoringMetricsIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(5);
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]");
    private static final String DATASET = "data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824";

    @TempDir
    static Path work;

    private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(10);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private EmbeddedStack stack;
    private Process lookup;
    private final Map<String, Set<String>> exposed = new LinkedHashMap<>();

    @BeforeAll
    void runTheDaemons() throws Exception {
        stack = EmbeddedStack.start(new EmbeddedStack.Options(work.resolve("stack"), 1, "eventindex", "mon_", 4, 1),
                s -> { });
        PipelineRun pipeline = new PipelineRun(stack, Path.of(System.getProperty("ei.producer.jar")), s -> { });
        List<GeneratedDataset> datasets = pipeline.generate(
                List.of(new GeneratorSpec(DATASET, 3, 100, 1, 1, 0, 1, false, 5L)), work.resolve("spb"));
        pipeline.registerManifests(datasets);
        pipeline.runProducers(datasets, 2);
        pipeline.awaitDone(datasets, TIMEOUT);

        String lookupUrl = startLookupServe();
        Await.until("lookup serve ready", TIMEOUT, () -> HttpGets.status(lookupUrl + "/ready", HTTP_TIMEOUT) == 200);
        assertEquals(404, HttpGets.status(lookupUrl + "/events/00000001/000000001", HTTP_TIMEOUT),
                "a lookup of an event nobody loaded");

        String supervisorUrl = "http://127.0.0.1:" + stack.supervisor().httpPort();
        String consumerUrl = "http://127.0.0.1:" + stack.consumers().get(0).httpPort();
        // the supervisor's heartbeat ages appear once the consumer's first heartbeat came in
        Await.until("a consumer heartbeat at the supervisor", TIMEOUT,
                () -> samples(get(supervisorUrl + "/metrics"))
                        .contains("eventindex_supervisor_consumer_heartbeat_age_seconds"));
        exposed.put("supervisor", samples(get(supervisorUrl + "/metrics")));
        exposed.put("consumer", samples(get(consumerUrl + "/metrics")));
        exposed.put("lookup", samples(get(lookupUrl + "/metrics")));
    }

    @AfterAll
    void stopTheDaemons() throws InterruptedException {
        if (lookup != null) {
            lookup.destroy();
            if (!lookup.waitFor(1, TimeUnit.MINUTES)) {
                lookup.destroyForcibly().waitFor();
            }
        }
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void everyMetricOfTheAlertRulesIsExposedByItsDaemon() throws IOException {
        Map<String, String> rules = MonitoringFiles.ruleExpressions();
        assertTrue(rules.size() >= 10, "alert rules read from " + MonitoringFiles.RULES + ": " + rules.keySet());
        assertEquals(List.of(), missing(MonitoringFiles.metricUses(rules)));
    }

    @Test
    void everyMetricOfTheDashboardIsExposedByItsDaemon() throws IOException {
        Map<String, String> panels = MonitoringFiles.dashboardExpressions();
        assertTrue(panels.size() >= 10, "panel queries read from " + MonitoringFiles.DASHBOARD + ": "
                + panels.keySet());
        assertEquals(List.of(), missing(MonitoringFiles.metricUses(panels)));
    }

    /** The checker itself: a name no daemon exposes is reported, with the place that uses it. */
    @Test
    void aMetricNoDaemonExposesIsReported() {
        Map<String, Set<String>> uses = new LinkedHashMap<>();
        uses.put("eventindex_nobody_total", Set.of("rule Y"));
        uses.put("eventindex_supervisor_no_such_thing", Set.of("rule X"));
        uses.put("jvm_memory_used_bytes", Set.of("rule Z"));
        uses.put("eventindex_kerberos_tickets", Set.of("rule K"));
        uses.put("activemq_queue_depth", Set.of("rule B"));
        uses.put("eventindex_brokerwatch_naps_total", Set.of("rule W"));
        assertEquals(List.of("eventindex_nobody_total (used by rule Y) belongs to no daemon",
                "eventindex_supervisor_no_such_thing (used by rule X) is not in the live /metrics of supervisor",
                "eventindex_kerberos_tickets (used by rule K) is none of KerberosLogin's metrics",
                "activemq_queue_depth (used by rule B) is not defined by activemq-jmx-exporter.yml"
                        + " [activemq_queue_size]",
                "eventindex_brokerwatch_naps_total (used by rule W) is none of BrokerWatchMetrics's metrics "
                        + BrokerWatchMetrics.NAMES), missing(uses));
    }

    /** The names of {@code uses} that are not exposed where they belong, each with its users and the reason. */
    private List<String> missing(Map<String, Set<String>> uses) {
        List<String> out = new ArrayList<>();
        Set<String> broker;
        try {
            broker = MonitoringFiles.brokerExporterNames();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + MonitoringFiles.BROKER_EXPORTER, e);
        }
        uses.forEach((name, where) -> {
            String prefix = name + " (used by " + String.join(", ", where) + ")";
            if (name.equals("up")) {
                return;
            }
            if (name.startsWith("activemq_")) {
                if (!broker.contains(name)) {
                    out.add(prefix + " is not defined by " + MonitoringFiles.BROKER_EXPORTER + " " + broker);
                }
                return;
            }
            if (name.startsWith("eventindex_kerberos_")) {
                if (!name.equals(KerberosLogin.LOGIN_FAILURES) && !name.equals(KerberosLogin.TICKET_END)) {
                    out.add(prefix + " is none of KerberosLogin's metrics");
                }
                return;
            }
            if (name.startsWith("eventindex_tls_")) {
                if (!name.equals(CertificateExpiry.NOT_AFTER)) {
                    out.add(prefix + " is not CertificateExpiry's metric " + CertificateExpiry.NOT_AFTER);
                }
                return;
            }
            if (name.startsWith("eventindex_brokerwatch_")) {
                if (!BrokerWatchMetrics.NAMES.contains(name)) {
                    out.add(prefix + " is none of BrokerWatchMetrics's metrics " + BrokerWatchMetrics.NAMES);
                }
                return;
            }
            List<String> daemons = daemonsOf(name);
            if (daemons.isEmpty()) {
                out.add(prefix + " belongs to no daemon");
            }
            for (String daemon : daemons) {
                if (!exposed.getOrDefault(daemon, Set.of()).contains(name)) {
                    out.add(prefix + " is not in the live /metrics of " + daemon);
                }
            }
        });
        return out;
    }

    private static List<String> daemonsOf(String name) {
        if (name.startsWith("jvm_") || name.startsWith("process_") || name.equals("eventindex_build_info")
                || name.equals(OpsHttpServer.READY)) {
            return List.of("supervisor", "consumer", "lookup");
        }
        if (name.equals(DaemonMetrics.BROKER_SUBSCRIBED) || name.equals(CredentialFiles.AGE)
                || name.equals(CredentialFiles.RELOAD_FAILURES)) {
            return List.of("supervisor", "consumer");
        }
        for (String daemon : List.of("supervisor", "consumer", "lookup")) {
            if (name.startsWith("eventindex_" + daemon + "_")) {
                return List.of(daemon);
            }
        }
        return List.of();
    }

    /** The names of the sample lines of a Prometheus text exposition (comments and TYPE/HELP lines left out). */
    static Set<String> samples(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (!line.startsWith("#") && m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    private String startLookupServe() throws IOException {
        lookup = ChildJvm.main(LookupMain.class).args("serve", "--masters", stack.kuduMasters(), "--prefix",
                stack.options().tablePrefix(), "--port", "0", "--bind", "127.0.0.1", "--ready-check-seconds", "1")
                .builder().redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(lookup.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith("listening on ")) {
                Thread drain = new Thread(() -> out.lines().forEach(l -> { }), "lookup-serve-output");
                drain.setDaemon(true);
                drain.start();
                return line.substring("listening on ".length()).trim();
            }
        }
        throw new AssertionError("lookup serve ended without listening, exit code " + lookup.exitValue());
    }

    private String get(String url) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(HTTP_TIMEOUT)
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), url);
            return r.body();
        } catch (IOException e) {
            throw new AssertionError("GET " + url + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted: GET " + url, e);
        }
    }
}
