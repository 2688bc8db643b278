package org.eventindex.bench.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Map;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;
import org.eventindex.spb.SpbLimits;
import org.eventindex.spb.SpbSummary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The large job's SPB file: the events asked for, in one job, generated once per working folder; the profile's
 * sampling periods as the recording holds them.
 */
class LargeJobBenchTest {
    @TempDir
    Path dir;

    @Test
    void generatesOneJobOfTheEventsAndReusesIt() throws Exception {
        Path spb = LargeJobBench.spb(dir, 3_000);
        SpbSummary summary = SpbSummary.scan(spb, SpbLimits.DEFAULT);
        assertEquals(3_000, summary.nevents());
        assertEquals(30, summary.guids().size());
        FileTime written = Files.getLastModifiedTime(spb);

        assertEquals(spb, LargeJobBench.spb(dir, 3_000));
        assertEquals(written, Files.getLastModifiedTime(spb));
    }

    @Test
    void readsEachSamplingEventsPeriodFromTheRecording() throws Exception {
        Path jfr = dir.resolve("p.jfr");
        try (Recording r = new Recording(Configuration.getConfiguration("profile"))) {
            // periods of this test's own, over the profile's (10 ms in Java code, 20 ms in native code on JDK 17)
            r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(7));
            r.enable("jdk.NativeMethodSample").withPeriod(Duration.ofSeconds(2));
            r.start();
            r.stop();
            r.dump(jfr);
        }
        assertEquals(Map.of("jdk.ExecutionSample", 7.0, "jdk.NativeMethodSample", 2000.0),
                LargeJobBench.samplingPeriods(jfr, RecordingFile.readAllEvents(jfr)));
    }

    @Test
    void readsJfrDurations() {
        assertEquals(20.0, LargeJobBench.millis("20 ms"));
        assertEquals(1000.0, LargeJobBench.millis("1 s"));
        assertEquals(0.5, LargeJobBench.millis("500 us"));
        assertNull(LargeJobBench.millis("everyChunk"));
        assertNull(LargeJobBench.millis("10 min"));
    }
}
