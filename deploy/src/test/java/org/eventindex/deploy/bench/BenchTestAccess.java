package org.eventindex.deploy.bench;

import java.io.PrintStream;

/** The package-private entry point of the consumer benchmark, for {@code DeployCommandsTest}. */
public final class BenchTestAccess {
    private BenchTestAccess() {
    }

    public static int execute(String[] args, PrintStream out, PrintStream err) {
        return ConsumerBenchMain.execute(args, out, err);
    }
}
