package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.retry.Backoff;
import org.eventindex.retry.Outage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Sends journalled signals on one background thread, retrying each after the {@link Backoff}'s waits until the broker
 * accepts it, then reports it sent. A signal already waiting is not queued twice. Sending is decoupled from message
 * handling so that a broker hiccup never makes the supervisor NACK (dead-letter) the message that completed a dataset.
 * <p>
 * It knows two objects, each through an interface and only on its own thread: the {@link Transport} that puts a
 * signal on the broker, and the {@link SignalOutbox.Ledger} (the engine) that says whether a signal is still wanted and
 * hears that it went. So a signal's way out is one line (the engine submits, the dispatcher sends through the
 * transport, the engine hears of it) and no call comes back into the object that made it.
 */
final class SignalDispatcher implements SignalOutbox, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SignalDispatcher.class);

    /** Sends one signal; returns once the broker has accepted it. */
    @FunctionalInterface
    interface Transport {
        void send(ConsumerSignal signal) throws IOException;
    }

    private final Transport transport;
    private final Runnable onFailure;
    private final Backoff backoff;
    private final Outage outage = new Outage("sending signals", "failing", "working again", LOG, System::nanoTime);
    private final ScheduledExecutorService executor;
    private final Set<String> pending = new HashSet<>();
    private volatile Ledger ledger;

    /**
     * @param onFailure called on the dispatcher thread after each failed attempt (for metrics)
     * @param backoff   the wait before each new attempt to send a signal
     */
    SignalDispatcher(Transport transport, Runnable onFailure, Backoff backoff) {
        this.transport = Objects.requireNonNull(transport, "transport is null");
        this.onFailure = Objects.requireNonNull(onFailure, "onFailure is null");
        this.backoff = Objects.requireNonNull(backoff, "backoff is null");
        ScheduledThreadPoolExecutor ex = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "supervisor-signal-sender");
            t.setDaemon(true);
            return t;
        });
        // On close, waiting retries are dropped (the journal still says "planned": they are sent after restart).
        ex.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        ex.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        this.executor = ex;
    }

    /**
     * The ledger of the signals this dispatcher sends, given once, before the first {@link #submit}: the engine is
     * built with this dispatcher as its outbox, so it exists only after the dispatcher does.
     */
    void reportTo(Ledger signals) {
        Objects.requireNonNull(signals, "signals is null");
        if (ledger != null) {
            throw new IllegalStateException("the dispatcher already reports to a ledger");
        }
        ledger = signals;
    }

    @Override
    public void submit(ConsumerSignal signal) {
        Objects.requireNonNull(signal, "signal is null");
        if (ledger == null) {
            throw new IllegalStateException("signal " + signal.signalId() + " submitted before the dispatcher has a"
                    + " ledger to report to");
        }
        synchronized (pending) {
            if (!pending.add(signal.signalId())) {
                return;
            }
        }
        schedule(signal, 1, Duration.ZERO);
    }

    /** Signals accepted by {@link #submit} and not yet sent. */
    int pending() {
        synchronized (pending) {
            return pending.size();
        }
    }

    private void schedule(ConsumerSignal signal, int attempt, Duration delay) {
        try {
            executor.schedule(() -> attempt(signal, attempt), delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.info("dataset {}: signal {} not sent because the supervisor is stopping; it is sent after restart",
                    signal.dataset(), signal.signalId());
        }
    }

    private void attempt(ConsumerSignal signal, int attempt) {
        try {
            if (ledger.isCurrent(signal)) {
                transport.send(signal);
            } else {
                LOG.info("dataset {}: signal {} was superseded by a re-selection before it could be sent; dropped",
                        signal.dataset(), signal.signalId());
            }
        } catch (IOException | RuntimeException e) {
            onFailure.run();
            Duration wait = backoff.delay(attempt - 1, ThreadLocalRandom.current().nextDouble());
            // one line per retry for all the signals waiting, not one per signal
            outage.retrying("dataset " + signal.dataset() + ", signal " + signal.signalId() + ": " + e.getMessage(),
                    attempt, wait);
            schedule(signal, attempt + 1, wait);
            return;
        }
        outage.reachable();
        synchronized (pending) {
            pending.remove(signal.signalId());
        }
        ledger.onSignalSent(signal);
    }

    /**
     * Idempotent. Drops waiting retries, lets a send in progress finish for up to {@code grace}, then interrupts it;
     * an unconfirmed signal stays planned in the journal and is sent again after a restart.
     */
    void close(Duration grace) {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("signal send still in progress after {}; interrupting it", grace);
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }
}
