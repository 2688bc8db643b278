package org.eventindex.consumer;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Writes events in the run file layout that {@link RunMerger} reads: per event a head of {@link #HEAD_BYTES} (run,
 * event, input file index, length; big-endian) and the event's bytes, gathered in blocks of {@value #BLOCK} bytes
 * (a bigger event goes to the stream directly). The stream is the caller's; {@link #flush} before closing it.
 */
final class RunOutput {
    /** Bytes ahead of each payload: run, event, file index, length. */
    static final int HEAD_BYTES = 4 + 8 + 4 + 4;
    static final int BLOCK = 64 * 1024;
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final OutputStream out;
    private final byte[] block = new byte[BLOCK];
    private int p;

    RunOutput(OutputStream out) {
        this.out = out;
    }

    void write(int file, int run, long event, byte[] buf, int off, int len) throws IOException {
        if (block.length - p < HEAD_BYTES + len) {
            flush();
        }
        p = putHead(block, p, file, run, event, len);
        if (block.length - p >= len) {
            System.arraycopy(buf, off, block, p, len);
            p += len;
        } else {
            flush();
            out.write(buf, off, len);
        }
    }

    /** Writes a record laid out already ({@link #putHead} then the payload): {@code len} is head + payload. */
    void writeRecord(byte[] buf, int off, int len) throws IOException {
        if (block.length - p < len) {
            flush();
            if (len > block.length) {
                out.write(buf, off, len);
                return;
            }
        }
        System.arraycopy(buf, off, block, p, len);
        p += len;
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
