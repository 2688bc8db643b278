package org.eventindex.deploy.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.RowResult;
import org.apache.kudu.client.RowResultIterator;
import org.eventindex.consolidated.ConsolidatedSchema;
import org.eventindex.deploy.chaos.ExpectedEvents.EventKey;
import org.eventindex.kudu.DatasetQueries;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.names.DatasetName;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The total checker, after a drain: per dataset, compares what the components hold with what must be there.
 * <ul>
 *   <li>the supervisor has the dataset DONE, and Kudu has its DATASETS row LOADED;</li>
 *   <li>EVENTS (or MCEVENTS) holds exactly the expected unique (run, event) keys: none lost, none extra, none twice;</li>
 *   <li>DUPLICATEDEVENTS holds exactly the expected further occurrences (a twice-loaded duplicate is caught);</li>
 *   <li>HDFS holds exactly one consolidated file for the dataset and no temporary file in its directory;</li>
 *   <li>every producer job got its message acknowledged, and the supervisor has a record of every acknowledged
 *       object (selected, duplicate, late or invalidated).</li>
 * </ul>
 * It reports every violation it finds (never stops at the first) as values in a {@link CheckResult}.
 */
final class ChaosChecker {
    private static final int EXAMPLES = 5;

    private final KuduClient kudu;
    private final KuduTablesConfig tables;
    private final FileSystem hdfs;
    private final String hdfsRoot;
    private final Function<String, Optional<JsonNode>> supervisorView;

    /**
     * @param supervisorView the supervisor's {@code /datasets/<name>} document of a dataset, empty if unknown
     */
    ChaosChecker(KuduClient kudu, KuduTablesConfig tables, FileSystem hdfs, String hdfsRoot,
                 Function<String, Optional<JsonNode>> supervisorView) {
        this.kudu = Objects.requireNonNull(kudu, "kudu is null");
        this.tables = Objects.requireNonNull(tables, "tables is null");
        this.hdfs = Objects.requireNonNull(hdfs, "hdfs is null");
        this.hdfsRoot = Objects.requireNonNull(hdfsRoot, "hdfsRoot is null");
        this.supervisorView = Objects.requireNonNull(supervisorView, "supervisorView is null");
    }

    CheckResult check(List<ExpectedEvents> datasets, List<ProducerFleet.Job> jobs) throws IOException {
        List<Violation> violations = new ArrayList<>();
        long expected = 0;
        long found = 0;
        long lost = 0;
        long extra = 0;
        for (ExpectedEvents ds : datasets) {
            String name = ds.dataset();
            expected += ds.unique().size();
            Optional<JsonNode> view = supervisorView.apply(name);
            String state = view.map(v -> v.path("state").asText()).orElse("unknown to the supervisor");
            if (!"DONE".equals(state)) {
                violations.add(new Violation(Violation.Kind.INCOMPLETE, name, "supervisor state " + state));
            }
            accountMessages(name, view, jobs, violations);
            checkHdfs(name, violations);
            Optional<DatasetsRow> record = new DatasetQueries(kudu, tables).dataset(name);
            if (record.isEmpty() || !record.get().isLoaded()) {
                violations.add(new Violation(Violation.Kind.NOT_LOADED, name, record.map(r -> "DATASETS state "
                        + r.state()).orElse("no DATASETS row")));
            }
            if (record.isEmpty()) {
                lost += ds.unique().size();
                continue;
            }
            int dspid = record.get().dspid();
            int rgid = record.get().rgid();
            Map<EventKey, Integer> events = scan(tables.eventsTable(), dspid, rgid);
            scan(tables.mcEventsTable(), dspid, rgid).forEach((k, n) -> events.merge(k, n, Integer::sum));
            found += events.values().stream().mapToLong(Integer::longValue).sum();
            Set<EventKey> missing = new TreeSet<>(ds.unique());
            missing.removeAll(events.keySet());
            if (!missing.isEmpty()) {
                lost += missing.size();
                violations.add(new Violation(Violation.Kind.LOST, name, missing.size() + " of " + ds.unique().size()
                        + " expected events missing from EVENTS/MCEVENTS, e.g. " + examples(missing)));
            }
            Set<EventKey> unexpected = new TreeSet<>();
            long surplus = 0;
            for (Map.Entry<EventKey, Integer> e : events.entrySet()) {
                int allowed = ds.unique().contains(e.getKey()) ? 1 : 0;
                if (e.getValue() > allowed) {
                    unexpected.add(e.getKey());
                    surplus += e.getValue() - allowed;
                }
            }
            if (!unexpected.isEmpty()) {
                extra += surplus;
                violations.add(new Violation(Violation.Kind.UNEXPECTED, name, surplus + " row(s) in EVENTS/MCEVENTS"
                        + " beyond the expected events (foreign or twice), e.g. " + examples(unexpected)));
            }
            Map<EventKey, Integer> dups = scan(tables.duplicatedEventsTable(), dspid, rgid);
            if (!dups.equals(ds.duplicates())) {
                Set<EventKey> differ = new TreeSet<>();
                Set<EventKey> keys = new HashSet<>(dups.keySet());
                keys.addAll(ds.duplicates().keySet());
                for (EventKey k : keys) {
                    if (!Objects.equals(dups.get(k), ds.duplicates().get(k))) {
                        differ.add(k);
                    }
                }
                long rows = dups.values().stream().mapToLong(Integer::longValue).sum();
                violations.add(new Violation(Violation.Kind.DUPLICATES_MISMATCH, name, "DUPLICATEDEVENTS holds "
                        + rows + " row(s), expected " + ds.duplicateRows() + "; keys that differ: "
                        + examples(differ)));
            }
        }
        return new CheckResult(datasets.size(), expected, found, lost, extra, violations);
    }

    /** The objects the supervisor's view of a dataset names: selected, duplicate, late or invalid. */
    static Set<String> recordedObjects(Optional<JsonNode> view) {
        Set<String> known = new HashSet<>();
        view.ifPresent(v -> {
            v.path("selectedObjects").forEach(o -> known.add(o.path("url").asText()));
            v.path("duplicateObjects").forEach(o -> known.add(o.asText()));
            v.path("lateObjects").forEach(o -> known.add(o.asText()));
            v.path("invalidObjects").fieldNames().forEachRemaining(known::add);
        });
        return known;
    }

    private void accountMessages(String name, Optional<JsonNode> view, List<ProducerFleet.Job> jobs,
                                 List<Violation> violations) {
        Set<String> known = recordedObjects(view);
        int acknowledged = 0;
        for (ProducerFleet.Job job : jobs) {
            if (!job.dataset().equals(name)) {
                continue;
            }
            if (!job.succeeded()) {
                violations.add(new Violation(Violation.Kind.PRODUCER_FAILED, name, job.spbFile().getFileName()
                        + " exit codes " + job.exitCodes() + ": " + job.lastError()));
                continue;
            }
            acknowledged++;
            if (!known.contains(job.acknowledgedUrl())) {
                violations.add(new Violation(Violation.Kind.UNACCOUNTED_MESSAGE, name, "the broker acknowledged "
                        + job.acknowledgedUrl() + " but the supervisor has no record of it"));
            }
        }
        int reported = view.map(v -> v.path("objectsReported").asInt()).orElse(0);
        if (reported < acknowledged) {
            violations.add(new Violation(Violation.Kind.UNACCOUNTED_MESSAGE, name, "the supervisor recorded "
                    + reported + " object(s) but producers had " + acknowledged + " acknowledged"));
        }
    }

    /** The HDFS directory of {@code dataset}'s container, where its file and temp files live. */
    static org.apache.hadoop.fs.Path containerDir(String hdfsRoot, String dataset) {
        return new org.apache.hadoop.fs.Path(hdfsRoot, DatasetName.parse(dataset).container());
    }

    /** What {@code dir} holds; nothing when it does not exist (no file written there yet). */
    static FileStatus[] list(FileSystem hdfs, org.apache.hadoop.fs.Path dir) throws IOException {
        try {
            return hdfs.listStatus(dir);
        } catch (FileNotFoundException e) {
            return new FileStatus[0];
        }
    }

    /** Whether {@code file}, a name in the container directory, is a temporary file of {@code dataset}. */
    static boolean isTempFile(String file, String dataset) {
        return file.startsWith(".") && file.contains(dataset);
    }

    private void checkHdfs(String name, List<Violation> violations) throws IOException {
        org.apache.hadoop.fs.Path dir = containerDir(hdfsRoot, name);
        int finals = 0;
        for (FileStatus st : list(hdfs, dir)) {
            String file = st.getPath().getName();
            if (file.equals(name + ConsolidatedSchema.SUFFIX)) {
                finals++;
            } else if (isTempFile(file, name)) {
                violations.add(new Violation(Violation.Kind.LEFTOVER_TEMP, name, "temporary file " + st.getPath()
                        + " (" + st.getLen() + " bytes)"));
            } else if (file.startsWith(name + ".")) {
                violations.add(new Violation(Violation.Kind.HDFS_FILES, name, "unexpected file " + st.getPath()));
            }
        }
        if (finals != 1) {
            violations.add(new Violation(Violation.Kind.HDFS_FILES, name, finals + " consolidated files "
                    + name + ConsolidatedSchema.SUFFIX + " in " + dir + ", expected exactly 1"));
        }
    }

    /** (run, event) -> rows, for the rows of one dataset in one epoch of a table. */
    private Map<EventKey, Integer> scan(String tableName, int dspid, int rgid) throws IOException {
        KuduTable table = kudu.openTable(tableName);
        KuduScanner scanner = kudu.newScannerBuilder(table)
                .setProjectedColumnNames(List.of(KuduSchemas.RUNNUMBER, KuduSchemas.EVENTNUMBER))
                .addPredicate(KuduPredicate.newComparisonPredicate(table.getSchema().getColumn(KuduSchemas.DSPID),
                        KuduPredicate.ComparisonOp.EQUAL, dspid))
                .addPredicate(KuduPredicate.newComparisonPredicate(table.getSchema().getColumn(KuduSchemas.RGID),
                        KuduPredicate.ComparisonOp.EQUAL, rgid))
                .build();
        Map<EventKey, Integer> rows = new HashMap<>();
        try {
            while (scanner.hasMoreRows()) {
                RowResultIterator it = scanner.nextRows();
                while (it.hasNext()) {
                    RowResult r = it.next();
                    int run = r.isNull(KuduSchemas.RUNNUMBER) ? 0 : r.getInt(KuduSchemas.RUNNUMBER);
                    rows.merge(new EventKey(run, r.getLong(KuduSchemas.EVENTNUMBER)), 1, Integer::sum);
                }
            }
        } finally {
            scanner.close();
        }
        return rows;
    }

    private static String examples(Set<EventKey> keys) {
        List<String> out = new ArrayList<>();
        for (EventKey k : keys) {
            if (out.size() == EXAMPLES) {
                out.add("...");
                break;
            }
            out.add(k.toString());
        }
        return "(run/event) " + String.join(", ", out);
    }
}
