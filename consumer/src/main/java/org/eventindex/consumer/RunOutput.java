package org.eventindex.consumer;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Writes events in the run file layout that {@link RunMerger} reads: per event a head of {@link #HEAD_BYTES} (run,
 * event, input file index, length; big-endian) and the event's bytes, gathered in blocks of {@value #BLOCK} bytes
 * (a bigger event goes to the stream directly). The bytes of a saved scan are written with its token strings coded
 * against the event before ({@link TokenPrefixCoder}, decision 0036): then the length's top bit ({@link #CODED}) is
 * set, and the length is that of the coded bytes. The stream is the caller's; {@link #flush} before closing it.
 */
final class RunOutput {
    /** Bytes ahead of each payload: run, event, file index, length. */
    static final int HEAD_BYTES = 4 + 8 + 4 + 4;
    static final int BLOCK = 64 * 1024;
    /** The bit of a head's length that says the payload's token strings are coded ({@link TokenPrefixCoder}). */
    static final int CODED = 0x8000_0000;
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final OutputStream out;
    private final byte[] block = new byte[BLOCK];
    private final TokenPrefixCoder coder = new TokenPrefixCoder();
    private int p;

    RunOutput(OutputStream out) {
        this.out = out;
    }

    /** Writes an event: its key, input file index and bytes (a saved scan's token strings coded). */
    void write(int file, int run, long event, byte[] buf, int off, int len) throws IOException {
        if (coder.encode(buf, off, len)) {
            writeRaw(file, run, event, coder.output(), 0, coder.length(), CODED);
        } else {
            writeRaw(file, run, event, buf, off, len, 0);
        }
    }

    /**
     * Writes an event laid out already ({@link #putHead} then the payload, as a {@link SortBuffer} arena holds it):
     * {@code buf[at]} is its head.
     */
    void writeRecord(byte[] buf, int at) throws IOException {
        write((int) INT.get(buf, at + 12), (int) INT.get(buf, at), (long) LONG.get(buf, at + 4), buf,
                at + HEAD_BYTES, (int) INT.get(buf, at + 16));
    }

    private void writeRaw(int file, int run, long event, byte[] buf, int off, int len, int coded) throws IOException {
        if (block.length - p < HEAD_BYTES + len) {
            flush();
        }
        p = putHead(block, p, file, run, event, len | coded);
        if (block.length - p >= len) {
            System.arraycopy(buf, off, block, p, len);
            p += len;
        } else {
            flush();
            out.write(buf, off, len);
        }
    }

    /** Writes what the block holds to the stream. */
    void flush() throws IOException {
        out.write(block, 0, p);
        p = 0;
    }

    /**
     * Encodes an event's head at {@code into[at]}; for writers that lay out run records themselves (a
     * {@link SortBuffer} whose events arrive in order writes its arena as it is).
     *
     * @return the offset after the head, where the payload goes
     */
    static int putHead(byte[] into, int at, int file, int run, long event, int len) {
        INT.set(into, at, run);
        LONG.set(into, at + 4, event);
        INT.set(into, at + 12, file);
        INT.set(into, at + 16, len);
        return at + HEAD_BYTES;
    }
}
