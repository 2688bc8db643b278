package org.eventindex.consumer;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * A buffered reader of the consumer's sorted runs: big-endian ints and longs and byte ranges taken from one buffer.
 * {@code BufferedInputStream} and {@code DataInputStream} read an int as four locked single-byte calls; these records
 * are read millions of times per dataset by one thread, so this class has no locks. Not thread-safe.
 */
final class RecordInput implements Closeable {
    private final InputStream in;
    private final byte[] buf;
    private int pos;
    private int lim;

    RecordInput(InputStream in, int bufferBytes) {
        this.in = in;
        this.buf = new byte[bufferBytes];
    }

    /** The next byte, or -1 at the end of the stream. */
    int read() throws IOException {
        if (pos == lim && !fill()) {
            return -1;
        }
        return buf[pos++] & 0xff;
    }

    /** The next byte; the stream must not end here. */
    int readByte() throws IOException {
        int b = read();
        if (b < 0) {
            throw new EOFException();
        }
        return b;
    }

    int readInt() throws IOException {
        if (lim - pos >= 4) {
            int v = (buf[pos] & 0xff) << 24 | (buf[pos + 1] & 0xff) << 16 | (buf[pos + 2] & 0xff) << 8
                    | (buf[pos + 3] & 0xff);
            pos += 4;
            return v;
        }
        return readByte() << 24 | readByte() << 16 | readByte() << 8 | readByte();
    }

    long readLong() throws IOException {
        return (long) readInt() << 32 | (readInt() & 0xffffffffL);
    }

    void readFully(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            if (pos == lim && !fill()) {
                throw new EOFException();
            }
            int n = Math.min(len, lim - pos);
            System.arraycopy(buf, pos, b, off, n);
            pos += n;
            off += n;
            len -= n;
        }
    }

    /** The buffer that {@link #take} returns offsets into. */
    byte[] buffer() {
        return buf;
    }

    /**
     * Consumes the next {@code len} bytes (at most the buffer's size) without copying them out: they are left
     * contiguous in {@link #buffer()} and stay valid until the next call on this reader.
     *
     * @return their offset in {@link #buffer()}
     */
    int take(int len) throws IOException {
        if (len > buf.length) {
            throw new IllegalArgumentException("cannot take " + len + " bytes through a buffer of " + buf.length);
        }
        if (lim - pos < len) {
            System.arraycopy(buf, pos, buf, 0, lim - pos);
            lim -= pos;
            pos = 0;
            while (lim < len) {
                int n = in.read(buf, lim, buf.length - lim);
                if (n < 0) {
                    throw new EOFException();
                }
                lim += n;
            }
        }
        int at = pos;
        pos += len;
        return at;
    }

    private boolean fill() throws IOException {
        int n = in.read(buf, 0, buf.length);
        while (n == 0) {
            n = in.read(buf, 0, buf.length);
        }
        if (n < 0) {
            return false;
        }
        pos = 0;
        lim = n;
        return true;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
