package org.eventindex.bench;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code bin/bench-consumer}'s options checked before anything starts. */
class ConsumerBenchOptionsTest {

    @Test
    void loadThreadsOutsideTheLoadersRangeAreAUsageErrorNamingTheOption() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = ConsumerBenchMain.execute(new String[]{"--load-threads", "1,65"}, new PrintStream(out),
                new PrintStream(err));
        String text = err.toString(StandardCharsets.UTF_8);
        assertEquals(2, status, text);
        assertTrue(text.contains("--load-threads must list numbers between 1 and 64 (or 0), got 65"), text);
        assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing ran");
    }

    @Test
    void helpListsTheLoadThreadsOption() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, ConsumerBenchMain.execute(new String[]{"--help"}, new PrintStream(out),
                new PrintStream(new ByteArrayOutputStream())));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("--load-threads"), out.toString());
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("--no-raw-bounds"), out.toString());
    }
}
