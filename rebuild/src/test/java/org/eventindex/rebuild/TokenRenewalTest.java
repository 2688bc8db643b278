package org.eventindex.rebuild;

import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.security.token.TokenIdentifier;
import org.eventindex.testing.Await;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link TokenRenewal}'s schedule with a renewer that stands for the NameNode (the real one: TokenRenewalIT). */
class TokenRenewalTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void halfTheTimeLeftThenAQuarterOnFailureWithinBounds() {
        assertEquals(43_200_000, TokenRenewal.nextDelay(0, 86_400_000), "a day's token: renewed after 12 h");
        assertEquals(1_000, TokenRenewal.nextDelay(10_000, 10_500), "at least a second");
        assertEquals(60_000, TokenRenewal.retryDelay(0, 86_400_000), "failures tried again within a minute");
        assertEquals(2_500, TokenRenewal.retryDelay(0, 10_000));
        assertEquals(1_000, TokenRenewal.retryDelay(0, 100));
    }

    @Test
    void aTokenTheDriverCannotRenewFailsTheGrantNamingItsService() {
        List<String> log = new CopyOnWriteArrayList<>();
        try (TokenRenewal renewal = new TokenRenewal(t -> {
            throw new IOException("renewer mismatch");
        }, Clock.systemUTC(), log::add)) {
            IOException e = assertThrows(IOException.class, () -> renewal.track(credentials("nn1:8020")));
            assertEquals("cannot renew the HDFS delegation token of nn1:8020 as its renewer: renewer mismatch",
                    e.getMessage());
        }
    }

    @Test
    void anHdfsTokenWithoutItsRenewerOnTheClassPathFailsTheGrant() {
        try (TokenRenewal renewal = new TokenRenewal(t -> {
            throw new UnsupportedOperationException("Token renewal is not supported for HDFS_DELEGATION_TOKEN tokens");
        }, Clock.systemUTC(), line -> { })) {
            IOException e = assertThrows(IOException.class, () -> renewal.track(credentials("ha-hdfs:ns1")));
            assertEquals("cannot renew the HDFS delegation token of ha-hdfs:ns1: Token renewal is not supported for"
                    + " HDFS_DELEGATION_TOKEN tokens (the HDFS client's token renewer is not on the driver's class"
                    + " path)", e.getMessage());
        }
    }

    @Test
    void aTokenOfAKindWithoutRenewerIsLeftAndTheOthersRenewed() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        Credentials two = credentials("kms:9600");
        two.getToken(new Text("kms:9600")).setKind(new Text("kms-dt"));
        two.addAll(credentials("nn1:8020"));
        AtomicInteger renewed = new AtomicInteger();
        try (TokenRenewal renewal = new TokenRenewal(t -> {
            if (t.getService().toString().startsWith("kms")) {
                // what Token.renew says of a kind without a TokenRenewer
                throw new UnsupportedOperationException("Token renewal is not supported for KMS_DT tokens");
            }
            renewed.incrementAndGet();
            return System.currentTimeMillis() + 86_400_000L;
        }, Clock.systemUTC(), log::add)) {
            renewal.track(two);
            assertEquals(1, renewal.renewals());
            assertEquals(1, renewed.get());
            assertEquals(List.of("the kms-dt token of kms:9600 is not renewed: Token renewal is not supported for"
                    + " KMS_DT tokens"), log);
        }
    }

    @Test
    void aFailedRenewalIsTriedAgainAndATokenAtItsMaximumLifetimeIsLeft() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        long max = System.currentTimeMillis() + 6_000;
        // 1: valid for 2 s more; 2: the NameNode does not answer; 3: valid until the maximum lifetime; 4: the same
        TokenRenewal.Renewer nameNode = t -> switch (calls.incrementAndGet()) {
            case 1 -> System.currentTimeMillis() + 2_000;
            case 2 -> throw new IOException("Connection refused");
            default -> max;
        };
        try (TokenRenewal renewal = new TokenRenewal(nameNode, Clock.systemUTC(), log::add)) {
            renewal.track(credentials("nn1:8020"));
            Await.until("the token left at its maximum lifetime", WAIT,
                    () -> log.stream().anyMatch(l -> l.contains("is at its maximum lifetime")));
            assertEquals(4, calls.get(), "log: " + log);
            assertEquals(3, renewal.renewals(), "the first, the one after the failure, the one at the maximum");
            assertTrue(log.get(0).startsWith("cannot renew the HDFS delegation token of nn1:8020 (Connection refused);"
                    + " trying again in 1 s"), log.get(0));
            assertTrue(log.get(1).startsWith("renewed the HDFS delegation token of nn1:8020 until "), log.get(1));
            assertTrue(log.get(3).startsWith("the HDFS delegation token of nn1:8020 is at its maximum lifetime"),
                    log.get(3));
        }
    }

    private static Credentials credentials(String service) {
        Token<TokenIdentifier> token = new Token<>();
        token.setKind(new Text("HDFS_DELEGATION_TOKEN"));
        token.setService(new Text(service));
        Credentials c = new Credentials();
        c.addToken(new Text(service), token);
        return c;
    }
}
