package org.eventindex.stomp;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eventindex.retry.Backoff;
import org.eventindex.retry.Outage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A daemon's consumer of one queue on <em>every</em> broker: one {@link StompQueueWorker} per broker the endpoints
 * resolve to ({@link BrokerSet}), each connected to its broker alone and reconnecting with its own backoff. The
 * endpoints are resolved again every {@link StompSettings#resolveInterval()}: a broker that joined the alias gets a
 * worker, one that left it loses its worker (after the message in progress); a name that fails to resolve for a
 * moment keeps its brokers. Until some broker resolves, resolution is retried with the reconnect backoff.
 *
 * <p>The brokers are independent: a message is on one broker, and is read when that broker is reachable; a broker
 * that is down holds its messages until it is back, while the others are read. Delivery is at least once (a message
 * sent twice through two brokers arrives twice), so handlers must be idempotent. Messages of different brokers are
 * handled concurrently (one at a time per broker), so handlers must be thread-safe.
 *
 * <p>Errors are as in {@link StompQueueWorker}: one ends its worker ({@link #failure()}); with a
 * {@link StompQueueWorker.DeathListener} the first is reported to it, once, and the other workers go on until the
 * owner stops the fan-in.
 */
public final class StompFanIn implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StompFanIn.class);

    /**
     * Each broker's reconnect waits: 0.5 s doubling up to 5 s, each drawn from its upper half. Shorter than a lone
     * worker's ({@link StompQueueWorker#RECONNECT_BACKOFF}): in a fan-in a broker down is routine, and the messages it
     * holds wait for the reconnection.
     */
    public static final Backoff RECONNECT_BACKOFF = new Backoff(Duration.ofMillis(500), 2, Duration.ofSeconds(5), 0.5);

    /** The handler of the messages that arrive through one broker (e.g. to answer through that broker). */
    @FunctionalInterface
    public interface Handlers {
        StompMessageHandler forBroker(StompBroker broker);
    }

    private final String name;
    private final StompSettings settings;
    private final String destination;
    private final int prefetch;
    private final Handlers handlers;
    private final Backoff backoff;
    private final StompQueueWorker.DeathListener onDeath;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean deathReported = new AtomicBoolean();
    private final Map<StompBroker, StompQueueWorker> workers = new LinkedHashMap<>();
    private final ScheduledExecutorService resolver;
    private volatile boolean stopping;
    private volatile Throwable failure;
    private int failedResolutions;
    /** Resolutions in a row that left some endpoint unresolved. */
    private int unresolved;

    /** Every broker's messages to one handler, the {@link #RECONNECT_BACKOFF}, no death listener. */
    public StompFanIn(String name, StompSettings settings, String destination, int prefetch,
                      StompMessageHandler handler) {
        this(name, settings, destination, prefetch, broker -> handler, RECONNECT_BACKOFF, null);
    }

    /**
     * @param backoff each worker's reconnect backoff, and the retry of a resolution that gave no broker
     * @param onDeath told once when an Error ends a worker (see {@link StompQueueWorker}); null for none
     */
    public StompFanIn(String name, StompSettings settings, String destination, int prefetch, Handlers handlers,
                      Backoff backoff, StompQueueWorker.DeathListener onDeath) {
        this.name = requireNonNull(name, "name is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.destination = requireNonNull(destination, "destination is null");
        this.handlers = requireNonNull(handlers, "handlers is null");
        this.backoff = requireNonNull(backoff, "backoff is null");
        this.onDeath = onDeath;
        if (prefetch < 1) {
            throw new IllegalArgumentException("fan-in " + name + ": prefetch must be at least 1, got " + prefetch);
        }
        this.prefetch = prefetch;
        this.resolver = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "stomp-fanin-" + name);
            t.setDaemon(true);
            return t;
        });
    }

    /** Resolves the brokers and subscribes on each (in the background); starts once. */
    public void start() {
        if (stopping || !started.compareAndSet(false, true)) {
            throw new IllegalStateException("fan-in " + name + " was already started or stopped");
        }
        schedule(Duration.ZERO);
    }

    /** True while subscribed on at least one broker. */
    public boolean isConnected() {
        return subscriptions().containsValue(true);
    }

    /** Each broker now resolved (as {@link StompBroker#toString()}) and whether its worker is subscribed. */
    public synchronized Map<String, Boolean> subscriptions() {
        Map<String, Boolean> out = new TreeMap<>();
        workers.forEach((b, w) -> out.put(b.toString(), w.isConnected()));
        return out;
    }

    /** The brokers resolved but not subscribed to (down, refusing, or still connecting). */
    public List<String> notSubscribed() {
        List<String> out = new ArrayList<>();
        subscriptions().forEach((b, up) -> {
            if (!up) {
                out.add(b);
            }
        });
        return out;
    }

    /** The queue every broker is read from. */
    public String destination() {
        return destination;
    }

    /** Messages handled (acknowledged) through every broker, by the workers of the brokers resolved now. */
    public synchronized long handled() {
        return workers.values().stream().mapToLong(StompQueueWorker::handled).sum();
    }

    /** The Error that ended a worker, or null. */
    public Throwable failure() {
        Throwable f = failure;
        if (f != null) {
            return f;
        }
        synchronized (this) {
            return workers.values().stream().map(StompQueueWorker::failure).filter(java.util.Objects::nonNull)
                    .findFirst().orElse(null);
        }
    }

    /**
     * Idempotent: stops resolving, then every worker, waiting up to {@code grace} in all for their messages in
     * progress (a worker still busy then is stopped as {@link StompQueueWorker#stop} does).
     */
    public void stop(Duration grace) {
        requireNonNull(grace, "grace is null");
        stopping = true;
        resolver.shutdownNow();
        List<StompQueueWorker> all;
        synchronized (this) {
            all = new ArrayList<>(workers.values());
        }
        // every worker is told first, so that they finish their messages in parallel
        all.forEach(StompQueueWorker::requestStop);
        long deadline = System.nanoTime() + grace.toNanos();
        for (StompQueueWorker w : all) {
            w.stop(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(30));
    }

    private void schedule(Duration delay) {
        try {
            resolver.schedule(this::reconcile, delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // stopping
        }
    }

    /** Resolves again and brings the workers in line; schedules the next resolution. */
    private void reconcile() {
        if (stopping) {
            return;
        }
        BrokerSet now = settings.resolveBrokers();
        List<StompBroker> wanted;
        List<StompQueueWorker> gone = new ArrayList<>();
        boolean empty;
        synchronized (this) {
            wanted = now.keepingUnresolved(workers.keySet());
            for (var it = workers.entrySet().iterator(); it.hasNext(); ) {
                var e = it.next();
                if (!wanted.contains(e.getKey())) {
                    LOG.info("fan-in {}: broker {} left {}; unsubscribing from {}", name, e.getKey(),
                            settings.endpoints(), destination);
                    gone.add(e.getValue());
                    it.remove();
                }
            }
            for (StompBroker b : wanted) {
                if (!workers.containsKey(b) && !stopping) {
                    StompQueueWorker w = new StompQueueWorker(name + "@" + b, settings.pinnedTo(b), destination,
                            prefetch, handlers.forBroker(b), backoff, onDeath == null ? null : this::died, b.toString());
                    workers.put(b, w);
                    LOG.info("fan-in {}: subscribing to {} on broker {}", name, destination, b);
                    w.start();
                }
            }
            empty = workers.isEmpty();
        }
        gone.forEach(w -> w.stop(Duration.ofSeconds(30)));
        Duration next = empty ? backoff.delay(failedResolutions, ThreadLocalRandom.current().nextDouble())
                : settings.resolveInterval();
        failedResolutions = empty ? failedResolutions + 1 : 0;
        // one line per resolution for all the daemon's fan-ins, not one each
        Outage dns = settings.outages().of("DNS of the brokers " + settings.endpoints(), LOG);
        if (now.failures().isEmpty()) {
            unresolved = 0;
            dns.reachable();
        } else {
            unresolved++;
            dns.retrying("not resolved: " + now.failures() + (empty ? ""
                    : "; their brokers of the last resolution, if any, are kept"), unresolved, next);
        }
        schedule(next);
    }

    private void died(String worker, Throwable cause) {
        failure = cause;
        if (onDeath != null && deathReported.compareAndSet(false, true)) {
            onDeath.died(worker, cause);
        }
    }
}
