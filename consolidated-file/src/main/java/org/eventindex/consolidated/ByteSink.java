package org.eventindex.consolidated;

import java.util.Arrays;

/**
 * A growable byte array written little-endian, as Parquet's PLAIN encoding and page layout want. Kept and reset
 * rather than replaced, so a column's buffers reach their working size once per writer and are not allocated per
 * page or row group. Not thread-safe.
 */
final class ByteSink {
    private byte[] buf;
    private int size;

    ByteSink(int initialCapacity) {
        buf = new byte[Math.max(16, initialCapacity)];
    }

    int size() {
        return size;
    }

    /** The backing array: valid in {@code [0, size())}, until the next write. */
    byte[] array() {
        return buf;
    }

    void reset() {
        size = 0;
    }

    /** Drops what was written after the first {@code n} bytes. */
    void truncate(int n) {
        size = n;
    }

    /** Makes room for {@code n} more bytes. */
    void ensure(int n) {
        if (buf.length - size < n) {
            long want = Math.max((long) buf.length * 2, (long) size + n);
            if (want > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("a Parquet page or column chunk buffer would exceed 2 GiB ("
                        + size + " + " + n + " bytes)");
            }
            buf = Arrays.copyOf(buf, (int) want);
        }
    }

    /** Declares {@code n} bytes written directly into {@link #array()} after {@link #ensure}. */
    void advance(int n) {
        size += n;
    }

    void writeByte(int b) {
        ensure(1);
        buf[size++] = (byte) b;
    }

    void writeInt(int v) {
        ensure(4);
        putInt(size, v);
        size += 4;
    }

    /** Overwrites 4 bytes at {@code pos} (a length prefix reserved before its content was known). */
    void putInt(int pos, int v) {
        buf[pos] = (byte) v;
        buf[pos + 1] = (byte) (v >>> 8);
        buf[pos + 2] = (byte) (v >>> 16);
        buf[pos + 3] = (byte) (v >>> 24);
    }

    void writeLong(long v) {
        ensure(8);
        writeIntUnchecked((int) v);
        writeIntUnchecked((int) (v >>> 32));
    }

    private void writeIntUnchecked(int v) {
        putInt(size, v);
        size += 4;
    }

    void write(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, buf, size, len);
        size += len;
    }

    /** ULEB128, as the headers of the RLE/bit-packed hybrid encoding. */
    void writeUnsignedVarInt(int v) {
        ensure(5);
        while ((v & ~0x7F) != 0) {
            buf[size++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[size++] = (byte) v;
    }

    static int getInt(byte[] b, int pos) {
        return (b[pos] & 0xFF) | (b[pos + 1] & 0xFF) << 8 | (b[pos + 2] & 0xFF) << 16 | (b[pos + 3] & 0xFF) << 24;
    }
}
