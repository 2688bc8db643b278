package org.eventindex.operator;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.ToIntBiFunction;

/** One run of a command of this module in the test's JVM: its exit code, standard output and standard error. */
record CommandRun(int exit, String out, String err) {
    /** Runs {@code command} (given the output and error streams, returning the exit code) and captures both. */
    static CommandRun of(ToIntBiFunction<PrintStream, PrintStream> command) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = command.applyAsInt(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new CommandRun(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
