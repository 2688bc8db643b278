package org.eventindex.rebuild;

import org.apache.kudu.client.KuduClient;
import org.apache.spark.api.java.JavaSparkContext;
import org.eventindex.kudu.DatasetQueries;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Predicate;

import static java.util.Objects.requireNonNull;

/**
 * The driver side of {@code eventindex rebuild}: reads the catalogue (the source DATASETS), takes the selected LOADED
 * datasets (their epochs assigned anew if asked: {@link NewEpochs}), creates the target tables and their epochs, and
 * replays their loads on Spark: split by tablet ({@link TabletRoutedRebuild}, each write task writes its own tablets),
 * or one task per run ({@link RunBatch}) that replays its datasets' loads whole ({@link RebuildTask}). Everything a
 * task writes is decided by the catalogue row and the HDFS file, so a retried task or a re-run job writes the same
 * rows (docs/decisions/0065, 0076).
 */
public final class RebuildJob {

    /** How the work is split into Spark tasks ({@code --split}). */
    public enum Split {
        /** Rows decided per dataset, written by tasks that each own a share of the tablets (decision 0076). */
        TABLET,
        /** One task per run decides and writes its datasets' rows, as one load each (decision 0065). */
        RUN
    }

    /**
     * How the job's work becomes Spark tasks.
     *
     * @param maxTasks   at most this many tasks per stage (with {@link Split#RUN} the runs are spread over this
     *                   many partitions, each replaying its runs one after the other): the throttle that keeps
     *                   lookups' p99 while a rebuild runs (docs/rebuild.md)
     * @param split      by tablet or by run
     * @param waveEvents with {@link Split#TABLET}: runs are rebuilt in waves of about this many events (whole runs),
     *                   one after the other; a wave's rows are what Spark's shuffle holds at once, and what a killed
     *                   job does again
     */
    public record Tasks(int maxTasks, Split split, long waveEvents) {
        /** Events per wave by default: ~10-20 GB of encoded rows in the executors' shuffle files. */
        public static final long DEFAULT_WAVE_EVENTS = 20_000_000;

        public Tasks {
            requireNonNull(split, "split is null");
            if (maxTasks < 1) {
                throw new IllegalArgumentException("maxTasks must be positive: " + maxTasks);
            }
            if (waveEvents < 1) {
                throw new IllegalArgumentException("waveEvents must be positive: " + waveEvents);
            }
        }

        /** By tablet, unthrottled, waves of {@link #DEFAULT_WAVE_EVENTS}. */
        public static Tasks defaults() {
            return new Tasks(Integer.MAX_VALUE, Split.TABLET, DEFAULT_WAVE_EVENTS);
        }

        public Tasks withMaxTasks(int n) {
            return new Tasks(n, split, waveEvents);
        }

        public Tasks withSplit(Split s) {
            return new Tasks(maxTasks, s, waveEvents);
        }
    }

    /** What the job did: one outcome per dataset, its wall time, and the epochs of the datasets it took. */
    public record Summary(List<DatasetOutcome> outcomes, long millis, SortedSet<Integer> epochs) {
        public Summary {
            outcomes = List.copyOf(outcomes);
            epochs = Collections.unmodifiableSortedSet(new TreeSet<>(epochs));
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
    private final Tasks tasks;

    /** @param client the driver's Kudu client (reads the catalogue, creates the target tables) */
    public RebuildJob(JavaSparkContext spark, KuduClient client) {
        this(spark, client, Tasks.defaults());
    }

    public RebuildJob(JavaSparkContext spark, KuduClient client, Tasks tasks) {
        this.spark = requireNonNull(spark, "spark is null");
        this.client = requireNonNull(client, "client is null");
        this.tasks = requireNonNull(tasks, "tasks is null");
    }

    /**
     * Rebuilds the datasets of {@code source}'s catalogue that {@code selection} takes (a {@link DatasetSelection},
     * or the catch-up's datasets) into {@code target}'s tables, each in its recorded epoch.
     *
     * @throws IllegalArgumentException when source and target are the same tables
     * @throws IOException              when the catalogue cannot be read or the target tables cannot be created
     */
    public Summary run(KuduTablesConfig source, RebuildTarget target, Predicate<DatasetsRow> selection)
            throws IOException {
        return run(source, target, selection, Optional.empty());
    }

    /** As {@link #run(KuduTablesConfig, RebuildTarget, Predicate)}, with the epochs assigned anew when given. */
    public Summary run(KuduTablesConfig source, RebuildTarget target, Predicate<DatasetsRow> selection,
                       Optional<NewEpochs> newEpochs) throws IOException {
        requireNonNull(source, "source is null");
        requireNonNull(target, "target is null");
        requireNonNull(selection, "selection is null");
        requireNonNull(newEpochs, "newEpochs is null");
        if (source.prefix().equals(target.prefix())) {
            throw new IllegalArgumentException("the target tables are the source tables (prefix '" + source.prefix()
                    + "'): a rebuild writes into other tables, then swaps (docs/rebuild.md)");
        }
        long t0 = System.nanoTime();
        List<DatasetsRow> rows = new DatasetQueries(client, source).datasets().stream().filter(selection).toList();
        if (newEpochs.isPresent()) {
            rows = newEpochs.get().assign(rows);
        }
        List<RunBatch> batches = RunBatch.of(rows);
        TreeSet<Integer> epochs = new TreeSet<>();
        rows.forEach(r -> epochs.add(r.rgid()));
        KuduTables tables = new KuduTables(client, target.tables());
        tables.createOrVerify(epochs.isEmpty() ? KuduTablesConfig.FIRST_EPOCH : epochs.first());
        for (int epoch : epochs) {
            tables.ensureEpoch(epoch);
        }
        if (batches.isEmpty()) {
            return new Summary(List.of(), (System.nanoTime() - t0) / 1_000_000, epochs);
        }
        if (tasks.split() == Split.TABLET) {
            TabletRoutedRebuild routed = new TabletRoutedRebuild(spark, client, tasks.maxTasks());
            List<DatasetOutcome> outcomes = new ArrayList<>();
            for (List<RunBatch> wave : RunBatch.waves(batches, tasks.waveEvents())) {
                outcomes.addAll(routed.run(target, wave));
            }
            return new Summary(outcomes, (System.nanoTime() - t0) / 1_000_000, epochs);
        }
        RebuildTarget shipped = target;
        List<DatasetOutcome> outcomes = spark.parallelize(batches, Math.min(batches.size(), tasks.maxTasks()))
                .flatMap(batch -> new RebuildTask(shipped).run(batch).iterator())
                .collect();
        return new Summary(outcomes, (System.nanoTime() - t0) / 1_000_000, epochs);
    }
}
