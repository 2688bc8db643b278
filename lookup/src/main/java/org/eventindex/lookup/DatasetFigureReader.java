package org.eventindex.lookup;

import org.apache.kudu.Schema;
import org.apache.kudu.client.AsyncKuduScanner;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.RowResult;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.kudu.LoadState;
import org.eventindex.names.DatasetName;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongSupplier;

import static java.util.Objects.requireNonNull;

/**
 * The Kudu reads behind a dataset's figures on the physicists' page: its DATASETS row (by the full key), its
 * TRIGGERCOUNT rows (one tablet, {@code dataset_id = dspid}), its events per run and lumiblock (a scan of the
 * dataset's epoch in EVENTS or MCEVENTS projecting two columns) and its DUPLICATEDEVENTS rows next to the first
 * occurrence's file. Thread-safe. The tables follow a rebuild's swap ({@link NamedTables}).
 */
final class DatasetFigureReader {
    /** A DATASETS row; {@code dspid}/{@code rgid} null when the row has none yet. */
    record DatasetRow(String name, String state, Integer dspid, Integer rgid, Long events, Long duplicates,
                      Long duplicatedEvents) {
        boolean loaded() {
            return LoadState.LOADED.name().equals(state) && dspid != null && rgid != null;
        }

        boolean simulation() {
            return !name.startsWith("data");
        }
    }

    /** One TRIGGERCOUNT row: events of the dataset in which both fired ({@code trig1 == trig2}: the one fired). */
    record TriggerPair(int trig1, int trig2, long count) {
    }

    /** One DUPLICATEDEVENTS row and the file of the event's first occurrence (EVENTS/MCEVENTS; null if absent). */
    record Duplicate(Integer run, long event, Instant insertedAt, String file, String firstFile) {
    }

    /** The first rows of a dataset's duplicates and how many DUPLICATEDEVENTS rows it has in all. */
    record Duplicates(List<Duplicate> rows, int total) {
    }

    private static final List<String> DATASET_COLUMNS = List.of(KuduSchemas.STATE, KuduSchemas.DSPID,
            KuduSchemas.RGID, KuduSchemas.COUNT_EVENTS, KuduSchemas.NUM_DUPLICATES, KuduSchemas.UNIQ_DUPL_EVENTS);

    private final KuduClient client;
    private final KuduTablesConfig config;
    private final NamedTables tables;

    /**
     * @param nanoTime the clock of the checks for a swap
     * @throws KuduException when a table is missing (names the table) or Kudu is unreachable
     */
    DatasetFigureReader(KuduClient client, KuduTablesConfig config, LongSupplier nanoTime) throws KuduException {
        this.client = requireNonNull(client, "client is null");
        this.config = requireNonNull(config, "config is null");
        this.tables = new NamedTables(client, config.datasetsTable(), List.of(config.eventsTable(),
                config.mcEventsTable(), config.duplicatedEventsTable(), config.triggerCountTable()),
                "dataset figures", nanoTime);
    }

    /** EVENTS, or MCEVENTS for a simulation dataset, then the other one: the loader decides by the file's content. */
    private List<KuduTable> eventTables(DatasetRow d) {
        KuduTable events = tables.table(config.eventsTable());
        KuduTable mcEvents = tables.table(config.mcEventsTable());
        return d.simulation() ? List.of(mcEvents, events) : List.of(events, mcEvents);
    }

    /** The DATASETS row of {@code name} (any state); empty when there is none. */
    Optional<DatasetRow> dataset(DatasetName name) throws KuduException {
        KuduTable datasets = tables.table(config.datasetsTable());
        Schema s = datasets.getSchema();
        KuduScanner scanner = client.newScannerBuilder(datasets).setProjectedColumnNames(DATASET_COLUMNS)
                .addPredicate(eq(s, KuduSchemas.RUNNUMBER, name.runNumber()))
                .addPredicate(eq(s, KuduSchemas.PROJECT, name.project()))
                .addPredicate(eq(s, KuduSchemas.STREAMNAME, name.stream()))
                .addPredicate(eq(s, KuduSchemas.PRODSTEP, name.prodStep()))
                .addPredicate(eq(s, KuduSchemas.DATATYPE, name.dataType()))
                .addPredicate(eq(s, KuduSchemas.VERSION, name.version() + name.suffix()))
                .build();
        try {
            while (scanner.hasMoreRows()) {
                for (RowResult r : scanner.nextRows()) {
                    return Optional.of(new DatasetRow(name.toString(),
                            r.isNull(KuduSchemas.STATE) ? "" : r.getString(KuduSchemas.STATE),
                            integer(r, KuduSchemas.DSPID), integer(r, KuduSchemas.RGID),
                            number(r, KuduSchemas.COUNT_EVENTS), number(r, KuduSchemas.NUM_DUPLICATES),
                            number(r, KuduSchemas.UNIQ_DUPL_EVENTS)));
                }
            }
            return Optional.empty();
        } finally {
            scanner.close();
        }
    }

    /** Every TRIGGERCOUNT row of the dataset, ordered by (trig1, trig2). */
    List<TriggerPair> triggerPairs(DatasetRow d) throws KuduException {
        KuduTable triggerCount = tables.table(config.triggerCountTable());
        Schema s = triggerCount.getSchema();
        KuduScanner scanner = client.newScannerBuilder(triggerCount)
                .setProjectedColumnNames(List.of(KuduSchemas.TRIG1, KuduSchemas.TRIG2, KuduSchemas.COUNT))
                .readMode(AsyncKuduScanner.ReadMode.READ_LATEST)
                .addPredicate(eq(s, KuduSchemas.DATASET_ID, d.dspid()))
                .build();
        List<TriggerPair> out = new ArrayList<>();
        try {
            while (scanner.hasMoreRows()) {
                for (RowResult r : scanner.nextRows()) {
                    out.add(new TriggerPair(r.getInt(0), r.getInt(1), r.getLong(2)));
                }
            }
        } finally {
            scanner.close();
        }
        out.sort((a, b) -> a.trig1() != b.trig1() ? Integer.compare(a.trig1(), b.trig1())
                : Integer.compare(a.trig2(), b.trig2()));
        return out;
    }

    /**
     * Events (first occurrences) per run, or per (run, lumiblock) when {@code byLumiblock}: keys are
     * {@code run << 32 | lumiblock} (lumiblock 0 when not by lumiblock; a null lumiblock counts as 0), ascending.
     * Reads the table the project suggests, and the other one when it has no row of the dataset (the loader decides
     * by the file's content, as for a lookup).
     */
    TreeMap<Long, Long> counts(DatasetRow d, boolean byLumiblock) throws KuduException {
        List<KuduTable> order = eventTables(d);
        TreeMap<Long, Long> out = counts(order.get(0), d, byLumiblock);
        return out.isEmpty() ? counts(order.get(1), d, byLumiblock) : out;
    }

    private TreeMap<Long, Long> counts(KuduTable table, DatasetRow d, boolean byLumiblock) throws KuduException {
        Schema s = table.getSchema();
        KuduScanner scanner = client.newScannerBuilder(table)
                .setProjectedColumnNames(byLumiblock ? List.of(KuduSchemas.RUNNUMBER, KuduSchemas.LUMIBLOCKNR)
                        : List.of(KuduSchemas.RUNNUMBER))
                .readMode(AsyncKuduScanner.ReadMode.READ_LATEST)
                .addPredicate(eq(s, KuduSchemas.DSPID, d.dspid()))
                .addPredicate(eq(s, KuduSchemas.RGID, d.rgid()))
                .build();
        // counted in a small hash map first (a dataset has few runs and lumiblocks), sorted once at the end
        Map<Long, long[]> counts = new HashMap<>();
        try {
            while (scanner.hasMoreRows()) {
                for (RowResult r : scanner.nextRows()) {
                    long run = r.isNull(0) ? 0 : Integer.toUnsignedLong(r.getInt(0));
                    long lb = !byLumiblock || r.isNull(1) ? 0 : Integer.toUnsignedLong(r.getInt(1));
                    counts.computeIfAbsent(run << 32 | lb, k -> new long[1])[0]++;
                }
            }
        } finally {
            scanner.close();
        }
        TreeMap<Long, Long> out = new TreeMap<>();
        counts.forEach((k, v) -> out.put(k, v[0]));
        return out;
    }

    /**
     * The first {@code limit} DUPLICATEDEVENTS rows of the dataset, in key order (event number, then insertion
     * time), each with the file of the event's first occurrence (one IN-list scan of the event table for them all).
     */
    Duplicates duplicates(DatasetRow d, int limit) throws KuduException {
        KuduTable duplicatedEvents = tables.table(config.duplicatedEventsTable());
        Schema s = duplicatedEvents.getSchema();
        KuduScanner scanner = client.newScannerBuilder(duplicatedEvents)
                .setProjectedColumnNames(List.of(KuduSchemas.RUNNUMBER, KuduSchemas.EVENTNUMBER,
                        KuduSchemas.INSERTION_TIME, KuduSchemas.DB))
                .readMode(AsyncKuduScanner.ReadMode.READ_LATEST)
                .addPredicate(eq(s, KuduSchemas.DSPID, d.dspid()))
                .addPredicate(eq(s, KuduSchemas.RGID, d.rgid()))
                .build();
        List<Duplicate> rows = new ArrayList<>();
        try {
            // Kudu returns tablets in any order: read all, keep the lowest keys (a dataset's duplicates are few)
            while (scanner.hasMoreRows()) {
                for (RowResult r : scanner.nextRows()) {
                    rows.add(new Duplicate(integer(r, KuduSchemas.RUNNUMBER), r.getLong(KuduSchemas.EVENTNUMBER),
                            r.isNull(KuduSchemas.INSERTION_TIME) ? null
                                    : r.getTimestamp(KuduSchemas.INSERTION_TIME).toInstant(),
                            r.isNull(KuduSchemas.DB) ? null : r.getString(KuduSchemas.DB), null));
                }
            }
        } finally {
            scanner.close();
        }
        rows.sort((a, b) -> a.event() != b.event() ? Long.compareUnsigned(a.event(), b.event())
                : a.insertedAt() == null || b.insertedAt() == null ? 0 : a.insertedAt().compareTo(b.insertedAt()));
        List<Duplicate> kept = rows.subList(0, Math.min(limit, rows.size()));
        Map<Long, String> first = firstFiles(d, kept.stream().map(Duplicate::event).distinct().toList());
        return new Duplicates(kept.stream().map(x -> new Duplicate(x.run(), x.event(), x.insertedAt(), x.file(),
                first.get(x.event()))).toList(), rows.size());
    }

    /** Event number -> the {@code db} (file GUID) of its row in the dataset's event table. */
    private Map<Long, String> firstFiles(DatasetRow d, List<Long> eventNumbers) throws KuduException {
        Map<Long, String> out = new HashMap<>();
        if (eventNumbers.isEmpty()) {
            return out;
        }
        for (KuduTable table : eventTables(d)) {
            Schema s = table.getSchema();
            KuduScanner scanner = client.newScannerBuilder(table)
                    .setProjectedColumnNames(List.of(KuduSchemas.EVENTNUMBER, KuduSchemas.DB))
                    .readMode(AsyncKuduScanner.ReadMode.READ_LATEST)
                    .addPredicate(eq(s, KuduSchemas.DSPID, d.dspid()))
                    .addPredicate(eq(s, KuduSchemas.RGID, d.rgid()))
                    .addPredicate(KuduPredicate.newInListPredicate(s.getColumn(KuduSchemas.EVENTNUMBER),
                            eventNumbers))
                    .build();
            try {
                while (scanner.hasMoreRows()) {
                    for (RowResult r : scanner.nextRows()) {
                        out.put(r.getLong(0), r.isNull(1) ? null : r.getString(1));
                    }
                }
            } finally {
                scanner.close();
            }
            if (!out.isEmpty()) {
                break;
            }
        }
        return out;
    }

    private static KuduPredicate eq(Schema s, String column, int value) {
        return KuduPredicate.newComparisonPredicate(s.getColumn(column), KuduPredicate.ComparisonOp.EQUAL, value);
    }

    private static KuduPredicate eq(Schema s, String column, String value) {
        return KuduPredicate.newComparisonPredicate(s.getColumn(column), KuduPredicate.ComparisonOp.EQUAL, value);
    }

    private static Integer integer(RowResult r, String column) {
        return r.isNull(column) ? null : r.getInt(column);
    }

    private static Long number(RowResult r, String column) {
        return r.isNull(column) ? null : r.getLong(column);
    }
}
