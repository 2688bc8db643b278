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
 * first (what the consumer's merge leaves in HDFS; here a local file), then {@link DatasetLoader} with the consumer's
 * default {@link LoaderSettings} (sessions, buffer, flush interval, count check), from the loading thread of the
 * caller. Optionally capped at a number of rows per second, by holding the loading thread in the loader's progress
 * callback (every {@link #PROGRESS_EVERY} rows) until the cap allows more: the loader's own code and sessions, at a
 * lower rate.
 */
final class ConsumerLoad {
    /** Rows between two progress callbacks: the granularity of the cap and of the rows counted per pass. */
    static final int PROGRESS_EVERY = 10_000;
    private static final String CLID = "D82968A1-CF91-4320-B2DD-E0F739CBC7E6";

    private final DatasetLoader loader;
    private final LoadRequest request;
    private final long rowsPerSecond;
    private final AtomicLong written = new AtomicLong();

    /**
     * @param rowsPerSecond the cap; 0: the loader's own rate
     */
    ConsumerLoad(KuduClient client, KuduTablesConfig config, LoadRequest request, long rowsPerSecond) {
        requireNonNull(client, "client is null");
        requireNonNull(config, "config is null");
        this.request = requireNonNull(request, "request is null");
        if (rowsPerSecond < 0) {
            throw new IllegalArgumentException("rowsPerSecond must be 0 (uncapped) or positive: " + rowsPerSecond);
        }
        this.rowsPerSecond = rowsPerSecond;
        LoaderSettings consumer = LoaderSettings.defaults();
        this.loader = new DatasetLoader(client, new KuduTables(client, config), new LoaderSettings(
                consumer.mutationBufferOps(), consumer.flushInterval(), consumer.operationTimeout(), PROGRESS_EVERY,
                consumer.verifyCounts(), consumer.loadThreads()), Clock.systemUTC());
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

    /** Loads the dataset; returns when it is LOADED (counts checked), as a consumer's load does. */
    LoadResult run() throws IOException {
        long t0 = System.nanoTime();
        return loader.load(request, new DatasetLoader.Progress() {
            @Override
            public void events(String dataset, long eventsSoFar) {
                written.set(eventsSoFar);
                if (rowsPerSecond > 0) {
                    long due = t0 + eventsSoFar * 1_000_000_000L / rowsPerSecond;
                    for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                        LockSupport.parkNanos(wait);
                    }
                }
            }
        });
    }

    /**
     * Writes a consolidated file of dataset {@code name} ({@code events} events of its run, numbered as
     * {@code eventNumber} says, in order), each with its AOD and RAW references and a few trigger bits of a small
     * menu, as a consumer's merge leaves it.
     */
    static DatasetSource writeFile(Path file, DatasetName name, long events, java.util.function.LongUnaryOperator
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
        return DatasetSource.local(file);
    }

    private static EItoken_p1 token(String stream, String guid, long event) {
        return EItoken_p1.newBuilder().setName(stream)
                .setToken(new PoolToken(guid, "POOLContainer(DataHeader)", CLID, 0x202, 0x10L, event).format())
                .build();
    }
}
