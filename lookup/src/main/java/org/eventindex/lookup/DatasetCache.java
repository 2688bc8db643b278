package org.eventindex.lookup;

import org.apache.kudu.client.KuduException;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import static java.util.Objects.requireNonNull;

/**
 * The LOADED datasets of a run, kept for a short time so that lookups of the same run skip the DATASETS scan (one of
 * the two Kudu round trips of a lookup).
 * <p>
 * Staleness rule: an entry is used only while younger than the TTL, measured from the moment its DATASETS scan
 * <em>started</em>; after that the next lookup of the run scans DATASETS again. So a dataset deleted, set back to
 * LOADING for a reload, or moved to another (dspid, epoch) is seen by lookups at most one TTL late: during that time a
 * lookup may still point-scan its old (dspid, epoch), which finds the rows that are still there (none after a delete,
 * the reload's rows while it runs). A dataset newly LOADED in the run likewise appears at most one TTL late. A TTL of
 * zero disables the cache. Failed scans are not cached. At most {@link #MAX_RUNS} runs are kept; beyond that the
 * cache starts over. Thread-safe; two threads missing on the same run may both scan.
 */
final class DatasetCache {
    static final int MAX_RUNS = 100_000;

    /** Reads the LOADED datasets of one run from Kudu. */
    @FunctionalInterface
    interface Source {
        List<LoadedDataset> loadedDatasets(int run) throws KuduException;
    }

    private record Entry(List<LoadedDataset> datasets, long readAtNanos) {
    }

    private final Source source;
    private final long ttlNanos;
    private final LongSupplier nanoTime;
    private final ConcurrentHashMap<Integer, Entry> entries = new ConcurrentHashMap<>();

    /**
     * @param ttl      how long a run's datasets are reused; zero disables the cache
     * @param nanoTime the clock ({@code System::nanoTime}; tests pass their own)
     */
    DatasetCache(Source source, Duration ttl, LongSupplier nanoTime) {
        this.source = requireNonNull(source, "source is null");
        requireNonNull(ttl, "ttl is null");
        if (ttl.isNegative()) {
            throw new IllegalArgumentException("dataset cache TTL must not be negative: " + ttl);
        }
        this.ttlNanos = ttl.toNanos();
        this.nanoTime = requireNonNull(nanoTime, "nanoTime is null");
    }

    /** The LOADED datasets of {@code run}: from the cache while fresh, else from a new DATASETS scan. */
    List<LoadedDataset> loadedDatasets(int run) throws KuduException {
        if (ttlNanos == 0) {
            return source.loadedDatasets(run);
        }
        long now = nanoTime.getAsLong();
        Entry e = entries.get(run);
        if (e != null && now - e.readAtNanos() < ttlNanos) {
            return e.datasets();
        }
        List<LoadedDataset> fresh = List.copyOf(source.loadedDatasets(run));
        if (entries.size() >= MAX_RUNS) {
            entries.clear();
        }
        // stamped with the scan's start: the entry can never be older than it claims
        entries.put(run, new Entry(fresh, now));
        return fresh;
    }

    /** Runs currently held (fresh or not); for tests. */
    int size() {
        return entries.size();
    }
}
