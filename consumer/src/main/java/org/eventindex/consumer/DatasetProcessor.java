package org.eventindex.consumer;

import org.apache.hadoop.fs.Path;
import org.eventindex.EventIndexFailure;
import org.eventindex.kudu.DatasetLoadException;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Objects;
import java.util.function.LongConsumer;

import static org.eventindex.EventIndexFailure.Kind.FATAL;
import static org.eventindex.EventIndexFailure.Kind.RETRIABLE;

/**
 * The work for one validated signal: consolidate the selected objects into a temp file, publish it atomically,
 * then load it into Kudu. Nothing is published unless the whole file was written; a failure at any step becomes a
 * {@link ConsumeException} naming the dataset, the object or file, and the cause, and whether it is fatal (the
 * signal, an object or its content is wrong) or retriable (HDFS, Kudu or S3 failed).
 */
final class DatasetProcessor {
    private final Consolidator consolidator;
    private final ConsolidatedFormat format;
    private final HdfsCommitter committer;
    private final DatasetIngest ingest;
    private final LongConsumer workDone;

    /**
     * @param workDone told the work done as it goes, past the reading and writing the consolidator and the format
     *                 count: the file published, and the load's events and steps (what a heartbeat's progress sums)
     */
    DatasetProcessor(Consolidator consolidator, ConsolidatedFormat format, HdfsCommitter committer,
                     DatasetIngest ingest, LongConsumer workDone) {
        this.consolidator = Objects.requireNonNull(consolidator, "consolidator is null");
        this.format = Objects.requireNonNull(format, "format is null");
        this.committer = Objects.requireNonNull(committer, "committer is null");
        this.ingest = Objects.requireNonNull(ingest, "ingest is null");
        this.workDone = Objects.requireNonNull(workDone, "workDone is null");
    }

    /** The file published and what it holds, and what the load did. */
    record Outcome(Path file, Consolidator.Result written, DatasetIngest.Loaded loaded) {
    }

    Outcome process(ValidSignal signal) throws ConsumeException, InterruptedException {
        String dataset = signal.dataset();
        Path target = committer.finalPath(signal.container(), dataset);
        Consolidator.Result written;
        Path file;
        HdfsCommitter.PendingFile pending;
        try {
            pending = committer.begin(signal.container(), dataset, signal.signalId());
        } catch (IOException e) {
            throw new ConsumeException(RETRIABLE, "dataset " + dataset + ": cannot create a temp file next to " + target
                    + ": " + e.getMessage(), e);
        }
        try (pending) {
            try (ConsolidatedWriter writer = format.open(pending.stream())) {
                written = consolidator.consolidate(signal, writer);
            } catch (ConsumeException e) {
                throw new ConsumeException(e.kind(), "dataset " + dataset + ": " + e.getMessage(), e);
            } catch (InterruptedIOException e) {
                throw new InterruptedException("dataset " + dataset + ": interrupted: " + e.getMessage());
            } catch (IOException e) {
                throw new ConsumeException(ConsumeException.of(e), "dataset " + dataset + ": writing "
                        + pending.tempPath() + " failed: " + e.getMessage(), e);
            }
            if (written.eventsWritten() != signal.signal().expectedEvents()) {
                throw new ConsumeException(FATAL, "dataset " + dataset + ": wrote " + written.eventsWritten()
                        + " events but the signal expects " + signal.signal().expectedEvents());
            }
            try {
                ingest.checkNotSuperseded(signal);
            } catch (IOException e) {
                // refused as superseded (fatal: a newer selection is loaded, this signal can never be published), or
                // Kudu failed
                throw new ConsumeException(EventIndexFailure.kindOf(e, RETRIABLE),
                        "dataset " + dataset + ": not published: " + e.getMessage(), e);
            }
            try {
                file = pending.commit();
            } catch (IOException e) {
                throw new ConsumeException(RETRIABLE, "dataset " + dataset + ": " + e.getMessage(), e);
            }
            workDone.accept(1);
        }
        DatasetIngest.Loaded loaded;
        try {
            loaded = ingest.ingest(signal, file, workDone);
        } catch (IOException e) {
            // Only the loader's own verdict counts here: a malformed SPB stream is the file this consumer just wrote,
            // which a retry of the signal writes again.
            EventIndexFailure.Kind kind = e instanceof DatasetLoadException d ? d.kind() : RETRIABLE;
            String reason = "dataset " + dataset + ": loading " + file + " into Kudu failed: " + e.getMessage();
            if (kind == FATAL) {
                reason += abandon(signal, file);
                kind = reason.endsWith(LEFT) ? RETRIABLE : FATAL;
            }
            throw new ConsumeException(kind, reason, e);
        } catch (RuntimeException e) {
            // a bug (the content was checked before the file was written): reported as an internal error, and what
            // the load wrote does not stay half done
            String left = abandon(signal, file);
            if (left.endsWith(LEFT)) {
                throw new ConsumeException(RETRIABLE, "dataset " + dataset + ": internal error while loading " + file
                        + ": " + e + left, e);
            }
            throw e;
        }
        return new Outcome(file, written, loaded);
    }

    /** Ends the text {@link #abandon} returns when something of the failed load could not be removed. */
    static final String LEFT = "; a retry of the signal removes them";

    /**
     * Removes what a load that failed for good wrote (its Kudu rows and DATASETS row, its HDFS file), so that nothing
     * is left half done.
     *
     * @return what to add to the failure's reason: what was removed, or, when that failed, what is left and that a
     *         retry removes it (the caller then reports the failure as transient: the retry fails the same way and
     *         cleans up once Kudu and HDFS answer)
     */
    private String abandon(ValidSignal signal, Path file) {
        try {
            ingest.abandon(signal, file);
            return "; its rows and " + file + " were removed";
        } catch (IOException | RuntimeException e) {
            return "; removing its rows and " + file + " failed (" + e.getMessage() + ")" + LEFT;
        }
    }
}
