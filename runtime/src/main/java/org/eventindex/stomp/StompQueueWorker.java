package org.eventindex.stomp;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.eventindex.retry.Backoff;
import org.eventindex.retry.Outage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A daemon's consumer of one queue: keeps a connection (reconnecting with capped exponential backoff through every
 * endpoint), subscribes with the given prefetch and calls the handler for each message one at a time. A handler that
 * returns normally gets its message acknowledged; one that throws an exception gets it NACKed (the broker
 * dead-letters it), and the failure is logged with the message id. A message over the
 * {@link StompSettings#frameLimits()} goes to {@link StompMessageHandler#onOversize} instead (by default: NACKed).
 * Stopping waits for the message in progress.
 *
 * <p>An {@link Error} ends the worker for good: the message in hand is neither acknowledged nor NACKed, the
 * connection is closed (so the broker redelivers the message), {@link #failure()} tells why, and the owner's
 * {@link DeathListener} is called on the worker's thread as its last act. Without a listener, an
 * {@link AssertionError} or {@link LinkageError} from the handler is NACKed like an exception and the worker goes on
 * (a bug on one message); with one, every Error is fatal, so that the owner (the daemon) can exit and be restarted.
 *
 * <p>Delivery is at least once: a message whose ACK was lost with the connection is delivered again, so handlers
 * must be idempotent.
 */
public final class StompQueueWorker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StompQueueWorker.class);
    private static final Object STOP = new Object();

    /** Reconnect waits: 0.5 s doubling up to 30 s, each drawn from its upper half. */
    public static final Backoff RECONNECT_BACKOFF = new Backoff(Duration.ofMillis(500), 2, Duration.ofSeconds(30), 0.5);

    private final String name;
    private final StompSettings settings;
    private final String destination;
    private final int prefetch;
    private final StompMessageHandler handler;
    private final Backoff backoff;
    private final DeathListener onDeath;
    private final Outage outage;
    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch stopSignal = new CountDownLatch(1);
    private final AtomicLong handled = new AtomicLong();
    private volatile boolean stopping;
    private volatile boolean connected;
    private volatile BlockingQueue<Object> inbox;
    private volatile StompConnection connection;
    private volatile Thread thread;
    private volatile Throwable failure;

    /** Told once when the worker stops for good without being asked to. */
    @FunctionalInterface
    public interface DeathListener {
        /**
         * Called on the dying worker's thread, after its connection is closed.
         *
         * @param worker the worker's name
         * @param cause  the Error that ended it
         */
        void died(String worker, Throwable cause);
    }

    public StompQueueWorker(String name, StompSettings settings, String destination, int prefetch,
                            StompMessageHandler handler) {
        this(name, settings, destination, prefetch, handler, RECONNECT_BACKOFF);
    }

    public StompQueueWorker(String name, StompSettings settings, String destination, int prefetch,
                            StompMessageHandler handler, Backoff backoff) {
        this(name, settings, destination, prefetch, handler, backoff, null);
    }

    /**
     * @param onDeath told when an Error ends the worker; with a listener every Error the handler throws is fatal
     *                (see the class comment); null for none
     */
    public StompQueueWorker(String name, StompSettings settings, String destination, int prefetch,
                            StompMessageHandler handler, Backoff backoff, DeathListener onDeath) {
        this(name, settings, destination, prefetch, handler, backoff, onDeath, settings.endpoints().stream()
                .map(Object::toString).collect(java.util.stream.Collectors.joining(",")));
    }

    /**
     * @param broker the broker as its outage lines name it ({@code STOMP broker <broker> unreachable ...}); the
     *               workers of the same {@link StompSettings#outages()} on the same broker log its outage together
     */
    StompQueueWorker(String name, StompSettings settings, String destination, int prefetch,
                     StompMessageHandler handler, Backoff backoff, DeathListener onDeath, String broker) {
        this.name = requireNonNull(name, "name is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.destination = requireNonNull(destination, "destination is null");
        this.handler = requireNonNull(handler, "handler is null");
        this.backoff = requireNonNull(backoff, "backoff is null");
        this.onDeath = onDeath;
        this.outage = settings.outages().of("STOMP broker " + requireNonNull(broker, "broker is null"), LOG);
        if (prefetch < 1) {
            throw new IllegalArgumentException("worker " + name + ": prefetch must be at least 1, got " + prefetch);
        }
        this.prefetch = prefetch;
    }

    /** Starts the worker thread; a worker starts once. */
    public void start() {
        if (stopping || !started.compareAndSet(false, true)) {
            throw new IllegalStateException("worker " + name + " was already started or stopped");
        }
        Thread t = new Thread(this::run, "stomp-worker-" + name);
        thread = t;
        t.start();
    }

    /** True while subscribed to a live connection. */
    public boolean isConnected() {
        StompConnection c = connection;
        return connected && c != null && c.isOpen();
    }

    /** The Error that ended the worker, or null while it runs (or after a requested stop). */
    public Throwable failure() {
        return failure;
    }

    /** Messages handled (acknowledged) since start. */
    public long handled() {
        return handled.get();
    }

    /**
     * Idempotent; waits up to {@code grace} for the message in progress. If it does not finish in time the
     * connection is closed (the broker redelivers the message) and the worker thread is interrupted.
     */
    public void stop(Duration grace) {
        requireNonNull(grace, "grace is null");
        requestStop();
        Thread t = thread;
        if (t == null || t == Thread.currentThread()) {
            return;
        }
        try {
            t.join(Math.max(1, grace.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (t.isAlive()) {
            LOG.warn("worker {} did not finish its message within {}; closing its connection so that the broker "
                    + "redelivers it", name, grace);
            StompConnection c = connection;
            if (c != null) {
                c.close();
            }
            t.interrupt();
        }
    }

    /**
     * Tells the worker to stop after its message in progress, without waiting ({@link #stop} waits): a
     * {@link StompFanIn} tells all its workers first, so that they finish their messages together.
     */
    void requestStop() {
        stopping = true;
        stopSignal.countDown();
        BlockingQueue<Object> q = inbox;
        if (q != null) {
            q.add(STOP);
        }
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(30));
    }

    private void run() {
        int failures = 0;
        while (!stopping) {
            BlockingQueue<Object> q = new LinkedBlockingQueue<>();
            inbox = q;
            StompConnection c = null;
            String reason = null;
            try {
                c = StompConnection.connect(settings);
                connection = c;
                c.subscribe(destination, prefetch, new StompConnection.Listener() {
                    @Override
                    public void onMessage(StompMessage message) {
                        q.add(message);
                    }

                    @Override
                    public void onError(IOException cause) {
                        q.add(cause);
                    }
                });
                connected = true;
                failures = 0;
                outage.reachable();
                LOG.info("worker {} subscribed to {} on broker {}", name, destination, c.endpoint());
                consume(c, q);
            } catch (IOException e) {
                reason = e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                LOG.error("worker {} on {} failed unexpectedly", name, destination, e);
            } catch (Error e) {
                // the message in hand, if any, is left unacknowledged: closing the connection hands it back
                failure = e;
            } finally {
                connected = false;
                connection = null;
                if (c != null) {
                    c.close();
                }
            }
            if (failure != null) {
                died(failure);
                return;
            }
            if (!stopping) {
                Duration delay = backoff.delay(failures++, ThreadLocalRandom.current().nextDouble());
                // one line per retry for all the daemon's workers on this broker, not two per worker
                outage.retrying(reason == null ? "connection closed" : reason, failures, delay);
                try {
                    stopSignal.await(delay.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
        LOG.info("worker {} on {} stopped after {} messages", name, destination, handled.get());
    }

    private void died(Throwable cause) {
        LOG.error("worker {} on {} stops for good after {} messages: {}; the message in hand, if any, is left to the"
                + " broker to redeliver", name, destination, handled.get(), cause.toString(), cause);
        if (onDeath != null) {
            onDeath.died(name, cause);
        }
    }

    private void consume(StompConnection c, BlockingQueue<Object> q) throws IOException, InterruptedException {
        while (!stopping) {
            Object item = q.take();
            if (item == STOP) {
                return;
            }
            if (item instanceof IOException e) {
                throw e;
            }
            handle(c, (StompMessage) item);
        }
    }

    private void handle(StompConnection c, StompMessage message) throws IOException, InterruptedException {
        try {
            if (message.oversize() != null) {
                LOG.warn("worker {}: message {} from {} is over the STOMP frame limits {}: {}", name,
                        message.messageId(), destination, settings.frameLimits(), message.oversize());
                handler.onOversize(message);
            } else {
                handler.onMessage(message);
            }
        } catch (InterruptedException e) {
            // Forced stop: leave the message unacknowledged so that the broker redelivers it.
            throw e;
        } catch (Exception | AssertionError | LinkageError e) {
            if (e instanceof Error fatal && onDeath != null) {
                throw fatal;
            }
            if (stopping && Thread.currentThread().isInterrupted()) {
                throw new InterruptedException("worker " + name + " interrupted while handling " + message.messageId());
            }
            LOG.error("worker {}: handler failed on message {} from {}; NACKed, the broker dead-letters it",
                    name, message.messageId(), destination, e);
            c.nack(message);
            return;
        }
        c.ack(message);
        handled.incrementAndGet();
    }
}
