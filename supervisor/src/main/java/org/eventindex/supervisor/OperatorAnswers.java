package org.eventindex.supervisor;

import org.eventindex.message.Json;
import org.eventindex.stomp.StompBroker;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sends the answers to operator requests, each to its request's reply queue and before the request is acknowledged,
 * through the broker the request came from (a temporary queue lives on one broker: the operator's), on a STOMP
 * connection of its own per broker: a reply queue gone with its operator must not cost the signals' connection. Only
 * temporary queues are answered (a {@code reply-to} naming a real queue could make the supervisor write into the
 * consumers' queue). A failed send is counted and logged, never retried: the answer is in the journal, and a
 * redelivered request gets it again.
 */
final class OperatorAnswers implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OperatorAnswers.class);

    private final StompSettings stomp;
    /** One sender per broker that brought a request, opened on the first answer through it. */
    private final Map<StompBroker, StompSender> replies = new ConcurrentHashMap<>();
    private final Fence fence;
    private final SupervisorMetrics metrics;

    OperatorAnswers(StompSettings stomp, Fence fence, SupervisorMetrics metrics) {
        this.fence = Objects.requireNonNull(fence, "fence is null");
        this.metrics = Objects.requireNonNull(metrics, "metrics is null");
        this.stomp = Objects.requireNonNull(stomp, "stomp is null");
    }

    /**
     * Sends {@code a} to {@code replyTo} on {@code broker} with the request's correlation id, unless this supervisor
     * was fenced out.
     */
    void answer(StompBroker broker, String replyTo, OperatorAnswer a) {
        Objects.requireNonNull(broker, "broker is null");
        if (!replyTo.startsWith("/remote-temp-queue/") && !replyTo.startsWith("/temp-queue/")) {
            LOG.warn("request {}: reply-to {} is not a temporary queue; not answered ({}: {})", a.requestId(),
                    replyTo, a.outcome(), a.detail());
            return;
        }
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("content-type", "application/json");
        if (a.requestId() != null) {
            headers.put(Supervisor.CORRELATION_ID, a.requestId());
        }
        try {
            fence.awaitLeaseToSend(); // a suspended lease: the answer waits for it
            replies.computeIfAbsent(broker, b -> new StompSender(stomp.pinnedTo(b)))
                    .send(replyTo, Json.write(a), headers);
            metrics.answers.inc();
        } catch (IOException | RuntimeException e) {
            metrics.answerSendFailures.inc();
            LOG.warn("request {}: answer {} could not be sent to {} (its operator gone?): {}", a.requestId(),
                    a.outcome(), replyTo, e.getMessage());
        }
    }

    @Override
    public void close() {
        replies.values().forEach(StompSender::close);
    }
}
