package org.eventindex.spb;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;

/**
 * Streaming reader of an EI SPB file (gzip; magic {@code 0x6e56c8c7}; version 1; typed length-prefixed protobuf
 * messages). Validates as it reads, never holding more than one message in memory:
 * <ul>
 *   <li>magic and version, gzip integrity, known types and message version, lengths within the stream and under
 *       {@link SpbLimits#maxMessageBytes()};</li>
 *   <li>structure: Header first; then per input file BeginGUID, optional TriggerMenu, EIEvent*, EndGUID; then
 *       Trailer last and nothing after it;</li>
 *   <li>counts: EndGUID.nentries equals the events since its BeginGUID; Trailer.nentries / nfiles equal the
 *       totals.</li>
 * </ul>
 * Any violation throws {@link SpbFormatException} naming the source and offset.
 */
public final class SpbReader implements Closeable {

    /** @param gzipped the raw (compressed) stream; closed by {@link #close()} */
    public SpbReader(InputStream gzipped, String source, SpbLimits limits) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    public static SpbReader open(Path file, SpbLimits limits) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    /** @return the next record, or null after the Trailer has been read and the stream is verified to end */
    public SpbRecord next() throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    /** Uncompressed bytes consumed so far (the SPB {@code usize} once the stream is exhausted). */
    public long uncompressedBytes() {
        throw new UnsupportedOperationException("TODO");
    }

    @Override
    public void close() throws IOException {
        throw new UnsupportedOperationException("TODO");
    }
}
