package org.eventindex.rebuild;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kudu.client.KuduClient;
import org.apache.spark.api.java.JavaSparkContext;
import org.eventindex.kudu.DatasetLoader;
import org.eventindex.kudu.DatasetQueries;
import org.eventindex.kudu.DatasetSource;
import org.eventindex.kudu.DatasetVerifier;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.LoadResult;
import org.eventindex.kudu.Verification;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Predicate;

import static java.util.Objects.requireNonNull;

/**
 * The driver side of {@code eventindex verify}: one Spark task per selected LOADED dataset, each comparing the
 * dataset's Kudu rows with its HDFS file and its catalogue counts ({@link DatasetVerifier}, the loader's own row
 * building); then, when asked, the repair of every dataset whose Kudu rows are wrong, on the driver with the loader's
 * code, and a second verification of each repaired dataset.
 */
public final class VerifyJob {

    /** A dataset's verification, and what its repair gave (null when not repaired). */
    public record Checked(DatasetsRow catalogued, Verification found, Verification afterRepair) {
        public boolean ok() {
            return afterRepair != null ? afterRepair.ok() : found.ok();
        }
    }

    private final JavaSparkContext spark;
    private final KuduClient client;

    public VerifyJob(JavaSparkContext spark, KuduClient client) {
        this.spark = requireNonNull(spark, "spark is null");
        this.client = requireNonNull(client, "client is null");
    }

    /** Verifies the datasets of {@code tables}' catalogue that {@code selection} takes; repairs them if asked. */
    public List<Checked> run(RebuildTarget tables, Predicate<DatasetsRow> selection, boolean repair)
            throws IOException {
        requireNonNull(tables, "tables is null");
        List<DatasetsRow> rows = new DatasetQueries(client, tables.tables()).datasets().stream()
                .filter(selection).toList();
        if (rows.isEmpty()) {
            return List.of();
        }
        RebuildTarget shipped = tables;
        List<Verification> found = spark.parallelize(rows, rows.size())
                .mapPartitions((Iterator<DatasetsRow> part) -> verify(shipped, part).iterator())
                .collect();
        List<Checked> checked = new ArrayList<>();
        KuduTables kudu = new KuduTables(client, tables.tables());
        DatasetVerifier verifier = new DatasetVerifier(client, kudu);
        for (int i = 0; i < rows.size(); i++) {
            DatasetsRow row = rows.get(i);
            Verification v = found.get(i);
            Verification after = null;
            if (repair && v.verdict() == Verification.Verdict.KUDU_DIFFERS) {
                DatasetSource source = source(row, new Configuration());
                LoadResult reloaded = DatasetLoader.repair(client, kudu, v, row, source);
                after = verifier.verify(row, source);
                if (reloaded.alreadyLoaded()) {
                    throw new IllegalStateException("the repair of " + row.dataset() + " wrote nothing");
                }
            }
            checked.add(new Checked(row, v, after));
        }
        return checked;
    }

    private static List<Verification> verify(RebuildTarget tables, Iterator<DatasetsRow> rows) throws IOException {
        List<Verification> out = new ArrayList<>();
        Configuration conf = new Configuration();
        try (KuduClient client = new KuduClient.KuduClientBuilder(tables.masters()).build()) {
            if (tables.kuduCredentials() != null) {
                client.importAuthenticationCredentials(tables.kuduCredentials());
            }
            DatasetVerifier verifier = new DatasetVerifier(client, new KuduTables(client, tables.tables()));
            while (rows.hasNext()) {
                DatasetsRow row = rows.next();
                out.add(verifier.verify(row, source(row, conf)));
            }
        }
        return out;
    }

    private static DatasetSource source(DatasetsRow row, Configuration conf) throws IOException {
        if (row.hdfsPath() == null) {
            throw new IOException("dataset " + row.dataset() + " has no hdfs_path in DATASETS");
        }
        return DatasetSource.hadoop(FileSystem.get(URI.create(row.hdfsPath()), conf), new Path(row.hdfsPath()));
    }
}
