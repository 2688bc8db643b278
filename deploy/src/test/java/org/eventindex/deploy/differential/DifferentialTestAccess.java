package org.eventindex.deploy.differential;

import java.io.PrintStream;

/** The package-private entry point of {@code bin/differential}, for {@code DeployCommandsTest}. */
public final class DifferentialTestAccess {
    private DifferentialTestAccess() {
    }

    public static int execute(String[] args, PrintStream out, PrintStream err) {
        return DifferentialMain.execute(args, out, err);
    }
}
