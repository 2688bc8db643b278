package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.eventindex.spb.SpbLimits;
import org.eventindex.spb.SpbSummary;

/**
 * An SPB file validated and summarised in one streaming pass, with its size and SHA-256 (over every byte of the
 * file, so the digest matches the object that gets uploaded).
 */
public record ScannedFile(Path path, SpbSummary summary, long size, String sha256) {

    public ScannedFile {
        requireNonNull(path, "path is null");
        requireNonNull(summary, "summary is null");
        requireNonNull(sha256, "sha256 is null");
    }

    /**
     * @throws org.eventindex.spb.SpbFormatException when the file is not a valid SPB file
     * @throws IOException when it cannot be read
     */
    public static ScannedFile scan(Path path, SpbLimits limits) throws IOException {
        requireNonNull(path, "path is null");
        requireNonNull(limits, "limits is null");
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
        long[] count = new long[1];
        InputStream counted = new DigestInputStream(Files.newInputStream(path), sha256) {
            @Override
            public int read() throws IOException {
                int b = super.read();
                if (b >= 0) {
                    count[0]++;
                }
                return b;
            }

            @Override
            public int read(byte[] buf, int off, int len) throws IOException {
                int n = super.read(buf, off, len);
                if (n > 0) {
                    count[0] += n;
                }
                return n;
            }
        };
        SpbSummary summary = SpbSummary.scan(new DrainOnClose(counted), path.toString(), limits);
        return new ScannedFile(path, summary, count[0], HexFormat.of().formatHex(sha256.digest()));
    }

    /** Reads whatever the SPB reader left (e.g. gzip trailer padding) before closing, so the digest is complete. */
    private static final class DrainOnClose extends FilterInputStream {
        DrainOnClose(InputStream in) {
            super(in);
        }

        @Override
        public void close() throws IOException {
            try {
                in.transferTo(OutputStream.nullOutputStream());
            } finally {
                super.close();
            }
        }
    }
}
