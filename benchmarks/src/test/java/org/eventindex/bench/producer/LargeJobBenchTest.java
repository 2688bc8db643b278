package org.eventindex.bench.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.eventindex.spb.SpbLimits;
import org.eventindex.spb.SpbSummary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The large job's SPB file: the events asked for, in one job, generated once per working folder. */
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
}
