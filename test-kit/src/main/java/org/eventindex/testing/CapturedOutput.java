package org.eventindex.testing;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** The stdout and stderr of a command run in the test's JVM ({@code Main.run(args, out, err, env)}), as text. */
public final class CapturedOutput {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
    private final PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);

    /** The stream to give the command as its stdout. */
    public PrintStream outStream() {
        return outStream;
    }

    /** The stream to give the command as its stderr. */
    public PrintStream errStream() {
        return errStream;
    }

    /** What was printed on stdout since the last {@link #reset}. */
    public String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    /** What was printed on stderr since the last {@link #reset}. */
    public String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** Forgets what was printed, before the next command. */
    public void reset() {
        out.reset();
        err.reset();
    }
}
