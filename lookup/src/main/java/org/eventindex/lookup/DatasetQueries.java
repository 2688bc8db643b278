package org.eventindex.lookup;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.eventindex.kudu.KuduTablesConfig;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static java.util.Objects.requireNonNull;

/**
 * The questions about whole datasets: where each is in the flow ({@link DatasetStatuses}) and what they share
 * ({@link DatasetOverlaps}), for {@code lookup datasets}, {@code lookup overlap} and {@link DatasetResources}.
 * Owns the pool the overlaps' bucket merges run on, apart from the lookups' so a long overlap never delays them.
 */
public final class DatasetQueries implements AutoCloseable {
    /** Default number of shared events an overlap lists. */
    static final int DEFAULT_LIMIT = 1000;
    /** The most an overlap may list. */
    static final int MAX_LIMIT = 100_000;

    /** A dataset named that is not known, or not queryable for an overlap: HTTP 404, exit status 1. */
    public static final class NotQueryable extends Exception {
        NotQueryable(String message) {
            super(message);
        }
    }

    private final DatasetRows rows;
    private final DatasetStatuses statuses;
    private final DatasetOverlaps overlaps;
    private final ExecutorService pool;

    /**
     * @param supervisor null: no supervisor configured
     * @param threads    parallel bucket merges of an overlap
     */
    DatasetQueries(KuduClient client, KuduTablesConfig config, SupervisorDatasets supervisor, int threads,
                   Clock clock) throws KuduException {
        requireNonNull(client, "client is null");
        this.rows = new DatasetRows(client, config, System::nanoTime);
        this.statuses = new DatasetStatuses(rows, supervisor, clock);
        this.pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "dataset-overlap");
            t.setDaemon(true);
            return t;
        });
        this.overlaps = new DatasetOverlaps(client, config, pool, System::nanoTime);
    }

    DatasetStatuses.Answer statuses(String glob) throws KuduException {
        return statuses.matching(glob);
    }

    /** @throws NotQueryable naming the dataset when neither DATASETS nor the supervisor knows it */
    DatasetStatus status(String name) throws KuduException, NotQueryable {
        Optional<DatasetStatus> s = statuses.named(name);
        if (s.isEmpty()) {
            throw new NotQueryable("dataset " + name + " is known neither to Kudu's DATASETS nor to the supervisor");
        }
        return s.get();
    }

    /**
     * The overlap of the datasets {@code names}, or of the LOADED datasets matching {@code pattern} (exactly one of
     * the two).
     *
     * @throws IllegalArgumentException for fewer than two datasets, both or neither given, a bad limit
     * @throws NotQueryable             naming a dataset that is not LOADED in DATASETS
     */
    public DatasetOverlaps.Overlap overlap(List<String> names, String pattern, int limit)
            throws IOException, NotQueryable {
        if ((names == null || names.isEmpty()) == (pattern == null)) {
            throw new IllegalArgumentException("name the datasets or give a pattern, not both");
        }
        if (limit < 0 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be within 0.." + MAX_LIMIT + ": " + limit);
        }
        List<DatasetRows.Row> chosen = new ArrayList<>();
        if (pattern != null) {
            for (DatasetRows.Row r : rows.rows(LookupFilter.glob(pattern))) {
                if ("LOADED".equals(r.state()) && r.loaded() != null) {
                    chosen.add(r);
                }
            }
            if (chosen.size() < 2) {
                throw new IllegalArgumentException("pattern '" + pattern + "' matches " + chosen.size()
                        + " LOADED dataset(s); an overlap needs at least two");
            }
        } else {
            Map<String, DatasetRows.Row> all = new LinkedHashMap<>();
            for (DatasetRows.Row r : rows.rows(null)) {
                all.put(r.name(), r);
            }
            for (String n : new java.util.LinkedHashSet<>(names)) {
                checkName(n);
                DatasetRows.Row r = all.get(n);
                if (r == null) {
                    throw new NotQueryable("dataset " + n + " is not in DATASETS (lookup datasets '" + n
                            + "' says where it is)");
                }
                if (!"LOADED".equals(r.state()) || r.loaded() == null) {
                    throw new NotQueryable("dataset " + n + " is " + r.state() + " in DATASETS, not LOADED: not"
                            + " queryable yet");
                }
                chosen.add(r);
            }
            if (chosen.size() < 2) {
                throw new IllegalArgumentException("an overlap needs at least two distinct datasets, got "
                        + chosen.size());
            }
        }
        return overlaps.overlap(chosen, limit);
    }

    /** @throws IllegalArgumentException naming {@code name} when it is not a dataset name */
    static void checkName(String name) {
        try {
            org.eventindex.names.DatasetName.parse(name);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + name + "' is not a dataset name: " + e.getMessage(), e);
        }
    }

    /** The overlaps of the tables {@code config} names in {@code client}'s Kudu, without a supervisor. */
    public static DatasetQueries of(KuduClient client, KuduTablesConfig config, int threads) throws KuduException {
        return new DatasetQueries(client, config, null, threads, Clock.systemUTC());
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
