package org.eventindex.supervisor;

import org.eventindex.message.Json;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The live stream of state changes ({@code /events}, Server-Sent Events). Like the ATLAS Information Service (seed
 * 003 §2.5), a slow subscriber never slows anything down: {@link #publish} only offers the change to each
 * subscriber's bounded queue, and a subscriber whose queue is full is dropped (its connection closed; it may
 * reconnect and read the current state from {@code /datasets}). Each subscriber has its own writer thread.
 */
final class EventBus implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EventBus.class);

    private final int capacity;
    private final Runnable onDrop;
    private final Set<Subscriber> subscribers = ConcurrentHashMap.newKeySet();

    EventBus(int capacity, Runnable onDrop) {
        if (capacity < 1) {
            throw new IllegalArgumentException("subscriber queue capacity must be >= 1: " + capacity);
        }
        this.capacity = capacity;
        this.onDrop = Objects.requireNonNull(onDrop, "onDrop is null");
    }

    /** Never blocks. */
    void publish(StateChange change) {
        for (Subscriber s : subscribers) {
            if (!s.queue.offer(change)) {
                LOG.warn("/events subscriber {} fell {} changes behind; dropped", s.name, capacity);
                onDrop.run();
                s.close();
            }
        }
    }

    int subscribers() {
        return subscribers.size();
    }

    /**
     * Streams changes to {@code out} (the response body of an exchange whose headers are sent) on a new thread until
     * the client goes away, the subscriber is dropped, or the bus is closed; {@code onEnd} then closes the exchange.
     */
    void subscribe(String name, OutputStream out, Runnable onEnd) {
        Subscriber s = new Subscriber(name, out, new ArrayBlockingQueue<>(capacity), onEnd);
        Thread t = new Thread(s::run, "supervisor-events-" + name);
        t.setDaemon(true);
        s.thread = t;
        subscribers.add(s);
        t.start();
    }

    @Override
    public void close() {
        for (Subscriber s : subscribers) {
            s.close();
        }
    }

    private final class Subscriber {
        final String name;
        final OutputStream out;
        final BlockingQueue<StateChange> queue;
        final Runnable onEnd;
        final AtomicBoolean closed = new AtomicBoolean();
        volatile Thread thread;

        Subscriber(String name, OutputStream out, BlockingQueue<StateChange> queue, Runnable onEnd) {
            this.name = name;
            this.out = out;
            this.queue = queue;
            this.onEnd = onEnd;
        }

        void run() {
            try {
                out.write(": eventindex supervisor state changes\n\n".getBytes(StandardCharsets.UTF_8));
                out.flush();
                ByteArrayOutputStream frame = new ByteArrayOutputStream();
                while (!closed.get()) {
                    StateChange c = queue.take();
                    // one write per change: a frame split in small writes waits for the client's delayed ACK
                    frame.reset();
                    frame.write(("event: " + c.event() + "\ndata: ").getBytes(StandardCharsets.UTF_8));
                    frame.write(Json.write(c));
                    frame.write("\n\n".getBytes(StandardCharsets.UTF_8));
                    frame.writeTo(out);
                    out.flush();
                }
            } catch (IOException e) {
                LOG.debug("/events subscriber {} went away: {}", name, e.toString());
            } catch (InterruptedException e) {
                // Dropped or shutting down. The interrupt status stays set, so closing the exchange below cannot
                // block on a full socket: the channel write fails at once.
                Thread.currentThread().interrupt();
            } finally {
                close();
                try {
                    onEnd.run();
                } catch (RuntimeException e) {
                    LOG.debug("closing /events subscriber {}: {}", name, e.toString());
                }
            }
        }

        /**
         * Marks the subscriber closed and wakes its writer, from any thread, without blocking: the writer (not the
         * caller, which may hold the engine's lock) closes the connection. A writer blocked on a full socket is
         * interrupted, which closes the channel under it.
         */
        void close() {
            if (closed.compareAndSet(false, true)) {
                subscribers.remove(this);
                Thread t = thread;
                if (t != null && t != Thread.currentThread()) {
                    t.interrupt();
                }
            }
        }
    }
}
