package org.eventindex.testing;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.security.Principal;
import org.apache.activemq.broker.BrokerPlugin;
import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.broker.SslContext;
import org.apache.activemq.broker.region.Destination;
import org.apache.activemq.command.ActiveMQQueue;
import org.apache.activemq.jaas.GroupPrincipal;
import org.apache.activemq.security.JaasAuthenticationPlugin;
import org.apache.activemq.security.SimpleAuthenticationPlugin;
import org.apache.activemq.store.kahadb.KahaDBPersistenceAdapter;

/**
 * An in-process ActiveMQ Classic broker for tests and the demo stack: persistent KahaDB in a given folder, one STOMP
 * connector on 127.0.0.1 with a free port, no JMX, no shutdown hook. {@link #restart()} brings the broker back on the
 * same port with the same store (persistent messages survive).
 *
 * <p>With {@link #start(Path, Map)} the broker requires a login (simple authentication plugin; the
 * {@code activemq-jaas} jar must be on the classpath). With {@link #startSecured(Path, Security)} it also applies the
 * deployment's per-destination rules ({@link BrokerAccess}) and the frame size and connection limits of the shipped
 * template {@code broker-host/activemq/activemq.xml}.
 */
public final class EmbeddedBroker implements AutoCloseable {
    /** The queue that NACKed and expired messages go to. */
    public static final String DLQ = "ActiveMQ.DLQ";

    /** Largest STOMP frame the secured broker accepts; the shipped template's {@code wireFormat.maxFrameSize}. */
    public static final long MAX_FRAME_BYTES = 4L << 20;
    private static final String LOOPBACK = "127.0.0.1";
    /** Most client connections of the secured broker; the template's {@code transport.maxConnections}. */
    public static final int MAX_CONNECTIONS = 1000;

    /**
     * Logins of a secured broker.
     *
     * @param passwords login to password
     * @param groups    login to its groups ({@link BrokerAccess#PRODUCERS} and the others)
     */
    public record Security(Map<String, String> passwords, Map<String, Set<String>> groups) {
        public Security {
            passwords = Map.copyOf(passwords);
            groups = Map.copyOf(groups);
            if (!passwords.keySet().equals(groups.keySet())) {
                throw new IllegalArgumentException("every login needs a password and groups: " + passwords.keySet()
                        + " vs " + groups.keySet());
            }
        }

        /** One login per group, each named after its group, with the given passwords (group to password). */
        public static Security onePerGroup(Map<String, String> groupPasswords) {
            Map<String, Set<String>> groups = new LinkedHashMap<>();
            groupPasswords.keySet().forEach(g -> groups.put(g, Set.of(g)));
            return new Security(groupPasswords, groups);
        }

        @Override
        public String toString() {
            return "Security[logins=" + groups + "]";
        }
    }

    private final Path dataDir;
    private final Map<String, String> users;
    private final Security security;
    private final TestCertificates tls;
    private final String host;
    private final int port;
    private final String jaasName;
    private TestCertificates currentTls;
    private BrokerService broker;

    private EmbeddedBroker(Path dataDir, Map<String, String> users, Security security,
                           TestCertificates tls, BrokerService broker, String host, int port, String jaasName) {
        this.dataDir = dataDir;
        this.jaasName = jaasName;
        this.currentTls = tls;
        this.users = users;
        this.security = security;
        this.tls = tls;
        this.broker = broker;
        this.host = host;
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
        return start(dataDir, Map.copyOf(requireNonNull(users, "users is null")), null, null);
    }

    /**
     * Starts a broker whose only connector is STOMP over TLS ({@code stomp+ssl}) with the certificate of
     * {@code certificates}; {@link #stompEndpoints()} names it. Any login is accepted.
     */
    public static EmbeddedBroker startTls(Path dataDir, TestCertificates certificates) {
        return start(dataDir, Map.of(), null, requireNonNull(certificates, "certificates is null"));
    }

    /**
     * Starts a broker that requires a login, refuses anonymous connections, and lets each login use only the
     * destinations {@link BrokerAccess} grants its groups.
     */
    public static EmbeddedBroker startSecured(Path dataDir, Security security) {
        return startSecured(dataDir, security, 0);
    }

    /**
     * {@link #startSecured(Path, Security)} on a given port of 127.0.0.1 (0: a free one), for a broker that must come
     * back on the same port after its process is killed (the chaos harness).
     */
    public static EmbeddedBroker startSecured(Path dataDir, Security security, int port) {
        return startSecured(dataDir, security, LOOPBACK, port);
    }

    /**
     * {@link #startSecured(Path, Security, int)} listening on {@code host} (an address of this machine, e.g. a test
     * host's address in its network namespace) instead of 127.0.0.1.
     */
    public static EmbeddedBroker startSecured(Path dataDir, Security security, String host, int port) {
        requireNonNull(security, "security is null");
        requireNonNull(host, "host is null");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("broker port must be 0..65535: " + port);
        }
        return start(dataDir, security.passwords(), security, null, host, port);
    }

    private static EmbeddedBroker start(Path dataDir, Map<String, String> users, Security security,
                                        TestCertificates tls) {
        return start(dataDir, users, security, tls, LOOPBACK, 0);
    }

    /**
     * Starts a broker that accepts any login, listening on {@code host} (an address of 127.0.0.0/8: all of it is
     * local on Linux) and {@code port}: several independent brokers on 127.0.0.2, 127.0.0.3... may share one port,
     * as the brokers behind a DNS alias do.
     */
    public static EmbeddedBroker startOn(Path dataDir, String host, int port) {
        requireNonNull(host, "host is null");
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("broker port must be 1..65535: " + port);
        }
        return start(dataDir, Map.of(), null, null, host, port);
    }

    /**
     * A secured broker ({@link #startSecured(Path, Security)}'s rules) whose logins are the shipped template's: the
     * JAAS entry of {@code loginConfig} ({@code broker-host/activemq/login.config}) over {@code users.properties},
     * {@code users-next.properties} and {@code groups.properties} in {@code loginDir} ({@link BrokerLoginFiles},
     * written from {@code security} unless there), read again by ActiveMQ when they change, as at a site. With
     * {@code tls} the only connector is {@code stomp+ssl}, and {@link #restart(TestCertificates)} can change the
     * certificate.
     */
    public static EmbeddedBroker startWithLoginFiles(Path dataDir, Security security, Path loginConfig,
                                                     Path loginDir, TestCertificates tls) {
        requireNonNull(security, "security is null");
        try {
            BrokerLoginFiles.write(loginDir, security);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the broker's login files in " + loginDir, e);
        }
        return start(dataDir, security.passwords(), security, tls, LOOPBACK, 0,
                BrokerLoginFiles.register(loginConfig, loginDir));
    }

    private static EmbeddedBroker start(Path dataDir, Map<String, String> users,
                                        Security security, TestCertificates tls, String host, int listenPort) {
        return start(dataDir, users, security, tls, host, listenPort, null);
    }

    private static EmbeddedBroker start(Path dataDir, Map<String, String> users, Security security,
                                        TestCertificates tls, String host, int listenPort, String jaasName) {
        requireNonNull(dataDir, "dataDir is null");
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create broker data folder " + dataDir, e);
        }
        BrokerService broker;
        for (int attempt = 1; ; attempt++) {
            // a port below the ephemeral range: while a restart() is under way no outgoing connection can take it
            int listen = listenPort == 0 ? Ports.freeForRestart() : listenPort;
            try {
                broker = newBroker(dataDir, users, security, tls, host, listen, jaasName);
                break;
            } catch (IllegalStateException e) {
                // a port chosen here and taken by another JVM before the broker bound it: another one
                if (listenPort != 0 || attempt == 3 || !causedBy(e, BindException.class)) {
                    throw e;
                }
            }
        }
        int port = boundPort(broker);
        return new EmbeddedBroker(dataDir, users, security, tls, broker, host, port, jaasName);
    }

    private static BrokerService newBroker(Path dataDir, Map<String, String> users, Security security,
                                           TestCertificates tls, String host, int port, String jaasName) {
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
            String limits = "";
            if (security != null || !users.isEmpty()) {
                // as deploy's activemq.xml: the broker writes the authenticated login into every message it accepts
                b.setPopulateJMSXUserID(true);
                b.setUseAuthenticatedPrincipalForJMSXUserID(true);
            }
            if (security != null) {
                b.setPlugins(new BrokerPlugin[] {jaasName == null ? authentication(users, security)
                        : jaas(jaasName), BrokerAcls.plugin()});
                b.setDestinations(BrokerAcls.queues());
                limits = "?wireFormat.maxFrameSize=" + MAX_FRAME_BYTES + "&transport.maxConnections="
                        + MAX_CONNECTIONS;
            } else if (!users.isEmpty()) {
                b.setPlugins(new BrokerPlugin[] {authentication(users, null)});
            }
            if (tls != null) {
                b.setSslContext(new SslContext(tls.keyManagers(), null, null));
            }
            URI connector = new URI((tls == null ? "stomp" : "stomp+ssl") + "://" + host + ":" + port + limits);
            b.addConnector(connector);
            b.start();
            if (!b.waitUntilStarted()) {
                throw new IllegalStateException("embedded broker in " + dataDir + " did not start");
            }
            return b;
        } catch (Exception e) {
            throw new IllegalStateException("cannot start embedded broker in " + dataDir + " on port " + port, e);
        }
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static BrokerPlugin jaas(String name) {
        JaasAuthenticationPlugin jaas = new JaasAuthenticationPlugin();
        jaas.setConfiguration(name);
        jaas.setDiscoverLoginConfig(false);
        return jaas;
    }

    private static SimpleAuthenticationPlugin authentication(Map<String, String> users, Security security) {
        SimpleAuthenticationPlugin auth = new SimpleAuthenticationPlugin();
        auth.setUserPasswords(new LinkedHashMap<>(users));
        if (security != null) {
            Map<String, Set<Principal>> groups = new LinkedHashMap<>();
            security.groups().forEach((login, g) -> groups.put(login, g.stream()
                    .map(name -> (Principal) new GroupPrincipal(name)).collect(Collectors.toSet())));
            auth.setUserGroups(groups);
        }
        auth.setAnonymousAccessAllowed(false);
        return auth;
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

    /** The STOMP port (on 127.0.0.1 unless started {@link #startOn} another address). */
    public int stompPort() {
        return port;
    }

    /** The address listened on: 127.0.0.1 unless started {@link #startOn} another. */
    public String host() {
        return host;
    }

    /** {@code HOST:PORT} (127.0.0.1 by default), the form {@code StompEndpoint.parseList} and {@code --brokers} take. */
    public String stompEndpoints() {
        return host + ":" + port;
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

    /** Subscriptions on a queue now (0 for a queue that does not exist): whether its readers are back after a restart. */
    public synchronized long consumers(String destinationName) {
        requireNonNull(destinationName, "destinationName is null");
        if (broker == null) {
            throw new IllegalStateException("embedded broker is stopped");
        }
        Destination d = broker.getRegionBroker().getDestinationMap().get(new ActiveMQQueue(queueName(destinationName)));
        return d == null ? 0 : d.getConsumers().size();
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
        restart(currentTls);
    }

    /**
     * Stops the broker and starts it again on the same port and store serving {@code certificates} (a certificate
     * rotated on the broker host: the broker reads its key store at start).
     */
    public synchronized void restart(TestCertificates certificates) {
        if ((certificates == null) != (tls == null)) {
            throw new IllegalArgumentException("a restart keeps the connector's kind: TLS " + (tls != null));
        }
        stop();
        currentTls = certificates;
        broker = newBroker(dataDir, users, security, certificates, host, port, jaasName);
    }

    @Override
    public void close() {
        stop();
    }
}
