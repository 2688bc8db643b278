package org.eventindex.consolidated;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One daemon thread running the tasks handed to it in order ({@link ConsolidatedFileWriter}'s second encoding thread
 * and its row group flusher), with the waits on its tasks, which turn a task's failure back into the exception the
 * caller reports.
 */
final class WorkerThread {
    private final ExecutorService executor;
    /** The executor's thread, once started (it is made on the first task). */
    private volatile Thread thread;

    WorkerThread(String name) {
        this.executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            thread = t;
            return t;
        });
    }

    Future<?> submit(Callable<?> task) {
        return executor.submit(task);
    }

    /**
     * Waits for {@code task} and rethrows its failure; {@code what} names it in a checked failure. When
     * {@code interruptible}, an interrupt ends the wait with an {@link InterruptedIOException}; otherwise (the task
     * uses state the caller needs back) the wait goes on and the interrupt is passed on afterwards.
     */
    static void await(Future<?> task, String what, boolean interruptible) throws IOException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    task.get();
                    return;
                } catch (InterruptedException e) {
                    if (interruptible) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException("interrupted while " + what);
                    }
                    interrupted = true;
                }
            }
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException re) {
                throw re;
            }
            if (c instanceof Error err) {
                throw err;
            }
            if (c instanceof IOException io) {
                throw new IOException(what + " failed: " + io.getMessage(), io);
            }
            throw new IOException(what + " failed: " + c, c);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Discards the tasks not started, interrupts the running one and waits up to a minute for the thread to end (an
     * interrupt meanwhile is kept for later); true if it ended.
     */
    boolean stop() {
        executor.shutdownNow();
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        try {
            while (true) {
                try {
                    if (!executor.awaitTermination(Math.max(0, deadline - System.nanoTime()),
                            TimeUnit.NANOSECONDS)) {
                        return false;
                    }
                    // the executor counts as terminated a moment before its thread has returned: wait for that too
                    Thread t = thread;
                    if (t != null) {
                        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                        return !t.isAlive();
                    }
                    return true;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
