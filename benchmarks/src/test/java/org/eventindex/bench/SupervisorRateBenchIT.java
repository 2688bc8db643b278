package org.eventindex.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code bin/bench-supervisor-rate} at a tiny scale on real components (the embedded stack's broker and the
 * supervisor): it exits 0 and prints every figure it promises. {@code bin/bench-seed}, which runs the consumer of the
 * distribution's tarball, is tested where the tarball is built ({@code BenchSeedDistributionIT}).
 */
class SupervisorRateBenchIT {
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
