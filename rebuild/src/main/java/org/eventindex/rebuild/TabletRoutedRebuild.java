package org.eventindex.rebuild;

import org.apache.hadoop.conf.Configuration;
import org.apache.kudu.client.Insert;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduSession;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.util.TaskCompletionListener;
import org.eventindex.io.FileReason;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.LoadResult;
import org.eventindex.kudu.LoaderSettings;
import org.eventindex.kudu.StagedReplay;
import scala.Tuple2;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A rebuild whose writes are split by tablet (docs/decisions/0076): the loads are replayed in three steps of
 * {@link StagedReplay}, each a Spark stage:
 * <ol>
 *   <li>prepare, one task per run: each dataset already rebuilt is skipped, the others set LOADING with no row of an
 *       earlier attempt left;</li>
 *   <li>decide, one task per dataset: the loader's writer decides every row in file order and hands it, encoded, to
 *       Spark's shuffle keyed by its tablet (Kudu's partitioner); the write tasks, each owning the tablets numbered
 *       its index modulo their count, write their rows with INSERT_IGNORE through one session;</li>
 *   <li>finish, one task per run, its datasets in load order: trigger pairs, overlaps (against the run's datasets
 *       LOADED before, as a load finds them), counts checked, LOADED.</li>
 * </ol>
 * Idempotent as the loader: a retried decide task emits the same rows; a retried write task writes what is missing
 * (INSERT_IGNORE leaves the rows already there, which are the same rows); a job run again skips what is LOADED and
 * prepares again what is not.
 */
final class TabletRoutedRebuild {
    /** Rows of one tablet per shuffle record. */
    static final int CHUNK = 256;

    /** A dataset after the prepare step: done ({@code outcome}: skipped or failed), or ready to decide. */
    record Prepared(DatasetsRow row, int run, long millis, DatasetOutcome outcome) implements Serializable {
    }

    /** The decided datasets of one run, in load order: one finish task. */
    record FinishBatch(int run, List<Routed.Decision> datasets) implements Serializable {
    }

    private final JavaSparkContext spark;
    private final KuduClient client;
    private final int maxTasks;

    TabletRoutedRebuild(JavaSparkContext spark, KuduClient client, int maxTasks) {
        this.spark = requireNonNull(spark, "spark is null");
        this.client = requireNonNull(client, "client is null");
        this.maxTasks = maxTasks;
    }

    /** Replays {@code batches}' loads into {@code target} (whose tables and epochs exist); one outcome per dataset. */
    List<DatasetOutcome> run(RebuildTarget target, List<RunBatch> batches) throws IOException {
        List<DatasetOutcome> outcomes = new ArrayList<>();
        List<Prepared> ready = new ArrayList<>();
        for (Prepared p : spark.parallelize(batches, tasks(batches.size()))
                .mapPartitions(it -> prepare(target, it)).collect()) {
            if (p.outcome() != null) {
                outcomes.add(p.outcome());
            } else {
                ready.add(p);
            }
        }
        if (ready.isEmpty()) {
            return outcomes;
        }
        int writers = Math.min(tasks(new TabletRoutes(client, target.tables()).tablets()),
                Math.max(1, spark.defaultParallelism()));
        List<Routed.Decision> decided = spark.parallelize(ready, tasks(ready.size()))
                .mapPartitions(it -> decide(target, it))
                .mapToPair(r -> new Tuple2<>(r.key(), r))
                .partitionBy(new TabletPartitioner(writers))
                .values()
                .mapPartitions(it -> write(target, it))
                .collect();
        Map<String, Routed.Decision> byName = new HashMap<>();
        List<DatasetsRow> finishing = new ArrayList<>();
        for (Routed.Decision d : decided) {
            if (d.error() != null) {
                outcomes.add(new DatasetOutcome(d.row().dataset(), d.run(), 0, false, d.millis(), d.error()));
            } else {
                byName.put(d.row().dataset(), d);
                finishing.add(d.row());
            }
        }
        List<FinishBatch> finish = RunBatch.of(finishing).stream().map(b -> new FinishBatch(b.run(),
                b.datasets().stream().map(r -> byName.get(r.dataset())).toList())).toList();
        if (!finish.isEmpty()) {
            outcomes.addAll(spark.parallelize(finish, tasks(finish.size()))
                    .mapPartitions(it -> finish(target, it)).collect());
        }
        return outcomes;
    }

    private int tasks(int units) {
        return Math.max(1, Math.min(units, maxTasks));
    }

    private static Iterator<Prepared> prepare(RebuildTarget target, Iterator<RunBatch> batches) throws IOException {
        List<Prepared> prepared = new ArrayList<>();
        Configuration conf = new Configuration();
        try (KuduClient client = target.connect()) {
            StagedReplay staged = staged(client, target);
            while (batches.hasNext()) {
                RunBatch batch = batches.next();
                for (DatasetsRow row : batch.datasets()) {
                    long t0 = System.nanoTime();
                    try {
                        Optional<LoadResult> done = staged.prepare(row, RebuildTask.source(row, conf));
                        prepared.add(new Prepared(row, batch.run(), RebuildTask.millis(t0), done.map(r ->
                                new DatasetOutcome(row.dataset(), batch.run(), r.events(), true,
                                        RebuildTask.millis(t0), null)).orElse(null)));
                    } catch (IOException e) {
                        prepared.add(new Prepared(row, batch.run(), 0,
                                RebuildTask.failed(row, batch.run(), t0, FileReason.describe(e))));
                    } catch (RuntimeException e) {
                        prepared.add(new Prepared(row, batch.run(), 0,
                                RebuildTask.failed(row, batch.run(), t0, e.toString())));
                    }
                }
            }
        }
        return prepared.iterator();
    }

    private static Iterator<Routed> decide(RebuildTarget target, Iterator<Prepared> datasets) {
        List<Prepared> mine = new ArrayList<>();
        datasets.forEachRemaining(mine::add);
        DecideFeed feed = new DecideFeed("rebuild-decide", emit -> {
            Configuration conf = new Configuration();
            try (KuduClient client = target.connect()) {
                TabletRoutes routes = new TabletRoutes(client, target.tables());
                StagedReplay staged = staged(client, target);
                for (Prepared p : mine) {
                    emit.emit(new Routed(-1 - Math.floorMod(p.row().dspid(), 1 << 30), -1, null,
                            decide(staged, new Chunks(routes, emit, p.row().dataset()), conf, p)));
                }
            }
        });
        TaskContext context = TaskContext.get();
        if (context != null) {
            context.addTaskCompletionListener((TaskCompletionListener) c -> feed.close());
        }
        return feed;
    }

    private static Routed.Decision decide(StagedReplay staged, Chunks chunks, Configuration conf, Prepared p)
            throws InterruptedIOException {
        long t0 = System.nanoTime();
        DatasetsRow row = p.row();
        try {
            StagedReplay.Decided decided = staged.decide(row, RebuildTask.source(row, conf), chunks::add);
            chunks.flush();
            return new Routed.Decision(row, p.run(), decided, p.millis() + RebuildTask.millis(t0), null);
        } catch (InterruptedIOException e) {
            throw e;
        } catch (IOException e) {
            return new Routed.Decision(row, p.run(), null, 0,
                    RebuildTask.failed(row, p.run(), t0, FileReason.describe(e)).error());
        } catch (RuntimeException e) {
            return new Routed.Decision(row, p.run(), null, 0, RebuildTask.failed(row, p.run(), t0, e.toString())
                    .error());
        }
    }

    /** One dataset's decided rows gathered per tablet into shuffle records of {@link #CHUNK} rows. */
    private static final class Chunks {
        private final TabletRoutes routes;
        private final DecideFeed.Emitter emit;
        private final String dataset;
        private final List<List<byte[]>> pending;
        private final int[] tables;

        Chunks(TabletRoutes routes, DecideFeed.Emitter emit, String dataset) {
            this.routes = routes;
            this.emit = emit;
            this.dataset = dataset;
            this.pending = new ArrayList<>(routes.tablets());
            for (int i = 0; i < routes.tablets(); i++) {
                pending.add(null);
            }
            this.tables = new int[routes.tablets()];
        }

        void add(Insert row) throws InterruptedIOException {
            int table = routes.table(row);
            int tablet = routes.tablet(table, row, dataset);
            List<byte[]> rows = pending.get(tablet);
            if (rows == null) {
                rows = new ArrayList<>(CHUNK);
                pending.set(tablet, rows);
                tables[tablet] = table;
            }
            rows.add(routes.encode(table, row));
            if (rows.size() == CHUNK) {
                send(tablet);
            }
        }

        void flush() throws InterruptedIOException {
            for (int tablet = 0; tablet < pending.size(); tablet++) {
                if (pending.get(tablet) != null) {
                    send(tablet);
                }
            }
        }

        private void send(int tablet) throws InterruptedIOException {
            emit.emit(new Routed(tablet, tables[tablet], pending.get(tablet).toArray(byte[][]::new), null));
            pending.set(tablet, null);
        }
    }

    private static Iterator<Routed.Decision> write(RebuildTarget target, Iterator<Routed> records)
            throws IOException {
        List<Routed.Decision> decided = new ArrayList<>();
        String tables = target.tables().eventsTable() + "/" + target.tables().mcEventsTable() + "/"
                + target.tables().duplicatedEventsTable();
        String whose = "(rows of the rebuild into the '" + target.prefix() + "' tables)";
        int checkEvery = LoaderSettings.defaults().progressEvery();
        try (KuduClient client = target.connect()) {
            TabletRoutes routes = new TabletRoutes(client, target.tables());
            KuduSession session = staged(client, target).session();
            try {
                long rows = 0;
                while (records.hasNext()) {
                    Routed r = records.next();
                    if (r.decided() != null) {
                        decided.add(r.decided());
                        continue;
                    }
                    for (byte[] row : r.rows()) {
                        session.apply(routes.insertIgnore(r.table(), row));
                    }
                    rows += r.rows().length;
                    if (rows % checkEvery < r.rows().length) {
                        StagedReplay.failOnErrors(session, tables, whose);
                    }
                }
                session.flush();
                StagedReplay.failOnErrors(session, tables, whose);
            } finally {
                session.close();
            }
        }
        return decided.iterator();
    }

    private static Iterator<DatasetOutcome> finish(RebuildTarget target, Iterator<FinishBatch> batches)
            throws IOException {
        List<DatasetOutcome> outcomes = new ArrayList<>();
        Configuration conf = new Configuration();
        try (KuduClient client = target.connect()) {
            StagedReplay staged = staged(client, target);
            while (batches.hasNext()) {
                FinishBatch batch = batches.next();
                for (Routed.Decision d : batch.datasets()) {
                    long t0 = System.nanoTime();
                    DatasetsRow row = d.row();
                    try {
                        LoadResult r = staged.finish(row, RebuildTask.source(row, conf), d.decided());
                        outcomes.add(new DatasetOutcome(row.dataset(), batch.run(), r.events(), false,
                                d.millis() + RebuildTask.millis(t0), null));
                    } catch (IOException e) {
                        outcomes.add(RebuildTask.failed(row, batch.run(), t0, FileReason.describe(e)));
                    } catch (RuntimeException e) {
                        outcomes.add(RebuildTask.failed(row, batch.run(), t0, e.toString()));
                    }
                }
            }
        }
        return outcomes.iterator();
    }

    private static StagedReplay staged(KuduClient client, RebuildTarget target) {
        return new StagedReplay(client, new KuduTables(client, target.tables()), LoaderSettings.defaults());
    }
}
