package org.eventindex.consumer;

import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EndGUID_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Set;

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

    /**
     * How this writer wants the events: {@code null} (the default) for one by one in file order through
     * {@code event(...)}; otherwise each object's events come sorted by its fetch thread, as run files.
     */
    default SortedRuns sortedRuns() {
        return null;
    }

    /**
     * The side of a writer that takes each object's events as sorted run files ({@link SortBuffer#writeRun}),
     * written by the fetch threads within a shared memory budget, instead of event by event.
     */
    interface SortedRuns {
        /** Memory the fetch threads of a dataset share for their sort buffers (payload + index). */
        long sortMemoryBytes();

        /** Where the fetch threads write the run files. */
        Path runDir();

        /** Where the fetch threads keep sorted runs instead of files while it has room; null: none. */
        default RunMemory runMemory() {
            return null;
        }

        /**
         * The current object's events: called after {@code object(url)} and before the object's GUID records, which
         * then come without {@code event(...)} calls. The writer owns the files from now on and deletes them.
         */
        void objectRuns(ObjectRuns runs) throws IOException;
    }

    /**
     * One object's sorted events.
     *
     * @param files      its runs in the order they were written (ties between them keep this order)
     * @param fileEvents events of each of its selected input files, in file order (the run files' file indexes)
     * @param runNumbers the distinct run numbers of its events (unsigned)
     * @param simulation how many of its events are simulated
     */
    record ObjectRuns(List<SortedRun> files, long[] fileEvents,
                      Set<Long> runNumbers, long simulation) {
        public ObjectRuns {
            files = List.copyOf(Objects.requireNonNull(files, "files is null"));
            fileEvents = Objects.requireNonNull(fileEvents, "fileEvents is null").clone();
            runNumbers = Set.copyOf(Objects.requireNonNull(runNumbers, "runNumbers is null"));
        }

        /** Events in all files. */
        public long events() {
            long n = 0;
            for (long e : fileEvents) {
                n += e;
            }
            return n;
        }
    }
}
