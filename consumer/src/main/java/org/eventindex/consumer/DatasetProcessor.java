package org.eventindex.consumer;

import org.apache.hadoop.fs.Path;
import org.eventindex.EventIndexFailure;
import org.eventindex.kudu.DatasetLoadException;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.function.LongConsumer;

import static org.eventindex.EventIndexFailure.Kind.FATAL;
import static org.eventindex.EventIndexFailure.Kind.RETRIABLE;

/**
 * The work for one validated signal: consolidate the selected objects into a temp file, publish it atomically,
 * then load it into Kudu. Nothing is published unless the whole file was written; a failure at any step becomes a
 * {@link ConsumeException} naming the dataset, the object or file, and the cause, and whether it is fatal (the
 * signal, an object or its content is wrong) or retriable (HDFS, Kudu or S3 failed).
 * <p>
 * With {@code overlap} (consumer.kudu.load.overlap, decision 0073) the load runs on a thread of its own while the
 * file is written: it takes the rows as the merge writes them ({@link LoadFeed}) and marks the dataset LOADED only
 * after the file is committed; a failure of either side fails both, and the dataset is left as an interrupted load
 * leaves it (LOADING, its rows deleted by the next attempt). A dataset already queryable from another signal's load is
 * loaded after its file is published, as without {@code overlap}, so that a new content failing its checks leaves the
 * earlier one queryable.
 */
final class DatasetProcessor {
    private final Consolidator consolidator;
    private final ConsolidatedFormat format;
    private final HdfsCommitter committer;
    private final DatasetIngest ingest;
    private final LongConsumer workDone;
    private final boolean overlap;

    /**
     * @param workDone told the work done as it goes, past the reading and writing the consolidator and the format
     *                 count: the file published, and the load's events and steps (what a heartbeat's progress sums)
     */
    DatasetProcessor(Consolidator consolidator, ConsolidatedFormat format, HdfsCommitter committer,
                     DatasetIngest ingest, LongConsumer workDone) {
        this(consolidator, format, committer, ingest, workDone, false);
    }

    /** @param overlap load the rows into Kudu while the file is written (when the store can) */
    DatasetProcessor(Consolidator consolidator, ConsolidatedFormat format, HdfsCommitter committer,
                     DatasetIngest ingest, LongConsumer workDone, boolean overlap) {
        this.consolidator = Objects.requireNonNull(consolidator, "consolidator is null");
        this.format = Objects.requireNonNull(format, "format is null");
        this.committer = Objects.requireNonNull(committer, "committer is null");
        this.ingest = Objects.requireNonNull(ingest, "ingest is null");
        this.workDone = Objects.requireNonNull(workDone, "workDone is null");
        this.overlap = overlap && ingest.loadsWhileWritten();
    }

    /** The file published and what it holds, and what the load did. */
    record Outcome(Path file, Consolidator.Result written, DatasetIngest.Loaded loaded) {
    }

    Outcome process(ValidSignal signal) throws ConsumeException, InterruptedException {
        if (overlap && !holdsEarlierLoad(signal)) {
            return processOverlapped(signal);
        }
        Consolidator.Result written = writeAndCommit(signal, null);
        Path file = committer.finalPath(signal.container(), signal.dataset());
        DatasetIngest.Loaded loaded;
        try {
            loaded = ingest.ingest(signal, file, workDone);
        } catch (IOException | RuntimeException e) {
            throw loadFailed(signal, file, e);
        }
        return new Outcome(file, written, loaded);
    }

    /**
     * Whether the dataset is queryable from another signal's load: then it is loaded after its file is published (the
     * earlier rows stay queryable until the new file passed its checks). When Kudu cannot say, the same: the safe order.
     */
    private boolean holdsEarlierLoad(ValidSignal signal) {
        try {
            return ingest.holdsEarlierLoad(signal);
        } catch (IOException | RuntimeException e) {
            return true;
        }
    }

    /**
     * The file written and committed while a load on its own thread takes its rows; the load's outcome once both are
     * done.
     */
    private Outcome processOverlapped(ValidSignal signal) throws ConsumeException, InterruptedException {
        String dataset = signal.dataset();
        Path file = committer.finalPath(signal.container(), dataset);
        LoadFeed feed = new LoadFeed(dataset, file.toString());
        FutureTask<DatasetIngest.Loaded> load = new FutureTask<>(() -> {
            try {
                // nothing changes in Kudu before every object was read and the merge starts
                feed.awaitBegin();
                DatasetIngest.Loaded l = ingest.ingest(signal, file, feed, workDone);
                feed.loadStopped(null);
                return l;
            } catch (IOException | RuntimeException | Error e) {
                feed.loadStopped(e);
                throw e;
            }
        });
        Thread loader = new Thread(load, "kudu-load-" + dataset);
        loader.setDaemon(true);
        loader.start();
        Consolidator.Result written;
        try {
            written = writeAndCommit(signal, feed);
        } catch (ConsumeException | RuntimeException e) {
            feed.fail(e);
            Throwable loadFailure = failureOf(load);
            if (loadFailure instanceof Exception first && !causedBy(first, e)) {
                // the load failed first (Kudu, a refusal) and the merge stopped because of it
                throw loadFailed(signal, file, first);
            }
            if (e instanceof ConsumeException c && c.kind() == FATAL) {
                // the signal or its content is wrong: the rows the load took must not stay half done
                throw new ConsumeException(FATAL, c.getMessage() + abandon(signal, file), c);
            }
            throw e;
        } catch (InterruptedException e) {
            feed.fail(e);
            loader.interrupt();
            throw e;
        }
        try {
            return new Outcome(file, written, load.get());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception failure) {
                throw loadFailed(signal, file, failure);
            }
            throw (Error) e.getCause();
        }
    }

    /** The failure of the finished {@code load} (waiting for it to end), or null when it succeeded. */
    private static Throwable failureOf(FutureTask<?> load) throws InterruptedException {
        try {
            load.get();
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private static boolean causedBy(Throwable t, Throwable cause) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c == cause) {
                return true;
            }
        }
        return false;
    }

    /**
     * Consolidates the signal's objects into a temp file (its rows also to {@code tap} when not null), checks it and
     * publishes it; then tells {@code tap} the file is complete.
     */
    private Consolidator.Result writeAndCommit(ValidSignal signal, LoadFeed tap)
            throws ConsumeException, InterruptedException {
        String dataset = signal.dataset();
        Path target = committer.finalPath(signal.container(), dataset);
        Consolidator.Result written;
        HdfsCommitter.PendingFile pending;
        try {
            pending = committer.begin(signal.container(), dataset, signal.signalId());
        } catch (IOException e) {
            throw new ConsumeException(RETRIABLE, "dataset " + dataset + ": cannot create a temp file next to " + target
                    + ": " + e.getMessage(), e);
        }
        try (pending) {
            try (ConsolidatedWriter writer = tap == null ? format.open(pending.stream())
                    : format.open(pending.stream(), tap)) {
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
                pending.commit();
            } catch (IOException e) {
                throw new ConsumeException(RETRIABLE, "dataset " + dataset + ": " + e.getMessage(), e);
            }
            workDone.accept(1);
        }
        if (tap != null) {
            try {
                tap.complete();
            } catch (InterruptedIOException e) {
                throw new InterruptedException("dataset " + dataset + ": interrupted: " + e.getMessage());
            } catch (IOException e) {
                throw new ConsumeException(RETRIABLE, e.getMessage(), e);
            }
        }
        return written;
    }

    /**
     * What a failed load of {@code file} becomes: a {@link ConsumeException} of the loader's verdict (what a failed
     * load wrote removed when it is fatal); a bug's {@link RuntimeException} rethrown after the same clean-up.
     */
    private ConsumeException loadFailed(ValidSignal signal, Path file, Exception e) {
        String dataset = signal.dataset();
        if (e instanceof IOException) {
            // Only the loader's own verdict counts here: a malformed SPB stream is the file this consumer just wrote,
            // which a retry of the signal writes again.
            EventIndexFailure.Kind kind = e instanceof DatasetLoadException d ? d.kind() : RETRIABLE;
            String reason = "dataset " + dataset + ": loading " + file + " into Kudu failed: " + e.getMessage();
            if (kind == FATAL) {
                reason += abandon(signal, file);
                kind = reason.endsWith(LEFT) ? RETRIABLE : FATAL;
            }
            return new ConsumeException(kind, reason, e);
        }
        // a bug (the content was checked before the file was written): reported as an internal error, and what
        // the load wrote does not stay half done
        String left = abandon(signal, file);
        if (left.endsWith(LEFT)) {
            return new ConsumeException(RETRIABLE, "dataset " + dataset + ": internal error while loading " + file
                    + ": " + e + left, e);
        }
        throw (RuntimeException) e;
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
