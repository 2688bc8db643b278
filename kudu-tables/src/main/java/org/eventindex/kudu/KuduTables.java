package org.eventindex.kudu;

import org.apache.kudu.ColumnSchema;
import org.apache.kudu.Schema;
import org.apache.kudu.client.AlterTableOptions;
import org.apache.kudu.client.CreateTableOptions;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.Partition;
import org.apache.kudu.client.PartitionSchema;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * Creates, verifies and extends the EventIndex tables in one Kudu cluster.
 * <p>
 * EVENTS, MCEVENTS and DUPLICATEDEVENTS are RANGE partitioned on {@code rgid} with one range {@code [epoch, epoch + 1)} per
 * epoch, each split into {@link KuduTablesConfig#hashBuckets()} HASH(eventnumber) buckets. Ranges are added on demand
 * by {@link #ensureEpoch(int)}; the supervisor decides when a new epoch starts. DATASETS, EVENTSOVERLAP and
 * TRIGGERCOUNT are small (one row per dataset, per dataset pair, per fired trigger pair) and have one tablet each.
 * Thread-safe.
 */
public final class KuduTables {
    private static final long RANGE_LIST_TIMEOUT_MS = 60_000;

    private final KuduClient client;
    private final KuduTablesConfig config;
    private final Set<Integer> knownEpochs = ConcurrentHashMap.newKeySet();

    public KuduTables(KuduClient client, KuduTablesConfig config) {
        this.client = requireNonNull(client, "client is null");
        this.config = requireNonNull(config, "config is null");
    }

    public KuduTablesConfig config() {
        return config;
    }

    /**
     * Creates the tables that are missing (EVENTS and DUPLICATEDEVENTS with the range of {@code initialEpoch}) and
     * checks the existing ones: same primary key, every expected column present with its type, and for the event
     * tables range partitioning on {@code rgid} and hashing on {@code eventnumber}. Idempotent; safe to run from
     * several processes at once.
     *
     * @throws IllegalStateException naming the table and the difference when an existing table does not match
     */
    public void createOrVerify(int initialEpoch) throws KuduException {
        createOrVerify(config.datasetsTable(), KuduSchemas.datasets(), KuduSchemas.DATASETS_KEY, datasetsOptions());
        createOrVerify(config.eventsTable(), KuduSchemas.events(), KuduSchemas.EVENTS_KEY,
                eventOptions(KuduSchemas.events(), initialEpoch));
        createOrVerify(config.duplicatedEventsTable(), KuduSchemas.duplicatedEvents(),
                KuduSchemas.DUPLICATED_EVENTS_KEY, eventOptions(KuduSchemas.duplicatedEvents(), initialEpoch));
        createOrVerify(config.mcEventsTable(), KuduSchemas.events(), KuduSchemas.EVENTS_KEY,
                eventOptions(KuduSchemas.events(), initialEpoch));
        createOrVerify(config.eventsOverlapTable(), KuduSchemas.eventsOverlap(), KuduSchemas.EVENTSOVERLAP_KEY,
                datasetsOptions());
        createOrVerify(config.triggerCountTable(), KuduSchemas.triggerCount(), KuduSchemas.TRIGGERCOUNT_KEY,
                datasetsOptions());
        verifyEventPartitioning(config.eventsTable());
        verifyEventPartitioning(config.duplicatedEventsTable());
        verifyEventPartitioning(config.mcEventsTable());
    }

    /**
     * Checks without changing anything that every table exists with the schema {@link #createOrVerify} gives it (the
     * primary key, every column with its type, the event tables' partitioning): what {@code eventindex check} calls
     * the schema version.
     *
     * @throws IllegalStateException naming the missing tables, or the table and its difference
     */
    public void verifyExisting() throws KuduException {
        List<String> missing = new ArrayList<>();
        for (String name : config.tables()) {
            if (!client.tableExists(name)) {
                missing.add(name);
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException("Kudu table(s) " + String.join(", ", missing) + " do not exist");
        }
        verifySchema(config.datasetsTable(), client.openTable(config.datasetsTable()).getSchema(),
                KuduSchemas.datasets(), KuduSchemas.DATASETS_KEY);
        for (String events : List.of(config.eventsTable(), config.mcEventsTable())) {
            verifySchema(events, client.openTable(events).getSchema(), KuduSchemas.events(), KuduSchemas.EVENTS_KEY);
            verifyEventPartitioning(events);
        }
        verifySchema(config.duplicatedEventsTable(), client.openTable(config.duplicatedEventsTable()).getSchema(),
                KuduSchemas.duplicatedEvents(), KuduSchemas.DUPLICATED_EVENTS_KEY);
        verifyEventPartitioning(config.duplicatedEventsTable());
        verifySchema(config.eventsOverlapTable(), client.openTable(config.eventsOverlapTable()).getSchema(),
                KuduSchemas.eventsOverlap(), KuduSchemas.EVENTSOVERLAP_KEY);
        verifySchema(config.triggerCountTable(), client.openTable(config.triggerCountTable()).getSchema(),
                KuduSchemas.triggerCount(), KuduSchemas.TRIGGERCOUNT_KEY);
    }

    /**
     * Makes sure EVENTS, MCEVENTS and DUPLICATEDEVENTS have a range holding {@code epoch}, adding
     * {@code [epoch, epoch + 1)} if not. Tolerates another process adding the same range at the same time. Cheap after the first call per epoch.
     */
    public void ensureEpoch(int epoch) throws KuduException {
        checkEpoch(epoch);
        if (knownEpochs.contains(epoch)) {
            return;
        }
        ensureRange(config.eventsTable(), epoch);
        ensureRange(config.duplicatedEventsTable(), epoch);
        // MCEVENTS is missing on clusters set up by an earlier version until createOrVerify runs (the loader always
        // runs it first, then ensureEpoch again); until then the epoch is not cached as complete.
        if (client.tableExists(config.mcEventsTable())) {
            ensureRange(config.mcEventsTable(), epoch);
            knownEpochs.add(epoch);
        }
    }

    /** The epochs (range lower bounds) of {@code table}; for tests and operators. */
    public List<Integer> epochs(String table) throws KuduException {
        KuduTable t = client.openTable(table);
        List<Integer> epochs = new ArrayList<>();
        for (Partition p : rangePartitions(t)) {
            PartialRow lower = p.getDecodedRangeKeyStart(t);
            epochs.add(lower.isSet(KuduSchemas.RGID) ? lower.getInt(KuduSchemas.RGID) : Integer.MIN_VALUE);
        }
        return epochs;
    }

    private void ensureRange(String table, int epoch) throws KuduException {
        KuduTable t = client.openTable(table);
        if (hasRange(t, epoch)) {
            return;
        }
        Schema schema = t.getSchema();
        PartialRow lower = schema.newPartialRow();
        lower.addInt(KuduSchemas.RGID, epoch);
        PartialRow upper = schema.newPartialRow();
        upper.addInt(KuduSchemas.RGID, epoch + 1);
        try {
            client.alterTable(table, new AlterTableOptions().addRangePartition(lower, upper));
        } catch (KuduException e) {
            // Another loader may have added it meanwhile (Kudu reports a conflicting range); only that is fine.
            if (!hasRange(client.openTable(table), epoch)) {
                throw e;
            }
        }
    }

    private static boolean hasRange(KuduTable t, int epoch) throws KuduException {
        for (Partition p : rangePartitions(t)) {
            PartialRow lower = p.getDecodedRangeKeyStart(t);
            PartialRow upper = p.getDecodedRangeKeyEnd(t);
            boolean aboveLower = !lower.isSet(KuduSchemas.RGID) || lower.getInt(KuduSchemas.RGID) <= epoch;
            boolean belowUpper = !upper.isSet(KuduSchemas.RGID) || epoch < upper.getInt(KuduSchemas.RGID);
            if (aboveLower && belowUpper) {
                return true;
            }
        }
        return false;
    }

    private static List<Partition> rangePartitions(KuduTable t) throws KuduException {
        try {
            return t.getRangePartitions(RANGE_LIST_TIMEOUT_MS);
        } catch (KuduException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("could not list the range partitions of Kudu table " + t.getName(), e);
        }
    }

    private void createOrVerify(String name, Schema expected, List<String> key, CreateTableOptions options)
            throws KuduException {
        if (!client.tableExists(name)) {
            try {
                client.createTable(name, expected, options);
                return;
            } catch (KuduException e) {
                // Lost a race with another process creating it: fall through to verification.
                if (!client.tableExists(name)) {
                    throw e;
                }
            }
        }
        upgrade(name, client.openTable(name).getSchema(), expected);
        verifySchema(name, client.openTable(name).getSchema(), expected, key);
    }

    /**
     * Brings a table made by an older version up to date: adds the nullable columns it lacks (e.g. the trigger word
     * columns) and sets the block size of columns whose desired block size changed (the lookup columns; rows written
     * from then on, and compacted rows, use it).
     */
    private void upgrade(String name, Schema actual, Schema expected) throws KuduException {
        AlterTableOptions alter = new AlterTableOptions();
        if (upgradesNeeded(actual, expected, alter) == 0) {
            return;
        }
        try {
            client.alterTable(name, alter);
        } catch (KuduException e) {
            // another process may have upgraded it meanwhile: only an up-to-date table is fine
            if (upgradesNeeded(client.openTable(name).getSchema(), expected, new AlterTableOptions()) > 0) {
                throw e;
            }
        }
    }

    /** Adds to {@code alter} what {@code actual} needs to match {@code expected}; returns how many changes. */
    private static int upgradesNeeded(Schema actual, Schema expected, AlterTableOptions alter) {
        int changes = 0;
        for (ColumnSchema column : expected.getColumns()) {
            if (!actual.hasColumn(column.getName())) {
                if (column.isNullable()) {
                    alter.addColumn(column);
                    changes++;
                }
            } else if (column.getDesiredBlockSize() > 0
                    && actual.getColumn(column.getName()).getDesiredBlockSize() != column.getDesiredBlockSize()) {
                alter.changeDesiredBlockSize(column.getName(), column.getDesiredBlockSize());
                changes++;
            }
        }
        return changes;
    }

    static void verifySchema(String table, Schema actual, Schema expected, List<String> key) {
        List<String> actualKey = actual.getPrimaryKeyColumns().stream().map(ColumnSchema::getName).toList();
        if (!actualKey.equals(key)) {
            throw new IllegalStateException("Kudu table " + table + " has primary key " + actualKey + ", expected "
                    + key + "; drop it or use another table prefix");
        }
        List<String> problems = new ArrayList<>();
        for (ColumnSchema column : expected.getColumns()) {
            if (!actual.hasColumn(column.getName())) {
                problems.add("missing column " + column.getName());
            } else if (actual.getColumn(column.getName()).getType() != column.getType()) {
                problems.add("column " + column.getName() + " is " + actual.getColumn(column.getName()).getType()
                        + " instead of " + column.getType());
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("Kudu table " + table + " does not match the EventIndex schema: "
                    + String.join(", ", problems) + "; add the columns or use another table prefix");
        }
    }

    private void verifyEventPartitioning(String table) throws KuduException {
        KuduTable t = client.openTable(table);
        Schema schema = t.getSchema();
        PartitionSchema ps = t.getPartitionSchema();
        List<String> rangeColumns = ps.getRangeSchema().getColumnIds().stream()
                .map(id -> schema.getColumnByIndex(schema.getColumnIndex(id)).getName()).toList();
        List<PartitionSchema.HashBucketSchema> hashes = ps.getHashBucketSchemas();
        boolean hashOnEventNumber = hashes.size() == 1 && hashes.get(0).getColumnIds().size() == 1
                && schema.getColumnByIndex(schema.getColumnIndex(hashes.get(0).getColumnIds().get(0))).getName()
                .equals(KuduSchemas.EVENTNUMBER);
        if (!rangeColumns.equals(List.of(KuduSchemas.RGID)) || !hashOnEventNumber) {
            throw new IllegalStateException("Kudu table " + table + " is not partitioned by RANGE(rgid) and"
                    + " HASH(eventnumber); drop it or use another table prefix");
        }
    }

    /** @throws IllegalArgumentException when {@code epoch} is not a valid epoch (rgid) */
    public static void checkEpoch(int epoch) {
        if (epoch < 0 || epoch == Integer.MAX_VALUE) {
            throw new IllegalArgumentException("epoch must be within 0.." + (Integer.MAX_VALUE - 1) + ": " + epoch);
        }
    }

    private CreateTableOptions datasetsOptions() {
        return new CreateTableOptions()
                .setRangePartitionColumns(List.of())
                .setNumReplicas(config.replicas());
    }

    private CreateTableOptions eventOptions(Schema schema, int initialEpoch) {
        checkEpoch(initialEpoch);
        PartialRow lower = schema.newPartialRow();
        lower.addInt(KuduSchemas.RGID, initialEpoch);
        PartialRow upper = schema.newPartialRow();
        upper.addInt(KuduSchemas.RGID, initialEpoch + 1);
        return new CreateTableOptions()
                .setRangePartitionColumns(List.of(KuduSchemas.RGID))
                .addRangePartition(lower, upper)
                .addHashPartitions(List.of(KuduSchemas.EVENTNUMBER), config.hashBuckets())
                .setNumReplicas(config.replicas());
    }
}
