package org.eventindex.consumer;

import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.spb.SpbFormatException;
import org.eventindex.spb.SpbLimits;
import org.eventindex.spb.SpbReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.FileNotFoundException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import static org.eventindex.EventIndexFailure.Kind.FATAL;
import static org.eventindex.EventIndexFailure.Kind.RETRIABLE;

/**
 * Turns a validated signal into one consolidated file. Objects are fetched and decoded in parallel (a bounded pool,
 * at most {@code 2 x threads} objects ahead of the writer), each into a {@link SortedObject}: its events sorted on
 * the fetch thread into the writer's sorted runs ({@link ConsolidatedWriter.SortedRuns}). The writer takes them
 * strictly in signal order, so the output is the same whatever order the fetches finish in. Memory is bounded by the
 * writer's sort and run memory plus one message per thread, whatever the dataset size.
 */
final class Consolidator {
    private static final Logger LOG = LoggerFactory.getLogger(Consolidator.class);
    static final String TASK_ID = "consolidated";

    private final ObjectFetcher fetcher;
    private final SpbLimits limits;
    private final int threads;
    private final int attempts;
    private final ConsumerMetrics metrics;

    Consolidator(ObjectFetcher fetcher, SpbLimits limits, int threads, int attempts, ConsumerMetrics metrics) {
        this.fetcher = Objects.requireNonNull(fetcher, "fetcher is null");
        this.limits = Objects.requireNonNull(limits, "limits is null");
        this.threads = threads;
        this.attempts = attempts;
        this.metrics = Objects.requireNonNull(metrics, "metrics is null");
    }

    /** What went into the file. */
    record Result(long eventsWritten, int objectsRead, long bytesRead, int guids) {
    }

    /**
     * Writes header, every selected GUID of every object in signal order, and the trailer. On failure nothing more
     * is written, the fetches are stopped and every run they wrote is removed; the caller discards the partial output.
     */
    Result consolidate(ValidSignal signal, ConsolidatedWriter writer)
            throws IOException, ConsumeException, InterruptedException {
        int n = signal.objects().size();
        int window = 2 * threads;
        ConsolidatedWriter.SortedRuns sorted = Objects.requireNonNull(writer.sortedRuns(),
                "the consolidated writer takes no sorted runs");
        SortedObject.Buffers buffers = new SortedObject.Buffers(sorted.sortMemoryBytes(),
                Math.max(1, Math.min(threads, n)), sorted.runMemory());
        Function<String, SelectedRecords> selection = source -> new SortedObject(source, sorted.runDir(), buffers);
        AtomicLong bytes = new AtomicLong();
        AtomicInteger threadNo = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, n), r -> {
            Thread t = new Thread(r, "consumer-fetch-" + threadNo.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        Map<Integer, Future<Fetched>> pending = new HashMap<>();
        int next = 0;
        try {
            while (next < Math.min(window, n)) {
                SelectedObject o = signal.objects().get(next++);
                pending.put(o.index(), pool.submit(() -> fetch(o, signal.dataset(), selection, bytes)));
            }
            long maxEnd = 0;
            int guids = 0;
            DatasetRun datasetRun = new DatasetRun();
            for (int i = 0; i < n; i++) {
                Fetched f = await(pending.remove(i));
                try (SelectedRecords records = f.records()) {
                    datasetRun.check(signal.objects().get(i), f.selection());
                    if (i == 0) {
                        writer.header(header(signal, f.selection().header()));
                    }
                    writer.object(signal.objects().get(i).url().toString());
                    records.writeTo(writer);
                }
                maxEnd = Math.max(maxEnd, f.selection().maxEndProcTime());
                guids += f.selection().guids().size();
                if (next < n) {
                    SelectedObject o = signal.objects().get(next++);
                    pending.put(o.index(), pool.submit(() -> fetch(o, signal.dataset(), selection, bytes)));
                }
            }
            // every object is sorted: the sort buffers' arrays are garbage before the merge and the Parquet writer
            buffers.release();
            writer.finish(maxEnd);
            return new Result(writer.events(), n, bytes.get(), guids);
        } finally {
            pool.shutdownNow();
            if (!pool.awaitTermination(60, TimeUnit.SECONDS)) {
                LOG.warn("dataset {}: fetch threads did not stop within 60 s; their run files may remain in {}",
                        signal.dataset(), sorted.runDir());
            }
            for (Future<Fetched> f : pending.values()) {
                closeQuietly(f);
            }
        }
    }

    /** The consolidated file's Header: deterministic for a given selection, so a redelivery writes the same bytes. */
    static Header_p1 header(ValidSignal signal, Header_p1 firstObjectHeader) {
        return Header_p1.newBuilder()
                .setStartProcTime(firstObjectHeader.getStartProcTime())
                .setTaskID(TASK_ID)
                .setJobID(signal.signalId())
                .setInputDsName(signal.dataset())
                .setProvenanceRef(firstObjectHeader.getProvenanceRef())
                .setTriggerInfo(firstObjectHeader.getTriggerInfo())
                .build();
    }

    private record Fetched(SelectedRecords records, GuidSelector.Selection selection) {
    }

    /**
     * One run and one value of {@code isSimulation} for the whole dataset ({@link org.eventindex.spb.ContentRules}
     * checks each object; this checks the objects against each other, before the merge writes anything).
     */
    private static final class DatasetRun {
        private long run = -1;
        private Boolean simulation;
        private String first;

        void check(SelectedObject o, GuidSelector.Selection s) throws ConsumeException {
            if (s.run() < 0) {
                return;
            }
            if (first == null) {
                run = s.run();
                simulation = s.simulation();
                first = o.url().toString();
                return;
            }
            if (s.run() != run) {
                throw new ConsumeException(FATAL, "object " + o.url() + " holds events of run " + s.run() + ", object "
                        + first + " of the same dataset events of run " + run + ": a dataset holds one run (EVENTS"
                        + " is keyed by dataset and event number)");
            }
            if (!s.simulation().equals(simulation)) {
                throw new ConsumeException(FATAL, "object " + o.url() + " holds " + (s.simulation() ? "" : "non-")
                        + "simulated events, object " + first + " of the same dataset " + (simulation ? "" : "non-")
                        + "simulated ones: a dataset is simulation (MCEVENTS) or not (EVENTS) as a whole");
            }
        }
    }

    /**
     * The stored bytes read do not have the SHA-256 the producer recorded: retriable once (a broken transfer), the
     * caller decides after a second read.
     */
    private static final class ChecksumMismatch extends IOException implements org.eventindex.EventIndexFailure {
        private static final long serialVersionUID = 1L;

        @Override
        public Kind kind() {
            return Kind.RETRIABLE;
        }
        private final String actual;

        ChecksumMismatch(String message, String actual) {
            super(message);
            this.actual = actual;
        }
    }

    private Fetched fetch(SelectedObject o, String dataset, Function<String, SelectedRecords> newSelection,
                          AtomicLong bytes) throws IOException, ConsumeException {
        String source = o.url().toString();
        IOException last = null;
        String mismatch = null;
        int limit = attempts;
        for (int attempt = 1; attempt <= limit; attempt++) {
            SelectedRecords selected = newSelection.apply(source);
            boolean ok = false;
            ObjectFetcher.Opened opened = null;
            try (CountingInputStream in = new CountingInputStream((opened = fetcher.openWithChecksum(o.url())).in())) {
                // events are kept as they are (scanned, not parsed): the writer side reads them
                try (SpbReader reader = new SpbReader(in, source, limits.forDeclaredSize(o.usize())).rawEvents()) {
                    GuidSelector.Selection selection;
                    try {
                        selection = GuidSelector.select(reader, o, dataset, selected);
                    } catch (SpbFormatException e) {
                        throw cutOffInTransfer(e, in.count(), opened.size());
                    }
                    verifyChecksum(in, opened.sha256(), source);
                    if (o.usize() > 0 && reader.uncompressedBytes() != o.usize()) {
                        throw new ConsumeException(FATAL, "object " + source + " inflates to "
                                + reader.uncompressedBytes() + " bytes, but its producer declared " + o.usize()
                                + " (usize)");
                    }
                    // only now do the object's records (and run files) count
                    selected.seal();
                    ok = true;
                    metrics.objectsRead.inc();
                    metrics.workDone.inc();
                    return new Fetched(selected, selection);
                } finally {
                    bytes.addAndGet(in.count());
                    metrics.bytesRead.inc(in.count());
                }
            } catch (FileNotFoundException | SpbFormatException e) {
                String declared = e instanceof SpbFormatException f ? beyondDeclaredSize(f, o) : "";
                throw new ConsumeException(ConsumeException.of(e), e.getMessage() + declared, e);
            } catch (InterruptedIOException e) {
                throw e;
            } catch (ChecksumMismatch e) {
                if (e.actual.equals(mismatch)) {
                    // the same bytes twice: the store holds another object than the one its producer described
                    throw new ConsumeException(FATAL, e.getMessage() + ", twice: the stored object is not the one its"
                            + " producer recorded", e);
                }
                mismatch = e.actual;
                last = e;
                // a second read tells a broken transfer from a stored object that differs
                limit = Math.max(limit, attempt + 1);
                LOG.warn("object {}: attempt {}/{} failed: {}", source, attempt, limit, e.toString());
            } catch (IOException e) {
                last = e;
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedIOException("reading " + source + " was interrupted");
                }
                LOG.warn("object {}: attempt {}/{} failed: {}", source, attempt, attempts, e.toString());
            } finally {
                if (!ok) {
                    selected.close();
                }
            }
        }
        throw new ConsumeException(RETRIABLE, "object " + source + ": reading failed " + limit + " time(s), last: "
                + last.getMessage(), last);
    }

    /**
     * A stream that ends early is a malformed object, refused for good, when the whole object was read; when fewer
     * bytes came than the store announced, the transfer was cut and the read is retried like any broken read.
     */
    private static IOException cutOffInTransfer(SpbFormatException e, long read, long announced) {
        if (e.problem() == SpbFormatException.Problem.TRUNCATED && announced >= 0 && read < announced) {
            return new IOException("transfer cut off after " + read + " of " + announced + " bytes: "
                    + e.getMessage(), e);
        }
        return e;
    }

    /**
     * An object is read within the uncompressed size its producer declared ({@code usize}): one that inflates to more
     * (refused by the reader) or to less (checked once its bytes are verified) is not the object the producer
     * described, and is refused for good.
     */
    private static String beyondDeclaredSize(SpbFormatException e, SelectedObject o) {
        boolean declared = e.problem() == SpbFormatException.Problem.OVERSIZE && o.usize() > 0
                && e.getMessage().contains("inflates to more than " + o.usize() + " bytes");
        return declared ? ", the uncompressed size (usize) its producer declared" : "";
    }

    /**
     * Reads what the SPB reader left (nothing for a well-formed object) and compares the SHA-256 of every byte read
     * with the producer's. A mismatch may be a fault of the transfer, so the object is read again (within
     * {@code consumer.fetch.attempts}); the same wrong digest a second time means the stored object is not the one its
     * producer recorded, which no retry changes (permanent).
     */
    private static void verifyChecksum(CountingInputStream in, String expected, String source) throws IOException {
        in.transferTo(java.io.OutputStream.nullOutputStream());
        if (expected != null) {
            String actual = java.util.HexFormat.of().formatHex(in.sha256());
            if (!actual.equals(expected)) {
                throw new ChecksumMismatch("object " + source + ": SHA-256 of the " + in.count() + " bytes read is "
                        + actual + " but the producer recorded " + expected, actual);
            }
        }
    }

    private static Fetched await(Future<Fetched> future) throws IOException, ConsumeException, InterruptedException {
        try {
            return future.get();
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof ConsumeException ce) {
                throw ce;
            }
            if (c instanceof IOException io) {
                throw io;
            }
            if (c instanceof RuntimeException re) {
                throw re;
            }
            if (c instanceof Error err) {
                throw err;
            }
            throw new IOException("fetch task failed: " + c, c);
        }
    }

    private static void closeQuietly(Future<Fetched> f) {
        if (f.isDone() && !f.isCancelled()) {
            try {
                f.get().records().close();
            } catch (ExecutionException | InterruptedException | IOException | RuntimeException e) {
                // the task failed (nothing to close) or its run files are already gone
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** Counts and digests (SHA-256) the compressed bytes taken from the store. */
    private static final class CountingInputStream extends FilterInputStream {
        private final java.security.MessageDigest sha;
        private long count;

        CountingInputStream(InputStream in) {
            super(in);
            try {
                sha = java.security.MessageDigest.getInstance("SHA-256");
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException("this JVM has no SHA-256", e);
            }
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count++;
                sha.update((byte) b);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                count += n;
                sha.update(b, off, n);
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            // read instead of skipping, so every byte is digested
            byte[] buf = new byte[(int) Math.min(8192, Math.max(0, n))];
            int r = read(buf, 0, buf.length);
            return Math.max(0, r);
        }

        long count() {
            return count;
        }

        byte[] sha256() {
            return sha.digest();
        }
    }
}
