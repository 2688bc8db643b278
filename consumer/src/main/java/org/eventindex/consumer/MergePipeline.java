package org.eventindex.consumer;

import org.eventindex.consolidated.RowDigest;
import org.eventindex.consolidated.StageRefs;
import org.eventindex.spb.EventScan;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Runs the k-way merge of sorted events (a {@link Source}: {@link RunMerger} or {@link ExternalSorter}), the reading
 * of the sorted events' fields, their stage references and the row checksum on a second thread, handing batches of
 * rows to the calling thread (which encodes Parquet). Merge and encoding then overlap on two cores. Memory: a few
 * batches, whose rows are recycled. Order is preserved.
 * <p>
 * The events' fields are either restored from the scan saved with each event ({@link EventScan#writeIndexed}: the
 * runs of {@link SortBuffer}, whose events were scanned on the fetch threads) or read by scanning the event (an
 * {@link ExternalSorter}'s events).
 */
final class MergePipeline {
    private static final Logger LOG = LoggerFactory.getLogger(MergePipeline.class);
    private static final int BATCH = 512;
    private static final int DEPTH = 4;

    /**
     * A sorted row: the scanned event (a copy of its serialization, in an array the row keeps), its file index and
     * its stage references. Reused.
     */
    static final class Row {
        final EventScan event = new EventScan();
        final StageRefs refs = new StageRefs();
        int guid;
        private byte[] bytes = new byte[1024];
    }

    /** The sorted events: feeds them, in order, to a sink. */
    @FunctionalInterface
    interface Source {
        void merge(RunMerger.Sink sink) throws IOException;
    }

    /** Receives the rows in order on the calling thread, a batch at a time (the batch is reused after the call). */
    @FunctionalInterface
    interface RowSink {
        void accept(List<Row> rows) throws IOException;
    }

    private MergePipeline() {
    }

    /**
     * Merges {@code source} into {@code sink}; {@code label} names the dataset in the thread name and errors.
     *
     * @param indexed whether the source's events are saved scans ({@link EventScan#writeIndexed}) rather than plain
     *                serializations
     * @return the rows' checksum ({@link RowDigest}, in the order the sink got them), computed on the merge thread
     */
    static String run(Source source, boolean indexed, String label, IntFunction<String> guidName, RowSink sink)
            throws IOException {
        RowDigest digest = new RowDigest();
        BlockingQueue<List<Row>> queue = new ArrayBlockingQueue<>(DEPTH);
        // batches the calling thread is done with, for the merge thread to fill again (no allocation per row)
        BlockingQueue<List<Row>> free = new ArrayBlockingQueue<>(DEPTH + 2);
        List<Row> end = List.of();
        Throwable[] failure = new Throwable[1];
        Thread merger = new Thread(() -> {
            try {
                List<Row>[] batch = new List[]{newBatch(free)};
                int[] n = {0};
                StageRefs.Resolver resolver = new StageRefs.Resolver();
                source.merge((guid, buf, off, len) -> {
                    Row row = batch[0].get(n[0]++);
                    if (row.bytes.length < len) {
                        row.bytes = new byte[Math.max(len, 2 * row.bytes.length)];
                    }
                    System.arraycopy(buf, off, row.bytes, 0, len);
                    if (indexed ? !row.event.restore(row.bytes, 0, len) : !row.event.scan(row.bytes, 0, len)) {
                        throw new IOException("a sorted event of file " + guidName.apply(guid) + " is not "
                                + (indexed ? "a saved event scan" : "a canonical EIEvent_p1 serialization"));
                    }
                    row.guid = guid;
                    String name = guidName.apply(guid);
                    // the stage references (token parsing) and the row checksum are computed here, off the encoding
                    // threads
                    resolver.resolve(row.event, guid, name, row.refs);
                    digest.add(row.event.buf(), row.event.offset(), row.event.length(), name);
                    if (n[0] == BATCH) {
                        put(queue, batch[0]);
                        batch[0] = newBatch(free);
                        n[0] = 0;
                    }
                });
                if (n[0] > 0) {
                    put(queue, batch[0].subList(0, n[0]));
                }
            } catch (IOException | RuntimeException | Error e) {
                failure[0] = e;
            } finally {
                try {
                    put(queue, end);
                } catch (InterruptedIOException e) {
                    // the consumer side gave up and interrupted us
                }
            }
        }, "consumer-merge-" + label);
        merger.setDaemon(true);
        merger.start();
        boolean done = false;
        try {
            for (List<Row> rows = take(queue); rows != end; rows = take(queue)) {
                sink.accept(rows);
                if (rows.size() == BATCH) {
                    free.offer(rows);
                }
            }
            merger.join();
            done = true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("dataset " + label + ": interrupted while merging sorted events");
        } finally {
            if (!done) {
                stop(merger, label);
            }
        }
        Throwable f = failure[0];
        if (f instanceof IOException io) {
            throw new IOException("dataset " + label + ": merging sorted events failed: " + io.getMessage(), io);
        }
        if (f instanceof RuntimeException re) {
            throw re;
        }
        if (f instanceof Error err) {
            throw err;
        }
        return digest.hex();
    }

    /**
     * Interrupts the merge thread and waits for it, so that the run files it has open or is writing are deleted
     * before the dataset's failure is reported (an interrupt of the calling thread is kept for its caller).
     */
    private static void stop(Thread merger, String label) {
        merger.interrupt();
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (merger.isAlive() && System.nanoTime() < deadline) {
            try {
                merger.join(1000);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (merger.isAlive()) {
            LOG.warn("dataset {}: the merge thread did not stop within 60 s; run files may remain", label);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static List<Row> newBatch(BlockingQueue<List<Row>> free) {
        List<Row> b = free.poll();
        if (b == null) {
            b = new ArrayList<>(BATCH);
            for (int i = 0; i < BATCH; i++) {
                b.add(new Row());
            }
        }
        return b;
    }

    private static void put(BlockingQueue<List<Row>> queue, List<Row> rows) throws InterruptedIOException {
        try {
            queue.put(rows);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("merge interrupted");
        }
    }

    private static List<Row> take(BlockingQueue<List<Row>> queue) throws InterruptedException {
        List<Row> rows = queue.poll(10, TimeUnit.MINUTES);
        if (rows == null) {
            throw new IllegalStateException("no sorted events for 10 minutes: the merge thread is stuck");
        }
        return rows;
    }
}
