package org.eventindex.ops;

import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A daemon's dependencies (HDFS, Kudu...) checked in the background every interval, so that {@code /ready} reads a
 * cached verdict and a request never triggers a call to a dependency. Each check runs on its own thread and has the
 * interval to answer: one that hangs (a NameNode that drops packets) is reported down with "no answer within ..." and
 * is not started again until the hung call returns, so checks never pile up.
 * <p>
 * Until its first check finishes a dependency counts as down ("not checked yet"). The metric
 * {@code <metric>{dependency}} is 1 while a dependency is up, 0 while it is down.
 */
public final class DependencyChecks implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DependencyChecks.class);

    /** One dependency's probe: returns when the dependency answered, throws (with the reason) when it did not. */
    @FunctionalInterface
    public interface Check {
        void run() throws Exception;
    }

    private final Map<String, Probe> probes = new LinkedHashMap<>();
    private final Duration interval;
    private final Clock clock;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService runners;

    /**
     * @param checks   by dependency name ({@code hdfs}, {@code kudu}), in the order {@code /ready} lists them
     * @param interval time between two rounds, and the time each check has to answer
     * @param registry where the up/down gauge {@code metric} (label {@code dependency}) is registered
     */
    public DependencyChecks(Map<String, Check> checks, Duration interval, Clock clock, PrometheusRegistry registry,
                            String metric) {
        Objects.requireNonNull(checks, "checks is null");
        this.interval = Objects.requireNonNull(interval, "interval is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        Objects.requireNonNull(registry, "registry is null");
        Objects.requireNonNull(metric, "metric is null");
        if (checks.isEmpty()) {
            throw new IllegalArgumentException("no dependency to check");
        }
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("check interval must be positive: " + interval);
        }
        checks.forEach((name, check) -> probes.put(name, new Probe(name, Objects.requireNonNull(check,
                "check of " + name + " is null"))));
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "dependency-checks"));
        runners = Executors.newCachedThreadPool(r -> daemon(r, "dependency-check"));
        GaugeWithCallback.builder().name(metric)
                .help("1 while the dependency answered its last check, 0 while it does not (checked every "
                        + interval.toSeconds() + " s).").labelNames("dependency")
                .callback(cb -> probes.values().forEach(p -> cb.call(p.status().up() ? 1 : 0, p.name)))
                .register(registry);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** Runs the first round now and then one every interval. */
    public void start() {
        scheduler.scheduleWithFixedDelay(this::round, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Starts every check not still running, then waits up to the interval for them and records the verdicts. */
    void round() {
        try {
            long deadline = System.nanoTime() + interval.toNanos();
            probes.values().forEach(Probe::startIfIdle);
            for (Probe p : probes.values()) {
                p.await(deadline);
            }
        } catch (RuntimeException e) {
            LOG.warn("dependency check round failed: {}", e.toString());
        }
    }

    /** Every dependency's last verdict, in the order given. */
    public List<DependencyStatus> statuses() {
        return probes.values().stream().map(Probe::status).toList();
    }

    /** Ready when every dependency is up; otherwise not ready, naming the first one down and its error. */
    public OpsHttpServer.Readiness readiness() {
        return OpsHttpServer.Readiness.of(statuses());
    }

    /** Stops checking; a check in progress is interrupted. Idempotent. */
    @Override
    public void close() {
        scheduler.shutdownNow();
        runners.shutdownNow();
    }

    private final class Probe {
        private final String name;
        private final Check check;
        private volatile DependencyStatus status;
        private Future<?> running;
        private long runningSince;

        Probe(String name, Check check) {
            this.name = name;
            this.check = check;
            this.status = new DependencyStatus(name, false, "not checked yet", null);
        }

        DependencyStatus status() {
            return status;
        }

        synchronized void startIfIdle() {
            if (running == null || running.isDone()) {
                runningSince = System.nanoTime();
                running = runners.submit(this::runOnce);
            }
        }

        private void runOnce() {
            DependencyStatus next;
            try {
                check.run();
                next = new DependencyStatus(name, true, null, Instant.now(clock));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                next = new DependencyStatus(name, false, message(e), Instant.now(clock));
            }
            record(next);
        }

        synchronized void await(long deadlineNanos) {
            Future<?> f = running;
            if (f == null) {
                return;
            }
            try {
                f.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                long waited = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - runningSince);
                record(new DependencyStatus(name, false, "no answer within " + Math.max(waited,
                        interval.toSeconds()) + " s", Instant.now(clock)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.CancellationException e) {
                record(new DependencyStatus(name, false, String.valueOf(e.getCause()), Instant.now(clock)));
            }
        }

        private void record(DependencyStatus next) {
            DependencyStatus before = status;
            status = next;
            if (before.up() != next.up() || before.checkedAt() == null) {
                if (next.up()) {
                    LOG.info("dependency {} is up", name);
                } else {
                    LOG.warn("dependency {} is down: {}", name, next.error());
                }
            }
        }
    }

    /** The first line of the exception's message and of its causes', without a stack trace. */
    static String message(Throwable e) {
        StringBuilder out = new StringBuilder();
        for (Throwable t = e; t != null && out.length() < 500; t = t.getCause() == t ? null : t.getCause()) {
            String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage().lines().findFirst()
                    .orElse("");
            if (out.indexOf(m) < 0) {
                out.append(out.length() == 0 ? "" : ": ").append(m);
            }
        }
        return out.toString();
    }
}
