package org.eventindex.consumer;

import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EndGUID_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;

import java.io.Closeable;
import java.io.IOException;

/**
 * Writes the one consolidated file of a dataset, record by record in the order of the SPB structure: header, then per
 * input file beginGuid, optional triggerMenu, events, endGuid, then finish. The format behind it (SPB now, Parquet
 * later) is chosen by {@link ConsolidatedFormat}. Closing does not close the stream the writer was opened on.
 */
public interface ConsolidatedWriter extends Closeable {

    void header(Header_p1 header) throws IOException;

    /** The object the following input files come from (its URL); formats that record provenance keep it. */
    default void object(String url) throws IOException {
    }

    void beginGuid(BeginGUID_p1 begin) throws IOException;

    void triggerMenu(TriggerMenu_p1 menu) throws IOException;

    void event(EIEvent_p1 event) throws IOException;

    /**
     * An event as its deterministic serialization ({@code toByteArray()} of the parsed event) with its sort key;
     * formats that can keep the bytes override this to save parsing. By default parsed and passed to {@link #event}.
     */
    default void event(int run, long event, boolean simulation, byte[] serialized) throws IOException {
        event(EIEvent_p1.parseFrom(serialized));
    }

    /** Ends the current input file; the writer counts its events itself. */
    void endGuid(EndGUID_p1 end) throws IOException;

    /** Writes whatever closes the file (totals) and flushes everything to the stream. */
    void finish(long endProcTime) throws IOException;

    /** Events written so far. */
    long events();
}
