package org.eventindex.supervisor;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.eventindex.ops.DaemonMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * Keeps the supervisor from filling the journal's disk. A full disk fails an append: the journal then refuses every
 * later one, the message being handled is dead-lettered and the supervisor needs a restart. Before each message, the
 * queue workers call {@link #awaitRoom}: while the disk has less than {@code minFreeBytes} usable, the message is held,
 * unacknowledged, and consuming pauses (the broker keeps the rest) until there is room again. Leases, retries and
 * signal confirmations still append their few entries into the margin. {@link #check} refreshes the state between
 * messages, so {@code /ready} and the metrics show a low disk even when no message comes. Thread-safe.
 */
final class JournalDiskGuard {
    private static final Logger LOG = LoggerFactory.getLogger(JournalDiskGuard.class);

    /** Usable bytes on the journal's file system. */
    @FunctionalInterface
    interface FreeSpace {
        long usableBytes() throws IOException;

        /**
         * The file system {@code dir} is on: found once (on Linux that reads the mount table), then asked for its
         * usable space on every call. The directory may not exist yet when this is made (the journal creates it).
         */
        static FreeSpace of(Path dir) {
            Objects.requireNonNull(dir, "dir is null");
            AtomicReference<FileStore> store = new AtomicReference<>();
            return () -> {
                FileStore s = store.get();
                if (s == null) {
                    s = Files.getFileStore(dir);
                    store.set(s);
                }
                return s.getUsableSpace();
            };
        }
    }

    private final FreeSpace disk;
    private final long minFreeBytes;
    private final Duration recheck;
    private final String where;
    private volatile long lastFree = -1;
    private volatile String low;

    /**
     * @param minFreeBytes 0 disables the guard
     * @param recheck      how often a held message looks at the disk again
     * @param where        names the journal directory in messages
     */
    JournalDiskGuard(FreeSpace disk, long minFreeBytes, Duration recheck, String where) {
        this.disk = Objects.requireNonNull(disk, "disk is null");
        if (minFreeBytes < 0) {
            throw new IllegalArgumentException("minimum free bytes must not be negative: " + minFreeBytes);
        }
        this.minFreeBytes = minFreeBytes;
        this.recheck = Objects.requireNonNull(recheck, "recheck is null");
        this.where = Objects.requireNonNull(where, "where is null");
    }

    /**
     * Returns at once when the disk has room; otherwise waits, re-checking every {@code recheck}, until it has.
     *
     * @param stopping true once the supervisor stops: the wait then ends with an InterruptedException (the held
     *                 message stays unacknowledged and the broker redelivers it)
     * @throws InterruptedException when interrupted or stopping while the disk is low
     */
    void awaitRoom(BooleanSupplier stopping) throws InterruptedException {
        while (!check()) {
            if (stopping.getAsBoolean()) {
                throw new InterruptedException("stopping while " + low);
            }
            Thread.sleep(Math.max(1, recheck.toMillis()));
        }
    }

    /** Looks at the disk now; true when it has room (or the guard is off). */
    boolean check() {
        if (minFreeBytes == 0) {
            return true;
        }
        long free;
        try {
            free = disk.usableBytes();
        } catch (IOException | RuntimeException e) {
            // not knowing is not a reason to stop: an append that really fails still halts the supervisor
            LOG.warn("cannot read the free space of the journal disk {}: {}", where, e.toString());
            return true;
        }
        lastFree = free;
        String was = low;
        if (free >= minFreeBytes) {
            if (was != null) {
                low = null;
                LOG.info("journal disk {} has {} bytes free again: consuming resumes", where, free);
            }
            return true;
        }
        low = "the journal disk " + where + " has " + free + " bytes free, below "
                + SupervisorConfig.JOURNAL_MIN_FREE_BYTES + "=" + minFreeBytes
                + ": consuming paused, messages wait in the broker";
        if (was == null) {
            LOG.warn("{}", low);
        }
        return false;
    }

    /** Why consuming is paused, while it is. */
    Optional<String> low() {
        return Optional.ofNullable(low);
    }

    /** Adds {@code eventindex_supervisor_journal_disk_free_bytes} and {@code _low} to {@code metrics}. */
    void registerGauges(PrometheusRegistry metrics) {
        DaemonMetrics.gauge(metrics, "eventindex_supervisor_journal_disk_free_bytes",
                "Usable bytes of the journal's disk when last looked at (-1: not yet, or the check is off).",
                this::lastFreeBytes);
        DaemonMetrics.gauge(metrics, "eventindex_supervisor_journal_disk_low", "1 while consuming is paused because the"
                + " journal's disk is below " + SupervisorConfig.JOURNAL_MIN_FREE_BYTES + ".", () -> low == null ? 0 : 1);
    }

    /** Usable bytes when last looked at; -1 before the first look (or with the guard off). */
    long lastFreeBytes() {
        return lastFree;
    }
}
