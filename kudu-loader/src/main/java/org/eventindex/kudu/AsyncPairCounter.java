package org.eventindex.kudu;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@link PairCounter} on its own thread, so trigger pair counting (hundreds of increments per event) overlaps
 * with reading the file and writing Kudu. Events are handed over in batches through a bounded queue; a batch holds
 * the fired ids of its events in one flat array and goes back to a pool once counted, so adding an event allocates
 * nothing (memory: {@link #BATCHES} batches). Not thread-safe on the producer side: one loading thread adds, then
 * calls {@link #finish()}.
 */
final class AsyncPairCounter implements AutoCloseable {
    private static final int EVENTS_PER_BATCH = 1024;
    private static final int BATCHES = 10;
    private static final Batch END = new Batch();

    /** Fired ids of up to {@link #EVENTS_PER_BATCH} events: event {@code i} is {@code ids[ends[i-1], ends[i])}. */
    private static final class Batch {
        int[] ids = new int[EVENTS_PER_BATCH * 32];
        final int[] ends = new int[EVENTS_PER_BATCH];
        int events;
        int size;
    }

    private final PairCounter counter = new PairCounter();
    private final BlockingQueue<Batch> queue = new ArrayBlockingQueue<>(BATCHES);
    private final BlockingQueue<Batch> free = new ArrayBlockingQueue<>(BATCHES);
    private final Thread thread;
    private volatile Throwable failure;
    private Batch batch = new Batch();
    private int allocated = 1;

    AsyncPairCounter(String dataset) {
        thread = new Thread(this::run, "trigger-pairs-" + dataset);
        thread.setDaemon(true);
        thread.start();
    }

    /** Adds one event whose fired ids are {@code fired[0..n)}, ascending. */
    void add(int[] fired, int n) throws IOException {
        Batch b = batch;
        if (b.size + n > b.ids.length) {
            b.ids = Arrays.copyOf(b.ids, Math.max(2 * b.ids.length, b.size + n));
        }
        System.arraycopy(fired, 0, b.ids, b.size, n);
        b.size += n;
        b.ends[b.events++] = b.size;
        if (b.events == EVENTS_PER_BATCH) {
            hand(b);
            batch = nextFree();
        }
    }

    /** Waits for every event to be counted and returns the counts. */
    PairCounter finish() throws IOException {
        if (batch.events > 0) {
            hand(batch);
            batch = null;
        }
        hand(END);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while counting trigger pairs");
        }
        if (failure != null) {
            throw new IOException("counting trigger pairs failed: " + failure, failure);
        }
        return counter;
    }

    /** A counted batch back from the counting thread, or a new one while fewer than {@link #BATCHES} exist. */
    private Batch nextFree() throws IOException {
        Batch b = free.poll();
        if (b == null && allocated < BATCHES) {
            allocated++;
            return new Batch();
        }
        try {
            while (b == null) {
                b = free.poll(1, TimeUnit.SECONDS);
                if (b == null && !thread.isAlive()) {
                    throw new IOException("the trigger pair counting thread stopped: " + failure, failure);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while counting trigger pairs");
        }
        b.events = 0;
        b.size = 0;
        return b;
    }

    private void hand(Batch b) throws IOException {
        try {
            while (!queue.offer(b, 1, TimeUnit.SECONDS)) {
                if (!thread.isAlive()) {
                    throw new IOException("the trigger pair counting thread stopped: " + failure, failure);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while counting trigger pairs");
        }
    }

    private void run() {
        try {
            for (Batch b = queue.take(); b != END; b = queue.take()) {
                int start = 0;
                for (int i = 0; i < b.events; i++) {
                    counter.add(b.ids, start, b.ends[i] - start);
                    start = b.ends[i];
                }
                free.add(b);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            failure = e;
        }
    }

    /** Stops the thread if {@link #finish()} was not reached (a failed load). */
    @Override
    public void close() {
        thread.interrupt();
    }
}
