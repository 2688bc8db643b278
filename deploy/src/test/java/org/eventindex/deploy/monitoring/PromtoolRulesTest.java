package org.eventindex.deploy.monitoring;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.eventindex.testing.Prerequisites;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Prometheus's own checker on the alert rules: {@code promtool check rules} (syntax, PromQL, templates) and
 * {@code promtool test rules} (the unit tests of the alerts, {@code eventindex-alerts-test.yml}: each alert fires on
 * the series that should raise it, after its {@code for:}), and the Grafana dashboard's queries. promtool comes from
 * Debian's {@code prometheus} package, which {@code .ci/run} installs; under CI a missing promtool fails the test.
 */
class PromtoolRulesTest {
    @Test
    void promtoolAcceptsTheRules() throws Exception {
        String out = promtool("check", "rules", MonitoringFiles.RULES);
        assertTrue(out.contains("SUCCESS"), out);
    }

    @Test
    void theAlertsFireOnTheirUnitTests() throws Exception {
        String out = promtool("test", "rules", MonitoringFiles.RULES_TEST);
        assertTrue(out.contains("SUCCESS"), out);
    }

    /**
     * The dashboard's queries parse as PromQL: each becomes a recording rule of a rules file (Grafana's
     * {@code $__rate_interval} as {@code 5m}) that {@code promtool check rules} reads.
     */
    @Test
    void promtoolParsesTheDashboardQueries(@TempDir Path tmp) throws Exception {
        StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        int i = 0;
        for (Map.Entry<String, String> e : MonitoringFiles.dashboardExpressions().entrySet()) {
            String expr = e.getValue().replace("$__rate_interval", "5m");
            rules.append("      - record: dashboard_query_").append(i++).append("\n        expr: ")
                    .append(new ObjectMapper().writeValueAsString(expr)).append('\n');
        }
        Path file = Files.writeString(tmp.resolve("dashboard-queries.yml"), rules.toString());
        String out = promtool("check", "rules", file.toString());
        assertTrue(out.contains("SUCCESS: " + i + " rules found"), out);
    }

    /** Runs promtool in deploy/monitoring; fails with its output unless it exits 0. */
    private static String promtool(String... args) throws IOException, InterruptedException {
        Path promtool = onPath("promtool");
        Prerequisites.require(promtool != null, "promtool is not on the PATH (Debian: apt-get install prometheus)");
        List<String> command = new java.util.ArrayList<>(List.of(promtool.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(MonitoringFiles.dir().toFile()).redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), String.join(" ", command) + " did not finish: " + out);
        assertEquals(0, p.exitValue(), String.join(" ", command) + " failed: " + out);
        return out;
    }

    private static Path onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
