package org.eventindex.deploy.chaos;

import org.eventindex.supervisor.ha.Leadership;
import org.eventindex.testing.MetricsText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * The chaos cluster's two supervisors (supervisor.ha.enabled; lease in ZooKeeper, journal on HDFS): which one is active, the
 * other's port, and a keeper that starts again a supervisor that exited fenced out (as systemd's {@code Restart=}
 * does in production), counting those exits for the faults that expect one.
 */
final class SupervisorPair implements AutoCloseable {
    /**
     * The ZooKeeper session timeout (the lease): short enough for rounds of seconds, long enough for a busy 2-core
     * machine's GC pauses.
     */
    static final Duration LEASE = Duration.ofSeconds(5);
    static final Duration RENEW = Duration.ofMillis(500);
    private static final Logger LOG = LoggerFactory.getLogger(SupervisorPair.class);

    private final List<ChildProcess> supervisors;
    private final List<Integer> ports;
    private final java.util.function.LongUnaryOperator journalBytes;
    private final BiFunction<ChildProcess, String, Optional<HttpResponse<String>>> get;
    private final Map<ChildProcess, AtomicInteger> fencedExits = new ConcurrentHashMap<>();
    private final Thread keeper;
    private volatile boolean closed;
    private volatile ChildProcess lastActive;

    /**
     * @param journalBytes what a reader sees of the journal of a generation (by its token), -1 when absent
     */
    SupervisorPair(List<ChildProcess> supervisors, List<Integer> ports, java.util.function.LongUnaryOperator journalBytes,
                   BiFunction<ChildProcess, String, Optional<HttpResponse<String>>> get) {
        this.supervisors = List.copyOf(supervisors);
        this.ports = List.copyOf(ports);
        this.journalBytes = Objects.requireNonNull(journalBytes, "journalBytes is null");
        this.get = Objects.requireNonNull(get, "get is null");
        supervisors.forEach(s -> fencedExits.put(s, new AtomicInteger()));
        lastActive = supervisors.get(0);
        keeper = new Thread(this::keep, "chaos-supervisor-keeper");
        keeper.setDaemon(true);
    }

    /** Starts the first, waits until it is active, then the second (the standby); then the keeper. */
    void start(Duration timeout) {
        ChildProcess first = supervisors.get(0);
        first.start();
        ChaosWait.until(first.name() + " active (log " + first.log() + ")", timeout, () -> ready(first));
        lastActive = first;
        ChildProcess second = supervisors.get(1);
        second.start();
        awaitStandby(second, timeout);
        keeper.start();
    }

    List<ChildProcess> both() {
        return supervisors;
    }

    /** The HTTP port of one of the two, or -1 when the process is not one of them. */
    int port(ChildProcess p) {
        int i = supervisors.indexOf(p);
        return i < 0 ? -1 : ports.get(i);
    }

    /** The active supervisor now (its /ready answers 200), else the last one seen active. */
    ChildProcess active() {
        for (ChildProcess s : supervisors) {
            if (s.isAlive() && ready(s)) {
                lastActive = s;
                return s;
            }
        }
        return lastActive;
    }

    ChildProcess other(ChildProcess s) {
        return supervisors.get(0) == s ? supervisors.get(1) : supervisors.get(0);
    }

    boolean ready(ChildProcess s) {
        return get.apply(s, "/ready").map(r -> r.statusCode() == 200).orElse(false);
    }

    /**
     * Waits until {@code s} answers as a standby with a ZooKeeper session: alive, /ready 503 naming the standby role,
     * not waiting for ZooKeeper.
     */
    void awaitStandby(ChildProcess s, Duration timeout) {
        ChaosWait.until(s.name() + " standing by (log " + s.log() + ")", timeout, () -> {
            if (!s.isAlive()) {
                throw new IllegalStateException(s.name() + " exited; see " + s.log());
            }
            return get.apply(s, "/ready").map(r -> r.statusCode() == 503 && r.body().contains("standby")
                    && !r.body().contains("waiting for ZooKeeper")).orElse(false);
        });
    }

    /** Waits until one supervisor is active and the other standing by. */
    void awaitSettled(Duration timeout) {
        ChaosWait.until("one supervisor active", timeout, () -> supervisors.stream().anyMatch(this::ready));
        awaitStandby(other(active()), timeout);
    }

    /** Times {@code s} exited fenced out ({@link Leadership#EXIT_FENCED}) and was started again by the keeper. */
    int fencedExits(ChildProcess s) {
        return fencedExits.get(s).get();
    }

    /** A metric of one supervisor (summed over labels), -1 when it does not answer. */
    double metric(ChildProcess s, String name) {
        return get.apply(s, "/metrics").filter(r -> r.statusCode() == 200)
                .map(r -> MetricsText.value(r.body(), name, "")).orElse(-1.0);
    }

    /** Bytes of the journal of generation {@code token} on HDFS (what its holder journalled), -1 when absent. */
    long journalBytes(long token) {
        return journalBytes.applyAsLong(token);
    }

    private void keep() {
        while (!closed) {
            for (ChildProcess s : supervisors) {
                Optional<Integer> exit = s.exitCode();
                if (!closed && exit.isPresent() && exit.get() == Leadership.EXIT_FENCED) {
                    LOG.info("{} exited fenced out ({}); starting it again as a standby", s.name(), exit.get());
                    try {
                        s.start();
                        fencedExits.get(s).incrementAndGet();
                    } catch (IllegalStateException alreadyRunning) {
                        // started by a fault in the meantime
                    }
                }
            }
            ChaosWait.hold(Duration.ofMillis(200));
        }
    }

    @Override
    public void close() {
        closed = true;
        keeper.interrupt();
    }
}
