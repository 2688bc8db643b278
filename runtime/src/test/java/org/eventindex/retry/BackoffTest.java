package org.eventindex.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The one backoff policy; its users (STOMP reconnects, producer retries, supervisor signal sends and hand-offs) test
 * only how they call it.
 */
class BackoffTest {

    @Test
    void growsByTheMultiplierUpToTheCap() {
        Backoff b = Backoff.doubling(Duration.ofSeconds(1), Duration.ofSeconds(5));
        assertEquals(List.of(1L, 2L, 4L, 5L, 5L), IntStream.range(0, 5).mapToObj(b::delay)
                .map(Duration::toSeconds).toList());
        Backoff triple = new Backoff(Duration.ofMillis(10), 3, Duration.ofSeconds(1), 0);
        assertEquals(List.of(10L, 30L, 90L, 270L, 810L, 1000L), IntStream.range(0, 6).mapToObj(triple::delay)
                .map(Duration::toMillis).toList());
        assertEquals(Duration.ofSeconds(1), new Backoff(Duration.ofSeconds(1), 1, Duration.ofSeconds(9), 0).delay(7));
    }

    @Test
    void neverOverflowsWhateverTheAttempt() {
        Backoff b = Backoff.doubling(Duration.ofMillis(500), Duration.ofSeconds(30));
        assertEquals(Duration.ofSeconds(30), b.delay(62));
        assertEquals(Duration.ofSeconds(30), b.delay(1000));
        assertEquals(Duration.ofSeconds(30), b.delay(Integer.MAX_VALUE));
        Backoff huge = Backoff.doubling(Duration.ofDays(1), Duration.ofNanos(Long.MAX_VALUE));
        assertEquals(Duration.ofNanos(Long.MAX_VALUE), huge.delay(Integer.MAX_VALUE));
    }

    @Test
    void jitterDrawsBetweenTheReducedAndTheFullWait() {
        Backoff b = new Backoff(Duration.ofMillis(100), 2, Duration.ofSeconds(1), 0.5);
        assertEquals(Duration.ofMillis(50), b.delay(0, 0.0));
        assertEquals(Duration.ofMillis(75), b.delay(0, 0.5));
        assertEquals(Duration.ofMillis(100), b.delay(0, 1.0));
        assertEquals(Duration.ofMillis(100), b.delay(0));
        assertEquals(Duration.ofMillis(200), b.delay(2, 0.0));
        assertEquals(Duration.ofMillis(500), b.delay(40, 0.0));
        Duration almostFull = b.delay(10, Math.nextDown(1.0));
        assertTrue(almostFull.compareTo(Duration.ofMillis(999)) > 0 && almostFull.compareTo(Duration.ofSeconds(1)) <= 0,
                almostFull::toString);
        Backoff full = b.withJitter(1);
        assertEquals(Duration.ZERO, full.delay(3, 0.0));
        assertEquals(Duration.ofMillis(200), full.delay(1, 1.0));
        Backoff none = b.withJitter(0);
        assertEquals(none.delay(3), none.delay(3, 0.0));
    }

    @Test
    void rejectsNonsense() {
        Duration s = Duration.ofSeconds(1);
        assertThrows(IllegalArgumentException.class, () -> Backoff.doubling(Duration.ZERO, s));
        assertThrows(IllegalArgumentException.class, () -> Backoff.doubling(Duration.ofSeconds(-1), s));
        assertThrows(IllegalArgumentException.class, () -> Backoff.doubling(Duration.ofSeconds(2), s));
        assertThrows(IllegalArgumentException.class, () -> Backoff.doubling(s, Duration.ofDays(365L * 300)));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(s, 0.5, s, 0));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(s, Double.NaN, s, 0));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(s, Double.POSITIVE_INFINITY, s, 0));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(s, 2, s, -0.1));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(s, 2, s, 1.5));
        assertThrows(NullPointerException.class, () -> Backoff.doubling(null, s));
        Backoff b = Backoff.doubling(s, s);
        assertThrows(IllegalArgumentException.class, () -> b.delay(-1));
        assertThrows(IllegalArgumentException.class, () -> b.delay(0, 1.5));
        assertThrows(IllegalArgumentException.class, () -> b.delay(0, Double.NaN));
    }
}
