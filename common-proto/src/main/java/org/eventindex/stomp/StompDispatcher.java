package org.eventindex.stomp;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that calls a connection's listeners, one call at a time and in arrival order, so that a slow handler
 * never stops the reader thread from seeing heart-beats and receipts.
 */
final class StompDispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(StompDispatcher.class);
    private static final Runnable STOP = () -> { };

    private final BlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
    private final Thread thread;

    StompDispatcher(String name) {
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    void submit(Runnable task) {
        tasks.add(task);
    }

    /** Runs the tasks already submitted, then ends the thread. */
    void shutdown() {
        tasks.add(STOP);
    }

    private void run() {
        while (true) {
            Runnable task;
            try {
                task = tasks.take();
            } catch (InterruptedException e) {
                return;
            }
            if (task == STOP) {
                return;
            }
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.error("STOMP listener failed on {}", thread.getName(), e);
            }
        }
    }
}
