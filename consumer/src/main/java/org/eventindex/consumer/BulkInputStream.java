package org.eventindex.consumer;

import java.io.IOException;
import java.io.InputStream;

/** An input stream read in ranges: its single-byte {@link #read()} goes through {@link #read(byte[], int, int)}. */
abstract class BulkInputStream extends InputStream {
    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public abstract int read(byte[] b, int off, int len) throws IOException;
}
