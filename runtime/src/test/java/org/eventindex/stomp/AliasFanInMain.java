package org.eventindex.stomp;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eventindex.testing.Await;

/**
 * The child JVM of {@link BrokerAliasTest}: a {@link StompFanIn} on {@code args[0]} ({@code alias:port}) with the
 * JVM's own resolver, which the parent points at a hosts file ({@code -Djdk.net.hosts.file}). Prints
 * {@code SUBSCRIBED <brokers>} once subscribed on {@code args[1]} brokers, then {@code RECEIVED <body> VIA <broker>}
 * for each message, and exits 0 after {@code args[1]} messages (1 when they do not come within a minute; not subscribed
 * within a minute: an AssertionError).
 */
public final class AliasFanInMain {
    private AliasFanInMain() {
    }

    public static void main(String[] args) throws Exception {
        int expected = Integer.parseInt(args[1]);
        CountDownLatch received = new CountDownLatch(expected);
        StompSettings settings = StompSettings.of(StompEndpoint.parseList(args[0]), null, null)
                .withResolveInterval(Duration.ofMillis(500));
        try (StompFanIn fanIn = new StompFanIn("alias", settings, "/queue/test.alias", 1, broker -> m -> {
            System.out.println("RECEIVED " + new String(m.body(), StandardCharsets.UTF_8) + " VIA " + broker);
            received.countDown();
        }, StompFanIn.RECONNECT_BACKOFF, null)) {
            fanIn.start();
            Await.until("subscribed on " + expected + " brokers", Duration.ofMinutes(1),
                    () -> fanIn.subscriptions().size() == expected && fanIn.notSubscribed().isEmpty());
            Set<String> brokers = new TreeSet<>(fanIn.subscriptions().keySet());
            System.out.println("SUBSCRIBED " + brokers);
            System.out.flush();
            boolean all = received.await(1, TimeUnit.MINUTES);
            System.out.flush();
            System.exit(all ? 0 : 1);
        }
    }
}
