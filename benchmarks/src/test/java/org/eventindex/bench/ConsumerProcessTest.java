package org.eventindex.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * bench-seed's reading of the consumer's JVM options file and /proc status, and its stage deltas (the /metrics text
 * is read by the test kit's MetricsText, tested there).
 */
class ConsumerProcessTest {
    private static final String OPTIONS = """
            # a comment -Xmx99g
              -Xms2g \s
            -Xmx6g

            -XX:+ExitOnOutOfMemoryError
            -Dsome.path=/a dir/with spaces
            """;

    @Test
    void heapComesFromTheLaunchersOptionsWithTheOtherOptionsInOrder() {
        ConsumerProcess.JvmOptions o = ConsumerProcess.jvmOptions(ConsumerProcess.optionLines(OPTIONS), "f", null);
        assertEquals(List.of("-Xms2g", "-Xmx6g", "-XX:+ExitOnOutOfMemoryError", "-Dsome.path=/a dir/with spaces"),
                o.options());
        assertEquals("6g", o.xmx());
        assertEquals("f", o.source());
    }

    @Test
    void consumerHeapIsTheLastXmxTheBenchmarkAdded() {
        List<String> lines = new java.util.ArrayList<>(ConsumerProcess.optionLines(OPTIONS));
        lines.addAll(List.of("-Xms1g", "-Xmx1g"));
        ConsumerProcess.JvmOptions o = ConsumerProcess.jvmOptions(lines, "f", "1g");
        assertEquals("1g", o.xmx());
        assertEquals("--consumer-heap", o.source());
    }

    @Test
    void badHeapOrNoXmxLineIsNamed() {
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> ConsumerProcess.jvmOptions(List.of("-Xmx1g"), "f", "1 g"));
        assertTrue(bad.getMessage().contains("--consumer-heap") && bad.getMessage().contains("'1 g'"),
                bad.getMessage());
        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> ConsumerProcess.jvmOptions(List.of("-Xms1g"), "conf/jvm/consumer.options", null));
        assertTrue(none.getMessage().contains("no -Xmx line") && none.getMessage().contains("consumer.options"),
                none.getMessage());
    }

    @Test
    void theDistributionsFileHasAHeap() throws IOException {
        Path file = Path.of("../distribution/src/dist/jvm/consumer.options");
        assertTrue(Files.isRegularFile(file), "not found: " + file.toAbsolutePath());
        ConsumerProcess.JvmOptions o = ConsumerProcess.jvmOptions(ConsumerProcess.optionLines(
                Files.readString(file)), file.toString(), null);
        assertTrue(o.options().contains("-Xmx" + o.xmx()), o.toString());
    }

    @Test
    void theBenchmarksEnvironmentAddsItsGcLogAndTheHeapAfterTheLaunchersOptions(@TempDir Path dir)
            throws IOException {
        String opts = ConsumerProcess.environment(dir, "768m", List.of()).get("EVENTINDEX_JAVA_OPTS");
        assertTrue(opts.startsWith("-Xlog:gc:file=" + dir.toAbsolutePath()) && opts.endsWith("-Xms768m -Xmx768m"),
                opts);
        assertTrue(!ConsumerProcess.environment(dir, null, List.of()).get("EVENTINDEX_JAVA_OPTS").contains("-Xmx"));
    }

    @Test
    void theConsumersJavaOptionsComeLastAndOneWordEach(@TempDir Path dir) throws IOException {
        String opts = ConsumerProcess.environment(dir, "1g", List.of("-XX:MaxGCPauseMillis=500", "-Xmn300m"))
                .get("EVENTINDEX_JAVA_OPTS");
        assertTrue(opts.endsWith("-Xmx1g -XX:MaxGCPauseMillis=500 -Xmn300m"), opts);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConsumerProcess.environment(dir, null, List.of("-Xmn300m -Xss1m")));
        assertTrue(e.getMessage().contains("--consumer-java-option") && e.getMessage().contains("-Xss1m"),
                e.getMessage());
    }

    @Test
    void noTarballIsNamedWithTheBuildCommand(@TempDir Path dir) {
        String before = System.getProperty(ConsumerProcess.TARBALL_PROPERTY);
        System.setProperty(ConsumerProcess.TARBALL_PROPERTY, dir.resolve("none.tar.gz").toString());
        try {
            IOException e = assertThrows(IOException.class, () -> ConsumerProcess.unpack(
                    ConsumerProcess.tarball(), dir.resolve("dist")));
            assertTrue(e.getMessage().contains("none.tar.gz"), e.getMessage());
        } finally {
            if (before == null) {
                System.clearProperty(ConsumerProcess.TARBALL_PROPERTY);
            } else {
                System.setProperty(ConsumerProcess.TARBALL_PROPERTY, before);
            }
        }
    }

    @Test
    void procStatusLineInBytes() {
        String status = "Name:\tjava\nVmPeak:\t 9000 kB\nVmHWM:\t  412345 kB\nVmRSS:\t  400000 kB\n";
        assertEquals(412_345L * 1024, ConsumerProcess.statusBytes(status, "VmHWM:"));
        assertEquals(-1, ConsumerProcess.statusBytes(status, "VmSwap:"));
    }

    @Test
    void stageUsageIsTheDifferenceOfTheSamplesAtItsBoundaries() {
        Instant t0 = Instant.parse("2026-11-26T09:00:00Z");
        List<ConsumerProcess.Sample> samples = List.of(sample(t0, 2, 0.1, 1_000), sample(t0.plusSeconds(1), 5, 0.4,
                3_000), sample(t0.plusSeconds(2), 9, 1.0, 8_000));
        assertNull(BenchSeedMain.Sampler.at(List.of(), t0));
        assertSame(samples.get(0), BenchSeedMain.Sampler.at(samples, t0.minusSeconds(5)));
        assertSame(samples.get(1), BenchSeedMain.Sampler.at(samples, t0.plusMillis(1_999)));
        BenchSeedMain.Usage u = BenchSeedMain.Usage.between(samples.get(0), samples.get(2));
        assertEquals(7, u.gcCount());
        assertEquals(0.9, u.gcSeconds(), 1e-9);
        assertEquals(7_000, u.cpuNanos());
        assertSame(BenchSeedMain.Usage.UNKNOWN, BenchSeedMain.Usage.between(samples.get(0), null));
        assertSame(BenchSeedMain.Usage.UNKNOWN,
                BenchSeedMain.Usage.between(samples.get(0), sample(t0, -1, -1, 5)));
    }

    private static ConsumerProcess.Sample sample(Instant at, long gcCount, double gcSeconds, long cpuNanos) {
        return new ConsumerProcess.Sample(at, 1, 2, gcCount, gcSeconds, cpuNanos, 3, 4, 5);
    }

    @Test
    void gcLogGivesThePeakHeapAfterACollectionAndTheFullCollections() {
        String log = """
                [0.240s] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 27M->18M(380M) 4.906ms
                [28.362s] GC(83) Pause Cleanup 458M->458M(805M) 0.108ms
                [41.031s] GC(120) Pause Remark 588M->468M(1012M) 8.620ms
                [41.500s] GC(121) Concurrent Mark Cycle 602.921ms
                [50.1s] GC(130) Pause Full (G1 Compaction Pause) 1000M->301M(1024M) 812.0ms
                [51.2s] GC(131) Pause Young (Normal) (G1 Evacuation Pause) 1G->1G(1G) 3.0ms
                """;
        ConsumerProcess.GcFigures g = ConsumerProcess.gcFigures(log);
        assertEquals(1L << 30, g.peakAfter());
        assertEquals(5, g.pauses());
        assertEquals(1, g.fullGcs());
        assertEquals(468L << 20, ConsumerProcess.gcFigures(log.lines().limit(4)
                .reduce("", (a, b) -> a + b + "\n")).peakAfter());
        assertEquals(-1, ConsumerProcess.gcFigures("no collection yet\n").peakAfter());
    }
}
