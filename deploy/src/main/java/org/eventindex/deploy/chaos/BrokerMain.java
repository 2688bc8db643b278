package org.eventindex.deploy.chaos;

import org.eventindex.deploy.BrokerLogins;
import org.eventindex.testing.EmbeddedBroker;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * The chaos cluster's ActiveMQ broker as its own process: {@code BrokerMain DATA_DIR PORT LOGINS_DIR} runs a broker
 * with a KahaDB store in {@code DATA_DIR} and a STOMP connector on {@code 127.0.0.1:PORT} until it is killed (SIGTERM
 * stops it cleanly; SIGKILL is what the chaos harness uses, and KahaDB recovers on the next start).
 *
 * <p>The broker is secured as in production: every connection must log in with one of the role logins whose
 * passwords are in {@code LOGINS_DIR} (one mode-0600 file per login, {@link BrokerLogins#writeTo}), anonymous access
 * is refused, and each login may use only the destinations {@link org.eventindex.stomp.BrokerAccess} grants its role.
 */
public final class BrokerMain {
    private BrokerMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: BrokerMain DATA_DIR PORT LOGINS_DIR");
            System.exit(2);
        }
        Path data = Files.createDirectories(Path.of(args[0]).toAbsolutePath());
        int port = Integer.parseInt(args[1]);
        BrokerLogins logins = BrokerLogins.readFrom(Path.of(args[2]));
        EmbeddedBroker broker = EmbeddedBroker.startSecured(data, logins.security(), port);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            broker.close();
            stopped.countDown();
        }, "broker-stop"));
        System.out.println("broker started: stomp 127.0.0.1:" + broker.stompPort() + ", store " + data + ", logins "
                + logins);
        stopped.await();
    }
}
