package org.eventindex.stomp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.eventindex.retry.Backoff;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StompFanIn} on three independent brokers behind one alias: real ActiveMQ brokers listening on 127.0.0.2,
 * 127.0.0.3 and 127.0.0.4 on one port, the alias {@code mq.test} resolved by a resolver the test changes.
 */
class StompFanInTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Backoff FAST = Backoff.doubling(Duration.ofMillis(50), Duration.ofMillis(500)).withJitter(0.5);
    private static final String ALIAS = "mq.test";
    private static final String QUEUE = "/queue/test.fanin";
    private static final List<String> ADDRESSES = List.of("127.0.0.2", "127.0.0.3", "127.0.0.4");

    @TempDir
    Path dir;
    private final List<EmbeddedBroker> brokers = new ArrayList<>();
    /** What {@link #ALIAS} resolves to now. */
    private volatile List<String> alias = ADDRESSES;
    private final AtomicLong resolutions = new AtomicLong();
    private StompSettings settings;

    @BeforeEach
    void startBrokers() {
        int port = Ports.freeForRestart();
        for (String a : ADDRESSES) {
            brokers.add(EmbeddedBroker.startOn(dir.resolve(a), a, port));
        }
        BrokerResolver resolver = host -> {
            resolutions.incrementAndGet();
            List<String> now = alias;
            if (!host.equals(ALIAS) || now == null) {
                throw new UnknownHostException(host);
            }
            List<InetAddress> out = new ArrayList<>();
            for (String a : now) {
                out.add(InetAddress.getByName(a));
            }
            return out;
        };
        settings = StompSettings.of(StompEndpoint.parseList(ALIAS + ":" + port), null, null)
                .withResolver(resolver).withResolveInterval(Duration.ofMillis(200));
    }

    @AfterEach
    void stopBrokers() {
        brokers.forEach(EmbeddedBroker::close);
    }

    /** Sends {@code body} through the broker listening on {@code address} alone. */
    private void sendThrough(String address, String body) throws IOException {
        StompSettings one = StompSettings.of(StompEndpoint.parseList(address + ":" + brokers.get(0).stompPort()), null,
                null);
        try (StompSender sender = new StompSender(one)) {
            sender.send(QUEUE, body.getBytes(StandardCharsets.UTF_8), Map.of());
        }
    }

    private static String body(StompMessage m) {
        return new String(m.body(), StandardCharsets.UTF_8);
    }

    @Test
    void aMessageOnEachBrokerIsRead() throws Exception {
        Set<String> seen = ConcurrentHashMap.newKeySet();
        try (StompFanIn fanIn = new StompFanIn("all", settings, QUEUE, 1, broker -> m -> seen.add(body(m)
                + " via " + broker.address().getHostAddress()), FAST, null)) {
            fanIn.start();
            Await.until("subscribed on the three brokers", WAIT, () -> fanIn.notSubscribed().isEmpty()
                    && fanIn.subscriptions().size() == 3);
            for (String a : ADDRESSES) {
                sendThrough(a, "to " + a);
            }
            Await.until("the three messages handled", WAIT, () -> seen.size() == 3);
            assertEquals(ADDRESSES.stream().map(a -> "to " + a + " via " + a).collect(Collectors.toSet()), seen);
            assertEquals(Set.of(ALIAS + ":" + brokers.get(0).stompPort() + "/127.0.0.2",
                    ALIAS + ":" + brokers.get(0).stompPort() + "/127.0.0.3",
                    ALIAS + ":" + brokers.get(0).stompPort() + "/127.0.0.4"), fanIn.subscriptions().keySet());
        }
    }

    @Test
    void aMessageHeldByAStoppedBrokerIsReadWhenItIsBackWhileTheOthersCarryOn() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        StompMessageHandler handler = m -> {
            seen.add(body(m));
            if (body(m).equals("held") && holding.getCount() > 0) {
                // the message stays unacknowledged on its broker, which is stopped under it
                holding.countDown();
                release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
        };
        try (StompFanIn fanIn = new StompFanIn("held", settings, QUEUE, 1, broker -> handler, FAST, null)) {
            fanIn.start();
            Await.until("subscribed on the three brokers", WAIT, () -> fanIn.subscriptions().size() == 3
                    && fanIn.notSubscribed().isEmpty());
            sendThrough("127.0.0.3", "held");
            assertTrue(holding.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the held message never arrived");
            brokers.get(1).stop();
            release.countDown();
            Await.until("127.0.0.3 seen down", WAIT, () -> fanIn.notSubscribed().size() == 1);
            assertTrue(fanIn.notSubscribed().get(0).endsWith("/127.0.0.3"), fanIn.notSubscribed().toString());
            assertTrue(fanIn.isConnected());

            sendThrough("127.0.0.2", "meanwhile 2");
            sendThrough("127.0.0.4", "meanwhile 4");
            Await.until("the other brokers read meanwhile", WAIT, () -> seen.containsAll(
                    List.of("meanwhile 2", "meanwhile 4")));
            assertEquals(1, held(seen), "read once, before its broker stopped: " + seen);

            // a broker restarted from its store does not mark the message redelivered (ActiveMQ keeps no redelivery
            // count on disk by default): it is the same message again, which the handlers' idempotence absorbs
            brokers.get(1).restart(); // same port, same KahaDB store
            Await.until("the held message read from the broker back", WAIT, () -> held(seen) == 2);
            Await.until("subscribed on the three brokers again", WAIT, () -> fanIn.notSubscribed().isEmpty());
            // the handler records the message before it returns and the ACK goes out: wait for the broker to count it
            Await.until("acknowledged on the broker it was held by", WAIT, () -> brokers.get(1).queueSize(QUEUE) == 0);
        }
    }

    private static long held(List<String> seen) {
        return seen.stream().filter("held"::equals).count();
    }

    @Test
    void brokersJoiningAndLeavingTheAliasAreFollowed() throws Exception {
        alias = ADDRESSES.subList(0, 2);
        Set<String> seen = ConcurrentHashMap.newKeySet();
        try (StompFanIn fanIn = new StompFanIn("follow", settings, QUEUE, 1, broker -> m -> seen.add(body(m)), FAST,
                null)) {
            fanIn.start();
            Await.until("subscribed on the two brokers of the alias", WAIT, () -> fanIn.subscriptions().size() == 2
                    && fanIn.notSubscribed().isEmpty());
            sendThrough("127.0.0.4", "before joining");
            alias = ADDRESSES;
            Await.until("the joining broker subscribed", WAIT, () -> fanIn.subscriptions().size() == 3
                    && fanIn.notSubscribed().isEmpty());
            Await.until("its message read", WAIT, () -> seen.contains("before joining"));

            alias = ADDRESSES.subList(1, 3);
            Await.until("the leaving broker dropped", WAIT, () -> fanIn.subscriptions().size() == 2);
            assertTrue(fanIn.subscriptions().keySet().stream().noneMatch(b -> b.endsWith("/127.0.0.2")),
                    fanIn.subscriptions().toString());
            sendThrough("127.0.0.2", "after leaving");
            sendThrough("127.0.0.3", "still in");
            Await.until("the broker still in the alias read", WAIT, () -> seen.contains("still in"));
            assertFalse(seen.contains("after leaving"));
            assertEquals(1, brokers.get(0).queueSize(QUEUE), "left on the broker that left the alias");
        }
    }

    @Test
    void stoppingLetsEveryBrokersMessageInProgressFinishAndBeAcknowledged() throws Exception {
        CountDownLatch bothBusy = new CountDownLatch(3);
        CountDownLatch release = new CountDownLatch(1);
        StompFanIn fanIn = new StompFanIn("stop", settings, QUEUE, 1, broker -> m -> {
            bothBusy.countDown();
            release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
        }, FAST, null);
        fanIn.start();
        Await.until("subscribed on the three brokers", WAIT, () -> fanIn.subscriptions().size() == 3
                && fanIn.notSubscribed().isEmpty());
        for (String a : ADDRESSES) {
            sendThrough(a, "in progress on " + a);
        }
        assertTrue(bothBusy.await(WAIT.toSeconds(), TimeUnit.SECONDS), "not every broker's message in progress");
        Thread stopper = new Thread(() -> fanIn.stop(WAIT), "stopper");
        stopper.start();
        Await.until("the stop waiting for the handlers", WAIT, () -> stopper.getState() == Thread.State.WAITING
                || stopper.getState() == Thread.State.TIMED_WAITING);
        release.countDown();
        stopper.join(WAIT.toMillis());
        assertFalse(stopper.isAlive(), "the stop did not end");
        assertEquals(3, fanIn.handled(), "every message acknowledged");
        for (EmbeddedBroker b : brokers) {
            // the broker counts an ACK when it has processed it, not when the client sent it
            Await.until("every message acknowledged on " + b.stompEndpoints(), WAIT, () -> b.queueSize(QUEUE) == 0);
        }
    }

    @Test
    void aNameThatFailsToResolveKeepsItsBrokers() throws Exception {
        try (StompFanIn fanIn = new StompFanIn("keep", settings, QUEUE, 1, broker -> m -> { }, FAST, null)) {
            fanIn.start();
            Await.until("subscribed on the three brokers", WAIT, () -> fanIn.subscriptions().size() == 3
                    && fanIn.notSubscribed().isEmpty());
            long before = resolutions.get();
            alias = null; // the name does not resolve
            Await.until("three resolutions failed", WAIT, () -> resolutions.get() >= before + 3);
            assertEquals(3, fanIn.subscriptions().size(), fanIn.subscriptions().toString());
            assertTrue(fanIn.notSubscribed().isEmpty(), fanIn.notSubscribed().toString());
        }
    }
}
