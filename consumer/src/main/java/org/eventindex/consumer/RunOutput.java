package org.eventindex.consumer;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Writes events in the run file layout that {@link RunMerger} reads: per event a head of {@link #HEAD_BYTES} (run,
 * event, input file index, length; big-endian) and the event's bytes, gathered in blocks of {@value #BLOCK} bytes
 * (a bigger event goes to the stream directly). The stream is the caller's; {@link #flush} before closing it.
 */
final class RunOutput {
    /** Bytes ahead of each payload: run, event, file index, length. */
    static final int HEAD_BYTES = 4 + 8 + 4 + 4;
    static final int BLOCK = 64 * 1024;

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
        p = putInt(p, run);
        p = putInt(p, (int) (event >>> 32));
        p = putInt(p, (int) event);
        p = putInt(p, file);
        p = putInt(p, len);
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

    private int putInt(int at, int v) {
        block[at] = (byte) (v >>> 24);
        block[at + 1] = (byte) (v >>> 16);
        block[at + 2] = (byte) (v >>> 8);
        block[at + 3] = (byte) v;
        return at + 4;
    }
}
