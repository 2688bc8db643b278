package org.eventindex.bench;

import org.eventindex.testing.CapturedOutput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bin/bench-seed} at a tiny scale on real components (the embedded stack: broker, S3 server, HDFS, Kudu
 * binaries, producer processes) with the consumer as shipped: this module's tarball unpacked and its
 * {@code bin/eventindex consumer run}. It exits 0 and prints every figure it promises, with a number, beside the
 * seed's. In the distribution module because the tarball is built here (the benchmarks module comes before it).
 */
class BenchSeedDistributionIT {
    @TempDir
    Path work;

    /** The line of {@code out} starting with {@code label}; fails naming the label when there is none. */
    private static String line(String out, String label) {
        return out.lines().filter(l -> l.startsWith(label)).findFirst()
                .orElseThrow(() -> new AssertionError("no '" + label + "' line in:\n" + out));
    }

    @Test
    void seedCommandPrintsEveryStageWithTheSeedsFigureAndTheBaselineRatios() {
        // 0.003 of the seed: 3 files of 18,193 events, 1 retried job's duplicate object
        CapturedOutput r = new CapturedOutput();
        int exit = BenchSeedMain.execute(new String[] {"--scale", "0.003", "--parallel", "2", "--timeout-minutes",
                "10", "--work", work.resolve("seed").toString()}, r.outStream(), r.errStream());
        assertEquals(0, exit, r.out() + r.err());
        assertTrue(r.out().contains("3 files, 54"), r.out());
        assertTrue(r.out().contains("4 objects of which 1 duplicates"), r.out());
        Pattern number = Pattern.compile("\\d+(\\.\\d+)?");
        for (String[] stage : List.of(
                new String[] {"producer upload", "objects/s", "1,447 objects"},
                new String[] {"supervisor: last message -> signal", " s", "not measured"},
                new String[] {"consolidation ", "events/s", "10,344 events/s"},
                new String[] {"consolidation bytes read/stored", "MB of", "2.5 GB of 3.3 GB"},
                new String[] {"Kudu load", "rows/s", "45,501 rows/s"},
                new String[] {"last producer message -> queryable", " s", "target 5 min"},
                new String[] {"signal -> queryable", " s", "none in the seed"},
                new String[] {"tablet server CPU (the load's floor)", "us/row", "226 s"},
                new String[] {"consumer process -Xmx", "/dist/eventindex-", "--consumer-heap"},
                new String[] {"consumer peak heap in use / max", "MB /", "1 GiB"},
                new String[] {"consumer heap after GC / full GCs", "MB /", "collections"},
                new String[] {"consumer peak RSS (VmHWM)", "MB", "not in the seed"},
                new String[] {"consumer GC: consolidation / load", "GCs", "not in the seed"},
                new String[] {"consumer CPU: consolidation / load", "us/event", "not in the seed"},
                new String[] {"consumer run memory peak / limit", "MB /", "sorted runs"},
                new String[] {"stack JVM peak heap / peak RSS", "MB /", "not the consumer"},
                new String[] {"spool disk peak", "MB", "not in the seed"},
                new String[] {"HDFS file", "B/event", "9 GB"},
                new String[] {"messaging: sent", "messages", "1,515,131 messages"},
                new String[] {"messaging: received + cleaned", "events/s", "1,793 events/s"},
                new String[] {"throughput ratio (object/messaging)", "x", "15x"},
                new String[] {"data ratio (messaging/object)", "B/event", "4.5x"})) {
            String l = line(r.out(), stage[0]);
            String measured = l.substring(stage[0].length());
            assertTrue(measured.contains(stage[1]) && number.matcher(measured).find() && !l.contains("n/a"),
                    "no figure for " + stage[0] + ": " + l);
            assertTrue(l.contains(stage[2]), "no seed figure for " + stage[0] + ": " + l);
        }
        // the consumer ran as shipped: the unpacked tarball's launcher, lib/ and logging, its log in the work folder
        assertTrue(line(r.out(), "consumer process -Xmx").contains("jvm/consumer.options"), r.out());
        assertTrue(r.err().contains("/dist/eventindex-") && r.err().contains("bin/eventindex consumer run"), r.err());
        assertTrue(line(r.out(), "consumer log: ").endsWith("consumer-1.log"), r.out());
        assertTrue(line(r.out(), "consumer GC log: ").endsWith("consumer-1-gc.log"), r.out());
        // the baseline wrote one file per job attempt and cleaned the duplicate's
        assertTrue(line(r.out(), "messaging: received + cleaned").contains("4 HDFS files (1 cleaned)"), r.out());
        assertTrue(Pattern.compile("\\d+\\.\\dx").matcher(line(r.out(), "throughput ratio")).find(), r.out());
    }

}
