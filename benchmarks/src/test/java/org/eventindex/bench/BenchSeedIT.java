package org.eventindex.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bin/bench-seed} and {@code bin/bench-supervisor-rate} at a tiny scale on real components (the embedded
 * stack: broker, S3 server, HDFS, Kudu binaries, producer processes, a consumer process): each exits 0 and prints
 * every figure it promises, with a number, beside the seed's.
 */
class BenchSeedIT {
    @TempDir
    Path work;

    private record Output(int exit, String out, String err) {
    }

    private static Output run(Command command, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = command.execute(args, o, e);
        }
        return new Output(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private interface Command {
        int execute(String[] args, PrintStream out, PrintStream err);
    }

    /** The line of {@code out} starting with {@code label}; fails naming the label when there is none. */
    private static String line(String out, String label) {
        return out.lines().filter(l -> l.startsWith(label)).findFirst()
                .orElseThrow(() -> new AssertionError("no '" + label + "' line in:\n" + out));
    }

    @Test
    void seedCommandPrintsEveryStageWithTheSeedsFigureAndTheBaselineRatios() {
        // 0.003 of the seed: 3 files of 18,193 events, 1 retried job's duplicate object
        Output r = run(BenchSeedMain::execute, "--scale", "0.003", "--parallel", "2", "--timeout-minutes", "10",
                "--work", work.resolve("seed").toString());
        assertEquals(0, r.exit(), r.out() + r.err());
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
                new String[] {"consumer process -Xmx", "distribution/src/dist/jvm/consumer.options",
                        "--consumer-heap"},
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
        // the consumer ran as its own process, with its log in the work folder
        assertTrue(line(r.out(), "consumer log: ").endsWith("consumer-1.log"), r.out());
        assertTrue(line(r.out(), "consumer GC log: ").endsWith("consumer-1-gc.log"), r.out());
        // the baseline wrote one file per job attempt and cleaned the duplicate's
        assertTrue(line(r.out(), "messaging: received + cleaned").contains("4 HDFS files (1 cleaned)"), r.out());
        assertTrue(Pattern.compile("\\d+\\.\\dx").matcher(line(r.out(), "throughput ratio")).find(), r.out());
    }

    @Test
    void supervisorRatePrintsMessagesPerSecondAndJournalEntriesPerRound() {
        Output r = run(SupervisorRateBench::execute, "--round", "300:5", "--round", "60:1", "--senders", "4",
                "--work", work.resolve("rate").toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        // round, messages, datasets, broker msg/s, durable msg/s, journal entries, entries/message, fsyncs,
        // msgs/fsync, process us/msg, supervisor us/msg
        Pattern row = Pattern.compile("^(\\d+):(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+([\\d.]+)"
                + "\\s+(\\d+)\\s+([\\d.]+)\\s+(\\d+)\\s+(\\d+)$", Pattern.MULTILINE);
        Matcher m = row.matcher(r.out());
        int rounds = 0;
        while (m.find()) {
            rounds++;
            assertEquals(m.group(1), m.group(3), "every message recorded: " + m.group());
            assertTrue(Long.parseLong(m.group(5)) > 0 && Long.parseLong(m.group(6)) > 0, m.group());
            // at least one journal entry per producer message, and at least one fsync, at most one per entry
            long entries = Long.parseLong(m.group(7));
            long fsyncs = Long.parseLong(m.group(9));
            assertTrue(entries >= Long.parseLong(m.group(1)), m.group());
            assertTrue(fsyncs >= 1 && fsyncs <= entries, m.group());
            assertTrue(Long.parseLong(m.group(11)) > 0 && Long.parseLong(m.group(12)) > 0, "CPU per message: "
                    + m.group());
        }
        assertEquals(2, rounds, r.out());
    }
}
