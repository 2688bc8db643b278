package org.eventindex.kudu;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProgressBarTest {
    @Test
    void showsCountRateAndABarWhenTheTotalIsKnown() {
        ProgressBar bar = new ProgressBar(new PrintStream(new ByteArrayOutputStream()), () -> 0L, 1_000);
        assertEquals("ds [###############...............] 500 / 1,000 events  250 events/s",
                bar.line("ds", 500, 2_000_000_000L));
    }

    @Test
    void redrawsInPlaceWithoutATotal() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long[] now = {0};
        ProgressBar bar = new ProgressBar(new PrintStream(out, true, StandardCharsets.UTF_8), () -> now[0], -1);
        now[0] = 1_000_000_000L;
        bar.update("ds", 40_000);
        now[0] = 2_000_000_000L;
        bar.update("ds", 100_000);
        bar.done();
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("\rds 40,000 events  40,000 events/s\rds 100,000 events  50,000 events/s"), text);
        assertTrue(text.endsWith(System.lineSeparator()), text);
    }
}
