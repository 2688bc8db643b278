package org.eventindex.consumer;

import org.eventindex.message.ConsumerHeartbeat;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.Json;
import org.eventindex.stomp.StompSender;

import java.io.IOException;
import java.util.Map;
import java.util.Objects;

/**
 * Sends reports as persistent JSON STOMP messages to one queue, and heartbeats to the same queue as non-persistent
 * messages with an {@code expires} header, so that the heartbeats of a stopped supervisor's absence neither fill the
 * broker's store nor reach it late (ActiveMQ discards an expired non-persistent message instead of dead-lettering it).
 */
public final class StompReportSink implements ReportSink {
    private final StompSender sender;
    private final String queue;

    public StompReportSink(StompSender sender, String queue) {
        this.sender = Objects.requireNonNull(sender, "sender is null");
        this.queue = Objects.requireNonNull(queue, "queue is null");
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
            sender.send(queue, Json.write(heartbeat), Map.of("content-type", "application/json",
                    "persistent", "false", "expires", Long.toString(System.currentTimeMillis() + ttlMillis)));
        } catch (IOException e) {
            throw new IOException("cannot send the heartbeat of consumer " + heartbeat.consumer() + " to " + queue
                    + ": " + e.getMessage(), e);
        }
    }
}
