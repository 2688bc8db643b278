package org.eventindex.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PreflightTest {
    private static Preflight.Check check(String name, DependencyChecks.Check probe) {
        return new Preflight.Check(name, "thing " + name, "fix " + name, probe);
    }

    @Test
    void aProbeThatHangsFailsAfterTheTimeoutNamingIt() {
        CountDownLatch never = new CountDownLatch(1);
        long start = System.nanoTime();
        List<Preflight.Result> results = Preflight.run(List.of(check("hangs", never::await), check("next", () -> {
        })), Duration.ofMillis(300));
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertFalse(results.get(0).ok());
        assertEquals("no answer within 300 ms", results.get(0).reason());
        assertEquals("fix hangs", results.get(0).fix());
        assertTrue(results.get(1).ok(), "the next check still runs");
        assertTrue(millis >= 300 && millis < 5000, "took " + millis + " ms");
    }

    @Test
    void oneLinePerCheckWithTheReasonAndTheFix() {
        List<Preflight.Result> results = Preflight.run(List.of(check("ok", () -> {
        }), check("broken", () -> {
            throw new IOException("refused", new IllegalStateException("because"));
        })), Duration.ofSeconds(5));
        String[] lines = Preflight.text(results).split("\\R");
        assertEquals(3, lines.length);
        assertTrue(lines[0].matches("OK   ok {15}thing ok \\(\\d+ ms\\)"), lines[0]);
        assertEquals("FAIL broken           thing broken: refused: because; fix: fix broken", lines[1]);
        assertEquals("1 of 2 checks failed", lines[2]);
        assertFalse(Preflight.allOk(results));
    }

    @Test
    void aCheckThatCouldNotRunSendsToTheOneThatFailed() {
        Preflight.Result r = Preflight.run(check("kudu", () -> {
            throw new Preflight.NotTried("login");
        }), Duration.ofSeconds(5));
        assertFalse(r.ok());
        assertEquals("not tried: login failed", r.reason());
        assertEquals("fix login first", r.fix());
    }

    @Test
    void jsonForMachines() throws Exception {
        List<Preflight.Result> results = Preflight.run(List.of(check("ok", () -> {
        })), Duration.ofSeconds(5));
        JsonNode doc = new ObjectMapper().readTree(Preflight.json(results));
        assertTrue(doc.get("ok").asBoolean());
        assertEquals("ok", doc.get("checks").get(0).get("name").asText());
        assertEquals("thing ok", doc.get("checks").get(0).get("thing").asText());
        assertTrue(doc.get("checks").get(0).get("ok").asBoolean());
    }

    @Test
    void aTimeoutMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> Preflight.run(List.of(), Duration.ZERO));
    }
}
