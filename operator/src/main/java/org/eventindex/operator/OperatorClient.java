package org.eventindex.operator;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.FormatVersion;
import org.eventindex.message.Json;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompSettings;
import org.eventindex.supervisor.Issuer;
import org.eventindex.supervisor.OperatorAnswer;
import org.eventindex.supervisor.Supervisor;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The operator's side of a request to the supervisor: one connection with a temporary reply queue (gone with the
 * connection; only operators may create and read such queues, only the supervisor may send into them), one control
 * message carrying a fresh {@code correlation-id} and {@code reply-to} (and the OS user it runs as, which the supervisor
 * journals as claimed beside the broker login the broker vouches for), then the answer with that correlation id.
 */
final class OperatorClient {
    /** The reply queue, private to the connection (ActiveMQ maps it to a temporary queue of its own). */
    static final String REPLY_QUEUE = "/temp-queue/eventindex-answers";

    private OperatorClient() {
    }

    /**
     * Sends {@code body} to {@code queue} and waits up to {@code timeout} for the supervisor's answer.
     *
     * @return the answer, or empty when none came in time
     * @throws IOException when the broker cannot be reached or refuses the send
     */
    static Optional<OperatorAnswer> request(StompSettings settings, String queue, byte[] body, Duration timeout)
            throws IOException {
        Objects.requireNonNull(timeout, "timeout is null");
        String requestId = UUID.randomUUID().toString();
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        try (StompConnection c = StompConnection.connect(settings)) {
            c.subscribe(REPLY_QUEUE, 1, new StompConnection.Listener() {
                @Override
                public void onMessage(StompMessage m) {
                    received.add(m);
                    try {
                        c.ack(m);
                    } catch (IOException e) {
                        // the queue ends with the connection: an unacknowledged answer is lost with it
                    }
                }

                @Override
                public void onError(IOException cause) {
                    received.add(cause);
                }
            });
            // the broker adds the login it authenticated (JMSXUserID); the OS user is only what this command claims
            c.send(queue, body, Map.of(Supervisor.REPLY_TO, REPLY_QUEUE, Supervisor.CORRELATION_ID, requestId,
                    Issuer.CLAIMED_USER_HEADER, System.getProperty("user.name", "")));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                long left = deadline - System.nanoTime();
                Object o = left <= 0 ? null : received.poll(left, TimeUnit.NANOSECONDS);
                if (o == null) {
                    return Optional.empty();
                }
                if (o instanceof IOException e) {
                    throw new IOException("connection to the broker lost while waiting for the supervisor's answer"
                            + " (the request was sent and is applied once the supervisor reads it): "
                            + e.getMessage(), e);
                }
                StompMessage m = (StompMessage) o;
                if (requestId.equals(m.headers().get(Supervisor.CORRELATION_ID))) {
                    return Optional.of(answer(m.body(), requestId));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the supervisor's answer");
        }
    }

    /** The supervisor's answer, refused when a newer release wrote it in a format this command does not read. */
    static OperatorAnswer answer(byte[] body, String requestId) throws IOException {
        JsonNode tree = Json.tree(body);
        int version;
        try {
            version = FormatVersion.of(tree);
        } catch (IllegalArgumentException e) {
            throw new IOException("the supervisor's answer to request " + requestId + " is not readable: "
                    + e.getMessage(), e);
        }
        Optional<String> newer = FormatVersion.newer("the supervisor's answer to request " + requestId + " (the"
                + " request was applied or refused as that answer says)", version, OperatorAnswer.FORMAT_VERSION,
                "operator command");
        if (newer.isPresent()) {
            throw new IOException(newer.get());
        }
        return Json.mapper().treeToValue(tree, OperatorAnswer.class);
    }
}
