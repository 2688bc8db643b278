package org.eventindex.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Backoff, jitter and deadline on a fake clock: sleeping advances it, nothing really waits. */
class RetryPolicyTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final List<Duration> waits = new ArrayList<>();
    private double jitter = 1.0;

    private RetryPolicy policy(Duration deadline) {
        return new RetryPolicy(Duration.ofSeconds(1), Duration.ofSeconds(8), deadline, d -> {
            waits.add(d);
            now.addAndGet(d.toNanos());
        }, now::get, () -> jitter);
    }

    @Test
    void retriesTransientFailuresWithCappedDoublingDelays() throws ProducerException {
        AtomicInteger calls = new AtomicInteger();
        String result = policy(Duration.ofMinutes(5)).start().run("step", () -> {
            if (calls.incrementAndGet() < 7) {
                throw new ProducerException(ExitCode.TRANSIENT, "blip " + calls.get());
            }
            return "done";
        });
        assertEquals("done", result);
        assertEquals(List.of(1, 2, 4, 8, 8, 8), waits.stream().map(d -> (int) d.toSeconds()).toList());
    }

    @Test
    void jitterDrawsBetweenHalfAndFullDelay() throws ProducerException {
        jitter = 0.0;
        AtomicInteger calls = new AtomicInteger();
        policy(Duration.ofMinutes(5)).start().run("step", () -> {
            if (calls.incrementAndGet() < 3) {
                throw new ProducerException(ExitCode.TRANSIENT, "blip");
            }
            return null;
        });
        assertEquals(List.of(Duration.ofMillis(500), Duration.ofSeconds(1)), waits);
    }

    @Test
    void givesUpWhenTheNextWaitWouldPassTheDeadline() {
        AtomicInteger calls = new AtomicInteger();
        long start = now.get();
        ProducerException e = assertThrows(ProducerException.class, () -> policy(Duration.ofSeconds(20)).start()
                .run("step", () -> {
                    calls.incrementAndGet();
                    throw new ProducerException(ExitCode.TRANSIENT, "down");
                }));
        assertEquals(ExitCode.TRANSIENT, e.exitCode());
        // waits 1 + 2 + 4 + 8 = 15 s; the next 8 s would end after 20 s
        assertEquals(5, calls.get());
        assertTrue(now.get() - start <= Duration.ofSeconds(20).toNanos());
        assertTrue(e.getMessage().contains("gave up after 5 attempts"), e.getMessage());
        assertEquals(1, e.getSuppressed().length);
    }

    @Test
    void deadlineIsSharedByAllStepsOfARun() throws ProducerException {
        RetryPolicy.Budget budget = policy(Duration.ofSeconds(10)).start();
        AtomicInteger calls = new AtomicInteger();
        budget.run("first", () -> {
            if (calls.incrementAndGet() < 4) {
                throw new ProducerException(ExitCode.TRANSIENT, "blip");
            }
            return null;
        }); // used 1 + 2 + 4 = 7 s
        ProducerException e = assertThrows(ProducerException.class, () -> budget.run("second", () -> {
            throw new ProducerException(ExitCode.TRANSIENT, "down");
        }));
        // the first step succeeded at its 4th call; the second had only the 3 s it left, room for 2 attempts
        assertEquals(4, calls.get());
        assertTrue(e.getMessage().contains("gave up after 2 attempts"), e.getMessage());
    }

    @Test
    void neverRetriesOtherFailures() {
        AtomicInteger calls = new AtomicInteger();
        ProducerException e = assertThrows(ProducerException.class, () -> policy(Duration.ofMinutes(5)).start()
                .run("step", () -> {
                    calls.incrementAndGet();
                    throw new ProducerException(ExitCode.CONFIGURATION, "bad key");
                }));
        assertEquals(ExitCode.CONFIGURATION, e.exitCode());
        assertEquals(1, calls.get());
        assertEquals(List.of(), waits);
    }

    @Test
    void refusesACapBelowTheFirstDelay() {
        assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(Duration.ofSeconds(2),
                Duration.ofSeconds(1), Duration.ofSeconds(10), d -> { }, () -> 0, () -> 0));
    }
}
