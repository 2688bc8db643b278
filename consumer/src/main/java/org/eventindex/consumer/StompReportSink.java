package org.eventindex.consumer;

import org.eventindex.message.ConsumerHeartbeat;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.Json;
import org.eventindex.stomp.StompSender;

import java.io.IOException;
import java.util.Map;
import java.util.Objects;

/**
 * Sends reports as persistent JSON STOMP messages to the report queue, and heartbeats to the heartbeat queue as
 * non-persistent messages with an {@code expires} header, so that heartbeats sent while the supervisor is away neither
 * fill the broker's store nor reach it late (ActiveMQ discards an expired non-persistent message instead of
 * dead-lettering it).
 */
public final class StompReportSink implements ReportSink {
    private final StompSender sender;
    private final String queue;
    private final String heartbeatQueue;

    public StompReportSink(StompSender sender, String queue, String heartbeatQueue) {
        this.sender = Objects.requireNonNull(sender, "sender is null");
        this.queue = Objects.requireNonNull(queue, "queue is null");
        this.heartbeatQueue = Objects.requireNonNull(heartbeatQueue, "heartbeatQueue is null");
    }

    @Override
    public void send(ConsumerReport report) throws IOException {
        try {
            sender.send(queue, Json.write(report), Map.of("content-type", "application/json"));
        } catch (IOException e) {
            throw new IOException("cannot send " + report.status() + " report of dataset " + report.dataset()
                    + " to " + queue + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void heartbeat(ConsumerHeartbeat heartbeat, long ttlMillis) throws IOException {
        try {
            sender.send(heartbeatQueue, Json.write(heartbeat), Map.of("content-type", "application/json",
                    "persistent", "false", "expires", Long.toString(System.currentTimeMillis() + ttlMillis)));
        } catch (IOException e) {
            throw new IOException("cannot send the heartbeat of consumer " + heartbeat.consumer() + " to "
                    + heartbeatQueue + ": " + e.getMessage(), e);
        }
    }
}
