package org.eventindex.supervisor;

import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Json;
import org.eventindex.stomp.StompSender;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Puts a signal on the consumers' queue: the {@link SignalDispatcher}'s transport. First the Kudu range of the
 * signal's epoch is made to exist, since a consumer writes into it as soon as it has the signal; then, unless this
 * supervisor was fenced out, the signal goes out with its id, its dataset and (with a standby) the fencing token in the
 * headers. It decides nothing: whether a signal is still wanted is the engine's answer, asked by the dispatcher before
 * each attempt.
 */
final class SignalSender implements SignalDispatcher.Transport {
    private final StompSender stomp;
    private final String queue;
    private final EpochRanges ranges;
    private final Fence fence;
    private final SupervisorMetrics metrics;

    /**
     * @param stomp the connection signals go out on (its owner closes it)
     * @param queue the consumers' queue ({@code supervisor.queue.consumer})
     */
    SignalSender(StompSender stomp, String queue, EpochRanges ranges, Fence fence, SupervisorMetrics metrics) {
        this.stomp = Objects.requireNonNull(stomp, "stomp is null");
        this.queue = Objects.requireNonNull(queue, "queue is null");
        this.ranges = Objects.requireNonNull(ranges, "ranges is null");
        this.fence = Objects.requireNonNull(fence, "fence is null");
        this.metrics = Objects.requireNonNull(metrics, "metrics is null");
    }

    @Override
    public void send(ConsumerSignal signal) throws IOException {
        try {
            ranges.ensure(signal.epoch());
        } catch (IOException | RuntimeException e) {
            metrics.epochRangeFailures.inc();
            throw new IOException("Kudu range of epoch " + signal.epoch() + " for dataset " + signal.dataset()
                    + " cannot be created: " + e.getMessage(), e);
        }
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("content-type", "application/json");
        headers.put("eventindex-signal-id", signal.signalId());
        headers.put("eventindex-dataset", signal.dataset());
        fence.token().ifPresent(t -> headers.put(Supervisor.SIGNAL_TOKEN_HEADER, Long.toString(t)));
        fence.awaitLeaseToSend(); // a suspended lease: the signal waits for it
        stomp.send(queue, Json.write(signal), headers);
    }
}
