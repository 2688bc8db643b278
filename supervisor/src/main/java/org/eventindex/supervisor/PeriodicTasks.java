package org.eventindex.supervisor;

import org.eventindex.retry.Outage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The active supervisor's periodic work, each kind on a thread of its own so that a slow Rucio or S3 never delays a
 * lease: the tick (leases and retries, the journal disk's room, a checkpoint when due), the catalogue poll when
 * {@code supervisor.catalogue} is on, the cleanup of consumed objects when {@code supervisor.cleanup} is on, the
 * scheduled verify of one dataset when {@code supervisor.verify.interval} is set. Nothing runs once consuming halted,
 * and a fenced-out supervisor deletes nothing.
 */
final class PeriodicTasks implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PeriodicTasks.class);
    private final Outage tickOutage = new Outage("lease/retry check", "failing", "working again", LOG,
            System::nanoTime);
    /** Ticks in a row whose lease/retry check failed (the tick thread only). */
    private int tickFailures;

    private final SupervisorConfig config;
    private final Clock clock;
    private final SupervisorMetrics metrics;
    private final SupervisorEngine engine;
    private final JournalDiskGuard diskGuard;
    private final Checkpoints checkpoints;
    private final Fence fence;
    private final BooleanSupplier halted;
    private final DatasetAudit audit;
    private final ScheduledExecutorService threads = Executors.newScheduledThreadPool(4, r -> {
        Thread t = new Thread(r, "supervisor-background");
        t.setDaemon(true);
        return t;
    });
    private volatile CleanupStore objectStore;
    private volatile ObjectCleaner cleaner;

    /**
     * @param halted whether consuming halted for good (journal failed, fenced out): the tick then does nothing
     * @param audit  the scheduled verify, null when off
     */
    PeriodicTasks(SupervisorConfig config, Clock clock, SupervisorMetrics metrics, SupervisorEngine engine,
                  JournalDiskGuard diskGuard, Checkpoints checkpoints, Fence fence, BooleanSupplier halted,
                  DatasetAudit audit) {
        this.config = Objects.requireNonNull(config, "config is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.metrics = Objects.requireNonNull(metrics, "metrics is null");
        this.engine = Objects.requireNonNull(engine, "engine is null");
        this.diskGuard = Objects.requireNonNull(diskGuard, "diskGuard is null");
        this.checkpoints = Objects.requireNonNull(checkpoints, "checkpoints is null");
        this.fence = Objects.requireNonNull(fence, "fence is null");
        this.halted = Objects.requireNonNull(halted, "halted is null");
        this.audit = audit;
    }

    /** Schedules the tick, and the catalogue poll and the cleanup when configured. */
    void start() {
        long tick = config.handOff().tick().toMillis();
        threads.scheduleWithFixedDelay(this::tick, tick, tick, TimeUnit.MILLISECONDS);
        if (config.catalogue().enabled()) {
            CataloguePoller poller = new CataloguePoller(new RucioCatalogue(config.catalogue(), clock), engine,
                    metrics, "Rucio catalogue " + config.catalogue().url(), config.catalogue().interval());
            long every = config.catalogue().interval().toMillis();
            threads.scheduleWithFixedDelay(poller::pollOnce, 0, every, TimeUnit.MILLISECONDS);
        }
        if (config.cleanup().enabled()) {
            objectStore = S3CleanupStore.create(config.cleanup(), config.tls().s3TrustManagers());
            ObjectCleaner c = new ObjectCleaner(objectStore, engine, config.s3Bucket(), config.cleanup().retention(),
                    config.cleanup().orphanRetention(), clock, metrics);
            cleaner = c;
            long every = config.cleanup().interval().toMillis();
            threads.scheduleWithFixedDelay(() -> {
                if (fence.holds()) {
                    c.runOnceLogged();
                }
            }, every, every, TimeUnit.MILLISECONDS);
        }
        if (audit != null) {
            long every = audit.interval().toMillis();
            threads.scheduleWithFixedDelay(() -> {
                if (fence.holds() && !halted.getAsBoolean()) {
                    audit.verifyNext();
                }
            }, every, every, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Checks leases and retries now, then writes a checkpoint if one is due and the journal's disk has room (the
     * tick thread does it every {@code supervisor.tick.interval}).
     */
    void tick() {
        if (halted.getAsBoolean() || engine.failure().isPresent()) {
            return;
        }
        diskGuard.check();
        try {
            engine.tick();
            tickFailures = 0;
            tickOutage.reachable();
        } catch (IOException | RuntimeException ex) {
            // every tick (a second by default): logged at doubling counts of failures in a row
            tickOutage.retryingEvery(ex.toString(), ++tickFailures, config.handOff().tick());
        }
        if (diskGuard.low().isEmpty()) {
            checkpoints.ifDue(engine);
        }
    }

    /** The cleanup's last pass, null before one (or without the cleanup). */
    ObjectCleaner.Report lastCleanup() {
        ObjectCleaner c = cleaner;
        return c == null ? null : c.lastRun();
    }

    /**
     * Stops the tasks (one running is interrupted) and closes the object store's client: a cleanup pass cut short
     * journals only the deletions that completed, and the next start deletes the rest.
     */
    @Override
    public void close() {
        threads.shutdownNow();
        CleanupStore s = objectStore;
        if (s != null) {
            s.close();
        }
    }
}
