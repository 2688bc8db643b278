package org.eventindex.deploy.bench;

import java.io.PrintStream;

/** The package-private entry points of the benchmarks, for {@code DeployCommandsTest}. */
public final class BenchTestAccess {
    private BenchTestAccess() {
    }

    public static int execute(String[] args, PrintStream out, PrintStream err) {
        return ConsumerBenchMain.execute(args, out, err);
    }

    public static int executeSeed(String[] args, PrintStream out, PrintStream err) {
        return BenchSeedMain.execute(args, out, err);
    }

    public static int executeSupervisorRate(String[] args, PrintStream out, PrintStream err) {
        return SupervisorRateBench.execute(args, out, err);
    }
}
