package org.eventindex.deploy.chaos;

import org.eventindex.brokerwatch.BrokerWatchdogMain;
import org.eventindex.deploy.BrokerLogins;
import org.eventindex.testing.Ports;
import org.eventindex.testing.hosts.Host;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The chaos cluster's brokers as a site runs them (decision 0042): {@link #COUNT} independent ActiveMQ brokers
 * ({@link BrokerMain} processes, each on its own host), each with its own KahaDB store under {@code <work>/broker-N}
 * and its own STOMP port, nothing shared between them. Beside each runs its watchdog ({@code eventindex broker-watchdog}, a process of its
 * own), which kills a broker that listens but stops answering; the harness then starts the killed broker again on its
 * store, as systemd's {@code Restart=always} does, and the broker delivers what it stored. Clients reach each broker
 * through its own {@link FaultProxy} (a process on the broker's host) and take the list {@code proxy-1,proxy-2}, the
 * alias: the daemons subscribe on every broker of it, a producer sends through one (a random one first, the next on failure).
 */
final class IndependentBrokers implements AutoCloseable {
    /** Two brokers: the fewest with which one can be down while the flow carries on through the other. */
    static final int COUNT = 2;
    /** The watchdog's probe period, probe timeout and silent probes before the kill (as in docs/operations.md). */
    static final Duration WATCH_INTERVAL = Duration.ofSeconds(1);
    static final Duration WATCH_TIMEOUT = Duration.ofSeconds(2);
    static final int WATCH_SILENT_PROBES = 3;

    private final List<ChildProcess> brokers = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();
    private final List<Host> hosts = new ArrayList<>();
    private final List<FaultProxy> proxies = new ArrayList<>();
    private final List<ChildProcess> watchdogs = new ArrayList<>();

    private final Thread keeper = new Thread(this::keep, "chaos-broker-keeper");
    private final java.util.concurrent.atomic.AtomicInteger heldDown = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger restarts = new java.util.concurrent.atomic.AtomicInteger();
    private volatile boolean closed;

    private IndependentBrokers() {
        keeper.setDaemon(true);
    }

    /**
     * Starts broker {@code i} on {@code hosts.get(i)} (listening on every address of that host: its own, where the
     * driver checks it, and its loopback, where its watchdog probes it and its proxy forwards to), then waits until each listens, then
     * starts beside each, on its host, its watchdog and its {@link FaultProxy}.
     *
     * @param logs the folder of the processes' logs
     */
    static IndependentBrokers start(Path work, Path secrets, Path logs, List<Host> hosts, String classPath,
                                    Duration timeout) {
        if (hosts.size() != COUNT) {
            throw new IllegalArgumentException(COUNT + " broker hosts needed, got " + hosts);
        }
        IndependentBrokers all = new IndependentBrokers();
        try {
            for (int i = 1; i <= COUNT; i++) {
                Host host = hosts.get(i - 1);
                int port = Ports.freeForRestart();
                List<String> cmd = ChildProcess.java(BrokerMain.class.getName(), classPath, "384m")
                        .options("-Dorg.slf4j.simpleLogger.log.org.apache.activemq.store=info",
                                "-Dorg.slf4j.simpleLogger.log.org.apache.activemq.broker.BrokerService=info")
                        .args(work.resolve("broker-" + i).toString(), Integer.toString(port), secrets.toString(),
                                "--bind", "0.0.0.0", "--pid-file", pidFile(work, i).toString())
                        .on(host).command();
                ChildProcess broker = new ChildProcess("broker-" + i, cmd, Map.of(), logs.resolve("broker-" + i
                        + ".log"));
                all.brokers.add(broker);
                all.hosts.add(host);
                all.ports.add(port);
                broker.start();
            }
            for (ChildProcess b : all.brokers) {
                all.awaitListening(b, timeout);
            }
            for (int i = 1; i <= COUNT; i++) {
                Host host = hosts.get(i - 1);
                String broker = "127.0.0.1:" + all.ports.get(i - 1);
                List<String> watch = ChildProcess.java(BrokerWatchdogMain.class.getName(), classPath, "64m")
                        .args("--broker", broker, "--user", BrokerLogins.OPERATOR, "--password-file",
                                BrokerLogins.passwordFile(secrets, BrokerLogins.OPERATOR).toString(), "--interval",
                                WATCH_INTERVAL.toMillis() + "ms", "--timeout", WATCH_TIMEOUT.toMillis() + "ms",
                                "--pid-file", pidFile(work, i).toString(),
                                "--silent-probes", Integer.toString(WATCH_SILENT_PROBES),
                                // a free port each: two watchdogs (and other tests) on the default 8086 would collide
                                "--http-port", "0")
                        .on(host).command();
                ChildProcess watchdog = new ChildProcess("broker-watchdog-" + i, watch, Map.of(),
                        logs.resolve("broker-watchdog-" + i + ".log"));
                all.watchdogs.add(watchdog);
                watchdog.start();
                all.proxies.add(FaultProxy.start("broker-proxy-" + i, host, broker, classPath,
                        logs.resolve("broker-proxy-" + i + ".log"), timeout));
            }
            all.keeper.start();
            return all;
        } catch (RuntimeException e) {
            all.close();
            throw e;
        }
    }

    private static Path pidFile(Path work, int i) {
        return work.resolve("broker-" + i + ".pid");
    }

    /** What every client takes, the alias: every broker's proxy. */
    String endpoints() {
        return String.join(",", proxies.stream().map(FaultProxy::endpoint).toList());
    }

    /** The proxy clients reach {@code broker} through, as its name appears in the daemons' metrics. */
    String endpoint(ChildProcess broker) {
        return proxy(broker).endpoint();
    }

    /** The proxy every client reaches {@code broker} through. */
    FaultProxy proxy(ChildProcess broker) {
        return proxies.get(index(broker));
    }

    List<FaultProxy> proxies() {
        return List.copyOf(proxies);
    }

    List<ChildProcess> brokers() {
        return List.copyOf(brokers);
    }

    List<ChildProcess> watchdogs() {
        return List.copyOf(watchdogs);
    }

    /** The host {@code broker} runs on. */
    Host host(ChildProcess broker) {
        return hosts.get(index(broker));
    }

    /** Waits until {@code broker}'s own STOMP port (not its proxy) takes connections; fails early on its exit. */
    void awaitListening(ChildProcess broker, Duration timeout) {
        int i = index(broker);
        HostProcesses.awaitListening(broker, hosts.get(i), ports.get(i), timeout);
    }

    private int index(ChildProcess broker) {
        int i = brokers.indexOf(broker);
        if (i < 0) {
            throw new IllegalArgumentException(broker.name() + " is not a broker of the alias");
        }
        return i;
    }

    /**
     * Keeps the keeper from starting a dead broker again while {@code outage} runs: a fault that kills brokers and
     * starts them again itself (the keeper plays systemd's {@code Restart=always} for a broker its watchdog killed
     * outside such a fault, e.g. a false kill on a loaded machine).
     */
    <T> T heldDown(java.util.function.Supplier<T> outage) {
        heldDown.incrementAndGet();
        try {
            return outage.get();
        } finally {
            heldDown.decrementAndGet();
        }
    }

    /** Brokers the keeper started again after they died outside a broker fault. */
    int keeperRestarts() {
        return restarts.get();
    }

    private void keep() {
        while (!closed) {
            for (ChildProcess b : brokers) {
                if (!closed && heldDown.get() == 0 && b.exitCode().isPresent()) {
                    LoggerFactory.getLogger(IndependentBrokers.class).warn("{} exited ({}) outside a broker fault"
                            + " (its watchdog's kill?); starting it again on its store, as its service manager"
                            + " would", b.name(), b.exitCode().get());
                    try {
                        b.start();
                        restarts.incrementAndGet();
                    } catch (IllegalStateException alreadyRunning) {
                        // started by a fault in the meantime
                    }
                }
            }
            ChaosWait.hold(java.time.Duration.ofMillis(500));
        }
    }

    @Override
    public void close() {
        closed = true;
        keeper.interrupt();
        // The watchdogs before the brokers: a broker stopping must not be killed.
        List<AutoCloseable> all = new ArrayList<>(proxies);
        all.addAll(watchdogs);
        all.addAll(brokers);
        for (AutoCloseable c : all) {
            try {
                c.close();
            } catch (Exception e) {
                LoggerFactory.getLogger(IndependentBrokers.class).warn("stopping {} failed", c, e);
            }
        }
    }
}
