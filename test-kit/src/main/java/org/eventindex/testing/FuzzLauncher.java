package org.eventindex.testing;

import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

/**
 * Runs one Jazzer {@code @FuzzTest} method on the JUnit platform, for {@code bin/fuzz}: with {@code JAZZER_FUZZ=1}
 * it fuzzes (Jazzer allows one fuzz test per JVM), otherwise it replays the method's regression inputs. Output goes
 * straight to the terminal, so libFuzzer's progress lines show as they happen.
 * <p>
 * Usage: {@code FuzzLauncher org.eventindex.spb.SpbReaderFuzzTest#gzipStream}. Exit code 0 when the test passed,
 * 1 when it failed (a finding), 2 when the target does not exist.
 */
public final class FuzzLauncher {
    private FuzzLauncher() {
    }

    public static void main(String[] args) {
        if (args.length != 1 || !args[0].contains("#")) {
            System.err.println("usage: FuzzLauncher CLASS#METHOD");
            System.exit(2);
        }
        String className = args[0].substring(0, args[0].indexOf('#'));
        String methodName = args[0].substring(args[0].indexOf('#') + 1);
        Class<?> testClass;
        try {
            testClass = Class.forName(className);
        } catch (ClassNotFoundException e) {
            System.err.println("fuzz target class " + className + " is not on the class path");
            System.exit(2);
            return;
        }
        List<Method> methods = new ArrayList<>();
        for (Method m : testClass.getDeclaredMethods()) {
            if (m.getName().equals(methodName)) {
                methods.add(m);
            }
        }
        if (methods.size() != 1) {
            System.err.println("fuzz target " + args[0] + ": expected one method named " + methodName + ", found "
                    + methods.size());
            System.exit(2);
        }
        LauncherDiscoveryRequest request = request().selectors(selectMethod(testClass, methods.get(0))).build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        launcher.execute(request, listener);
        TestExecutionSummary summary = listener.getSummary();
        PrintWriter out = new PrintWriter(System.out, true);
        summary.printFailuresTo(out, 40);
        out.printf("%s: %d started, %d succeeded, %d failed, %d skipped%n", args[0], summary.getTestsStartedCount(),
                summary.getTestsSucceededCount(), summary.getTestsFailedCount(), summary.getTestsSkippedCount());
        System.exit(summary.getTestsStartedCount() > 0 && summary.getTotalFailureCount() == 0 ? 0 : 1);
    }
}
