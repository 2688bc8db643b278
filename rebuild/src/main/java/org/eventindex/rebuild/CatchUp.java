package org.eventindex.rebuild;

import org.apache.kudu.client.KuduClient;
import org.apache.spark.api.java.JavaSparkContext;
import org.eventindex.kudu.DatasetQueries;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.KuduTablesConfig;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Brings a set of tables up to another's catalogue: the datasets LOADED in the source's DATASETS that the target does
 * not hold LOADED with the same load id (the consumers loaded them after the rebuild read the catalogue, or during a
 * swap) are rebuilt into the target ({@link RebuildJob}), then verified there ({@link VerifyJob}: the rows against the
 * file and the catalogue). Safe to run again: what is caught up is no longer selected.
 */
final class CatchUp {

    /** What a catch-up did: the datasets rebuilt, and their verification in the target. */
    record Result(RebuildJob.Summary rebuilt, List<VerifyJob.Checked> verified) {
        Result {
            requireNonNull(rebuilt, "rebuilt is null");
            verified = List.copyOf(verified);
        }

        /** Each dataset that failed or does not verify, with the reason. */
        List<String> problems() {
            List<String> out = new ArrayList<>();
            rebuilt.failures().forEach(f -> out.add(f.error()));
            for (VerifyJob.Checked c : verified) {
                if (!c.ok()) {
                    out.add(c.found().verdict() + " " + c.catalogued().dataset() + ": "
                            + String.join("; ", c.found().differences()));
                }
            }
            return out;
        }
    }

    private final JavaSparkContext spark;
    private final KuduClient client;
    private final int maxTasks;

    CatchUp(JavaSparkContext spark, KuduClient client, int maxTasks) {
        this.spark = requireNonNull(spark, "spark is null");
        this.client = requireNonNull(client, "client is null");
        this.maxTasks = maxTasks;
    }

    /**
     * Rebuilds into {@code target} the datasets of {@code source}'s catalogue it lacks, and verifies them.
     *
     * @throws IOException when a catalogue cannot be read or the target tables do not exist (names them)
     */
    Result run(KuduTablesConfig source, RebuildTarget target) throws IOException {
        requireNonNull(source, "source is null");
        requireNonNull(target, "target is null");
        if (!client.tableExists(target.tables().datasetsTable())) {
            throw new IOException("no table " + target.tables().datasetsTable() + ": the tables with prefix '"
                    + target.prefix() + "' are not there to catch up (rebuild into them first: eventindex rebuild"
                    + " --target-prefix " + target.prefix() + " --epoch N)");
        }
        Set<String> held = new DatasetQueries(client, target.tables()).datasets().stream()
                .filter(DatasetsRow::isLoaded).map(CatchUp::loadKey).collect(Collectors.toSet());
        Predicate<DatasetsRow> missing = row -> row.isLoaded() && !held.contains(loadKey(row));
        RebuildJob.Summary rebuilt = new RebuildJob(spark, client, RebuildJob.Tasks.defaults().withMaxTasks(maxTasks))
                .run(source, target, missing);
        Set<String> done = rebuilt.outcomes().stream().filter(o -> !o.failed()).map(DatasetOutcome::dataset)
                .collect(Collectors.toSet());
        List<VerifyJob.Checked> verified = done.isEmpty() ? List.of()
                : new VerifyJob(spark, client).run(target, row -> done.contains(row.dataset()) && row.isLoaded(),
                false);
        return new Result(rebuilt, verified);
    }

    private static String loadKey(DatasetsRow row) {
        return row.dataset() + "\n" + row.loadId();
    }
}
