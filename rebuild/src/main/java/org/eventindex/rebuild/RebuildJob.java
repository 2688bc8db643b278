package org.eventindex.rebuild;

import org.apache.kudu.client.KuduClient;
import org.apache.spark.api.java.JavaSparkContext;
import org.eventindex.kudu.DatasetQueries;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Predicate;

import static java.util.Objects.requireNonNull;

/**
 * The driver side of {@code eventindex rebuild}: reads the catalogue (the source DATASETS), takes the selected LOADED
 * datasets, creates the target tables and their epochs, and runs one Spark task per run ({@link RunBatch}), each
 * replaying its datasets' loads ({@link RebuildTask}). Everything a task writes is decided by the catalogue row and
 * the HDFS file, so a retried task or a re-run job writes the same rows (docs/decisions/0065).
 */
public final class RebuildJob {

    /** What the job did: one outcome per dataset, and its wall time. */
    public record Summary(List<DatasetOutcome> outcomes, long millis) {
        public Summary {
            outcomes = List.copyOf(outcomes);
        }

        public long events() {
            return outcomes.stream().mapToLong(DatasetOutcome::events).sum();
        }

        public List<DatasetOutcome> failures() {
            return outcomes.stream().filter(DatasetOutcome::failed).toList();
        }
    }

    private final JavaSparkContext spark;
    private final KuduClient client;
    private final TaskAccess.Grants grants;
    private final int maxTasks;

    /**
     * Without Kerberos or a Hadoop configuration folder (the tasks' own Hadoop defaults).
     *
     * @param client the driver's Kudu client (reads the catalogue, creates the target tables)
     */
    public RebuildJob(JavaSparkContext spark, KuduClient client) {
        this(spark, client, TaskAccess.Grants.UNSECURED, Integer.MAX_VALUE);
    }

    /**
     * @param grants   the Hadoop settings and credentials the tasks get from the driver
     * @param maxTasks at most this many tasks write at once (the runs are spread over this many Spark partitions,
     *                 each replaying its runs one after the other): the throttle that keeps lookups' p99 while a
     *                 rebuild runs (docs/rebuild.md)
     */
    public RebuildJob(JavaSparkContext spark, KuduClient client, TaskAccess.Grants grants, int maxTasks) {
        this.spark = requireNonNull(spark, "spark is null");
        this.client = requireNonNull(client, "client is null");
        this.grants = requireNonNull(grants, "grants is null");
        if (maxTasks < 1) {
            throw new IllegalArgumentException("maxTasks must be positive: " + maxTasks);
        }
        this.maxTasks = maxTasks;
    }

    /**
     * Rebuilds the datasets of {@code source}'s catalogue that {@code selection} takes (a {@link DatasetSelection},
     * or the catch-up's datasets) into {@code target}'s tables.
     *
     * @throws IllegalArgumentException when source and target are the same tables
     * @throws IOException              when the catalogue cannot be read or the target tables cannot be created
     */
    public Summary run(KuduTablesConfig source, RebuildTarget target, Predicate<DatasetsRow> selection)
            throws IOException {
        requireNonNull(source, "source is null");
        requireNonNull(target, "target is null");
        requireNonNull(selection, "selection is null");
        if (source.prefix().equals(target.prefix())) {
            throw new IllegalArgumentException("the target tables are the source tables (prefix '" + source.prefix()
                    + "'): a rebuild writes into other tables, then swaps (docs/rebuild.md)");
        }
        long t0 = System.nanoTime();
        List<DatasetsRow> rows = new DatasetQueries(client, source).datasets().stream().filter(selection).toList();
        List<RunBatch> batches = RunBatch.of(rows);
        TreeSet<Integer> epochs = new TreeSet<>();
        rows.forEach(r -> epochs.add(r.rgid()));
        KuduTables tables = new KuduTables(client, target.tables());
        tables.createOrVerify(epochs.isEmpty() ? KuduTablesConfig.FIRST_EPOCH : epochs.first());
        for (int epoch : epochs) {
            tables.ensureEpoch(epoch);
        }
        if (batches.isEmpty()) {
            return new Summary(List.of(), (System.nanoTime() - t0) / 1_000_000);
        }
        RebuildTarget shipped = target;
        TaskAccess access = grants.forFiles(rows.stream().map(DatasetsRow::hdfsPath).filter(Objects::nonNull)
                .toList());
        List<DatasetOutcome> outcomes = spark.parallelize(batches, Math.min(batches.size(), maxTasks))
                .flatMap(batch -> new RebuildTask(shipped, access).run(batch).iterator())
                .collect();
        return new Summary(outcomes, (System.nanoTime() - t0) / 1_000_000);
    }
}
