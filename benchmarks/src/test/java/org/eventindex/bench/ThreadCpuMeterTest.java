package org.eventindex.bench;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The meter's reading of a /proc thread stat line and its thread roles. */
class ThreadCpuMeterTest {

    @Test
    void readsUtimeAndStimeAfterTheCommandName() {
        // a command name with spaces and a parenthesis: fields are counted after the last ')'
        String stat = "4242 (C2 Compiler) x) S 1 2 3 0 -1 4194560 17 0 0 0 731 58 0 0 20 0 1 0 99 1 2";
        int after = stat.lastIndexOf(')') + 2;
        assertEquals(731, ThreadCpuMeter.statField(stat, after, 11));
        assertEquals(58, ThreadCpuMeter.statField(stat, after, 12));
        assertEquals(99, ThreadCpuMeter.statField(stat, after, 19));
        assertThrows(IllegalArgumentException.class, () -> ThreadCpuMeter.statField(stat, after, 40));
    }

    @Test
    void namesTheConsumerThreads() {
        assertEquals("consumer fetch threads", ThreadCpuMeter.role("consumer-fetch-3"));
        assertEquals("Parquet second encoding thread", ThreadCpuMeter.role("parquet-encode-12"));
        assertEquals("Parquet row group writer", ThreadCpuMeter.role("parquet-flush-12"));
        assertEquals("handler (main) + other consumer", ThreadCpuMeter.role("main"));
        assertEquals("other", ThreadCpuMeter.role("something-else"));
        assertEquals("HDFS client streamer (Thread-N)", ThreadCpuMeter.role("Thread-17"));
        assertEquals("other", ThreadCpuMeter.role("Thread-"));
        assertEquals("other", ThreadCpuMeter.role("Thread-1a"));
        assertEquals("benchmark's CPU meter", ThreadCpuMeter.role("bench-cpu-meter"));
    }
}
