package org.eventindex.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
    private final List<Duration> waits = new ArrayList<>();
    private final RetryPolicy policy = new RetryPolicy(3, Duration.ofSeconds(1), waits::add);

    @Test
    void retriesTransientFailuresWithDoublingDelays() throws ProducerException {
        AtomicInteger calls = new AtomicInteger();
        String result = policy.run("step", () -> {
            if (calls.incrementAndGet() < 3) {
                throw new ProducerException(ExitCode.TRANSIENT, "blip " + calls.get());
            }
            return "done";
        });
        assertEquals("done", result);
        assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(2)), waits);
    }

    @Test
    void givesUpAfterMaxAttemptsWithEarlierFailuresSuppressed() {
        ProducerException e = assertThrows(ProducerException.class, () -> policy.run("step", () -> {
            throw new ProducerException(ExitCode.TRANSIENT, "down");
        }));
        assertEquals(ExitCode.TRANSIENT, e.exitCode());
        assertEquals(1, e.getSuppressed().length);
        assertEquals(2, waits.size());
    }

    @Test
    void neverRetriesOtherFailures() {
        AtomicInteger calls = new AtomicInteger();
        ProducerException e = assertThrows(ProducerException.class, () -> policy.run("step", () -> {
            calls.incrementAndGet();
            throw new ProducerException(ExitCode.CONFIGURATION, "bad key");
        }));
        assertEquals(ExitCode.CONFIGURATION, e.exitCode());
        assertEquals(1, calls.get());
        assertEquals(List.of(), waits);
    }
}
