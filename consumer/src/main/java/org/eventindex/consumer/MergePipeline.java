package org.eventindex.consumer;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.UnsafeByteOperations;
import org.eventindex.consolidated.StageRefs;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * Runs the k-way merge of an {@link ExternalSorter} and the parsing of the sorted events on a second thread, handing
 * batches of parsed rows to the calling thread (which encodes Parquet). Merge/parse and encoding then overlap on two
 * cores. Memory: a few batches. Order is preserved.
 */
final class MergePipeline {
    private static final int BATCH = 512;
    private static final int DEPTH = 4;

    /** A sorted row: the parsed event, its serialization, its file index and its stage references. */
    record Row(EIEvent_p1 event, byte[] serialized, int guid, StageRefs refs) {
    }

    /** Receives the rows in order on the calling thread. */
    @FunctionalInterface
    interface RowSink {
        void accept(Row row) throws IOException;
    }

    private MergePipeline() {
    }

    /** Merges {@code sorter} into {@code sink}; {@code label} names the dataset in the thread name and errors. */
    static void run(ExternalSorter sorter, String label, IntFunction<String> guidName, RowSink sink)
            throws IOException {
        BlockingQueue<List<Row>> queue = new ArrayBlockingQueue<>(DEPTH);
        List<Row> end = List.of();
        Throwable[] failure = new Throwable[1];
        Thread merger = new Thread(() -> {
            try {
                List<Row>[] batch = new List[]{new ArrayList<Row>(BATCH)};
                StageRefs refs = new StageRefs();
                sorter.merge((guid, payload) -> {
                    // aliasing: the tokens and masks stay views of the payload instead of copies (the payload
                    // array is this event's own and never written again, which aliasing requires)
                    CodedInputStream in = UnsafeByteOperations.unsafeWrap(payload).newCodedInput();
                    in.enableAliasing(true);
                    EIEvent_p1 event = EIEvent_p1.parseFrom(in);
                    // the stage references (token parsing) are computed here, off the encoding thread
                    batch[0].add(new Row(event, payload, guid, refs.of(event, guidName.apply(guid)).copyRefs()));
                    if (batch[0].size() == BATCH) {
                        put(queue, batch[0]);
                        batch[0] = new ArrayList<>(BATCH);
                    }
                });
                if (!batch[0].isEmpty()) {
                    put(queue, batch[0]);
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
                for (Row r : rows) {
                    sink.accept(r);
                }
            }
            merger.join();
            done = true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("dataset " + label + ": interrupted while merging sorted events");
        } finally {
            if (!done) {
                merger.interrupt();
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
