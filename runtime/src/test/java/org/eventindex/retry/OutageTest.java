package org.eventindex.retry;

import org.junit.jupiter.api.Test;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.MessageFormatter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OutageTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final Lines lines = new Lines();

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    @Test
    void oneLinePerRetryOfALoopAndOneWhenItAnswersAgain() {
        Outage kudu = new Outage("Kudu masters m1:7051", lines, now::get);
        kudu.reachable();
        assertEquals(List.of(), lines.said, "no outage, nothing to say");

        Backoff backoff = Backoff.doubling(Duration.ofSeconds(1), Duration.ofSeconds(30));
        for (int retry = 1; retry <= 8; retry++) {
            Duration wait = backoff.delay(retry - 1);
            assertTrue(kudu.retrying("connection refused", retry, wait));
            advance(wait);
        }
        assertTrue(kudu.down());
        kudu.reachable();
        assertFalse(kudu.down());
        kudu.reachable();

        assertEquals(9, lines.said.size(), String.join("\n", lines.said));
        assertEquals("WARN Kudu masters m1:7051 unreachable (connection refused); retry 1 in 1 s", lines.said.get(0));
        assertEquals("WARN Kudu masters m1:7051 unreachable (connection refused); retry 8 in 30 s", lines.said.get(7));
        // 1 + 2 + 4 + 8 + 16 + 30 + 30 + 30 s
        assertEquals("INFO Kudu masters m1:7051 reachable again after 2 min 1 s, 8 retries", lines.said.get(8));
    }

    /** Ten workers on the same broker failing together: one line per retry round, the others counted in the next. */
    @Test
    void threadsSharingAnOutageGiveOneLinePerRetryTogether() {
        Outages outages = new Outages(now::get);
        for (int round = 1; round <= 5; round++) {
            for (int worker = 0; worker < 10; worker++) {
                outages.of("STOMP broker mq:61613", lines).retrying("Connection refused", round, Duration.ofSeconds(8));
                advance(Duration.ofMillis(10));
            }
            advance(Duration.ofSeconds(8));
        }
        assertEquals(5, lines.said.size(), String.join("\n", lines.said));
        assertEquals("WARN STOMP broker mq:61613 unreachable (Connection refused); retry 1 in 8 s", lines.said.get(0));
        assertEquals("WARN STOMP broker mq:61613 unreachable (Connection refused); retry 2 in 8 s (9 more failed"
                + " attempts since the last line)", lines.said.get(1));
        outages.of("STOMP broker mq:61613", lines).reachable(); // 5 rounds of 10 x 10 ms + 8 s
        assertTrue(lines.said.get(5).startsWith("INFO STOMP broker mq:61613 reachable again after 41 s, 5 retries"),
                lines.said.get(5));
        // another dependency is another outage
        assertTrue(outages.of("STOMP broker mq2:61613", lines).retrying("Connection refused", 1, Duration.ofSeconds(1)));
    }

    /** A ZooKeeper client reconnecting every second for an hour: 7 lines for the first 64 s, then one a minute. */
    @Test
    void aLoopWithoutBackoffIsLoggedAtDoublingRetryCounts() {
        Outage zk = new Outage("ZooKeeper zk1:2181", lines, now::get);
        for (int retry = 1; retry <= 3600; retry++) {
            zk.retryingEvery("no server answers", retry, Duration.ofSeconds(1));
            advance(Duration.ofSeconds(1));
        }
        zk.reachable();
        assertEquals(7 + (3600 - 64) / 64 + 1, lines.said.size());
        assertEquals("WARN ZooKeeper zk1:2181 unreachable (no server answers); retry 1 in 1 s", lines.said.get(0));
        assertEquals("WARN ZooKeeper zk1:2181 unreachable (no server answers); retry 4 in 1 s (1 more failed attempt"
                + " since the last line)", lines.said.get(2));
        assertEquals("WARN ZooKeeper zk1:2181 unreachable (no server answers); retry 128 in 1 s (63 more failed"
                + " attempts since the last line)", lines.said.get(7));
        assertEquals("INFO ZooKeeper zk1:2181 reachable again after 1 h, 3600 retries", lines.said.get(lines.said.size()
                - 1));
    }

    @Test
    void waitsReadAsAnOperatorSaysThem() {
        assertEquals("250 ms", Outage.humane(Duration.ofMillis(250)));
        assertEquals("8 s", Outage.humane(Duration.ofMillis(7_600)));
        assertEquals("1 min", Outage.humane(Duration.ofSeconds(60)));
        assertEquals("2 min 10 s", Outage.humane(Duration.ofSeconds(130)));
        assertEquals("3 h 5 min", Outage.humane(Duration.ofMinutes(185).plusSeconds(7)));
        assertEquals("2 h", Outage.humane(Duration.ofHours(2)));
    }

    /** The lines a component logs, as "LEVEL message". */
    private static final class Lines extends AbstractLogger {
        final List<String> said = new ArrayList<>();

        Lines() {
            this.name = "test";
        }

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] arguments,
                                                   Throwable throwable) {
            said.add(level + " " + MessageFormatter.basicArrayFormat(pattern, arguments));
        }

        @Override public boolean isTraceEnabled() { return true; }
        @Override public boolean isTraceEnabled(Marker marker) { return true; }
        @Override public boolean isDebugEnabled() { return true; }
        @Override public boolean isDebugEnabled(Marker marker) { return true; }
        @Override public boolean isInfoEnabled() { return true; }
        @Override public boolean isInfoEnabled(Marker marker) { return true; }
        @Override public boolean isWarnEnabled() { return true; }
        @Override public boolean isWarnEnabled(Marker marker) { return true; }
        @Override public boolean isErrorEnabled() { return true; }
        @Override public boolean isErrorEnabled(Marker marker) { return true; }
    }
}
