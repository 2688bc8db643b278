package org.eventindex.consumer;

import org.eventindex.spb.SpbRecord;

import java.io.Closeable;
import java.io.IOException;

/**
 * What one attempt at fetching an object keeps of it: the records {@link GuidSelector} selects are appended on the
 * fetch thread, sealed once the object's checksum is verified, then written to the consolidated file on the
 * handler's thread, in signal order. Closing releases whatever is still held (memory, local files), whether or not
 * it was written.
 */
interface SelectedRecords extends Closeable {

    /** A BeginGUID, TriggerMenu, event or EndGUID of a selected input file, in file order. */
    void append(SpbRecord record) throws IOException;

    /** Ends appending: the object was read in full and its checksum verified. */
    void seal() throws IOException;

    /** Hands the object's records to {@code writer}, after its {@code object(url)} call. */
    void writeTo(ConsolidatedWriter writer) throws IOException;
}
