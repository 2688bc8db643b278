package org.eventindex.kudu;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduPartitioner;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.NonCoveredRangeException;
import org.apache.kudu.client.Operation;
import org.eventindex.EventIndexFailure;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.Objects.requireNonNull;

/**
 * Applies the rows of one load through several Kudu sessions, each on its own thread ({@code
 * consumer.kudu.load.threads}, {@code load --threads}). The loading thread still reads the file in order and decides
 * every row (first occurrence or duplicate, its {@code insertion_time}, trigger pairs, overlap): only the finished
 * rows are handed over. The rows written are therefore exactly those of a single-session load, whatever the number of
 * threads or the batch boundaries (the rows' keys are distinct, so the order in which sessions write them does not
 * matter).
 * <p>
 * Rows are routed by tablet ({@link KuduPartitioner}): each session writes the rows of its own share of the tablets,
 * in batches of {@link #BATCH} handed to its thread. A session that covers a quarter of the tablets makes the same
 * write batch per tablet with a quarter of the rows buffered, so the load's sessions together buffer at most
 * {@link LoaderSettings#bufferBudgetRows()} rows, for any number of sessions ({@link LoaderSettings#sessionBufferRows}).
 * <p>
 * A failure in any thread (Kudu refusing a row, a flush failing) is kept and thrown to the loading thread at its next
 * {@link #apply}, {@link #check()} or {@link #finish()}; the load then fails as a whole and its dataset stays LOADING.
 * Not thread-safe on the loading side: one thread applies, then calls {@link #finish()}; {@link #close()} always.
 */
final class ParallelSessions implements AutoCloseable {
    /** Rows per hand-over to a session's thread: small, as up to 4 batches per session are in hand-over. */
    static final int BATCH = 256;
    private static final List<Operation> END = List.of();

    /** A failure injected into one writing thread by tests (package-private seam; null in production). */
    @FunctionalInterface
    interface Fault {
        /** Called by writing thread {@code thread} before it applies a batch; throws to fail that thread. */
        void beforeBatch(int thread, long rowsAppliedByThread) throws IOException;
    }

    /** The tablets of one table and the session each is given to, when its first row comes. */
    private static final class Route {
        final KuduTable table;
        final KuduPartitioner partitioner;
        final int[] owner;

        Route(KuduTable table) throws KuduException {
            this.table = table;
            this.partitioner = new KuduPartitioner.KuduPartitionerBuilder(table).build();
            this.owner = new int[partitioner.numPartitions()];
            Arrays.fill(owner, -1);
        }
    }

    private final String tableNames;
    private final String dataset;
    private final int progressEvery;
    private final Fault fault;
    private final Route[] routes;
    private final List<BlockingQueue<List<Operation>>> queues = new ArrayList<>();
    private final Thread[] threads;
    private final AtomicLong applied = new AtomicLong();
    /** Rows Kudu took, per session, as each thread last read its session's write metrics. */
    private final AtomicLongArray written;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<List<Operation>> batches = new ArrayList<>();
    private volatile long handed;
    private int nextOwner;
    private boolean finished;

    /**
     * Starts {@code settings.loadThreads()} threads, each with its own session configured as the single-session load
     * but with {@link LoaderSettings#sessionBufferRows} rows buffered.
     *
     * @param tables     the tables the rows go to (EVENTS or MCEVENTS, and DUPLICATEDEVENTS)
     * @param tableNames names the tables in errors
     */
    ParallelSessions(KuduClient client, LoaderSettings settings, List<KuduTable> tables, String tableNames,
                     String dataset, Fault fault) throws KuduException {
        requireNonNull(client, "client is null");
        requireNonNull(settings, "settings is null");
        this.tableNames = requireNonNull(tableNames, "tableNames is null");
        this.dataset = requireNonNull(dataset, "dataset is null");
        this.progressEvery = settings.progressEvery();
        this.fault = fault;
        this.routes = new Route[tables.size()];
        for (int i = 0; i < routes.length; i++) {
            routes[i] = new Route(tables.get(i));
        }
        int n = settings.loadThreads();
        int bufferRows = settings.sessionBufferRows(n);
        this.written = new AtomicLongArray(n);
        this.threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            int id = i;
            queues.add(new ArrayBlockingQueue<>(2));
            batches.add(new ArrayList<>(BATCH));
            threads[i] = new Thread(() -> run(id, client, settings, bufferRows), "kudu-load-" + i + "-" + dataset);
            threads[i].setDaemon(true);
        }
        for (Thread t : threads) {
            t.start();
        }
    }

    /** Queues one row for the session of its tablet; throws the first failure of any writing thread. */
    void apply(Operation op) throws IOException {
        int t = owner(op);
        List<Operation> batch = batches.get(t);
        batch.add(op);
        if (batch.size() == BATCH) {
            hand(t, batch);
            batches.set(t, new ArrayList<>(BATCH));
        }
    }

    private int owner(Operation op) throws IOException {
        for (Route r : routes) {
            if (r.table == op.getTable()) {
                int partition;
                try {
                    partition = r.partitioner.partitionRow(op.getRow());
                } catch (NonCoveredRangeException e) {
                    throw new DatasetLoadException(EventIndexFailure.Kind.RETRIABLE, dataset, "a row of " + dataset
                            + " (" + op.getRow().stringifyRowKey() + ") falls in no range of Kudu table "
                            + r.table.getName() + ": " + e.getMessage());
                }
                int owner = r.owner[partition];
                if (owner < 0) {
                    // tablets are given out in the order their first rows come, so the sessions share the tablets
                    // of the load's epoch evenly whatever the table's other ranges
                    owner = nextOwner++ % threads.length;
                    r.owner[partition] = owner;
                }
                return owner;
            }
        }
        throw new IllegalArgumentException("a row for table " + op.getTable().getName() + ", not one of "
                + tableNames);
    }

    /**
     * Rows handed to the sessions that Kudu has not yet taken (as each thread last read its session's write
     * metrics, after each batch): what the load holds in hand-over and in its sessions' buffers, for a gauge.
     */
    long bufferedRows() {
        long taken = 0;
        for (int i = 0; i < written.length(); i++) {
            taken += written.get(i);
        }
        return Math.max(0, handed - taken);
    }

    /** Rows applied to the sessions so far, all threads together. */
    long applied() {
        return applied.get();
    }

    /** Throws the first failure of any writing thread. */
    void check() throws IOException {
        Throwable t = failure.get();
        if (t instanceof DatasetLoadException d) {
            throw d;
        }
        if (t instanceof IOException e) {
            throw new IOException("a Kudu load thread of " + dataset + " failed: " + e.getMessage(), e);
        }
        if (t != null) {
            throw new IOException("a Kudu load thread of " + dataset + " failed: " + t, t);
        }
    }

    /** Hands over the last rows, waits until every thread flushed its session, and throws any failure. */
    void finish() throws IOException {
        for (int t = 0; t < threads.length; t++) {
            List<Operation> batch = batches.get(t);
            if (!batch.isEmpty()) {
                hand(t, batch);
                batches.set(t, List.of());
            }
            hand(t, END);
        }
        finished = true;
        join();
        check();
    }

    private void hand(int thread, List<Operation> rows) throws IOException {
        try {
            while (!queues.get(thread).offer(rows, 100, TimeUnit.MILLISECONDS)) {
                check();
                if (!anyAlive()) {
                    throw new IOException("every Kudu load thread of " + dataset + " stopped");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while loading " + dataset);
        }
        handed += rows.size();
        check();
    }

    private boolean anyAlive() {
        for (Thread t : threads) {
            if (t.isAlive()) {
                return true;
            }
        }
        return false;
    }

    private void join() throws InterruptedIOException {
        try {
            for (Thread t : threads) {
                t.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while loading " + dataset);
        }
    }

    private void run(int id, KuduClient client, LoaderSettings settings, int bufferRows) {
        KuduSession session = EventWriter.newSession(client, settings, bufferRows);
        BlockingQueue<List<Operation>> queue = queues.get(id);
        try {
            long mine = 0;
            long sinceCheck = 0;
            for (List<Operation> rows = queue.take(); rows != END; rows = queue.take()) {
                if (failure.get() != null) {
                    return;
                }
                if (fault != null) {
                    fault.beforeBatch(id, mine);
                }
                for (Operation op : rows) {
                    session.apply(op);
                }
                mine += rows.size();
                written.set(id, EventWriter.rowsWritten(session));
                sinceCheck += rows.size();
                applied.addAndGet(rows.size());
                if (sinceCheck >= progressEvery) {
                    sinceCheck = 0;
                    EventRows.failOnErrors(session, tableNames, "insert events", dataset);
                }
            }
            session.flush();
            EventRows.failOnErrors(session, tableNames, "insert events", dataset);
        } catch (InterruptedException e) {
            failure.compareAndSet(null, new InterruptedIOException("Kudu load thread " + id + " interrupted"));
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        } finally {
            try {
                session.close();
            } catch (Exception e) {
                failure.compareAndSet(null, e);
            }
        }
    }

    /** Stops the threads if {@link #finish()} was not reached (a failed load) and waits for them. */
    @Override
    public void close() throws IOException {
        if (finished) {
            return;
        }
        failure.compareAndSet(null, new IOException("the load of " + dataset + " was abandoned"));
        queues.forEach(BlockingQueue::clear);
        for (Thread t : threads) {
            t.interrupt();
        }
        join();
    }
}
