package org.eventindex.kudu;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.apache.kudu.client.KuduPartitioner;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.NonCoveredRangeException;
import org.apache.kudu.client.Operation;
import org.apache.kudu.client.PartialRow;
import org.eventindex.EventIndexFailure;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
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
 * Rows are routed by tablet ({@link KuduPartitioner}), each tablet to one session (decision 0072). A decided row is
 * held per tablet as a {@link PendingRow}, a few hundred bytes, until its tablet has
 * {@link LoaderSettings#tabletBatchRows} of them; only then are they built as Kudu rows ({@link EventInserts}) and
 * handed to the tablet's session as one batch (decision 0078). So the rows waiting for their batch cost the heap far
 * less than the same rows as Kudu {@code Insert}s (~6.5 KB each, as wide as the schema), and Inserts live
 * only from their batch's hand-over to the tablet server's answer: at most {@link #TABLETS_PER_FLUSH} tablets' batches
 * per session buffer, two buffers and {@value #QUEUED} queued batches per session. The pending rows of all tablets
 * together stay within {@link LoaderSettings#bufferBudgetRows()}.
 * <p>
 * A failure in any thread (Kudu refusing a row, a flush failing) is kept and thrown to the loading thread at its next
 * {@link #add}, {@link #check()} or {@link #finish()}; the load then fails as a whole and its dataset stays LOADING.
 * Not thread-safe on the loading side: one thread adds, then calls {@link #finish()}; {@link #close()} always.
 */
final class ParallelSessions implements AutoCloseable {
    /** Rows between two reads of a single session's write metrics (the held rows' gauge). */
    static final int BATCH = 256;
    /** Tablets' batches a session's buffer takes before its background flush: write RPCs in flight at once. */
    static final int TABLETS_PER_FLUSH = 4;
    /** Batches queued per session's thread. */
    static final int QUEUED = 2;
    private static final List<Operation> END = List.of();

    /** A failure injected into one writing thread by tests (package-private seam; null in production). */
    @FunctionalInterface
    interface Fault {
        /** Called by writing thread {@code thread} before it applies a batch; throws to fail that thread. */
        void beforeBatch(int thread, long rowsAppliedByThread) throws IOException;
    }

    /**
     * The tablets of one table, the session each is given to when its first row comes, and the rows each holds until
     * its batch is full.
     */
    private static final class Route {
        final KuduTable table;
        final KuduPartitioner partitioner;
        final int[] owner;
        final List<List<PendingRow>> pending;
        /** A row of the table's schema that only finds tablets: never applied, so refilled for every row. */
        final PartialRow key;

        Route(KuduTable table) throws KuduException {
            this.table = table;
            this.partitioner = new KuduPartitioner.KuduPartitionerBuilder(table).build();
            this.owner = new int[partitioner.numPartitions()];
            Arrays.fill(owner, -1);
            this.pending = new ArrayList<>(Collections.nCopies(owner.length, null));
            this.key = table.getSchema().newPartialRow();
        }

        /** Tablets a load writes to: one range (its epoch) of the HASH(eventnumber) buckets. */
        int loadTablets() {
            int tablets = 1;
            for (var hash : table.getPartitionSchema().getHashBucketSchemas()) {
                tablets *= hash.getNumBuckets();
            }
            return tablets;
        }
    }

    private final String tableNames;
    private final String dataset;
    private final int progressEvery;
    private final Fault fault;
    private final EventInserts inserts;
    private final Route[] routes;
    private final int tabletBatch;
    private final List<BlockingQueue<List<Operation>>> queues = new ArrayList<>();
    private final Thread[] threads;
    private final AtomicLong applied = new AtomicLong();
    /** Rows Kudu took, per session, as each thread last read its session's write metrics. */
    private final AtomicLongArray written;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** Rows added, pending ones included; written by the loading thread only. */
    private volatile long held;
    private int nextOwner;
    private boolean finished;

    /**
     * Starts {@code settings.loadThreads()} threads, each with its own session configured as the single-session load
     * but with {@link #TABLETS_PER_FLUSH} tablets' batches buffered (at most {@link LoaderSettings#mutationBufferOps}).
     *
     * @param inserts    builds the rows, for EVENTS or MCEVENTS and DUPLICATEDEVENTS
     * @param tableNames names the tables in errors
     */
    ParallelSessions(KuduClient client, LoaderSettings settings, EventInserts inserts, String tableNames,
                     String dataset, Fault fault) throws KuduException {
        requireNonNull(client, "client is null");
        requireNonNull(settings, "settings is null");
        this.inserts = requireNonNull(inserts, "inserts is null");
        this.tableNames = requireNonNull(tableNames, "tableNames is null");
        this.dataset = requireNonNull(dataset, "dataset is null");
        this.progressEvery = settings.progressEvery();
        this.fault = fault;
        this.routes = new Route[]{new Route(inserts.events()), new Route(inserts.dups())};
        this.tabletBatch = settings.tabletBatchRows(routes[0].loadTablets() + routes[1].loadTablets());
        int n = settings.loadThreads();
        int bufferRows = Math.min(settings.mutationBufferOps(), TABLETS_PER_FLUSH * tabletBatch);
        this.written = new AtomicLongArray(n);
        this.threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            int id = i;
            queues.add(new ArrayBlockingQueue<>(QUEUED));
            threads[i] = new Thread(() -> run(id, client, settings, bufferRows), "kudu-load-" + i + "-" + dataset);
            threads[i].setDaemon(true);
        }
        for (Thread t : threads) {
            t.start();
        }
    }

    /**
     * Holds one decided row until its tablet's batch is full, then builds the batch's Kudu rows and queues them for
     * the tablet's session; throws the first failure of any writing thread.
     *
     * @throws DatasetLoadException when a row falls in no range of its table, or one of a batch's events is malformed
     */
    void add(PendingRow row) throws IOException {
        Route r = routes[row.duplicate() ? 1 : 0];
        inserts.setPartitionKey(row, r.key);
        int partition;
        try {
            partition = r.partitioner.partitionRow(r.key);
        } catch (NonCoveredRangeException e) {
            throw new DatasetLoadException(EventIndexFailure.Kind.RETRIABLE, dataset, "a row of " + dataset
                    + " (event number " + Long.toUnsignedString(row.event.eventNumber) + ") falls in no range of Kudu"
                    + " table " + r.table.getName() + ": " + e.getMessage());
        }
        List<PendingRow> rows = r.pending.get(partition);
        if (rows == null) {
            rows = new ArrayList<>(tabletBatch);
            r.pending.set(partition, rows);
        }
        rows.add(row);
        held++;
        if (rows.size() == tabletBatch) {
            r.pending.set(partition, null);
            hand(owner(r, partition), build(rows));
        }
    }

    private int owner(Route r, int partition) {
        int owner = r.owner[partition];
        if (owner < 0) {
            // tablets are given out in the order their first batches come, so the sessions share the tablets of the
            // load's epoch evenly whatever the table's other ranges
            owner = nextOwner++ % threads.length;
            r.owner[partition] = owner;
        }
        return owner;
    }

    private List<Operation> build(List<PendingRow> rows) throws DatasetLoadException {
        List<Operation> ops = new ArrayList<>(rows.size());
        for (PendingRow p : rows) {
            ops.add(inserts.build(p));
        }
        return ops;
    }

    /**
     * Rows decided that Kudu has not yet taken (as each thread last read its session's write metrics, after each
     * batch): what the load holds, waiting for their tablet's batch, in hand-over and in its sessions' buffers, for a
     * gauge.
     */
    long bufferedRows() {
        long taken = 0;
        for (int i = 0; i < written.length(); i++) {
            taken += written.get(i);
        }
        return Math.max(0, held - taken);
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
        for (Route r : routes) {
            for (int partition = 0; partition < r.pending.size(); partition++) {
                List<PendingRow> rows = r.pending.get(partition);
                if (rows != null) {
                    r.pending.set(partition, null);
                    hand(owner(r, partition), build(rows));
                }
            }
        }
        for (int t = 0; t < threads.length; t++) {
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
