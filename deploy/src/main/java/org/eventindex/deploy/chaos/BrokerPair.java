package org.eventindex.deploy.chaos;

import org.eventindex.brokerwatch.BrokerWatchdogMain;
import org.eventindex.deploy.BrokerLogins;
import org.eventindex.testing.TcpProxy;
import org.eventindex.testing.Ports;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The chaos cluster's ActiveMQ pair, the shared-store master/slave pair of decision 0038 (no longer the shipped
 * topology: decision 0042 made independent brokers the one production topology, and converting the chaos cluster to
 * them is a listed follow-up): two {@link BrokerMain} processes on one shared KahaDB directory, each with its own
 * STOMP port; the one holding the store's file lock is active and listens, the other waits for the lock with its
 * port closed. Beside each broker runs its watchdog ({@code eventindex broker-watchdog}, a process of its own), which kills a
 * broker that listens but stops answering; the harness then restarts the killed broker, as systemd's
 * {@code Restart=always} does, and it comes back as the standby. Clients reach each broker through its own
 * {@link TcpProxy} and take the list {@code proxy1,proxy2}: the daemons subscribe through both (the standby's
 * proxy refuses until it takes over), the senders go through whichever accepts.
 */
final class BrokerPair implements AutoCloseable {
    /** How often a standby tries the store lock (decision 0038's templates' {@code lockAcquireSleepInterval}). */
    static final Duration LOCK_RETRY = Duration.ofSeconds(1);
    /** The watchdog's probe period, probe timeout and silent probes before the kill (as in docs/operations.md). */
    static final Duration WATCH_INTERVAL = Duration.ofSeconds(1);
    static final Duration WATCH_TIMEOUT = Duration.ofSeconds(2);
    static final int WATCH_SILENT_PROBES = 3;

    private final List<ChildProcess> brokers = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();
    private final List<TcpProxy> proxies = new ArrayList<>();
    private final List<ChildProcess> watchdogs = new ArrayList<>();

    private BrokerPair() {
    }

    /**
     * Starts broker 1 (it takes the lock and is active), then broker 2 (the standby), their watchdogs and proxies.
     *
     * @param logs the folder of the processes' logs
     */
    static BrokerPair start(Path work, Path secrets, Path logs, String classPath, Duration timeout,
                            Consumer<String> progress) {
        BrokerPair pair = new BrokerPair();
        try {
            Path store = work.resolve("broker-store").resolve("kahadb");
            for (int i = 1; i <= 2; i++) {
                int port = Ports.free();
                Path pidFile = work.resolve("broker-" + i + ".pid");
                // The store's lock and recovery and the broker's start, in the log: what a takeover spends its time on.
                List<String> cmd = ChildProcess.java(BrokerMain.class.getName(), classPath, "384m")
                        .options("-Dorg.slf4j.simpleLogger.log.org.apache.activemq.store=info",
                                "-Dorg.slf4j.simpleLogger.log.org.apache.activemq.broker.BrokerService=info")
                        .args(work.resolve("broker-" + i).toString(), Integer.toString(port), secrets.toString(),
                                "--shared-store", store.toString(), "--lock-retry-ms",
                                Long.toString(LOCK_RETRY.toMillis()), "--pid-file", pidFile.toString())
                        .command();
                ChildProcess broker = new ChildProcess("broker-" + i, cmd, Map.of(), logs.resolve("broker-" + i
                        + ".log"));
                pair.brokers.add(broker);
                pair.ports.add(port);
                broker.start();
                if (i == 1) {
                    pair.awaitActive(timeout);
                }
                List<String> watch = ChildProcess.java(BrokerWatchdogMain.class.getName(), classPath, "64m")
                        .args("--broker", "127.0.0.1:" + port, "--user", BrokerLogins.OPERATOR, "--password-file",
                                BrokerLogins.passwordFile(secrets, BrokerLogins.OPERATOR).toString(), "--interval",
                                WATCH_INTERVAL.toMillis() + "ms", "--timeout", WATCH_TIMEOUT.toMillis() + "ms",
                                "--pid-file", pidFile.toString(),
                                "--silent-probes", Integer.toString(WATCH_SILENT_PROBES),
                                // a free port each: two watchdogs (and other tests) on the default 8086 would collide
                                "--http-port", "0")
                        .command();
                ChildProcess watchdog = new ChildProcess("broker-watchdog-" + i, watch, Map.of(),
                        logs.resolve("broker-watchdog-" + i + ".log"));
                pair.watchdogs.add(watchdog);
                watchdog.start();
                pair.proxies.add(TcpProxy.start("127.0.0.1", port));
            }
            progress.accept("broker pair on one shared KahaDB (" + store + "): broker-1 active on 127.0.0.1:"
                    + pair.ports.get(0) + ", broker-2 standby for 127.0.0.1:" + pair.ports.get(1)
                    + "; a watchdog beside each");
            return pair;
        } catch (RuntimeException e) {
            pair.close();
            throw e;
        }
    }

    /** What every client takes: both proxies (the daemons subscribe through both; a sender goes through either). */
    String endpoints() {
        return String.join(",", proxies.stream().map(TcpProxy::endpoint).toList());
    }

    List<TcpProxy> proxies() {
        return List.copyOf(proxies);
    }

    List<ChildProcess> brokers() {
        return List.copyOf(brokers);
    }

    List<ChildProcess> watchdogs() {
        return List.copyOf(watchdogs);
    }

    /** The broker that listens now (holds the store lock), if any. */
    Optional<ChildProcess> active() {
        for (int i = 0; i < brokers.size(); i++) {
            if (brokers.get(i).isAlive() && listens(ports.get(i))) {
                return Optional.of(brokers.get(i));
            }
        }
        return Optional.empty();
    }

    /** The other broker of the pair. */
    ChildProcess other(ChildProcess broker) {
        int i = brokers.indexOf(broker);
        if (i < 0) {
            throw new IllegalArgumentException(broker + " is not a broker of the pair");
        }
        return brokers.get(1 - i);
    }

    /** True when {@code broker}'s own STOMP port (not its proxy) takes connections: it is the active broker. */
    boolean listens(ChildProcess broker) {
        return listens(ports.get(brokers.indexOf(broker)));
    }

    /** Waits until one broker listens, and returns it; fails early when no broker process is alive. */
    ChildProcess awaitActive(Duration timeout) {
        ChildProcess[] found = new ChildProcess[1];
        ChaosWait.until("a broker of the pair accepting STOMP connections (logs " + logs() + ")", timeout, () -> {
            if (brokers.stream().noneMatch(ChildProcess::isAlive)) {
                throw new IllegalStateException("no broker process of the pair is running; see " + logs());
            }
            found[0] = active().orElse(null);
            return found[0] != null;
        });
        return found[0];
    }

    private String logs() {
        return String.join(", ", brokers.stream().map(b -> b.log().toString()).toList());
    }

    private static boolean listens(int port) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        // The watchdogs before the brokers (a broker stopping must not be killed); the standby before the active
        // broker, which would otherwise hand it the lock for a moment.
        List<AutoCloseable> all = new ArrayList<>(proxies);
        all.addAll(watchdogs);
        brokers.stream().filter(b -> !b.isAlive() || !listens(b)).forEach(all::add);
        brokers.stream().filter(b -> !all.contains(b)).forEach(all::add);
        for (AutoCloseable c : all) {
            try {
                c.close();
            } catch (Exception e) {
                org.slf4j.LoggerFactory.getLogger(BrokerPair.class).warn("stopping {} failed", c, e);
            }
        }
    }
}
