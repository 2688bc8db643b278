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
import picocli.CommandLine.Parameters;

/**
 * The chaos cluster's ActiveMQ broker as its own process: {@code BrokerMain DATA_DIR PORT LOGINS_DIR} runs a broker
 * with a KahaDB store in {@code DATA_DIR} and a STOMP connector on {@code 127.0.0.1:PORT} until it is killed (SIGTERM
 * stops it cleanly; SIGKILL is what the chaos harness uses, and KahaDB recovers on the next start).
 *
 * <p>The broker is secured as in production: every connection must log in with one of the role logins whose
 * passwords are in {@code LOGINS_DIR} (one mode-0600 file per login, {@link BrokerLogins#writeTo}), anonymous access
 * is refused, and each login may use only the destinations {@link org.eventindex.stomp.BrokerAccess} grants its role.
 */
@Command(name = "chaos-broker", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "The chaos cluster's ActiveMQ broker, until SIGTERM (clean stop) or SIGKILL; bin/chaos starts"
                + " it as a process of its own.")
public final class BrokerMain implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DATA_DIR", description = "the KahaDB store, created if missing")
    private Path data;
    @Parameters(index = "1", paramLabel = "PORT", description = "the STOMP port on 127.0.0.1")
    private int port;
    @Parameters(index = "2", paramLabel = "LOGINS_DIR", description = "one mode-0600 password file per login")
    private Path logins;

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
        EmbeddedBroker broker = EmbeddedBroker.startSecured(dir, roles.security(), port);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            broker.close();
            stopped.countDown();
        }, "broker-stop"));
        System.out.println("broker started: stomp 127.0.0.1:" + broker.stompPort() + ", store " + dir + ", logins "
                + roles);
        stopped.await();
        return 0;
    }
}
