package org.eventindex.bench.producer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * The floor of the producer's validation, run as its own JVM by {@code bin/bench-producer --large-job}: the JVM's
 * own inflate of the SPB file, with the buffer sizes the producer's reader uses (64 KiB), and nothing else. Prints
 * the inflated bytes.
 */
public final class InflateBaseline {
    private static final int BUFFER_BYTES = 64 * 1024;

    private InflateBaseline() {
    }

    public static void main(String[] args) throws IOException {
        byte[] buf = new byte[BUFFER_BYTES];
        long total = 0;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(Path.of(args[0])), BUFFER_BYTES)) {
            for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
                total += n;
            }
        }
        System.out.println(total);
    }
}
