package org.eventindex.spb;

import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Streaming writer of an EI SPB file. Enforces the same structure the reader checks and computes the counts:
 * {@link #endGuid(long)} writes EndGUID with the number of events since {@link #beginGuid}, {@link #finish(long)}
 * writes the Trailer with the totals and finishes the gzip stream.
 */
public final class SpbWriter implements Closeable {

    /** @param out receives the gzip stream; closed by {@link #close()} */
    public SpbWriter(OutputStream out) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    public void header(Header_p1 header) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    public void beginGuid(BeginGUID_p1 begin) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    public void triggerMenu(TriggerMenu_p1 menu) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    public void event(EIEvent_p1 event) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    public void endGuid(long endProcTime) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    /** Writes the Trailer and finishes the gzip stream (the underlying stream stays open until close). */
    public void finish(long endProcTime) throws IOException {
        throw new UnsupportedOperationException("TODO");
    }

    /** Events written so far. */
    public long events() {
        throw new UnsupportedOperationException("TODO");
    }

    @Override
    public void close() throws IOException {
        throw new UnsupportedOperationException("TODO");
    }
}
