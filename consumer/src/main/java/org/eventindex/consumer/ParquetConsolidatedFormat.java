package org.eventindex.consumer;

import org.eventindex.consolidated.ConsolidatedFileWriter;
import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.consolidated.ConsolidatedSchema;
import org.eventindex.consolidated.StageRefs;
import org.eventindex.consolidated.TriggerMenus;
import org.eventindex.proto.EventIndexProtos.BeginGUID_p1;
import org.eventindex.proto.EventIndexProtos.EndGUID_p1;
import org.eventindex.proto.EventIndexProtos.Header_p1;
import org.eventindex.proto.EventIndexProtos.TriggerMenu_p1;
import org.eventindex.spb.EventScan;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.LongConsumer;

/**
 * The consolidated file as Parquet ({@link ConsolidatedSchema}): events sorted by (run, event), ties in the order they
 * were given, with the footer metadata (dataset, signal, objects, files and menus, counts, row checksum). No
 * wall-clock value goes into the file, so the same signal gives the same bytes. The writer takes sorted runs
 * ({@link ConsolidatedWriter.SortedRuns}): the fetch threads sort each object within {@code sortMemoryBytes} in all
 * and keep its runs in a {@link RunMemory} of {@code runMemoryBytes} while it has room, otherwise write them to
 * {@code spillDir}, and {@link RunMerger} merges them.
 */
public final class ParquetConsolidatedFormat implements ConsolidatedFormat {
    /** Opens the Parquet writer of one consolidated file on its output stream. */
    @FunctionalInterface
    public interface WriterFactory {
        ConsolidatedFileWriter open(OutputStream out, boolean twoThreads) throws IOException;
    }

    /** The writer with the project's own page encoders (decision 0010). */
    public static final WriterFactory OWN_ENCODERS = ConsolidatedFileWriter::new;

    private final WriterFactory writers;
    private final Path spillDir;
    private final long sortMemoryBytes;
    private final int encodingThreads;
    /** Shared by the files this format writes (one at a time per consumer); null: every run is a file. */
    private final RunMemory runMemory;
    /** Runs merged at once ({@link RunMerger#FAN_IN} but in tests of intermediate merge passes). */
    private final int fanIn;
    /** Told the rows written as they go (the work done a heartbeat reports). */
    private final LongConsumer rowsWritten;

    /**
     * @param encodingThreads 1: Parquet columns encoded on the calling thread; 2: half of them on a second thread
     *                        (the file is the same)
     * @param runMemoryBytes  sorted runs kept in memory instead of {@code spillDir}, at most this many bytes at a time
     *                        (0: none)
     */
    public ParquetConsolidatedFormat(Path spillDir, long sortMemoryBytes, int encodingThreads,
                                     long runMemoryBytes) {
        this(spillDir, sortMemoryBytes, encodingThreads, runMemoryBytes, OWN_ENCODERS);
    }

    /** @param writers opens the Parquet writer of each file ({@link #OWN_ENCODERS} but in benchmarks) */
    public ParquetConsolidatedFormat(Path spillDir, long sortMemoryBytes, int encodingThreads,
                                     long runMemoryBytes, WriterFactory writers) {
        this(spillDir, sortMemoryBytes, encodingThreads, runMemoryBytes, writers, n -> { });
    }

    /** @param rowsWritten told the rows written to each file as they go, from the writing thread */
    public ParquetConsolidatedFormat(Path spillDir, long sortMemoryBytes, int encodingThreads,
                                     long runMemoryBytes, WriterFactory writers, LongConsumer rowsWritten) {
        this(spillDir, sortMemoryBytes, encodingThreads, runMemoryBytes, writers, RunMerger.FAN_IN, rowsWritten);
    }

    /** @param fanIn runs merged at once (at least 2); fewer than {@link RunMerger#FAN_IN} only in tests */
    ParquetConsolidatedFormat(Path spillDir, long sortMemoryBytes, int encodingThreads, long runMemoryBytes,
                              WriterFactory writers, int fanIn, LongConsumer rowsWritten) {
        this.rowsWritten = Objects.requireNonNull(rowsWritten, "rowsWritten is null");
        if (fanIn < 2 || fanIn > RunMerger.FAN_IN) {
            throw new IllegalArgumentException("merge fan-in must be between 2 and " + RunMerger.FAN_IN + ": "
                    + fanIn);
        }
        this.fanIn = fanIn;
        this.writers = Objects.requireNonNull(writers, "writers is null");
        if (encodingThreads < 1 || encodingThreads > 2) {
            throw new IllegalArgumentException("Parquet encoding threads must be 1 or 2: " + encodingThreads);
        }
        this.encodingThreads = encodingThreads;
        this.spillDir = Objects.requireNonNull(spillDir, "spillDir is null");
        if (sortMemoryBytes < 0) {
            throw new IllegalArgumentException("sort memory must not be negative: " + sortMemoryBytes);
        }
        this.sortMemoryBytes = sortMemoryBytes;
        // RunMemory refuses a negative budget
        this.runMemory = runMemoryBytes == 0 ? null : new RunMemory(runMemoryBytes);
    }

    /** Bytes of sorted runs held in memory now (0 when none are kept in memory). */
    public long runMemoryInUse() {
        return runMemory == null ? 0 : runMemory.bytesInUse();
    }

    @Override
    public String fileSuffix() {
        return ConsolidatedSchema.SUFFIX;
    }

    @Override
    public ConsolidatedWriter open(OutputStream out) {
        return new Writer(Objects.requireNonNull(out, "out is null"), null);
    }

    /**
     * As {@link #open(OutputStream)}; the rows also go to {@code tap} as they are merged. Every sorted run is then read
     * from the spool dir (runs held in memory are written there first, and the run memory released), so that the
     * load taking the rows has that heap while the merge runs.
     */
    @Override
    public ConsolidatedWriter open(OutputStream out, MergedRows tap) {
        return new Writer(Objects.requireNonNull(out, "out is null"), Objects.requireNonNull(tap, "tap is null"));
    }

    private final class Writer implements ConsolidatedWriter {
        private final OutputStream out;
        /** Null: no one takes the rows but the file. */
        private final MergedRows tap;
        private final List<String> objects = new ArrayList<>();
        private final List<ConsolidatedMetadata.FileInfo> files = new ArrayList<>();
        private final List<String> guids = new ArrayList<>();
        private final TreeSet<Long> runs = new TreeSet<>();
        private final List<RunMerger.Run> objectRuns = new ArrayList<>();
        private long[] fileEvents;
        private int nextFile;
        private Header_p1 header;
        private String object = "";
        private BeginGUID_p1 begin;
        private List<Integer> menus;
        private TriggerMenus menuTable;
        private long guidEvents;
        private long events;
        private long simulation;

        Writer(OutputStream out, MergedRows tap) {
            this.out = out;
            this.tap = tap;
        }

        @Override
        public void header(Header_p1 h) {
            this.header = h;
            this.menuTable = new TriggerMenus(h.getInputDsName());
        }

        @Override
        public void object(String url) {
            object = url;
            objects.add(url);
        }

        @Override
        public void beginGuid(BeginGUID_p1 b) {
            begin = b;
            menus = new ArrayList<>();
            // the fetch thread counted the events of the object's files
            guidEvents = fileEvents[nextFile++];
            guids.add(b.getGuid());
        }

        @Override
        public SortedRuns sortedRuns() {
            return new SortedRuns() {
                @Override
                public long sortMemoryBytes() {
                    return sortMemoryBytes;
                }

                @Override
                public Path runDir() {
                    return spillDir;
                }

                @Override
                public RunMemory runMemory() {
                    return runMemory;
                }

                @Override
                public void objectRuns(ObjectRuns r) {
                    for (SortedRun f : r.files()) {
                        objectRuns.add(new RunMerger.Run(f, guids.size()));
                    }
                    fileEvents = r.fileEvents();
                    nextFile = 0;
                    events += r.events();
                    simulation += r.simulation();
                    runs.addAll(r.runNumbers());
                }
            };
        }

        @Override
        public void triggerMenu(TriggerMenu_p1 m) throws TriggerMenus.LimitException {
            menus.add(menuTable.add(new ConsolidatedMetadata.MenuInfo(Integer.toUnsignedLong(m.getSMK()),
                    Integer.toUnsignedLong(m.getL1PSK()), Integer.toUnsignedLong(m.getHLTPSK()), m.getL1Menu(),
                    m.hasL2Menu() ? m.getL2Menu() : null, m.hasEFMenu() ? m.getEFMenu() : null,
                    m.hasHLTMenu() ? m.getHLTMenu() : null)));
        }

        @Override
        public void endGuid(EndGUID_p1 end) {
            files.add(new ConsolidatedMetadata.FileInfo(begin.getGuid(), object, begin.getStartProcTime(),
                    begin.getAMITag(), begin.getTrigStream(), begin.getProjName(), end.getEndProcTime(), guidEvents,
                    menus));
        }

        @Override
        public void finish(long endProcTime) throws IOException {
            if (header == null) {
                throw new IllegalStateException("consolidated file finished without a header");
            }
            ConsolidatedFileWriter parquet = writers.open(out, encodingThreads > 1);
            boolean ok = false;
            try {
                String dataset = header.getInputDsName();
                if (tap != null) {
                    spillRunsInMemory();
                    tap.begin(footer(events, endProcTime, ""));
                }
                MergePipeline.Source source = sink -> new RunMerger(spillDir, dataset, fanIn)
                        .merge(objectRuns, sink);
                MergePipeline.run(source, dataset, guids::get, rows -> {
                    parquet.write(new ConsolidatedFileWriter.RowBatch() {
                        @Override
                        public int size() {
                            return rows.size();
                        }

                        @Override
                        public EventScan event(int i) {
                            return rows.get(i).event;
                        }

                        @Override
                        public String guid(int i) {
                            return guids.get(rows.get(i).guid);
                        }

                        @Override
                        public StageRefs refs(int i) {
                            return rows.get(i).refs;
                        }
                    });
                    if (tap != null) {
                        tap.rows(rows, guids::get);
                    }
                    rowsWritten.accept(rows.size());
                });
                ConsolidatedMetadata meta = footer(parquet.events(), endProcTime, parquet.finishDigest());
                parquet.finish(meta.toKeyValues());
                ok = true;
            } finally {
                if (!ok) {
                    parquet.close();
                }
                close();
            }
        }

        /** The footer of a file of {@code rows} rows whose digest is {@code digest}. */
        private ConsolidatedMetadata footer(long rows, long endProcTime, String digest) {
            return new ConsolidatedMetadata(header.getInputDsName(), header.getJobID(),
                    new ConsolidatedMetadata.HeaderInfo(header.getStartProcTime(), header.getTaskID(),
                            header.getJobID(), header.getProvenanceRef(), header.getTriggerInfo()),
                    objects, files, menuTable.list(), rows, List.copyOf(runs), simulation, endProcTime, digest);
        }

        /**
         * Writes the runs held in memory to the spool dir and releases the run memory: with the rows handed to a load
         * as they are merged, the merge lasts as long as the load, which needs that heap.
         */
        private void spillRunsInMemory() throws IOException {
            boolean dirMade = false;
            for (int i = 0; i < objectRuns.size(); i++) {
                RunMerger.Run r = objectRuns.get(i);
                if (r.run() instanceof SortedRun.OnDisk) {
                    continue;
                }
                if (!dirMade) {
                    Files.createDirectories(spillDir); // made only when a run spills, as the sort buffers make it
                    dirMade = true;
                }
                java.nio.file.Path file = Files.createTempFile(spillDir, "spilled-", ".run");
                try (java.io.InputStream in = r.run().open()) {
                    Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                }
                r.run().delete();
                objectRuns.set(i, new RunMerger.Run(SortedRun.file(file), r.guidBase()));
            }
            if (runMemory != null) {
                runMemory.releaseFree();
            }
        }

        @Override
        public long events() {
            return events;
        }

        @Override
        public void close() throws IOException {
            IOException failed = SortedRun.deleteAll(objectRuns.stream().map(RunMerger.Run::run).toList());
            objectRuns.clear();
            if (runMemory != null) {
                // the file is written (or failed): the Kudu load that follows gets the run memory's heap
                runMemory.releaseFree();
            }
            if (failed != null) {
                throw failed;
            }
        }
    }
}
