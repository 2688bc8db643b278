package org.eventindex.deploy.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eventindex.deploy.BrokerLogins;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker pair as the chaos cluster runs it (decision 0038's; no longer shipped), without the rest of the system:
 * two broker processes on one shared KahaDB, a watchdog process beside each. Only the lock holder listens; a message stored
 * before kill -9 of the active broker is delivered by the standby that took over; a stopped (SIGSTOP) active broker
 * is killed by its watchdog and the other takes over again; a restarted broker comes back as the standby.
 */
class BrokerPairIT {
    private static final Duration TIMEOUT = Duration.ofMinutes(1);
    private static final String QUEUE = "/queue/eventindex.test.pair";

    @TempDir
    Path work;

    @Test
    void theStandbyTakesOverAfterAKillAndAfterAPauseWithTheStoredMessages() throws Exception {
        BrokerLogins logins = BrokerLogins.random();
        Path secrets = work.resolve("secrets");
        logins.writeTo(secrets);
        try (BrokerPair pair = BrokerPair.start(work, secrets, work.resolve("logs"),
                System.getProperty("java.class.path"), TIMEOUT, s -> { })) {
            ChildProcess one = pair.brokers().get(0);
            ChildProcess two = pair.brokers().get(1);
            assertEquals(one, pair.awaitActive(TIMEOUT));
            assertFalse(pair.listens(two), "the standby must not listen while the other holds the store lock");
            StompSettings admin = logins.settings(pair.endpoints(), BrokerLogins.ADMIN);
            try (StompSender sender = new StompSender(admin)) {
                sender.send(QUEUE, "before the kill".getBytes(StandardCharsets.UTF_8), Map.of());
            }

            BrokerTakeovers takeovers = new BrokerTakeovers(pair, admin);
            BrokerTakeovers.Takeover killed = takeovers.measure(false, one, TIMEOUT);
            assertEquals("broker-2", killed.to());
            assertNull(killed.killed());
            assertEquals("before the kill", receive(admin), "the message stored by broker-1, from broker-2");

            one.start();
            ChaosWait.until("broker-1 back as the standby (alive, not listening) while broker-2 listens", TIMEOUT,
                    () -> one.isAlive() && pair.listens(two));
            assertFalse(pair.listens(one));

            BrokerTakeovers.Takeover paused = takeovers.measure(true, two, TIMEOUT);
            assertEquals("broker-1", paused.to());
            assertTrue(paused.killed() != null && paused.killed().compareTo(paused.accepting()) <= 0,
                    paused.toString());
            assertFalse(two.isAlive(), "the watchdog killed the stopped broker");
            assertTrue(pair.watchdogs().stream().allMatch(ChildProcess::isAlive));
        }
    }

    private static String receive(StompSettings settings) throws Exception {
        CompletableFuture<String> got = new CompletableFuture<>();
        try (StompConnection c = StompConnection.connect(settings)) {
            c.subscribe(QUEUE, 1, m -> {
                try {
                    c.ack(m);
                } catch (java.io.IOException e) {
                    got.completeExceptionally(e);
                }
                got.complete(new String(m.body(), StandardCharsets.UTF_8));
            });
            return got.get(30, TimeUnit.SECONDS);
        }
    }
}
