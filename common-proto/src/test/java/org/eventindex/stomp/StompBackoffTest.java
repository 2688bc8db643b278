package org.eventindex.stomp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class StompBackoffTest {

    @Test
    void doublesUpToTheCapWithJitterBetweenHalfAndFull() {
        StompBackoff b = new StompBackoff(Duration.ofMillis(100), Duration.ofSeconds(1));
        assertEquals(Duration.ofMillis(100), b.delay(0, 0.999999));
        assertEquals(Duration.ofMillis(50), b.delay(0, 0.0));
        assertEquals(Duration.ofMillis(400), b.delay(2, 0.999999));
        assertEquals(Duration.ofMillis(1000), b.delay(10, 0.999999));
        assertEquals(Duration.ofMillis(1000), b.delay(Integer.MAX_VALUE, 0.999999));
        assertEquals(Duration.ofMillis(500), b.delay(40, 0.0));
    }

    @Test
    void rejectsNonsense() {
        assertThrows(IllegalArgumentException.class, () -> new StompBackoff(Duration.ZERO, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new StompBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> StompBackoff.DEFAULT.delay(-1, 0));
    }
}
