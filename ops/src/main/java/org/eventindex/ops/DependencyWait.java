package org.eventindex.ops;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.retry.Backoff;
import org.eventindex.retry.Outage;
import org.eventindex.retry.Outages;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleSupplier;
import java.util.function.Predicate;

/**
 * What a daemon waits for at start: a dependency that does not answer yet (the KDC, the Kudu masters) is tried again
 * with the project's capped exponential {@link Backoff} until it answers, instead of ending the process. Each failed
 * attempt is logged with its reason and the wait, one line per retry ({@link Outage}; and one when it answers), and
 * counted in {@value #FAILURES}{@code {dependency}}; meanwhile
 * {@link #waitingFor()} names the dependency and its last error, which the daemon's {@code /ready} serves (503). A
 * failure the caller's predicate does not call "down" (a refused keytab, a bad option) ends the wait at once: that is
 * for an operator to fix. {@link #close()} ends a wait in progress (the daemon is stopping).
 */
public final class DependencyWait implements AutoCloseable {
    /** Counter, label {@code dependency}: attempts that failed because the dependency did not answer. */
    public static final String FAILURES = "eventindex_dependency_wait_failures_total";
    /** From 1 s, doubling, at most 30 s between attempts (a fifth of each wait random). */
    public static final Backoff BACKOFF = new Backoff(Duration.ofSeconds(1), 2, Duration.ofSeconds(30), 0.2);
    private static final Logger LOG = LoggerFactory.getLogger(DependencyWait.class);

    /** One attempt at reaching the dependency. */
    @FunctionalInterface
    public interface Attempt<T, E extends Exception> {
        T run() throws E;
    }

    /** How the wait between attempts is spent; the default waits on this object, so that {@link #close} ends it. */
    @FunctionalInterface
    public interface Pause {
        void pause(Duration d) throws InterruptedException;
    }

    private final Backoff backoff;
    private final DoubleSupplier random;
    private final Pause pause;
    private final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();
    private final Outages outages = new Outages();
    private final Object lock = new Object();
    private volatile String waitingFor;
    private volatile boolean closed;

    /** With {@link #BACKOFF}, waiting in real time. */
    public DependencyWait() {
        this(BACKOFF, () -> ThreadLocalRandom.current().nextDouble(), null);
    }

    /**
     * @param pause null: waits in real time, ended early by {@link #close}; tests pass one that records the waits
     */
    public DependencyWait(Backoff backoff, DoubleSupplier random, Pause pause) {
        this.backoff = Objects.requireNonNull(backoff, "backoff is null");
        this.random = Objects.requireNonNull(random, "random is null");
        this.pause = pause != null ? pause : this::waitOnLock;
    }

    /** Registers {@value #FAILURES} in a daemon's registry (several registries may show the same counts). */
    public void register(PrometheusRegistry registry) {
        CounterWithCallback.builder().name(FAILURES)
                .help("Attempts to reach a dependency at start (the KDC, Kudu...) that failed because it did not"
                        + " answer; the daemon tries again with a capped exponential backoff.")
                .labelNames("dependency")
                .callback(cb -> failures.forEach((name, n) -> cb.call(n.get(), name)))
                .register(registry);
    }

    /**
     * Runs {@code attempt} until it returns. A failure for which {@code down} is true is logged, counted and tried
     * again after the backoff; any other is thrown as it is.
     *
     * @param dependency what is waited for, as {@code /ready} names it ({@code kerberos}, {@code kudu})
     * @throws InterruptedException when {@link #close()} was called or the thread interrupted during the wait
     */
    public <T, E extends Exception> T await(String dependency, Attempt<T, E> attempt, Predicate<Throwable> down)
            throws E, InterruptedException {
        Objects.requireNonNull(dependency, "dependency is null");
        AtomicLong failed = failures.computeIfAbsent(dependency, d -> new AtomicLong());
        Outage outage = outages.of(dependency, LOG);
        for (int n = 0; ; n++) {
            if (closed) {
                throw new InterruptedException("stopped while waiting for " + dependency);
            }
            try {
                T result = attempt.run();
                outage.reachable();
                waitingFor = null;
                return result;
            } catch (Exception e) {
                if (closed) {
                    // the attempt was cut short by the stop: not a failure of the dependency
                    throw new InterruptedException("stopped while waiting for " + dependency);
                }
                if (!down.test(e)) {
                    waitingFor = null;
                    if (e instanceof RuntimeException r) {
                        throw r;
                    }
                    @SuppressWarnings("unchecked") E thrown = (E) e; // attempt throws E or a RuntimeException
                    throw thrown;
                }
                failed.incrementAndGet();
                Duration next = backoff.delay(Math.min(n, 62), random.getAsDouble());
                String reason = DependencyChecks.message(e);
                waitingFor = dependency + ": " + reason + " (attempt " + (n + 1) + " failed; next in "
                        + Math.max(1, Math.round(next.toMillis() / 1000.0)) + " s)";
                outage.retrying(reason, n + 1, next);
                pause.pause(next);
            }
        }
    }

    /** The dependency waited for and its last error, while a wait is in progress. */
    public Optional<String> waitingFor() {
        return Optional.ofNullable(waitingFor);
    }

    /** Failed attempts so far for {@code dependency}. */
    public long failures(String dependency) {
        AtomicLong n = failures.get(dependency);
        return n == null ? 0 : n.get();
    }

    private void waitOnLock(Duration d) throws InterruptedException {
        long deadline = System.nanoTime() + d.toNanos();
        synchronized (lock) {
            long left;
            while (!closed && (left = deadline - System.nanoTime()) > 0) {
                lock.wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    /** Ends a wait in progress ({@link #await} throws {@link InterruptedException}); idempotent. */
    @Override
    public void close() {
        closed = true;
        synchronized (lock) {
            lock.notifyAll();
        }
    }
}
