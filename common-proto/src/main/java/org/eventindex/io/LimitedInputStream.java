package org.eventindex.io;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** The first {@code limit} bytes of a stream: end of stream after them, whatever follows in the underlying one. */
public final class LimitedInputStream extends FilterInputStream {
    private long left;

    public LimitedInputStream(InputStream in, long limit) {
        super(in);
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0: " + limit);
        }
        this.left = limit;
    }

    @Override
    public int read() throws IOException {
        if (left <= 0) {
            return -1;
        }
        int b = in.read();
        if (b >= 0) {
            left--;
        }
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (left <= 0) {
            return len == 0 ? 0 : -1;
        }
        int n = in.read(b, off, (int) Math.min(len, left));
        if (n > 0) {
            left -= n;
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        long skipped = in.skip(Math.min(n, left));
        left -= Math.max(0, skipped);
        return skipped;
    }

    @Override
    public int available() throws IOException {
        return (int) Math.min(in.available(), left);
    }

    @Override
    public boolean markSupported() {
        return false;
    }
}
