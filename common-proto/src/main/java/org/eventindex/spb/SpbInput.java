package org.eventindex.spb;

import org.eventindex.spb.SpbFormatException.Problem;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

import static java.util.Objects.requireNonNull;

/**
 * The inflated bytes of an SPB stream for {@link SpbReader}, in a buffer of its own instead of a
 * {@code BufferedInputStream}: most messages are parsed in place, with no copy and no allocation. Counts the
 * compressed and inflated bytes and refuses to inflate beyond {@link SpbLimits#maxInflatedBytes()} or more than
 * {@link SpbLimits#maxInflationRatio()} times. Gzip faults
 * become {@link SpbFormatException}s naming the source and offset.
 */
final class SpbInput implements Closeable {
    static final int BUFFER_BYTES = 64 * 1024;

    private final String source;
    private final SpbLimits limits;
    private final CountingInputStream raw;
    private final InputStream inflated;
    /** The same stream as {@link #inflated} when it is inflated on a thread of its own; else null. */
    private final AheadInflater ahead;
    /**
     * The bytes being read: an array of this reader's, filled from {@link #inflated}; or, inflating ahead, the chunk
     * being read in place ({@link #chunk}), with the unread end of the previous chunk put in its headroom.
     */
    private byte[] buf;
    /** Inflating ahead: the chunk {@link #buf} is, or null before the first and at the end of the stream. */
    private AheadInflater.Chunk chunk;
    private boolean ended;
    private int pos;
    private int lim;
    /** Stream offset of {@code buf[0]}. */
    private long bufStart;
    private byte[] spill = new byte[0];
    /** The array holding the bytes consumed by the last {@link #take}. */
    private byte[] taken;
    private long inflatedBytes;

    /** @param gzipped the raw stream; closed by {@link #close()}, or here if it is not gzip */
    SpbInput(InputStream gzipped, String source, SpbLimits limits, Inflation inflation) throws IOException {
        this.source = requireNonNull(source, "source is null");
        this.limits = requireNonNull(limits, "limits is null");
        requireNonNull(inflation, "inflation is null");
        this.raw = new CountingInputStream(requireNonNull(gzipped, "gzipped is null"));
        try {
            // the gzip header is read here, on this thread, in either mode: its faults are reported as before
            InputStream gzip = openGzip();
            this.ahead = inflation == Inflation.AHEAD ? new AheadInflater(gzip, raw::count, BUFFER_BYTES, source)
                    : null;
            this.inflated = gzip;
            this.buf = ahead != null ? new byte[0] : new byte[BUFFER_BYTES];
        } catch (IOException | RuntimeException e) {
            try {
                raw.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** The buffer; bytes from {@link #pos()} on are the next ones of the stream. */
    byte[] buf() {
        return buf;
    }

    int pos() {
        return pos;
    }

    /** Consumes {@code n} bytes made available by {@link #ensure}. */
    void skip(int n) {
        pos += n;
    }

    /** Stream offset of the next byte (inflated bytes consumed so far). */
    long offset() {
        return bufStart + pos;
    }

    /** Compressed bytes read from the raw stream so far (to inflate the bytes this thread was given so far). */
    long compressedBytes() {
        return ahead != null ? ahead.compressedBytes() : raw.count();
    }

    /** Makes up to {@code n <= BUFFER_BYTES} bytes available at {@link #pos()}; fewer only at end of stream. */
    int ensure(int n) throws IOException {
        int avail = lim - pos;
        if (avail >= n) {
            return avail;
        }
        if (ahead != null) {
            while (lim - pos < n && nextChunk()) {
                // each chunk holds the bytes still unread before its own
            }
            return lim - pos;
        }
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, avail);
            bufStart += pos;
            pos = 0;
            lim = avail;
        }
        while (lim < n) {
            int r = readInflated(buf, lim, buf.length - lim);
            if (r < 0) {
                break;
            }
            lim += r;
        }
        return lim - pos;
    }

    /**
     * Consumes the next {@code length} bytes (a message's body) and returns their offset in {@link #taken()}: the
     * buffer itself when they fit, no copy, else the spill array.
     */
    int take(SpbMessageType type, int length) throws IOException {
        if (length <= BUFFER_BYTES) {
            int avail = ensure(length);
            if (avail < length) {
                throw error(bufStart + lim, Problem.TRUNCATED, type + " of " + length + " bytes cut off after " + avail
                        + " bytes", null);
            }
            taken = buf;
            int off = pos;
            pos += length;
            return off;
        }
        taken = readLarge(type, length);
        return 0;
    }

    /** The array of the bytes the last {@link #take} consumed. */
    byte[] taken() {
        return taken;
    }

    /** Reads a message bigger than the buffer into the (grown, reused) spill array. */
    private byte[] readLarge(SpbMessageType type, int length) throws IOException {
        if (spill.length < length) {
            spill = new byte[length];
        }
        if (ahead != null) {
            return readLargeAhead(type, length);
        }
        int have = lim - pos;
        System.arraycopy(buf, pos, spill, 0, have);
        long start = offset();
        bufStart = start + have;
        pos = 0;
        lim = 0;
        while (have < length) {
            int n = readInflated(spill, have, length - have);
            if (n < 0) {
                throw error(bufStart, Problem.TRUNCATED, type + " of " + length + " bytes cut off after "
                        + have + " bytes", null);
            }
            have += n;
            bufStart += n;
        }
        return spill;
    }

    /**
     * Inflating ahead: a message larger than the buffer, copied from the chunks into the (grown, reused) spill
     * array; the chunk holding its last byte stays {@link #buf}.
     */
    private byte[] readLargeAhead(SpbMessageType type, int length) throws IOException {
        int have = 0;
        while (true) {
            int n = Math.min(lim - pos, length - have);
            System.arraycopy(buf, pos, spill, have, n);
            pos += n;
            have += n;
            if (have == length) {
                return spill;
            }
            if (!nextChunk()) {
                throw error(offset(), Problem.TRUNCATED, type + " of " + length + " bytes cut off after " + have
                        + " bytes", null);
            }
        }
    }

    /**
     * Inflating ahead: makes the next chunk {@link #buf}, with the bytes of the current one not consumed yet put just
     * before its own (they are fewer than {@link #BUFFER_BYTES}, its headroom: {@link #ensure} asks for no more), and
     * gives the current one back.
     *
     * @return false at the end of the stream
     */
    private boolean nextChunk() throws IOException {
        if (ended) {
            return false;
        }
        AheadInflater.Chunk next;
        try {
            next = ahead.take();
        } catch (IOException e) {
            throw inflateFault(e);
        }
        if (next == null) {
            ended = true;
            return false;
        }
        int unread = lim - pos;
        int start = ahead.headroom() - unread;
        byte[] bytes = next.bytes();
        System.arraycopy(buf, pos, bytes, start, unread);
        if (chunk != null) {
            ahead.release(chunk);
        }
        chunk = next;
        bufStart += pos - start;
        buf = bytes;
        pos = start;
        lim = ahead.headroom() + next.length();
        checkInflated(next.length());
        return true;
    }

    private int readInflated(byte[] into, int off, int len) throws IOException {
        int n;
        try {
            n = inflated.read(into, off, len);
        } catch (IOException e) {
            throw inflateFault(e);
        }
        if (n > 0) {
            checkInflated(n);
        }
        return n;
    }

    /**
     * Counts {@code n > 0} more inflated bytes against the limits. Checked on every read (inflating ahead, every
     * chunk): a gzip bomb inflates to at most the limit plus one buffer (one chunk) before it stops.
     */
    private void checkInflated(int n) throws SpbFormatException {
        if ((inflatedBytes += n) > limits.maxInflatedBytes()) {
            throw error(inflatedBytes - n, Problem.OVERSIZE, "inflates to more than " + limits.maxInflatedBytes()
                    + " bytes (from " + compressedBytes() + " compressed bytes)", null);
        }
        if (inflatedBytes > SpbLimits.RATIO_FREE_BYTES
                && inflatedBytes / limits.maxInflationRatio() > compressedBytes()) {
            throw error(inflatedBytes - n, Problem.OVERSIZE, "inflates more than " + limits.maxInflationRatio()
                    + " times: " + inflatedBytes + " bytes from the first " + compressedBytes()
                    + " compressed bytes (a decompression bomb?)", null);
        }
    }

    /** A fault of the gzip layer met after the bytes read so far, as the reader reports it. */
    private IOException inflateFault(IOException e) {
        if (e instanceof EOFException) {
            return error(bufStart + lim, Problem.TRUNCATED, "gzip stream ends early after " + compressedBytes()
                    + " compressed bytes (file cut off?)", e);
        }
        if (e instanceof ZipException) {
            return error(bufStart + lim, Problem.BAD_GZIP, "corrupt gzip data: " + e.getMessage(), e);
        }
        return e;
    }

    private InputStream openGzip() throws IOException {
        try {
            return new GZIPInputStream(raw, BUFFER_BYTES);
        } catch (EOFException e) {
            if (raw.count() == 0) {
                throw error(0, Problem.EMPTY, "the file is empty (0 bytes)", null);
            }
            throw error(0, Problem.TRUNCATED, "gzip header cut off after " + raw.count() + " bytes", e);
        } catch (ZipException e) {
            throw error(0, Problem.BAD_GZIP, "not a gzip stream: " + e.getMessage(), e);
        }
    }

    private SpbFormatException error(long at, Problem problem, String detail, Throwable cause) {
        return cause == null ? new SpbFormatException(source, at, problem, detail)
                : new SpbFormatException(source, at, problem, detail, cause);
    }

    @Override
    public void close() throws IOException {
        if (ahead != null) {
            ahead.close();
        } else {
            inflated.close();
        }
    }
}
