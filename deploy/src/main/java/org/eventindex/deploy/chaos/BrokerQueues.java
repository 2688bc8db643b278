package org.eventindex.deploy.chaos;

import org.eventindex.message.Queues;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompMessage;
import org.eventindex.stomp.StompSettings;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * What each broker of the alias still holds of the flow's queues, browsed (ActiveMQ's STOMP {@code browser:true}: the
 * messages stay where they are) as the admin login, through each broker's own proxy. After a round is drained every
 * queue must be empty on every broker: a message a broker stored and never delivered (a broker that came back after a
 * kill and was never read again) shows here, even when its content also came through another broker.
 */
final class BrokerQueues {
    /** The queues of the flow that must be empty when the cluster is quiet (heartbeats come and go all the time). */
    static final List<String> DRAINED = List.of(Queues.SUPERVISOR, Queues.SUPERVISOR_CONTROL, Queues.CONSUMER);
    private static final Duration BROWSE_TIMEOUT = Duration.ofSeconds(5);

    private final List<String> endpoints;
    private final List<String> queues;
    private final Function<String, StompSettings> admin;

    /**
     * @param queues the queues to browse on each broker ({@link #DRAINED} for a round)
     * @param admin  the admin login's settings for one broker endpoint
     */
    BrokerQueues(List<String> endpoints, List<String> queues, Function<String, StompSettings> admin) {
        this.endpoints = List.copyOf(endpoints);
        this.queues = List.copyOf(queues);
        this.admin = Objects.requireNonNull(admin, "admin is null");
    }

    /**
     * Every (broker, queue) that holds a message, with how many: {@code "127.0.0.1:PORT /queue/..."} to the count, or
     * to -1 when that broker could not be browsed.
     */
    Map<String, Integer> unread() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (String endpoint : endpoints) {
            for (String queue : queues) {
                int n = count(endpoint, queue);
                if (n != 0) {
                    out.put(endpoint + " " + queue, n);
                }
            }
        }
        return out;
    }

    private int count(String endpoint, String queue) {
        BlockingQueue<StompMessage> received = new LinkedBlockingQueue<>();
        try (StompConnection c = StompConnection.connect(admin.apply(endpoint))) {
            // A failed connection sends nothing more: the browse then times out and counts as not known to be empty.
            c.subscribe(queue, 1000, Map.of("browser", "true", "ack", "auto"), received::add);
            int n = 0;
            long deadline = System.nanoTime() + BROWSE_TIMEOUT.toNanos();
            while (true) {
                StompMessage m = received.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (m == null) {
                    return -1; // timed out: not known to be empty
                }
                if ("end".equals(m.headers().get("browser"))) {
                    return n;
                }
                n++;
            }
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
