package org.eventindex.consolidated;

import org.xerial.snappy.Snappy;

import java.io.IOException;

/**
 * The page scratch buffers and Snappy compression of the columns encoded by one thread: pages are assembled in
 * {@link #page()} and compressed straight into their column chunk's buffer, with no intermediate array. Snappy's
 * raw block format is what Parquet's SNAPPY codec stores. Not thread-safe: one per encoding thread.
 */
final class PageCompressor {
    private final ByteSink page = new ByteSink(ConsolidatedSchema.PAGE_BYTES * 2);
    private final ByteSink scratch = new ByteSink(ConsolidatedSchema.PAGE_BYTES);

    /** The buffer a page is assembled in before {@link #compress}. */
    ByteSink page() {
        return page;
    }

    /** A buffer for a compressed dictionary page, valid until the next call. */
    ByteSink scratch() {
        return scratch;
    }

    /** Appends the compression of {@code src} to {@code dst}; returns the compressed size. */
    int compress(ByteSink src, ByteSink dst, String column) {
        dst.ensure(Snappy.maxCompressedLength(src.size()));
        try {
            int n = Snappy.rawCompress(src.array(), 0, src.size(), dst.array(), dst.size());
            dst.advance(n);
            return n;
        } catch (IOException e) {
            throw new IllegalStateException("Snappy failed to compress a page of column " + column + " ("
                    + src.size() + " bytes): " + e.getMessage(), e);
        }
    }
}
