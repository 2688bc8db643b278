package org.eventindex.consumer;

import java.io.IOException;
import java.io.OutputStream;

/** A file format for consolidated dataset files ({@link ParquetConsolidatedFormat}). */
public interface ConsolidatedFormat {

    /** File name suffix, e.g. {@code .parquet}: the file of dataset D is {@code D + suffix}. */
    String fileSuffix();

    /** @param out receives the file; the writer flushes it on finish but never closes it */
    ConsolidatedWriter open(OutputStream out) throws IOException;

    /**
     * {@link #open(OutputStream)}, the merged rows also handed to {@code tap} as they are written (the Kudu load
     * overlapping the merge); formats that cannot refuse.
     */
    default ConsolidatedWriter open(OutputStream out, MergedRows tap) throws IOException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " does not hand its rows over while"
                + " writing; set consumer.kudu.load.overlap=false");
    }
}
