package org.eventindex.consumer;

import org.eventindex.message.ConsumerHeartbeat;
import org.eventindex.message.ConsumerReport;

import java.io.IOException;

/** Where reports and heartbeats go: the supervisor's control and heartbeat queues in the daemon. */
@FunctionalInterface
public interface ReportSink {

    /** Returns once the report is safely with the broker. */
    void send(ConsumerReport report) throws IOException;

    /**
     * Sends a heartbeat: transient (not persisted by the broker, dropped when it waited there more than
     * {@code ttlMillis}). Sinks without a supervisor behind them drop it.
     */
    default void heartbeat(ConsumerHeartbeat heartbeat, long ttlMillis) throws IOException {
    }
}
