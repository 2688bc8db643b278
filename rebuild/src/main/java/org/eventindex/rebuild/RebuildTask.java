package org.eventindex.rebuild;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kudu.client.KuduClient;
import org.eventindex.io.FileReason;
import org.eventindex.kudu.DatasetLoader;
import org.eventindex.kudu.DatasetSource;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.LoadResult;
import org.eventindex.kudu.LoaderSettings;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * One Spark task of a rebuild, on an executor: replays the loads of one run's datasets, in their load order, into the
 * target tables with the loader's own code ({@link DatasetLoader#replaying}). A dataset that fails is reported and the
 * next one goes on (the driver fails the job at the end, naming each); a task retried by Spark finds the datasets it
 * finished LOADED with the same load id and skips them, and loads the interrupted one again from a clean slate (the
 * loader's protocol deletes what an earlier attempt left).
 */
final class RebuildTask {
    private final RebuildTarget target;

    RebuildTask(RebuildTarget target) {
        this.target = requireNonNull(target, "target is null");
    }

    List<DatasetOutcome> run(RunBatch batch) throws IOException {
        List<DatasetOutcome> outcomes = new ArrayList<>();
        Configuration conf = new Configuration();
        try (KuduClient client = target.connect()) {
            KuduTables tables = new KuduTables(client, target.tables());
            LoaderSettings settings = LoaderSettings.defaults().withLoadThreads(target.loadThreads());
            for (DatasetsRow row : batch.datasets()) {
                outcomes.add(replay(client, tables, settings, conf, batch.run(), row));
            }
        }
        return outcomes;
    }

    private static DatasetOutcome replay(KuduClient client, KuduTables tables, LoaderSettings settings,
                                         Configuration conf, int run, DatasetsRow row) {
        long t0 = System.nanoTime();
        try {
            LoadResult result = DatasetLoader.replaying(client, tables, settings, row)
                    .load(DatasetLoader.replayRequest(row, source(row, conf)));
            return new DatasetOutcome(row.dataset(), run, result.events(), result.alreadyLoaded(), millis(t0), null);
        } catch (IOException e) {
            return failed(row, run, t0, FileReason.describe(e));
        } catch (RuntimeException e) {
            return failed(row, run, t0, e.toString());
        }
    }

    /**
     * The dataset's consolidated file, as DATASETS records it.
     *
     * @throws IOException naming the dataset when DATASETS records no file, or the file system cannot be reached
     */
    static DatasetSource source(DatasetsRow row, Configuration conf) throws IOException {
        if (row.hdfsPath() == null) {
            throw new IOException("DATASETS records no hdfs_path for it");
        }
        return DatasetSource.hadoop(FileSystem.get(URI.create(row.hdfsPath()), conf), new Path(row.hdfsPath()));
    }

    static DatasetOutcome failed(DatasetsRow row, int run, long t0, String reason) {
        return new DatasetOutcome(row.dataset(), run, 0, false, millis(t0),
                "dataset " + row.dataset() + " from " + row.hdfsPath() + ": " + reason);
    }

    static long millis(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
