package org.eventindex.deploy.chaos;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.eventindex.message.Json;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

/**
 * The driver of {@link ChaosIT} on the control host: runs {@link ChaosScenarios} (or only its scenario named by the
 * system property {@value #SCENARIO}) with the JUnit launcher (so that its
 * assertions stay JUnit assertions although the test JVM cannot reach the hosts), prints each test's outcome and
 * writes a JSON report ({@code args[0]}): the counts, and each failure with its stack trace. Exit status 0 when no
 * test failed.
 */
final class ChaosScenariosMain {
    /** The one scenario (a method of {@link ChaosScenarios}) to run; every one when unset. */
    static final String SCENARIO = "chaos.scenario";

    private ChaosScenariosMain() {
    }

    public static void main(String[] args) throws Exception {
        Path reportFile = Path.of(args[0]);
        String only = System.getProperty(SCENARIO, "");
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(only.isEmpty() ? selectClass(ChaosScenarios.class)
                        : selectMethod(ChaosScenarios.class, only)).build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        ObjectNode report = Json.mapper().createObjectNode();
        ArrayNode tests = report.putArray("tests");
        TestExecutionListener outcomes = new TestExecutionListener() {
            @Override
            public void executionStarted(TestIdentifier id) {
                if (id.isTest()) {
                    System.out.println(Instant.now() + " [scenario] " + id.getDisplayName() + " started");
                }
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (id.isTest() || result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                    ObjectNode t = tests.addObject().put("test", id.getDisplayName())
                            .put("status", result.getStatus().name());
                    result.getThrowable().ifPresent(e -> t.put("failure", stackTrace(e)));
                    System.out.println(Instant.now() + " [scenario] " + id.getDisplayName() + " " + result.getStatus()
                            + result.getThrowable().map(e -> ": " + e).orElse(""));
                }
            }

            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                tests.addObject().put("test", id.getDisplayName()).put("status", "SKIPPED").put("failure", reason);
            }
        };
        launcher.execute(request, summary, outcomes);
        TestExecutionSummary s = summary.getSummary();
        report.put("started", s.getTestsStartedCount()).put("succeeded", s.getTestsSucceededCount())
                .put("failed", s.getTotalFailureCount()).put("aborted", s.getTestsAbortedCount())
                .put("skipped", s.getTestsSkippedCount());
        Files.write(reportFile, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(report));
        System.exit(s.getTotalFailureCount() == 0 ? 0 : 1);
    }

    private static String stackTrace(Throwable e) {
        StringWriter w = new StringWriter();
        e.printStackTrace(new PrintWriter(w));
        return w.toString();
    }
}
