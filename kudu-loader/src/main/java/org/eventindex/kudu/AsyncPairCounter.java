package org.eventindex.kudu;

import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Runs a {@link PairCounter} on its own thread, so trigger pair counting (hundreds of increments per event) overlaps
 * with reading the file and writing Kudu. Events are handed over in batches through a bounded queue (memory: a few
 * batches). Not thread-safe on the producer side: one loading thread adds, then calls {@link #finish()}.
 */
final class AsyncPairCounter implements AutoCloseable {
    private static final int BATCH = 1024;
    private static final int[][] END = new int[0][];

    private final PairCounter counter = new PairCounter();
    private final BlockingQueue<int[][]> queue = new ArrayBlockingQueue<>(8);
    private final Thread thread;
    private volatile Throwable failure;
    private int[][] batch = new int[BATCH][];
    private int size;

    AsyncPairCounter(String dataset) {
        thread = new Thread(this::run, "trigger-pairs-" + dataset);
        thread.setDaemon(true);
        thread.start();
    }

    /** Adds one event whose fired ids are {@code fired[0..n)}, ascending. */
    void add(int[] fired, int n) throws IOException {
        batch[size++] = Arrays.copyOf(fired, n);
        if (size == BATCH) {
            hand(batch);
            batch = new int[BATCH][];
            size = 0;
        }
    }

    /** Waits for every event to be counted and returns the counts. */
    PairCounter finish() throws IOException {
        if (size > 0) {
            hand(Arrays.copyOf(batch, size));
            size = 0;
        }
        hand(END);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while counting trigger pairs");
        }
        if (failure != null) {
            throw new IOException("counting trigger pairs failed: " + failure, failure);
        }
        return counter;
    }

    private void hand(int[][] events) throws IOException {
        try {
            while (!queue.offer(events, 1, java.util.concurrent.TimeUnit.SECONDS)) {
                if (!thread.isAlive()) {
                    throw new IOException("the trigger pair counting thread stopped: " + failure, failure);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while counting trigger pairs");
        }
    }

    private void run() {
        try {
            for (int[][] events = queue.take(); events != END; events = queue.take()) {
                for (int[] fired : events) {
                    counter.add(fired, fired.length);
                }
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
