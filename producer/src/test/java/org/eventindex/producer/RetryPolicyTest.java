package org.eventindex.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.eventindex.retry.Backoff;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * How the producer uses its {@link Backoff} (tested in common-proto): one wait per transient failure, the shared
 * deadline, no retry of other failures. On a fake clock: sleeping advances it, nothing really waits.
 */
class RetryPolicyTest {
    private static final Backoff BACKOFF = new Backoff(Duration.ofSeconds(1), 2, Duration.ofSeconds(8), 0.5);
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final List<Duration> waits = new ArrayList<>();
    private double random = 1.0;

    private RetryPolicy policy(Duration deadline) {
        return new RetryPolicy(BACKOFF, deadline, d -> {
            waits.add(d);
            now.addAndGet(d.toNanos());
        }, now::get, () -> random);
    }

    @Test
    void waitsTheBackoffsDelayBeforeEachRetry() throws ProducerException {
        random = 0.25;
        AtomicInteger calls = new AtomicInteger();
        String result = policy(Duration.ofMinutes(5)).start().run("step", () -> {
            if (calls.incrementAndGet() < 7) {
                throw new ProducerException(ExitCode.TRANSIENT, "blip " + calls.get());
            }
            return "done";
        });
        assertEquals("done", result);
        assertEquals(IntStream.range(0, 6).mapToObj(i -> BACKOFF.delay(i, 0.25)).toList(), waits);
    }

    @Test
    void defaultsAreOneSecondDoublingToThirtyWithHalfJitterWithinFiveMinutes() {
        assertEquals(new Backoff(Duration.ofSeconds(1), 2, Duration.ofSeconds(30), 0.5), RetryPolicy.DEFAULT.backoff());
        assertEquals(Duration.ofMinutes(5), RetryPolicy.DEFAULT.deadline());
        assertEquals(Duration.ZERO, RetryPolicy.NONE.deadline());
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

    @ParameterizedTest
    @EnumSource(value = ExitCode.class, names = {"INTERNAL", "BAD_INPUT", "CONFIGURATION"})
    void neverRetriesFatalFailures(ExitCode code) {
        AtomicInteger calls = new AtomicInteger();
        ProducerException e = assertThrows(ProducerException.class, () -> policy(Duration.ofMinutes(5)).start()
                .run("step", () -> {
                    calls.incrementAndGet();
                    throw new ProducerException(code, "bad key");
                }));
        assertFalse(e.retriable());
        assertEquals(code, e.exitCode());
        assertEquals(1, calls.get());
        assertEquals(List.of(), waits);
    }

    @Test
    void noneMakesOneAttempt() {
        AtomicInteger calls = new AtomicInteger();
        assertThrows(ProducerException.class, () -> RetryPolicy.NONE.start().run("step", () -> {
            calls.incrementAndGet();
            throw new ProducerException(ExitCode.TRANSIENT, "down");
        }));
        assertEquals(1, calls.get());
    }
}
