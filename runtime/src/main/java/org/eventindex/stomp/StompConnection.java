package org.eventindex.stomp;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A STOMP 1.2 connection to one broker of {@link StompSettings#endpoints()} (the first that accepts of a random
 * turn through them), with
 * heart-beats. Sends are persistent and wait for the broker's RECEIPT. Subscriptions use
 * {@code ack:client-individual}. Thread-safe for sends and acks.
 *
 * <p>Threads: a reader (frames, receipts, heart-beat timeout), a dispatcher for listeners (started on the first
 * subscription) and a heart-beat writer when the broker wants heart-beats. A broker that sends nothing for twice the
 * negotiated interval (plus one second) is considered dead: the connection closes and listeners get
 * {@link Listener#onError}.
 */
public final class StompConnection implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(StompConnection.class);
    private static final Duration DISCONNECT_TIMEOUT = Duration.ofSeconds(2);

    private final StompSettings settings;
    private final StompEndpoint endpoint;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final Map<String, CompletableFuture<StompFrame>> receipts = new ConcurrentHashMap<>();
    private final Map<String, Subscription> subscriptions = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final AtomicBoolean shutDown = new AtomicBoolean();
    /**
     * Calls the listeners, one at a time and in arrival order, so that a slow handler never stops the reader thread
     * from seeing heart-beats and receipts: a single-thread executor, started on the first subscription; shut down
     * (after the tasks already submitted) when the connection ends.
     */
    private volatile ExecutorService dispatcher;
    private final long sendHeartbeatMs;
    private volatile long lastWriteNanos = System.nanoTime();
    private StompHeartbeat heartbeat;
    private final AtomicLong heartbeatsReceived = new AtomicLong();

    /** Takes over a socket on which CONNECTED was received; {@link #start()} begins reading. */
    StompConnection(StompSettings settings, StompEndpoint endpoint, Socket socket, InputStream in,
                    OutputStream out, long sendHeartbeatMs, long receiveHeartbeatMs) throws IOException {
        this.settings = settings;
        this.endpoint = endpoint;
        this.socket = socket;
        this.in = in;
        this.out = out;
        // A silent broker makes the reader time out: twice the promised interval plus a second of slack.
        long silenceMs = receiveHeartbeatMs > 0 ? 2 * receiveHeartbeatMs + 1000 : 0;
        socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, silenceMs));
        this.sendHeartbeatMs = sendHeartbeatMs;
    }

    synchronized void start() {
        if (sendHeartbeatMs > 0) {
            heartbeat = new StompHeartbeat("stomp-heartbeat-" + endpoint, sendHeartbeatMs, this::sendHeartbeat);
        }
        Thread reader = new Thread(this::readLoop, "stomp-reader-" + endpoint);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Connects to one broker of the endpoints (every address of every host name is a broker), starting at a random
     * one and trying the others in turn until one accepts.
     *
     * @throws StompException when no broker accepts; {@link StompException#isAuthentication()} when a broker
     *         refused the credentials (no further endpoint is tried then)
     */
    public static StompConnection connect(StompSettings settings) throws IOException {
        return StompHandshake.connect(requireNonNull(settings, "settings is null"));
    }

    /** The endpoint this connection reached. */
    public StompEndpoint endpoint() {
        return endpoint;
    }

    /**
     * Persistent SEND ({@code content-type:application/json} and {@code persistent:true} unless {@code headers} says
     * otherwise, e.g. a transient message with {@code persistent:false} and {@code expires}); returns once the
     * broker's RECEIPT arrived.
     *
     * @throws StompException on an ERROR frame (naming the destination and the broker's message) or when no receipt
     *         arrives within {@link StompSettings#receiptTimeout()} (the connection is closed then)
     */
    public void send(String destination, byte[] body, Map<String, String> headers) throws IOException {
        requireNonNull(destination, "destination is null");
        requireNonNull(body, "body is null");
        requireNonNull(headers, "headers is null");
        Map<String, String> h = new LinkedHashMap<>();
        h.put("content-type", "application/json");
        h.put("persistent", "true");
        h.putAll(headers);
        h.put("destination", destination);
        h.put("content-length", Integer.toString(body.length));
        request("SEND", h, body, "SEND to " + destination);
    }

    /**
     * Subscribes with {@code ack:client-individual} and {@code activemq.prefetchSize:prefetch}; messages are passed
     * to {@code handler} on this connection's dispatch thread. The handler must call {@link #ack} or {@link #nack}.
     * Returns once the broker confirmed the subscription.
     */
    public void subscribe(String destination, int prefetch, Listener handler) throws IOException {
        subscribe(destination, prefetch, Map.of(), handler);
    }

    /**
     * {@link #subscribe(String, int, Listener)} with more SUBSCRIBE headers, e.g. ActiveMQ's {@code selector} or
     * {@code browser:true} (a queue browser: the messages stay in the queue; the last frame has {@code browser:end}).
     */
    public void subscribe(String destination, int prefetch, Map<String, String> extraHeaders, Listener handler)
            throws IOException {
        requireNonNull(destination, "destination is null");
        requireNonNull(extraHeaders, "extraHeaders is null");
        requireNonNull(handler, "handler is null");
        if (prefetch < 1) {
            throw new IllegalArgumentException("prefetch must be at least 1, got " + prefetch);
        }
        String id = "sub-" + nextId.incrementAndGet();
        synchronized (this) {
            // Checked under the lock that shutdown() takes, so a dispatcher is never started after shutdown.
            if (!isOpen()) {
                throw new IOException("cannot SUBSCRIBE to " + destination + ": connection to STOMP broker "
                        + endpoint + " is closed");
            }
            if (dispatcher == null) {
                String name = "stomp-dispatch-" + endpoint;
                dispatcher = Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, name);
                    t.setDaemon(true);
                    return t;
                });
            }
        }
        subscriptions.put(id, new Subscription(destination, handler));
        Map<String, String> h = new LinkedHashMap<>();
        h.put("id", id);
        h.put("destination", destination);
        h.put("ack", "client-individual");
        h.put("activemq.prefetchSize", Integer.toString(prefetch));
        h.putAll(extraHeaders);
        try {
            request("SUBSCRIBE", h, StompFrame.NO_BODY, "SUBSCRIBE to " + destination);
        } catch (IOException e) {
            subscriptions.remove(id);
            throw e;
        }
    }

    /** Acknowledges one message (client-individual: only this one). */
    public void ack(StompMessage message) throws IOException {
        acknowledge("ACK", message);
    }

    /** Refuses one message; ActiveMQ moves it to the dead-letter queue. */
    public void nack(StompMessage message) throws IOException {
        acknowledge("NACK", message);
    }

    private void acknowledge(String command, StompMessage message) throws IOException {
        requireNonNull(message, "message is null");
        Map<String, String> h = Map.of("id", message.ackId());
        try {
            write(StompFrame.of(command, h));
        } catch (IOException e) {
            throw new IOException(command + " of message " + message.messageId() + " on broker " + endpoint
                    + " failed: " + e.getMessage(), e);
        }
    }

    /** Heart-beats (EOLs between frames) received from the broker on this connection so far. */
    public long heartbeatsReceived() {
        return heartbeatsReceived.get();
    }

    /** False once the socket failed, an ERROR frame arrived, heart-beats stopped, or close was called. */
    public boolean isOpen() {
        return !closing.get() && !shutDown.get();
    }

    /** Sends DISCONNECT (waiting briefly for its receipt, so earlier ACKs are processed) and closes. Idempotent. */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        if (!shutDown.get()) {
            String id = "disconnect-" + nextId.incrementAndGet();
            CompletableFuture<StompFrame> receipt = new CompletableFuture<>();
            receipts.put(id, receipt);
            try {
                write(StompFrame.of("DISCONNECT", Map.of("receipt", id)));
                receipt.get(Math.min(DISCONNECT_TIMEOUT.toMillis(), settings.receiptTimeout().toMillis()),
                        TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException | ExecutionException | TimeoutException e) {
                LOG.debug("no clean DISCONNECT from broker {}: {}", endpoint, e.toString());
            }
        }
        shutdown(new IOException("connection to STOMP broker " + endpoint + " was closed"), false);
    }

    @Override
    public String toString() {
        return "StompConnection[" + endpoint + (isOpen() ? "" : ", closed") + "]";
    }

    private StompFrame request(String command, Map<String, String> headers, byte[] body, String what)
            throws IOException {
        String id = command.toLowerCase(Locale.ROOT) + "-" + nextId.incrementAndGet();
        headers.put("receipt", id);
        CompletableFuture<StompFrame> receipt = new CompletableFuture<>();
        receipts.put(id, receipt);
        StompFrame reply;
        try {
            write(new StompFrame(command, headers, body));
            reply = receipt.get(settings.receiptTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            StompException timeout = new StompException("no RECEIPT for " + what + " from broker " + endpoint
                    + " within " + settings.receiptTimeout(), false);
            shutdown(timeout, true);
            throw timeout;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            boolean auth = cause instanceof StompException se && se.isAuthentication();
            throw new StompException(what + " on broker " + endpoint + " failed: " + cause.getMessage(), auth, cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for the RECEIPT of " + what);
        } catch (IOException e) {
            throw new StompException(what + " on broker " + endpoint + " failed: " + e.getMessage(), false, e);
        } finally {
            receipts.remove(id);
        }
        if ("ERROR".equals(reply.command())) {
            throw new StompException("broker " + endpoint + " refused " + what + ": " + reply.errorText(),
                    StompHandshake.isSecurityError(reply));
        }
        return reply;
    }

    private void write(StompFrame frame) throws IOException {
        if (!isOpen() && !"DISCONNECT".equals(frame.command())) {
            throw new IOException("connection to STOMP broker " + endpoint + " is closed");
        }
        writeLock.lock();
        try {
            StompFrameCodec.write(frame, out);
            out.flush();
            lastWriteNanos = System.nanoTime();
        } catch (IOException e) {
            IOException failure = new IOException("write to STOMP broker " + endpoint + " failed: " + describe(e), e);
            shutdown(failure, true);
            throw failure;
        } finally {
            writeLock.unlock();
        }
    }

    /** Called by the heart-beat thread: writes an EOL unless something else was written recently. */
    private void sendHeartbeat(long intervalMs) {
        if (System.nanoTime() - lastWriteNanos < TimeUnit.MILLISECONDS.toNanos(intervalMs) / 2
                || !writeLock.tryLock()) {
            return; // a frame was written or is being written: that counts as a heart-beat
        }
        try {
            out.write('\n');
            out.flush();
            lastWriteNanos = System.nanoTime();
        } catch (IOException e) {
            shutdown(new IOException("heart-beat to STOMP broker " + endpoint + " failed: " + describe(e), e), true);
        } finally {
            writeLock.unlock();
        }
    }

    private void readLoop() {
        try {
            while (!shutDown.get()) {
                StompFrame frame = StompFrameCodec.read(in, settings.frameLimits(), heartbeatsReceived::incrementAndGet);
                if (frame.oversize() != null && !"MESSAGE".equals(frame.command())) {
                    LOG.warn("{} from broker {} is over this client's frame limits: {}", frame.command(), endpoint,
                            frame.oversize());
                }
                switch (frame.command()) {
                    case "RECEIPT" -> complete(frame.header("receipt-id"), frame);
                    case "MESSAGE" -> deliver(frame);
                    case "ERROR" -> {
                        complete(frame.header("receipt-id"), frame);
                        shutdown(new StompException("broker " + endpoint + " sent ERROR: " + frame.errorText(),
                                StompHandshake.isSecurityError(frame)), true);
                        return;
                    }
                    default -> LOG.debug("ignoring unexpected {} frame from broker {}", frame.command(), endpoint);
                }
            }
        } catch (SocketTimeoutException e) {
            shutdown(new IOException("STOMP broker " + endpoint + " sent no heart-beat in time; connection dropped"),
                    true);
        } catch (IOException | RuntimeException e) {
            shutdown(new IOException("connection to STOMP broker " + endpoint + " lost: " + describe(e), e), true);
        }
    }

    private void complete(String receiptId, StompFrame frame) {
        CompletableFuture<StompFrame> f = receiptId == null ? null : receipts.remove(receiptId);
        if (f != null) {
            f.complete(frame);
        }
    }

    private void deliver(StompFrame frame) {
        Subscription sub = subscriptions.get(frame.header("subscription"));
        if (sub == null) {
            LOG.warn("MESSAGE {} from broker {} for unknown subscription {}; it will be redelivered elsewhere",
                    frame.header("message-id"), endpoint, frame.header("subscription"));
            return;
        }
        String messageId = frame.header("message-id");
        String ackId = frame.headers().getOrDefault("ack", messageId);
        StompMessage message = new StompMessage(frame.headers().getOrDefault("destination", sub.destination()),
                messageId, ackId, frame.headers(), frame.body(), frame.oversize());
        dispatch(dispatcher, () -> sub.listener().onMessage(message));
    }

    /**
     * Runs {@code task} on the listeners' thread; a listener's RuntimeException is logged there and the next task
     * runs. A task offered after the connection ended is dropped: its message is redelivered by the broker.
     */
    private void dispatch(ExecutorService to, Runnable task) {
        try {
            to.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.error("STOMP listener failed on the connection to {}", endpoint, e);
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.debug("connection to {} has ended; a listener call is dropped", endpoint);
        }
    }

    /** Ends the connection once; listeners hear about it only when it was not closed on purpose. */
    private void shutdown(IOException cause, boolean notifyListeners) {
        if (!shutDown.compareAndSet(false, true)) {
            return;
        }
        if (notifyListeners && !closing.get()) {
            LOG.info("{}", cause.getMessage());
        }
        closeQuietly(socket);
        StompHeartbeat hb;
        synchronized (this) {
            hb = heartbeat;
        }
        if (hb != null) {
            hb.stop();
        }
        receipts.values().forEach(f -> f.completeExceptionally(cause));
        receipts.clear();
        ExecutorService d;
        synchronized (this) {
            d = dispatcher;
        }
        if (d != null) {
            if (notifyListeners && !closing.get()) {
                for (Subscription s : subscriptions.values()) {
                    dispatch(d, () -> s.listener().onError(cause));
                }
            }
            // the calls already submitted still run, then the thread ends
            d.shutdown();
        }
    }

    static String describe(Exception e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            LOG.debug("closing socket failed", e);
        }
    }

    private record Subscription(String destination, Listener listener) {
    }

    /** Receives MESSAGE frames of a subscription, and the connection's failure. */
    public interface Listener {
        /** Called on the connection's dispatch thread, one message at a time. */
        void onMessage(StompMessage message);

        /** Called once when the connection fails (not after {@link #close()}); no more messages follow. */
        default void onError(IOException cause) {
        }
    }
}
