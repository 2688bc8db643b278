package org.eventindex.supervisor.ha;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.supervisor.SupervisorConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * What every {@link Leadership} keeps the same way, whatever holds the lease: the role and token, the takeover's
 * record and metrics, the renewal thread, and the fence reported once.
 */
abstract class LeaseHolder implements Leadership {
    private static final Logger LOG = LoggerFactory.getLogger(LeaseHolder.class);

    final SupervisorConfig.Ha settings;
    final String id;
    final CountDownLatch stopping = new CountDownLatch(1);
    final Counter takeovers;
    private final Consumer<String> onFenced;
    private final AtomicBoolean fenceReported = new AtomicBoolean();
    volatile Role role = Role.STANDBY;
    volatile long token;
    /** The holder of the lease as last seen (this supervisor's id once it took the token). */
    volatile String holder = "";
    volatile Takeover takeover;
    volatile long tookTokenNanos;
    private volatile Instant activeSince;
    private volatile ScheduledExecutorService renewer;
    private volatile ScheduledExecutorService watchdogTimer;

    LeaseHolder(SupervisorConfig.Ha settings, String id, PrometheusRegistry registry, Consumer<String> onFenced) {
        this.settings = Objects.requireNonNull(settings, "settings is null");
        this.id = Objects.requireNonNull(id, "id is null");
        this.onFenced = Objects.requireNonNull(onFenced, "onFenced is null");
        this.takeovers = Leadership.registerMetrics(registry, this, this::leaseAgeSeconds, () -> takeover);
    }

    /** Active: seconds since the lease was last renewed (confirmed). Standby: since the holder was last seen. */
    abstract double leaseAgeSeconds();

    /** Where the journal is, for {@link #info}. */
    abstract String journalLocation();

    /** What the store adds to {@link #info}. */
    void addInfo(Map<String, Object> m) {
    }

    /** Whether this supervisor took the token (it may be taking over still, not yet consuming). */
    boolean tookToken() {
        return holder.equals(id) && token > 0;
    }

    /** Runs {@code renewal} every {@code supervisor.ha.renew.interval} until fenced, released or closed. */
    void startRenewing(Runnable renewal) {
        startRenewing(renewal, null);
    }

    /**
     * {@link #startRenewing(Runnable)}, and {@code watchdog} (may be null) on a thread of its own at the same
     * interval, so that renewals blocked on their store do not keep the watchdog from running. The watchdog's thread
     * runs nothing else: with the renewals' threads it once shared a pool of two, and a periodic renewal and a
     * confirmation asked for on a reconnection, both blocked in a ZooKeeper that had lost its quorum, left the
     * watchdog no thread, so the holder neither suspended nor fenced itself.
     */
    void startRenewing(Runnable renewal, Runnable watchdog) {
        ScheduledExecutorService r = Executors.newScheduledThreadPool(watchdog == null ? 1 : 2,
                named("supervisor-lease"));
        renewer = r;
        long every = settings.renew().toMillis();
        r.scheduleWithFixedDelay(renewal, every, every, TimeUnit.MILLISECONDS);
        if (watchdog != null) {
            ScheduledExecutorService w = Executors.newSingleThreadScheduledExecutor(named("supervisor-lease-watchdog"));
            watchdogTimer = w;
            w.scheduleWithFixedDelay(watchdog, every, every, TimeUnit.MILLISECONDS);
        }
    }

    private static java.util.concurrent.ThreadFactory named(String name) {
        return t -> {
            Thread th = new Thread(t, name);
            th.setDaemon(true);
            return th;
        };
    }

    /**
     * Runs {@code task} once on the renewal's threads (not the caller's: a ZooKeeper watcher or connection listener
     * must not block in a call to ZooKeeper); nothing once renewing stopped.
     */
    void onLeaseThread(Runnable task) {
        ScheduledExecutorService r = renewer;
        if (r != null) {
            try {
                r.execute(task);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // stopped renewing meanwhile: fenced, released or closed
            }
        }
    }

    void stopRenewing() {
        ScheduledExecutorService r = renewer;
        if (r != null) {
            r.shutdownNow();
        }
        ScheduledExecutorService w = watchdogTimer;
        if (w != null) {
            w.shutdownNow();
        }
    }

    @Override
    public void activated() {
        if (role == Role.STANDBY && tookToken()) {
            role = Role.ACTIVE;
            activeSince = Instant.now();
            Takeover t = takeover;
            if (t != null) {
                // from the token to consuming: the fence, the copy, the replay, the re-planning
                t = new Takeover(t.token(), t.previous(), t.waited(),
                        Duration.ofNanos(System.nanoTime() - tookTokenNanos), t.copied());
                takeover = t;
                LOG.info("supervisor {} active with token {}{}", id, t.token(), t.previous().isEmpty() ? ""
                        : " after taking over from " + t.previous() + " (waited " + t.waited().toMillis()
                        + " ms for the lease, hand-over " + t.handOver().toMillis() + " ms)");
            }
        }
    }

    @Override
    public void stopWaiting() {
        stopping.countDown();
    }

    /** Stops waiting and renewing (without releasing). */
    @Override
    public void close() {
        stopWaiting();
        stopRenewing();
    }

    @Override
    public Role role() {
        return role;
    }

    @Override
    public long token() {
        return token;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public Map<String, Object> info() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("role", role.name().toLowerCase(Locale.ROOT));
        m.put("id", id);
        m.put("token", token);
        m.put("activeHolder", holder);
        m.put("leaseAgeSeconds", leaseAgeSeconds());
        m.put("leaseSeconds", settings.lease().toMillis() / 1000.0);
        m.put("journalDir", journalLocation());
        addInfo(m);
        Takeover t = takeover;
        if (t != null) {
            m.put("takeover", Map.of("token", t.token(), "previous", t.previous(), "waitedMillis",
                    t.waited().toMillis(), "handOverMillis", t.handOver().toMillis(), "takeoverPointBytes",
                    t.copied().journalBytes(), "activeSince", String.valueOf(activeSince)));
        }
        return m;
    }

    /** The value of {@code name=} in a lease's {@code name=value} lines, empty when absent. */
    static String field(String text, String name) {
        for (String line : text.split("\n")) {
            if (line.startsWith(name + "=")) {
                return line.substring(name.length() + 1);
            }
        }
        return "";
    }

    @Override
    public void stepDown(String why) {
        release();
        fenced("it stepped down: " + why);
    }

    /** This supervisor lost the lease for good: nothing may be journalled, signalled or acknowledged any more. */
    void fenced(String why) {
        role = Role.FENCED;
        stopRenewing();
        if (fenceReported.compareAndSet(false, true)) {
            LOG.error("supervisor {} is fenced out: {}; it journals, signals and acknowledges nothing more and"
                    + " stops (started again it is a standby)", id, why);
            onFenced.accept(why);
        }
    }
}
