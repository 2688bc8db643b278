package org.eventindex.bench.lookup;

import org.apache.kudu.client.KuduClient;
import org.eventindex.consolidated.ConsolidatedFileWriter;
import org.eventindex.consolidated.ConsolidatedMetadata;
import org.eventindex.kudu.DatasetLoader;
import org.eventindex.kudu.DatasetSource;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.kudu.LoadRequest;
import org.eventindex.kudu.LoadResult;
import org.eventindex.kudu.LoaderSettings;
import org.eventindex.names.DatasetName;
import org.eventindex.names.PoolToken;
import org.eventindex.names.TriggerMask;
import org.eventindex.proto.EventIndexProtos.EIEvent_p1;
import org.eventindex.proto.EventIndexProtos.EItoken_p1;
import org.eventindex.testing.ChildJvm;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static java.util.Objects.requireNonNull;

/**
 * One more dataset loaded into Kudu as a consumer loads it, while lookups are timed: a consolidated file written
 * first (what the consumer's merge leaves in HDFS; here a local file), then, in a JVM of its own as a consumer is (1 GiB
 * heap, so that its allocation and collections are not the lookup service's), {@link DatasetLoader} with the
 * consumer's default {@link LoaderSettings} (sessions, buffer, flush interval, count check). Optionally capped at a
 * number of rows per second, by holding the loading thread in the loader's progress callback (every
 * {@link #PROGRESS_EVERY} rows) until the cap allows more: the loader's own code and sessions, at a lower rate.
 */
final class ConsumerLoad {
    /** Rows between two progress callbacks: the granularity of the cap and of the rows counted per pass. */
    static final int PROGRESS_EVERY = 10_000;
    /** The consumer's heap as shipped. */
    static final String HEAP = "1g";
    private static final String CLID = "D82968A1-CF91-4320-B2DD-E0F739CBC7E6";
    private static final String ROWS = "rows ";
    private static final String LOADED = "LOADED ";

    private final String masters;
    private final KuduTablesConfig config;
    private final LoadRequest request;
    private final Path file;
    private final Path log;
    private final long rowsPerSecond;
    private final AtomicLong written = new AtomicLong();
    private volatile Process process;

    /**
     * @param file          the dataset's consolidated file ({@link #writeFile})
     * @param log           the loading JVM's output
     * @param rowsPerSecond the cap; 0: the loader's own rate
     */
    ConsumerLoad(String masters, KuduTablesConfig config, LoadRequest request, Path file, Path log,
                 long rowsPerSecond) {
        this.masters = requireNonNull(masters, "masters is null");
        this.config = requireNonNull(config, "config is null");
        this.request = requireNonNull(request, "request is null");
        this.file = requireNonNull(file, "file is null");
        this.log = requireNonNull(log, "log is null");
        if (rowsPerSecond < 0) {
            throw new IllegalArgumentException("rowsPerSecond must be 0 (uncapped) or positive: " + rowsPerSecond);
        }
        this.rowsPerSecond = rowsPerSecond;
    }

    /** The rows/s cap; 0: the loader's own rate. */
    long cap() {
        return rowsPerSecond;
    }

    /** The dataset loaded. */
    DatasetName dataset() {
        return request.dataset();
    }

    /** Sessions the loader writes with (the consumer's default: the cores, at most 4). */
    static int sessions() {
        return LoaderSettings.defaults().loadThreads();
    }

    /** Rows the loader has applied so far (every {@link #PROGRESS_EVERY}). */
    long written() {
        return written.get();
    }

    /**
     * CPU time (user + system) the loading JVM has used so far, ms, from {@code /proc/<pid>/stat}; 0 before it started
     * and once it ended.
     */
    long cpuMillis() {
        Process p = process;
        if (p == null) {
            return 0;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            // after the command name in parentheses: utime and stime are fields 14 and 15, in ticks of 10 ms
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10;
        } catch (IOException | RuntimeException ended) {
            return 0;
        }
    }

    /**
     * Loads the dataset in a JVM of its own; returns the events loaded once it is LOADED (counts checked), as a
     * consumer's load does.
     *
     * @throws IOException naming the dataset and the JVM's log when the load fails
     */
    long run() throws IOException, InterruptedException {
        Process p = ChildJvm.main(ConsumerLoad.class).heap(HEAP).daemon()
                .args(masters, config.prefix(), Integer.toString(config.hashBuckets()), request.dataset().toString(),
                        Integer.toString(request.dspid()), Integer.toString(request.epoch()), file.toString(),
                        Long.toString(rowsPerSecond))
                .start(log);
        process = p;
        long loaded = -1;
        try {
            while (p.isAlive()) {
                p.waitFor(1, java.util.concurrent.TimeUnit.SECONDS);
                for (String line : Files.readAllLines(log)) {
                    if (line.startsWith(ROWS)) {
                        written.set(Long.parseLong(line.substring(ROWS.length())));
                    }
                }
            }
            for (String line : Files.readAllLines(log)) {
                if (line.startsWith(LOADED)) {
                    loaded = Long.parseLong(line.substring(LOADED.length()));
                }
            }
        } finally {
            p.destroy();
        }
        if (p.exitValue() != 0 || loaded < 0) {
            throw new IOException("the consumer's load of " + request.dataset() + " failed (exit " + p.exitValue()
                    + "); its output: " + log);
        }
        return loaded;
    }

    /**
     * The loading JVM: arguments masters, table prefix, buckets, dataset, dspid, epoch, consolidated file, rows/s cap
     * (0: none). Prints {@code rows N} at every progress callback and {@code LOADED N} (events) at the end.
     */
    public static void main(String[] args) throws Exception {
        KuduTablesConfig config = new KuduTablesConfig(args[1], Integer.parseInt(args[2]), 1);
        DatasetName name = DatasetName.parse(args[3]);
        LoadRequest request = new LoadRequest(name, Integer.parseInt(args[4]), Integer.parseInt(args[5]),
                "bench-lookup-" + name.runNumber(), DatasetSource.local(Path.of(args[6])));
        long cap = Long.parseLong(args[7]);
        LoaderSettings consumer = LoaderSettings.defaults();
        try (KuduClient client = new KuduClient.KuduClientBuilder(args[0]).defaultOperationTimeoutMs(60_000)
                .defaultAdminOperationTimeoutMs(60_000).build()) {
            DatasetLoader loader = new DatasetLoader(client, new KuduTables(client, config), new LoaderSettings(
                    consumer.mutationBufferOps(), consumer.flushInterval(), consumer.operationTimeout(),
                    PROGRESS_EVERY, consumer.verifyCounts(), consumer.loadThreads(), consumer.bufferBudgetRows()),
                    Clock.systemUTC());
            long t0 = System.nanoTime();
            LoadResult result = loader.load(request, new DatasetLoader.Progress() {
                @Override
                public void events(String dataset, long eventsSoFar) {
                    System.out.println(ROWS + eventsSoFar);
                    if (cap > 0) {
                        long due = t0 + eventsSoFar * 1_000_000_000L / cap;
                        for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                            LockSupport.parkNanos(wait);
                        }
                    }
                }
            });
            System.out.println(LOADED + result.events());
        }
    }

    /**
     * Writes a consolidated file of dataset {@code name} ({@code events} events of its run, numbered as
     * {@code eventNumber} says, in order), each with its AOD and RAW references and a few trigger bits of a small
     * menu, as a consumer's merge leaves it.
     */
    static Path writeFile(Path file, DatasetName name, long events, java.util.function.LongUnaryOperator
            eventNumber) throws IOException {
        int run = name.runNumber();
        String guid = String.format("%08X-7777-4000-8000-%012X", run, run);
        String raw = String.format("%08X-8888-4000-8000-%012X", run, run);
        SplittableRandom random = new SplittableRandom(run);
        Files.createDirectories(file.getParent());
        try (OutputStream os = Files.newOutputStream(file)) {
            ConsolidatedFileWriter w = new ConsolidatedFileWriter(os, true);
            BitSet l1 = new BitSet();
            BitSet hlt = new BitSet();
            for (long i = 0; i < events; i++) {
                long e = eventNumber.applyAsLong(i);
                l1.clear();
                hlt.clear();
                for (int b = 0; b < 4; b++) {
                    l1.set(16 * random.nextInt(24));
                    hlt.set(85 * random.nextInt(40));
                }
                w.write(EIEvent_p1.newBuilder().setRunNumber(run).setEventNumber(e)
                        .setLumiBlock((int) (i / 2000) + 1).setTimeStamp(1_530_000_000).setTimeStampNSOffset(0)
                        .setBcid(11).setIsSimulation(false).setIsCalibration(false).setIsTestBeam(false)
                        .setL1PassedTrigMask(TriggerMask.encodeL1(l1, l1, l1))
                        .setEFPassedTrigMask(TriggerMask.encodeHlt(hlt, new BitSet(), new BitSet()))
                        .addEitoken(token("StreamAOD", guid, e))
                        .addEitoken(token("StreamRAW", raw, e))
                        .build(), guid);
            }
            w.finish(new ConsolidatedMetadata(name.toString(), "bench-lookup",
                    new ConsolidatedMetadata.HeaderInfo(1, "bench-lookup", "bench-lookup", true, true),
                    List.of("s3://bench-lookup/" + run), List.of(), List.of(), w.events(), List.of((long) run), 0, 2,
                    w.finishDigest()).toKeyValues());
        }
        return file;
    }

    private static EItoken_p1 token(String stream, String guid, long event) {
        return EItoken_p1.newBuilder().setName(stream)
                .setToken(new PoolToken(guid, "POOLContainer(DataHeader)", CLID, 0x202, 0x10L, event).format())
                .build();
    }
}
