package org.eventindex.consumer;

import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.consolidated.EventRecord;
import org.eventindex.kudu.EventFeed;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.EventScan;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * The bounded hand-off between the merge, which writes a dataset's file, and the Kudu load that takes the same rows
 * at the same time (decision 0073): the merging thread turns each batch of merged rows into loader records
 * ({@link EventRecord}, arrays of their own) and puts it in a queue of {@value #BATCHES} batches, waiting while the
 * queue is full; the loading thread takes them. So at most {@value #BATCHES} batches (~2,000 rows, a few MB) stand
 * between them, whatever the dataset's size: the merge goes at the load's pace.
 * <p>
 * The end of the rows reaches the load only through {@link #complete()}, which the consumer calls once the file is
 * committed: the load marks the dataset LOADED after it, never before the file is there. {@link #fail} instead makes
 * the load fail (the dataset stays LOADING, and the retry of the signal deletes its rows, as after an interrupted
 * load). When the load stops first ({@link #loadStopped}), the merge stops too if the load failed, and goes on alone
 * (the rows dropped here) if it did not need them (the dataset was already loaded from this signal).
 */
final class LoadFeed implements EventFeed, MergedRows {
    /** Batches of merged rows (up to {@code MergePipeline}'s 512 each) waiting for the load. */
    static final int BATCHES = 4;
    private static final long WAIT_MILLIS = 100;
    private static final EventRecord[] END = new EventRecord[0];
    private static final EventRecord[] FAILED = new EventRecord[0];

    private final String dataset;
    private final String file;
    private final BlockingQueue<EventRecord[]> queue = new ArrayBlockingQueue<>(BATCHES);
    private final CountDownLatch begun = new CountDownLatch(1);
    private volatile boolean simulation;
    private volatile boolean singleRun;
    private volatile Map<String, TriggerMenu_p1> menus = Map.of();
    /** Why the file will not be complete; set by the writing side. */
    private volatile Throwable failed;
    /** The load no longer takes rows; set by the loading side. */
    private volatile boolean loadStopped;
    /** Why the load stopped, when it failed. */
    private volatile Throwable loadFailure;

    // the writing side's
    private byte[][] guidBytes = new byte[0][];
    private long rowsHandedOver;

    // the loading side's
    private EventRecord[] current = END;
    private int next;
    private boolean ended;

    /** @param file named in the load's errors: the file being written */
    LoadFeed(String dataset, String file) {
        this.dataset = Objects.requireNonNull(dataset, "dataset is null");
        this.file = Objects.requireNonNull(file, "file is null");
    }

    // ---- the writing side (the merging thread, then the consumer's handler)

    @Override
    public void begin(ConsolidatedMetadata footer) {
        simulation = footer.simulation();
        singleRun = footer.runs().size() <= 1;
        menus = Map.copyOf(EventFeed.firstMenus(footer));
        begun.countDown();
    }

    @Override
    public void rows(List<MergePipeline.Row> rows, IntFunction<String> guidName) throws IOException {
        EventRecord[] batch = new EventRecord[rows.size()];
        for (int i = 0; i < batch.length; i++) {
            MergePipeline.Row row = rows.get(i);
            batch[i] = record(row.event, guidName.apply(row.guid), guidBytes(row.guid, guidName));
        }
        put(batch);
        rowsHandedOver += batch.length;
    }

    /** Rows handed to the load so far (dropped ones included, when the load did not need them). */
    long rowsHandedOver() {
        return rowsHandedOver;
    }

    /** The file is committed: the load may finish and mark the dataset LOADED. */
    void complete() throws IOException {
        put(END);
    }

    /** The file will not be complete ({@code cause}): the load fails and the dataset is not marked LOADED. */
    void fail(Throwable cause) {
        failed = Objects.requireNonNull(cause, "cause is null");
        begun.countDown();
        // the writing side is the only one putting: after the clear there is room for the mark
        queue.clear();
        queue.offer(FAILED);
    }

    /** The load ended ({@code failure} null) or failed: no more rows are taken. */
    void loadStopped(Throwable failure) {
        loadFailure = failure;
        loadStopped = true;
    }

    private void put(EventRecord[] batch) throws IOException {
        try {
            while (!queue.offer(batch, WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
                if (loadStopped) {
                    break;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("dataset " + dataset + ": interrupted while handing rows to the Kudu"
                    + " load");
        }
        Throwable f = loadFailure;
        if (loadStopped && f != null) {
            throw new IOException("dataset " + dataset + ": the Kudu load taking the rows of " + file + " failed: "
                    + f.getMessage(), f);
        }
    }

    private byte[] guidBytes(int guid, IntFunction<String> guidName) {
        if (guid >= guidBytes.length) {
            guidBytes = Arrays.copyOf(guidBytes, Math.max(guid + 1, 2 * guidBytes.length));
        }
        byte[] b = guidBytes[guid];
        if (b == null) {
            b = guidName.apply(guid).getBytes(StandardCharsets.UTF_8);
            guidBytes[guid] = b;
        }
        return b;
    }

    /**
     * The loader's record of a merged event: what the loader reads back from the file's row (the event's fields, its
     * masks and tokens as arrays of their own, the file GUID).
     */
    static EventRecord record(EventScan e, String guid, byte[] guidBytes) {
        EventRecord r = new EventRecord();
        r.copyFieldsFrom(e);
        byte[] b = e.buf();
        r.l1PassedTrigMask = slice(b, e.l1MaskOff, e.l1MaskLen);
        r.l2PassedTrigMask = slice(b, e.l2MaskOff, e.l2MaskLen);
        r.efPassedTrigMask = slice(b, e.efMaskOff, e.efMaskLen);
        for (int i = 0; i < e.tokenCount; i++) {
            r.addToken(slice(b, e.nameOff[i], e.nameLen[i]), slice(b, e.tokenOff[i], e.tokenLen[i]));
        }
        r.guid = guid;
        r.guidBytes = guidBytes;
        return r;
    }

    private static byte[] slice(byte[] b, int off, int len) {
        return off < 0 ? null : Arrays.copyOfRange(b, off, off + len);
    }

    // ---- the loading side (the load's thread)

    @Override
    public boolean simulation() throws IOException {
        awaitBegin();
        return simulation;
    }

    @Override
    public boolean singleRun() throws IOException {
        awaitBegin();
        return singleRun;
    }

    @Override
    public Map<String, TriggerMenu_p1> menus() throws IOException {
        awaitBegin();
        return menus;
    }

    /**
     * Returns once the merge starts (after the fetch phase, every object read): what the load waits for before it
     * touches Kudu, so that a signal whose objects fail changes nothing there, as without the overlap.
     *
     * @throws IOException naming the file when it failed before
     */
    void awaitBegin() throws IOException {
        try {
            begun.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("dataset " + dataset + ": interrupted while waiting for the merge of "
                    + file);
        }
        if (failed != null) {
            throw notCompleted();
        }
    }

    private IOException notCompleted() {
        Throwable f = failed;
        return new IOException("dataset " + dataset + ": " + file + " was not completed, so its rows are not LOADED: "
                + (f == null ? "unknown" : f.getMessage()), f);
    }

    @Override
    public EventRecord next() throws IOException {
        while (next == current.length) {
            if (ended) {
                return null;
            }
            EventRecord[] b;
            try {
                b = queue.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("dataset " + dataset + ": interrupted while waiting for the rows of "
                        + file);
            }
            if (b == FAILED) {
                queue.offer(FAILED);
                throw notCompleted();
            }
            if (b == END) {
                ended = true;
                return null;
            }
            current = b;
            next = 0;
        }
        EventRecord r = current[next];
        // the loader keeps the record until Kudu took it; this array no longer does
        current[next++] = null;
        return r;
    }

    @Override
    public void close() {
        loadStopped = true;
    }
}
