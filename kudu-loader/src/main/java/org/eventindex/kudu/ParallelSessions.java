package org.eventindex.kudu;

import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.Operation;
import org.apache.kudu.client.SessionConfiguration;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.Objects.requireNonNull;

/**
 * Applies the rows of one load through several Kudu sessions, each on its own thread ({@code
 * consumer.kudu.load.threads}, {@code load --threads}). The loading thread still reads the file in order and decides
 * every row (first occurrence or duplicate, its {@code insertion_time}, trigger pairs, overlap): only the finished
 * rows are handed over, in batches of {@link #BATCH} taken by whichever thread is free. The rows written are
 * therefore exactly those of a single-session load, whatever the number of threads or the batch boundaries (the rows'
 * keys are distinct, so the order in which sessions write them does not matter).
 * <p>
 * A failure in any thread (Kudu refusing a row, a flush failing) is kept and thrown to the loading thread at its next
 * {@link #apply}, {@link #check()} or {@link #finish()}; the load then fails as a whole and its dataset stays LOADING.
 * Not thread-safe on the loading side: one thread applies, then calls {@link #finish()}; {@link #close()} always.
 */
final class ParallelSessions implements AutoCloseable {
    static final int BATCH = 1024;
    private static final List<Operation> END = List.of();

    /** A failure injected into one writing thread by tests (package-private seam; null in production). */
    @FunctionalInterface
    interface Fault {
        /** Called by writing thread {@code thread} before it applies a batch; throws to fail that thread. */
        void beforeBatch(int thread, long rowsAppliedByThread) throws IOException;
    }

    private final String tableNames;
    private final String dataset;
    private final int progressEvery;
    private final Fault fault;
    private final BlockingQueue<List<Operation>> queue;
    private final Thread[] threads;
    private final AtomicLong applied = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private List<Operation> batch = new ArrayList<>(BATCH);
    private boolean finished;

    /**
     * Starts {@code settings.loadThreads()} threads, each with its own session configured as the single-session load.
     *
     * @param tableNames names the tables in errors
     */
    ParallelSessions(KuduClient client, LoaderSettings settings, String tableNames, String dataset, Fault fault) {
        requireNonNull(client, "client is null");
        requireNonNull(settings, "settings is null");
        this.tableNames = requireNonNull(tableNames, "tableNames is null");
        this.dataset = requireNonNull(dataset, "dataset is null");
        this.progressEvery = settings.progressEvery();
        this.fault = fault;
        int n = settings.loadThreads();
        this.queue = new ArrayBlockingQueue<>(2 * n);
        this.threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            int id = i;
            threads[i] = new Thread(() -> run(id, client, settings), "kudu-load-" + i + "-" + dataset);
            threads[i].setDaemon(true);
        }
        for (Thread t : threads) {
            t.start();
        }
    }

    /** Queues one row; throws the first failure of any writing thread. */
    void apply(Operation op) throws IOException {
        batch.add(op);
        if (batch.size() == BATCH) {
            hand(batch);
            batch = new ArrayList<>(BATCH);
        }
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
        if (!batch.isEmpty()) {
            hand(batch);
            batch = new ArrayList<>(0);
        }
        for (int i = 0; i < threads.length; i++) {
            hand(END);
        }
        finished = true;
        join();
        check();
    }

    private void hand(List<Operation> rows) throws IOException {
        try {
            while (!queue.offer(rows, 100, TimeUnit.MILLISECONDS)) {
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

    private void run(int id, KuduClient client, LoaderSettings settings) {
        KuduSession session = client.newSession();
        try {
            session.setFlushMode(SessionConfiguration.FlushMode.AUTO_FLUSH_BACKGROUND);
            session.setMutationBufferSpace(settings.mutationBufferOps());
            session.setFlushInterval((int) settings.flushInterval().toMillis());
            session.setTimeoutMillis(settings.operationTimeout().toMillis());
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
        queue.clear();
        for (Thread t : threads) {
            t.interrupt();
        }
        join();
    }
}
