package org.eventindex.deploy.chaos;

import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.store.kahadb.KahaDBPersistenceAdapter;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The chaos cluster's ActiveMQ broker as its own process: {@code BrokerMain DATA_DIR PORT} runs a broker with a
 * KahaDB store in {@code DATA_DIR} and a STOMP connector on {@code 127.0.0.1:PORT} until it is killed (SIGTERM stops
 * it cleanly; SIGKILL is what the chaos harness uses, and KahaDB recovers on the next start).
 */
public final class BrokerMain {
    private BrokerMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: BrokerMain DATA_DIR PORT");
            System.exit(2);
        }
        Path data = Files.createDirectories(Path.of(args[0]).toAbsolutePath());
        int port = Integer.parseInt(args[1]);
        BrokerService b = new BrokerService();
        b.setBrokerName("ei-chaos");
        b.setUseJmx(false);
        b.setUseShutdownHook(true);
        b.setPersistent(true);
        b.setAdvisorySupport(false);
        b.setSchedulerSupport(false);
        b.setDataDirectoryFile(data.toFile());
        KahaDBPersistenceAdapter kahaDb = new KahaDBPersistenceAdapter();
        kahaDb.setDirectory(data.resolve("kahadb").toFile());
        b.setPersistenceAdapter(kahaDb);
        b.getSystemUsage().getStoreUsage().setLimit(1L << 30);
        b.getSystemUsage().getTempUsage().setLimit(256L << 20);
        b.addConnector("stomp://127.0.0.1:" + port);
        b.start();
        if (!b.waitUntilStarted()) {
            System.err.println("broker in " + data + " did not start");
            System.exit(1);
        }
        System.out.println("broker started: stomp 127.0.0.1:" + port + ", store " + data);
        b.waitUntilStopped();
    }
}
