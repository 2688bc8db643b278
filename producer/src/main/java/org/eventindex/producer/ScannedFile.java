package org.eventindex.producer;

import static java.util.Objects.requireNonNull;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eventindex.spb.SpbLimits;
import org.eventindex.spb.SpbSummary;

/**
 * An SPB file validated and summarised in one streaming pass, with its digests over every byte of the file (so they
 * match the object that gets uploaded). Memory use does not depend on the file size.
 */
public record ScannedFile(Path path, SpbSummary summary, ContentDigests.Result digests) {

    public ScannedFile {
        requireNonNull(path, "path is null");
        requireNonNull(summary, "summary is null");
        requireNonNull(digests, "digests is null");
    }

    /** Bytes of the file. */
    public long size() {
        return digests.size();
    }

    /** Hex SHA-256 of the file. */
    public String sha256() {
        return digests.sha256();
    }

    /**
     * @param partSize the multipart part size the upload will use (for the expected ETag)
     * @throws org.eventindex.spb.SpbFormatException when the file is not a valid SPB file
     * @throws IOException when it cannot be read
     */
    public static ScannedFile scan(Path path, SpbLimits limits, long partSize) throws IOException {
        requireNonNull(path, "path is null");
        requireNonNull(limits, "limits is null");
        ContentDigests digests = new ContentDigests(partSize);
        try (InputStream file = Files.newInputStream(path)) {
            InputStream digesting = new DigestingStream(file, digests);
            SpbSummary summary = SpbSummary.scan(digesting, path.toString(), limits);
            // Whatever the reader left (e.g. gzip padding) is part of the object too.
            digesting.transferTo(OutputStream.nullOutputStream());
            return new ScannedFile(path, summary, digests.finish());
        }
    }

    /** Feeds every byte read to the digests; closing it leaves the file open. */
    private static final class DigestingStream extends FilterInputStream {
        private final ContentDigests digests;

        DigestingStream(InputStream in, ContentDigests digests) {
            super(in);
            this.digests = digests;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n <= 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = in.read(buf, off, len);
            if (n > 0) {
                digests.update(buf, off, n);
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            // Skipped bytes must be digested too.
            byte[] buf = new byte[(int) Math.min(8192, Math.max(1, n))];
            long done = 0;
            while (done < n) {
                int r = read(buf, 0, (int) Math.min(buf.length, n - done));
                if (r <= 0) {
                    break;
                }
                done += r;
            }
            return done;
        }

        @Override
        public boolean markSupported() {
            return false;
        }

        @Override
        public void close() {
            // The reader closes its input when done; the file is closed by scan() after the rest was digested.
        }
    }
}
