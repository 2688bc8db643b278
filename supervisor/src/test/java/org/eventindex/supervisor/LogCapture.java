package org.eventindex.supervisor;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The log lines written while it is open. slf4j-simple (the supervisor's logger in tests) writes each line to the
 * System.err of the moment; the lines still reach the original stream too.
 */
final class LogCapture implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    LogCapture() {
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (captured) {
                    captured.write(b);
                }
                original.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (captured) {
                    captured.write(b, off, len);
                }
                original.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
                original.flush();
            }
        }, true, StandardCharsets.UTF_8));
    }

    /** The lines captured so far that contain {@code part}. */
    List<String> lines(String part) {
        String all;
        synchronized (captured) {
            all = captured.toString(StandardCharsets.UTF_8);
        }
        return all.lines().filter(l -> l.contains(part)).toList();
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
