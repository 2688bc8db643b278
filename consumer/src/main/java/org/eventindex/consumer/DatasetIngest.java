package org.eventindex.consumer;

import org.apache.hadoop.fs.Path;
import org.eventindex.kudu.EventFeed;

import java.io.IOException;
import java.util.function.LongConsumer;

/** Loads a dataset's consolidated HDFS file into the query store (Kudu). Must be idempotent per signal id. */
public interface DatasetIngest {

    /**
     * @param file the committed consolidated file
     * @throws IOException naming the dataset and file when the load fails; the dataset is then not marked loaded
     */
    Loaded ingest(ValidSignal signal, Path file) throws IOException;

    /**
     * {@link #ingest(ValidSignal, Path)}, telling {@code workDone} the work as it goes, in increments from the loading
     * thread: one unit per event loaded and one per step without events (the tables checked, the dataset marked
     * LOADING, its analytics written, its counts verified); stores that cannot tell load without it.
     */
    default Loaded ingest(ValidSignal signal, Path file, LongConsumer workDone) throws IOException {
        return ingest(signal, file);
    }

    /**
     * {@link #ingest(ValidSignal, Path, LongConsumer)} of the file being written to {@code file}, its rows taken from
     * {@code feed} as they are merged (the load overlapping the merge, decision 0073); the dataset is marked loaded
     * only after the feed's end, which comes once the file is committed. Stores that cannot ({@link
     * #loadsWhileWritten()} false) refuse.
     */
    default Loaded ingest(ValidSignal signal, Path file, EventFeed feed, LongConsumer workDone) throws IOException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " loads only written files");
    }

    /** Whether {@link #ingest(ValidSignal, Path, EventFeed, LongConsumer)} is supported. */
    default boolean loadsWhileWritten() {
        return false;
    }

    /**
     * Whether the store holds a queryable load of the signal's dataset from another signal (whose rows a load of this
     * one replaces). Such a dataset is loaded after its new file is published, not while it is written, so that its
     * earlier content stays queryable if the new one fails its checks (decision 0073). Stores without that record
     * hold none.
     *
     * @throws IOException when the store cannot be read
     */
    default boolean holdsEarlierLoad(ValidSignal signal) throws IOException {
        return false;
    }

    /**
     * Called before the dataset's HDFS file is replaced: refuses a signal whose selection is older than the one the
     * query store already holds for the dataset (a superseded signal delivered late), so that neither the file nor
     * the rows go back to older content. Stores without that record accept every signal.
     *
     * @throws IOException naming the dataset and both selections when the signal is superseded
     */
    default void checkNotSuperseded(ValidSignal signal) throws IOException {
    }

    /**
     * Removes what a load of {@code signal} that failed for good wrote: its rows (while the store still names that
     * load, not a newer one) and the consolidated file {@code file} (while it is still the one written for this
     * signal). Stores without that record remove nothing.
     *
     * @throws IOException when the store or HDFS cannot be reached; what is left is named
     */
    default void abandon(ValidSignal signal, Path file) throws IOException {
    }

    /**
     * Rows of the load in progress held in memory for the query store and not yet taken by it (0 when none loads,
     * and for stores that do not buffer): the gauge {@link ConsumerMetrics#KUDU_BUFFERED_ROWS}. Any thread.
     */
    default long bufferedRows() {
        return 0;
    }

    /**
     * Returns when the query store answers (the consumer's readiness check calls it in the background, with a
     * deadline); stores without a remote side always answer.
     *
     * @throws IOException naming the store and why it did not answer
     */
    default void probe() throws IOException {
    }

    /**
     * @param eventsLoaded    rows of the dataset in EVENTS (or MCEVENTS) after the load
     * @param duplicateEvents rows of the dataset in DUPLICATEDEVENTS after the load
     */
    record Loaded(long eventsLoaded, long duplicateEvents) {
    }
}
