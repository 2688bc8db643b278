package org.eventindex.consolidated;

import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

import java.io.IOException;
import java.io.OutputStream;

/** A Parquet output over a plain stream, counting the position; never closes the stream. */
final class StreamOutputFile implements OutputFile {
    private final OutputStream out;

    StreamOutputFile(OutputStream out) {
        this.out = out;
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) {
        return new PositionOutputStream() {
            private long pos;

            @Override
            public long getPos() {
                return pos;
            }

            @Override
            public void write(int b) throws IOException {
                out.write(b);
                pos++;
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
                pos += len;
            }

            @Override
            public void flush() throws IOException {
                out.flush();
            }

            @Override
            public void close() throws IOException {
                try {
                    out.flush();
                } catch (IOException e) {
                    // HDFS streams throw the same stored exception on every call after a failure; Parquet closes
                    // this stream in a try-with-resources after a failed write, and adding an exception to
                    // itself as suppressed hides the cause behind "Self-suppression not permitted".
                    throw new IOException("closing the consolidated file's stream failed: " + e.getMessage(), e);
                }
            }
        };
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) {
        return create(blockSizeHint);
    }

    @Override
    public boolean supportsBlockSize() {
        return false;
    }

    @Override
    public long defaultBlockSize() {
        return 0;
    }
}
