package org.eventindex.consumer;

import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
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
 * Writes the one consolidated file of a dataset: header, then per object its URL, its sorted runs
 * ({@link SortedRuns#objectRuns}) and the records of its input files (beginGuid, optional triggerMenu, endGuid), then
 * finish. The events never pass through here one by one: the fetch threads sort each object into runs, and the writer
 * merges them. Closing does not close the stream the writer was opened on.
 */
public interface ConsolidatedWriter extends Closeable {

    void header(Header_p1 header) throws IOException;

    /** The object the following input files come from (its URL); formats that record provenance keep it. */
    default void object(String url) throws IOException {
    }

    void beginGuid(BeginGUID_p1 begin) throws IOException;

    void triggerMenu(TriggerMenu_p1 menu) throws IOException;

    /** Ends the current input file; the writer counts its events itself. */
    void endGuid(EndGUID_p1 end) throws IOException;

    /** Writes whatever closes the file (totals) and flushes everything to the stream. */
    void finish(long endProcTime) throws IOException;

    /** Events written so far. */
    long events();

    /** Where and within which memory the fetch threads sort each object's events, and how the writer takes them. */
    SortedRuns sortedRuns();

    /**
     * The side of a writer that takes each object's events as sorted runs ({@link SortBuffer#writeRun}), written by
     * the fetch threads within a shared memory budget.
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
         * then come. The writer owns the runs from now on and deletes them.
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
