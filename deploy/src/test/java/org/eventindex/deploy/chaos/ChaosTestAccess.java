package org.eventindex.deploy.chaos;

import java.io.PrintStream;

/** The package-private entry points of the chaos commands, for {@code DeployCommandsTest}. */
public final class ChaosTestAccess {
    private ChaosTestAccess() {
    }

    public static int execute(String[] args, PrintStream out, PrintStream err) {
        return ChaosMain.execute(args, out, err);
    }

    public static int executeBroker(String[] args, PrintStream out, PrintStream err) {
        return BrokerMain.execute(args, out, err);
    }

    public static int executeS3(String[] args, PrintStream out, PrintStream err) {
        return S3ServerMain.execute(args, out, err);
    }

    public static int executeHostsFlow(String[] args, PrintStream out, PrintStream err) {
        return HostsFlowMain.execute(args, out, err);
    }

    public static int executeProxy(String[] args, PrintStream out, PrintStream err) {
        return FaultProxyMain.execute(args, out, err);
    }
}
