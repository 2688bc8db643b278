package org.eventindex.rebuild;

import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

import static java.util.Objects.requireNonNull;

/**
 * The records a decide task pushes (the loader's writer hands each row to a sink as it reads the file) as the iterator
 * Spark pulls its shuffle input from: the work runs on a thread of its own and hands over batches through a short
 * queue, so a task holds a few batches, never a dataset. {@link #close()} (the task's end, also a killed task) stops
 * the thread.
 */
final class DecideFeed implements Iterator<Routed>, AutoCloseable {
    private static final int BATCH = 8;
    private static final List<Routed> END = List.of();

    /** The work: emits its records, in order, then returns. */
    @FunctionalInterface
    interface Work {
        void run(Emitter emit) throws Exception;
    }

    /** Where the work's records go. */
    interface Emitter {
        void emit(Routed record) throws InterruptedIOException;
    }

    private final BlockingQueue<List<Routed>> queue = new ArrayBlockingQueue<>(4);
    private final Thread thread;
    private volatile Throwable failure;
    private Iterator<Routed> current = Collections.emptyIterator();
    private boolean ended;

    DecideFeed(String name, Work work) {
        requireNonNull(work, "work is null");
        thread = new Thread(() -> produce(work), name);
        thread.setDaemon(true);
        thread.start();
    }

    private void produce(Work work) {
        List<List<Routed>> pending = new ArrayList<>(1);
        pending.add(new ArrayList<>(BATCH));
        try {
            work.run(record -> {
                List<Routed> batch = pending.get(0);
                batch.add(record);
                if (batch.size() == BATCH) {
                    put(batch);
                    pending.set(0, new ArrayList<>(BATCH));
                }
            });
            if (!pending.get(0).isEmpty()) {
                put(pending.get(0));
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            try {
                put(END);
            } catch (InterruptedIOException e) {
                // closed: nobody reads any more
            }
        }
    }

    private void put(List<Routed> batch) throws InterruptedIOException {
        try {
            queue.put(batch);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("the decide task was stopped");
        }
    }

    @Override
    public boolean hasNext() {
        while (!current.hasNext()) {
            if (ended) {
                return false;
            }
            List<Routed> batch;
            try {
                batch = queue.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close();
                throw new IllegalStateException("interrupted while waiting for decided rows", e);
            }
            if (batch == END) {
                ended = true;
                Throwable t = failure;
                if (t != null) {
                    throw new IllegalStateException("a decide task failed: " + t, t);
                }
            }
            current = batch.iterator();
        }
        return true;
    }

    @Override
    public Routed next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return current.next();
    }

    @Override
    public void close() {
        thread.interrupt();
    }
}
