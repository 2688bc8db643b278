package org.eventindex.deploy.monitoring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The files of {@code deploy/monitoring/}: the alert rules, the Grafana dashboard and the broker exporter's
 * configuration, and the PromQL expressions in them, each named by where it is (rule or panel).
 */
final class MonitoringFiles {
    static final String RULES = "eventindex-alerts.yml";
    static final String RULES_TEST = "eventindex-alerts-test.yml";
    static final String DASHBOARD = "eventindex-dashboard.json";
    static final String BROKER_EXPORTER = "activemq-jmx-exporter.yml";

    private MonitoringFiles() {
    }

    /** {@code deploy/monitoring}, found from the module's folder (the working directory of Maven's tests). */
    static Path dir() {
        Path d = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().resolve("monitoring").normalize();
        if (!Files.isDirectory(d)) {
            throw new IllegalStateException("no monitoring folder at " + d + " (run the test from the deploy module)");
        }
        return d;
    }

    /** Each alert rule's PromQL expression, by alert name, in file order. */
    static Map<String, String> ruleExpressions() throws IOException {
        JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(dir().resolve(RULES).toFile());
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode group : root.path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                String name = rule.hasNonNull("alert") ? rule.get("alert").asText() : rule.path("record").asText();
                if (out.put("rule " + name, rule.path("expr").asText()) != null) {
                    throw new IllegalStateException("two rules named " + name + " in " + RULES);
                }
            }
        }
        return out;
    }

    /** Each panel target's PromQL expression, named by panel title and target refId, in file order. */
    static Map<String, String> dashboardExpressions() throws IOException {
        JsonNode root = new ObjectMapper().readTree(dir().resolve(DASHBOARD).toFile());
        Map<String, String> out = new LinkedHashMap<>();
        List<JsonNode> panels = new ArrayList<>();
        root.path("panels").forEach(panels::add);
        for (int i = 0; i < panels.size(); i++) {
            // rows may nest their panels
            panels.get(i).path("panels").forEach(panels::add);
        }
        for (JsonNode panel : panels) {
            for (JsonNode target : panel.path("targets")) {
                out.put("panel '" + panel.path("title").asText() + "' " + target.path("refId").asText(),
                        target.path("expr").asText());
            }
        }
        return out;
    }

    /** The metric names the broker exporter's configuration defines ({@code name:} of its rules). */
    static Set<String> brokerExporterNames() throws IOException {
        JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(dir().resolve(BROKER_EXPORTER).toFile());
        Set<String> names = new TreeSet<>();
        root.path("rules").forEach(r -> names.add(r.path("name").asText()));
        return names;
    }

    /** Every metric name of the expressions, with the places (rule or panel) that use it. */
    static Map<String, Set<String>> metricUses(Map<String, String> expressions) {
        Map<String, Set<String>> uses = new TreeMap<>();
        expressions.forEach((where, expr) -> {
            Set<String> names = PromQlNames.of(expr);
            if (names.isEmpty()) {
                throw new IllegalStateException(where + " reads no metric: '" + expr + "'");
            }
            names.forEach(n -> uses.computeIfAbsent(n, k -> new TreeSet<>()).add(where));
        });
        return uses;
    }
}
