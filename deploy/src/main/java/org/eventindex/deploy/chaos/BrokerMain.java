package org.eventindex.deploy.chaos;

import org.eventindex.deploy.BrokerLogins;
import org.eventindex.testing.EmbeddedBroker;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The chaos cluster's ActiveMQ broker as its own process: {@code BrokerMain DATA_DIR PORT LOGINS_DIR} runs a broker
 * with a KahaDB store in {@code DATA_DIR} and a STOMP connector on {@code 127.0.0.1:PORT} (or {@code --bind ADDRESS}:
 * the address of the test host it runs on) until it is killed (SIGTERM
 * stops it cleanly; SIGKILL is what the chaos harness uses, and KahaDB recovers on the next start).
 *
 * <p>The broker is secured as in production: every connection must log in with one of the role logins whose
 * passwords are in {@code LOGINS_DIR} (one mode-0600 file per login, {@link BrokerLogins#writeTo}), anonymous access
 * is refused, and each login may use only the destinations {@link org.eventindex.testing.BrokerAccess} grants its role.
 *
 * <p>{@code --pid-file} writes this process's id for the broker watchdog ({@code eventindex broker-watchdog}) that
 * runs beside the broker, which kills a broker that listens but stops answering (its service manager, here the chaos
 * harness, then starts it again on its own store).
 */
@Command(name = "chaos-broker", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "The chaos cluster's ActiveMQ broker, until SIGTERM (clean stop) or SIGKILL; bin/chaos starts"
                + " it as a process of its own.")
public final class BrokerMain implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DATA_DIR", description = "the KahaDB store, created if missing")
    private Path data;
    @Parameters(index = "1", paramLabel = "PORT", description = "the STOMP port")
    private int port;
    @Option(names = "--bind", paramLabel = "ADDRESS", description = "the address the STOMP port listens on (default"
            + " ${DEFAULT-VALUE})")
    private String bind = "127.0.0.1";
    @Parameters(index = "2", paramLabel = "LOGINS_DIR", description = "one mode-0600 password file per login")
    private Path logins;
    @Option(names = "--pid-file", paramLabel = "FILE", description = "write this process's id here (for the broker"
            + " watchdog)")
    private Path pidFile;

    private BrokerMain() {
    }

    public static void main(String[] args) {
        int status = execute(args, System.out, System.err);
        // After a clean stop the JVM is already shutting down: System.exit would block.
        if (status != 0) {
            System.exit(status);
        }
    }

    /** Parses {@code args} and runs the broker; {@code --help}, {@code --version} and bad arguments return at once. */
    static int execute(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new BrokerMain(), args, out, err);
    }

    @Override
    public Integer call() throws Exception {
        Path dir = Files.createDirectories(data.toAbsolutePath());
        BrokerLogins roles = BrokerLogins.readFrom(logins);
        if (pidFile != null) {
            Files.writeString(pidFile, ProcessHandle.current().pid() + "\n");
        }
        EmbeddedBroker broker = EmbeddedBroker.startSecured(dir, roles.security(), bind, port);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            broker.close();
            stopped.countDown();
        }, "broker-stop"));
        System.out.println("broker started: stomp " + broker.stompEndpoints() + ", store "
                + dir.resolve("kahadb") + " (its own)"
                + ", logins " + roles);
        stopped.await();
        return 0;
    }
}
