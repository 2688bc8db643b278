package org.eventindex.lookup;

import org.apache.kudu.Schema;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanToken;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.RowResult;
import org.apache.kudu.client.RowResultIterator;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.kudu.KuduTablesConfig;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;

import static java.util.Objects.requireNonNull;

/**
 * The events that two or more LOADED datasets share, exactly: a (run, event number) in each (decision 0063).
 *
 * <p>EVENTS is hash-partitioned on the event number, so an event number lives in the same hash bucket whatever the
 * dataset and epoch. Per bucket, each dataset's rows are read by one projected scan of (eventnumber, runnumber)
 * restricted to its (dspid, epoch) tablet of that bucket, in key order (a fault-tolerant, ordered scan: dspid fixed,
 * so ordered by event number), and the streams are merged: memory is a scanner batch per dataset, whatever the
 * datasets' size, and the buckets run on {@code threads} in parallel. Simulation datasets are read from MCEVENTS, data
 * from EVENTS (a dataset's rows are in one of them); events are only shared within one of the two tables. The tables
 * follow a rebuild's swap ({@link NamedTables}).
 */
public final class DatasetOverlaps {
    /** @param shared events (run, event number) in both {@code a} and {@code b} */
    public record Pair(String a, String b, long shared) {
    }

    /** An event in two or more of the datasets. */
    public record Shared(int run, long event, List<String> datasets) {
        public Shared {
            datasets = List.copyOf(datasets);
        }
    }

    /**
     * @param events    per dataset, the events it holds (first occurrences), as scanned
     * @param pairs     every pair of the datasets, in the order given
     * @param shared    the events in two or more, ordered by run then event, at most {@code limit}
     * @param truncated more shared events exist than {@code shared} lists (the counts are exact anyway)
     */
    public record Overlap(List<String> datasets, Map<String, Long> events, List<Pair> pairs, List<Shared> shared,
                   long sharedEvents, boolean truncated, int limit, double seconds) {
    }

    private static final Comparator<Shared> BY_RUN_EVENT = Comparator.comparingInt(Shared::run)
            .thenComparingLong(Shared::event);
    private static final List<String> COLUMNS = List.of(KuduSchemas.EVENTNUMBER, KuduSchemas.RUNNUMBER);

    private final KuduClient client;
    private final KuduTablesConfig config;
    private final NamedTables tables;
    private final ExecutorService pool;

    /**
     * @param pool     runs the buckets' merges (the lookup's pool); not closed here
     * @param nanoTime the clock of the checks for a swap ({@link NamedTables})
     */
    DatasetOverlaps(KuduClient client, KuduTablesConfig config, ExecutorService pool, LongSupplier nanoTime)
            throws KuduException {
        this.client = requireNonNull(client, "client is null");
        this.config = requireNonNull(config, "config is null");
        this.tables = new NamedTables(client, config.datasetsTable(), List.of(config.eventsTable(),
                config.mcEventsTable()), "dataset overlaps", nanoTime);
        this.pool = requireNonNull(pool, "pool is null");
    }

    /**
     * The overlap of {@code datasets} (LOADED DATASETS rows with their ids, at least two).
     *
     * @param limit at most this many shared events listed
     * @throws IOException naming the dataset or tablet whose scan failed
     */
    Overlap overlap(List<DatasetRows.Row> datasets, int limit) throws IOException {
        if (datasets.size() < 2) {
            throw new IllegalArgumentException("an overlap needs at least two datasets, got " + datasets.size());
        }
        long start = System.nanoTime();
        int k = datasets.size();
        // bucket -> the scan tokens of every dataset in it (one per dataset: its dspid and epoch are fixed)
        Map<Integer, List<Stream>> byBucket = new TreeMap<>();
        for (int i = 0; i < k; i++) {
            DatasetRows.Row d = datasets.get(i);
            LoadedDataset l = d.loaded();
            if (l == null) {
                throw new IllegalArgumentException("dataset " + d.name() + " has no dspid/epoch in DATASETS");
            }
            KuduTable table = tables.table(l.simulation() ? config.mcEventsTable() : config.eventsTable());
            Schema s = table.getSchema();
            List<KuduScanToken> tokens = client.newScanTokenBuilder(table).setProjectedColumnNames(COLUMNS)
                    .setFaultTolerant(true)
                    .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.DSPID),
                            KuduPredicate.ComparisonOp.EQUAL, l.dspid()))
                    .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.RGID),
                            KuduPredicate.ComparisonOp.EQUAL, l.rgid()))
                    .build();
            for (KuduScanToken t : tokens) {
                List<Integer> buckets = t.getTablet().getPartition().getHashBuckets();
                int bucket = (l.simulation() ? 1 << 20 : 0) + (buckets.isEmpty() ? 0 : buckets.get(0));
                byBucket.computeIfAbsent(bucket, b -> new ArrayList<>()).add(new Stream(i, d.name(), t));
            }
        }
        List<Future<Part>> parts = new ArrayList<>();
        for (List<Stream> streams : byBucket.values()) {
            parts.add(pool.submit(() -> merge(streams, k, limit)));
        }
        long[][] pairs = new long[k][k];
        long[] counts = new long[k];
        long sharedEvents = 0;
        List<Shared> shared = new ArrayList<>();
        try {
            for (Future<Part> f : parts) {
                Part p = f.get();
                for (int a = 0; a < k; a++) {
                    counts[a] += p.counts[a];
                    for (int b = 0; b < k; b++) {
                        pairs[a][b] += p.pairs[a][b];
                    }
                }
                sharedEvents += p.sharedEvents;
                shared.addAll(p.shared);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            parts.forEach(f -> f.cancel(true));
            throw new IOException("interrupted while scanning the datasets' events", e);
        } catch (ExecutionException e) {
            parts.forEach(f -> f.cancel(true));
            Throwable c = e.getCause();
            throw c instanceof IOException io ? io : new IOException(String.valueOf(c.getMessage()), c);
        }
        List<String> names = datasets.stream().map(DatasetRows.Row::name).toList();
        shared.sort(BY_RUN_EVENT);
        boolean truncated = sharedEvents > limit;
        List<Shared> listed = shared.size() > limit ? List.copyOf(shared.subList(0, limit)) : shared;
        Map<String, Long> perDataset = new LinkedHashMap<>();
        List<Pair> pairList = new ArrayList<>();
        for (int a = 0; a < k; a++) {
            perDataset.put(names.get(a), counts[a]);
            for (int b = a + 1; b < k; b++) {
                pairList.add(new Pair(names.get(a), names.get(b), pairs[a][b]));
            }
        }
        return new Overlap(names, perDataset, pairList, listed, sharedEvents, truncated, limit,
                (System.nanoTime() - start) / 1e9);
    }

    /** One bucket's share of the answer. */
    private static final class Part {
        final long[][] pairs;
        final long[] counts;
        long sharedEvents;
        final List<Shared> shared = new ArrayList<>();

        Part(int k) {
            pairs = new long[k][k];
            counts = new long[k];
        }
    }

    /** One dataset's rows in one tablet, in event-number order. */
    private final class Stream {
        final int dataset;
        final String name;
        final KuduScanToken token;
        KuduScanner scanner;
        RowResultIterator batch;
        long event;
        int run;
        boolean done;
        private boolean started;

        Stream(int dataset, String name, KuduScanToken token) {
            this.dataset = dataset;
            this.name = name;
            this.token = token;
        }

        /** Moves to the next row; false at the end. */
        boolean next() throws IOException {
            try {
                if (scanner == null) {
                    scanner = token.intoScanner(client);
                }
                while (batch == null || !batch.hasNext()) {
                    if (!scanner.hasMoreRows()) {
                        done = true;
                        scanner.close();
                        return false;
                    }
                    batch = scanner.nextRows();
                }
            } catch (IOException e) {
                throw new IOException("scanning the events of dataset " + name + " (tablet "
                        + token.getTablet().getTabletId() + ") failed: " + e.getMessage(), e);
            }
            RowResult r = batch.next();
            long e = r.getLong(0);
            if (started && e <= event) {
                throw new IOException("the events of dataset " + name + " came out of key order in tablet "
                        + token.getTablet().getTabletId() + " (" + e + " after " + event + ")");
            }
            started = true;
            event = e;
            run = r.isNull(1) ? Integer.MIN_VALUE : r.getInt(1);
            return true;
        }

        void close() {
            if (scanner != null && !done) {
                try {
                    scanner.close();
                } catch (KuduException ignored) {
                    // the merge failed already; that failure is the one reported
                }
            }
        }
    }

    private static Part merge(List<Stream> streams, int k, int limit) throws IOException {
        Part part = new Part(k);
        java.util.PriorityQueue<Stream> heap = new java.util.PriorityQueue<>(
                Comparator.comparingLong((Stream s) -> s.event));
        try {
            for (Stream s : streams) {
                if (s.next()) {
                    heap.add(s);
                }
            }
            List<Stream> same = new ArrayList<>(k);
            while (!heap.isEmpty()) {
                same.clear();
                long event = heap.peek().event;
                while (!heap.isEmpty() && heap.peek().event == event) {
                    same.add(heap.poll());
                }
                for (Stream s : same) {
                    part.counts[s.dataset]++;
                }
                if (same.size() > 1) {
                    count(part, same, event, limit);
                }
                for (Stream s : same) {
                    if (s.next()) {
                        heap.add(s);
                    }
                }
            }
            return part;
        } finally {
            streams.forEach(Stream::close);
        }
    }

    /** The datasets holding one event number, grouped by run: each group of two or more shares an event. */
    private static void count(Part part, List<Stream> same, long event, int limit) {
        same.sort(Comparator.comparingInt((Stream s) -> s.run).thenComparingInt(s -> s.dataset));
        int i = 0;
        while (i < same.size()) {
            int j = i;
            while (j < same.size() && same.get(j).run == same.get(i).run) {
                j++;
            }
            if (j - i > 1) {
                part.sharedEvents++;
                for (int a = i; a < j; a++) {
                    for (int b = a + 1; b < j; b++) {
                        int x = Math.min(same.get(a).dataset, same.get(b).dataset);
                        int y = Math.max(same.get(a).dataset, same.get(b).dataset);
                        part.pairs[x][y]++;
                    }
                }
                List<String> names = new ArrayList<>();
                for (int a = i; a < j; a++) {
                    names.add(same.get(a).name);
                }
                part.shared.add(new Shared(same.get(i).run, event, names));
                if (part.shared.size() >= 2 * Math.max(limit, 1)) {
                    // keep the first `limit` by (run, event), in memory bounded by 2 * limit
                    part.shared.sort(BY_RUN_EVENT);
                    part.shared.subList(limit, part.shared.size()).clear();
                }
            }
            i = j;
        }
    }
}
