package org.eventindex.consumer;

import org.eventindex.message.S3ObjectUrl;
import org.eventindex.spb.SpbFormatException;
import software.amazon.awssdk.core.ResponseInputStream;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

/**
 * Refuses objects larger than {@link ConsumerConfig#OBJECT_MAX_BYTES}: before reading when the store reports the
 * length, and while reading otherwise (or when the store under-reported it). The refusal is an
 * {@link SpbFormatException} of kind OVERSIZE, which fails the dataset instead of being retried.
 */
final class SizeLimitedFetcher implements ObjectFetcher {
    private final ObjectFetcher delegate;
    private final long maxBytes;

    SizeLimitedFetcher(ObjectFetcher delegate, long maxBytes) {
        this.delegate = Objects.requireNonNull(delegate, "delegate is null");
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("maxBytes must be positive: " + maxBytes);
        }
        this.maxBytes = maxBytes;
    }

    @Override
    public InputStream open(S3ObjectUrl url) throws IOException {
        return openWithChecksum(url).in();
    }

    @Override
    public Opened openWithChecksum(S3ObjectUrl url) throws IOException {
        Opened o = delegate.openWithChecksum(url);
        if (o.size() > maxBytes) {
            discard(o.in());
            throw tooLarge(url, "is " + o.size() + " bytes");
        }
        return new Opened(new Bounded(o.in(), url), o.sha256(), o.size());
    }

    private SpbFormatException tooLarge(S3ObjectUrl url, String what) {
        return new SpbFormatException(url.toString(), 0, SpbFormatException.Problem.OVERSIZE, "the object " + what
                + ", more than " + ConsumerConfig.OBJECT_MAX_BYTES + " = " + maxBytes);
    }

    /** Closes without reading the rest: an HTTP body is aborted rather than drained. */
    private static void discard(InputStream in) {
        try {
            if (in instanceof ResponseInputStream<?> r) {
                r.abort();
            }
            in.close();
        } catch (IOException | RuntimeException ignored) {
            // the refusal is what matters; the connection is dropped either way
        }
    }

    private final class Bounded extends FilterInputStream {
        private final S3ObjectUrl url;
        private long count;

        Bounded(InputStream in, S3ObjectUrl url) {
            super(in);
            this.url = url;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                counted(1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0) {
                counted(n);
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = in.skip(n);
            counted(skipped);
            return skipped;
        }

        private void counted(long n) throws SpbFormatException {
            count += n;
            if (count > maxBytes) {
                throw tooLarge(url, "has more than " + maxBytes + " bytes");
            }
        }

        @Override
        public boolean markSupported() {
            return false;
        }
    }
}
