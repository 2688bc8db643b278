package org.eventindex.consumer;

import io.prometheus.metrics.core.metrics.Counter;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.ops.DaemonMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The highest supervisor fencing token this consumer has seen on a signal ({@link ConsumerSignal#TOKEN_HEADER}),
 * and the refusal of a signal carrying a lower one: it comes from a supervisor that another one took over from, which
 * should have stopped itself (decision 0043) and did not, or was slow. Such a signal is dropped: acknowledged, not
 * processed, no report (logged and counted in {@value ConsumerMetrics#SIGNALS_STALE_TOKEN}). Not a NACK: the broker
 * would hand it back to a consumer that refuses it again, until the dead-letter queue. Not a FAILED report: the new
 * supervisor may have the same signal (same id) in the hands of another consumer, and would schedule a retry of it.
 * The new supervisor already re-sends, with its own token, every signal planned but not confirmed sent; a signal
 * the deposed one sent and journalled as sent before the takeover, and that reached this consumer only after a
 * signal of the new one, waits for its signal lease ({@code supervisor.signal.lease}) or an operator's resignal.
 * <p>
 * Kept in memory: a restarted consumer takes the first token it sees as the highest. Signals without the header (a
 * supervisor without a standby) are always accepted.
 */
final class SupervisorTokens {
    private static final Logger LOG = LoggerFactory.getLogger(SupervisorTokens.class);
    private final AtomicLong highest = new AtomicLong();
    private final Counter stale;

    SupervisorTokens(ConsumerMetrics metrics) {
        Objects.requireNonNull(metrics, "metrics is null");
        this.stale = metrics.signalsStaleToken;
        DaemonMetrics.gauge(metrics.registry(), ConsumerMetrics.SUPERVISOR_TOKEN, "The highest supervisor fencing"
                + " token seen on a signal; 0 before any (or without a standby supervisor).", highest::get);
    }

    /**
     * Whether a signal with this token header may be processed; raises the highest token seen.
     *
     * @param header    the header's value, null when absent
     * @param messageId names the message in the log
     */
    boolean admit(String header, String messageId) {
        if (header == null || header.isBlank()) {
            return true;
        }
        long token;
        try {
            token = Long.parseLong(header.trim());
        } catch (NumberFormatException e) {
            LOG.warn("signal message {}: header {} '{}' is not a number; taken as absent", messageId,
                    ConsumerSignal.TOKEN_HEADER, header);
            return true;
        }
        long seen = highest.accumulateAndGet(token, Math::max);
        if (token < seen) {
            stale.inc();
            LOG.warn("signal message {} dropped: it carries supervisor token {}, lower than token {} seen before (it"
                    + " comes from a supervisor that was taken over from); acknowledged, not processed", messageId,
                    token, seen);
            return false;
        }
        return true;
    }

    long highest() {
        return highest.get();
    }
}
