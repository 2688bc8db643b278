package org.eventindex.testing;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.activemq.broker.BrokerPlugin;
import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.broker.region.Destination;
import org.apache.activemq.command.ActiveMQQueue;
import org.apache.activemq.security.SimpleAuthenticationPlugin;
import org.apache.activemq.store.kahadb.KahaDBPersistenceAdapter;

/**
 * An in-process ActiveMQ Classic broker for tests and the demo stack: persistent KahaDB in a given folder, one STOMP
 * connector on 127.0.0.1 with a free port, no JMX, no shutdown hook. {@link #restart()} brings the broker back on the
 * same port with the same store (persistent messages survive).
 *
 * <p>With {@link #start(Path, Map)} the broker requires a login (simple authentication plugin; the
 * {@code activemq-jaas} jar must be on the test classpath).
 */
public final class EmbeddedBroker implements AutoCloseable {
    /** The queue that NACKed and expired messages go to. */
    public static final String DLQ = "ActiveMQ.DLQ";

    private final Path dataDir;
    private final Map<String, String> users;
    private final int port;
    private BrokerService broker;

    private EmbeddedBroker(Path dataDir, Map<String, String> users, BrokerService broker, int port) {
        this.dataDir = dataDir;
        this.users = users;
        this.broker = broker;
        this.port = port;
    }

    /** Starts a broker that accepts any login. */
    public static EmbeddedBroker start(Path dataDir) {
        return start(dataDir, Map.of());
    }

    /**
     * Starts a broker; when {@code users} (login to password) is not empty every connection must log in as one of
     * them.
     */
    public static EmbeddedBroker start(Path dataDir, Map<String, String> users) {
        requireNonNull(dataDir, "dataDir is null");
        Map<String, String> copy = Map.copyOf(requireNonNull(users, "users is null"));
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create broker data folder " + dataDir, e);
        }
        BrokerService broker = newBroker(dataDir, copy, 0);
        int port = boundPort(broker);
        return new EmbeddedBroker(dataDir, copy, broker, port);
    }

    private static BrokerService newBroker(Path dataDir, Map<String, String> users, int port) {
        try {
            BrokerService b = new BrokerService();
            b.setBrokerName("ei-test-" + Integer.toHexString(System.identityHashCode(dataDir)));
            b.setUseJmx(false);
            b.setUseShutdownHook(false);
            b.setPersistent(true);
            b.setAdvisorySupport(false);
            b.setSchedulerSupport(false);
            b.setDataDirectoryFile(dataDir.toFile());
            KahaDBPersistenceAdapter kahaDb = new KahaDBPersistenceAdapter();
            kahaDb.setDirectory(dataDir.resolve("kahadb").toFile());
            b.setPersistenceAdapter(kahaDb);
            // Modest limits: the defaults (100 GB store) exceed test disks and make the broker warn.
            b.getSystemUsage().getStoreUsage().setLimit(1L << 30);
            b.getSystemUsage().getTempUsage().setLimit(256L << 20);
            if (!users.isEmpty()) {
                SimpleAuthenticationPlugin auth = new SimpleAuthenticationPlugin();
                auth.setUserPasswords(new LinkedHashMap<>(users));
                auth.setAnonymousAccessAllowed(false);
                b.setPlugins(new BrokerPlugin[] {auth});
            }
            b.addConnector("stomp://127.0.0.1:" + port);
            b.start();
            if (!b.waitUntilStarted()) {
                throw new IllegalStateException("embedded broker in " + dataDir + " did not start");
            }
            return b;
        } catch (Exception e) {
            throw new IllegalStateException("cannot start embedded broker in " + dataDir + " on port " + port, e);
        }
    }

    private static int boundPort(BrokerService b) {
        try {
            URI uri = b.getTransportConnectors().get(0).getConnectUri();
            if (uri == null || uri.getPort() <= 0) {
                throw new IllegalStateException("embedded broker connector has no bound port: " + uri);
            }
            return uri.getPort();
        } catch (IOException | URISyntaxException e) {
            throw new IllegalStateException("cannot read the embedded broker's STOMP port", e);
        }
    }

    /** The STOMP port on 127.0.0.1. */
    public int stompPort() {
        return port;
    }

    /** {@code 127.0.0.1:PORT}, the form {@code StompEndpoint.parseList} and {@code --brokers} take. */
    public String stompEndpoints() {
        return "127.0.0.1:" + port;
    }

    /**
     * Messages held by a queue and not yet acknowledged (pending plus in flight); 0 for a queue that does not exist.
     *
     * @param destinationName a STOMP destination ({@code /queue/x}) or a plain ActiveMQ queue name ({@code x})
     */
    public synchronized long queueSize(String destinationName) {
        requireNonNull(destinationName, "destinationName is null");
        if (broker == null) {
            throw new IllegalStateException("embedded broker is stopped");
        }
        Destination d = broker.getRegionBroker().getDestinationMap().get(new ActiveMQQueue(queueName(destinationName)));
        return d == null ? 0 : d.getDestinationStatistics().getMessages().getCount();
    }

    /** Maps a STOMP destination {@code /queue/x} to the ActiveMQ queue name {@code x}; other names pass unchanged. */
    public static String queueName(String destinationName) {
        return destinationName.startsWith("/queue/") ? destinationName.substring("/queue/".length()) : destinationName;
    }

    /** True while the broker runs. */
    public synchronized boolean isRunning() {
        return broker != null && broker.isStarted();
    }

    /** Stops the broker (idempotent). Clients see their connections drop. */
    public synchronized void stop() {
        if (broker == null) {
            return;
        }
        try {
            broker.stop();
            broker.waitUntilStopped();
        } catch (Exception e) {
            throw new IllegalStateException("cannot stop embedded broker in " + dataDir, e);
        } finally {
            broker = null;
        }
    }

    /** Stops the broker if running and starts it again on the same port with the same message store. */
    public synchronized void restart() {
        stop();
        broker = newBroker(dataDir, users, port);
    }

    @Override
    public void close() {
        stop();
    }
}
