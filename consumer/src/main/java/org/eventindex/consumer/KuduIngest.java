package org.eventindex.consumer;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduException;
import org.eventindex.cluster.ClusterAccess;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.eventindex.cluster.ClusterErrors;
import org.eventindex.consolidated.ConsolidatedFileReader;
import org.eventindex.kudu.DatasetLoader;
import org.eventindex.kudu.DatasetSource;
import org.eventindex.kudu.EventFeed;
import org.eventindex.kudu.KuduProbe;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.kudu.LoadRequest;
import org.eventindex.kudu.LoadResult;
import org.eventindex.kudu.LoaderSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.LongConsumer;

/**
 * {@link DatasetIngest} into Kudu with the kudu-loader: makes sure the tables exist (creating them on first use) and
 * hold the signal's epoch, then loads the consolidated file with the signal id as load id, so a redelivered signal
 * changes nothing.
 */
public final class KuduIngest implements DatasetIngest, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KuduIngest.class);

    private final KuduClient client;
    private final KuduTables tables;
    private final DatasetLoader loader;
    private final FileSystem fs;
    private final AutoCloseable[] owned;
    private volatile boolean tablesChecked;

    /** Uses clients built by the caller, who closes them. */
    public KuduIngest(KuduClient client, KuduTablesConfig tablesConfig, FileSystem fs, Clock clock) {
        this(client, tablesConfig, fs, clock, LoaderSettings.defaults(), new AutoCloseable[0]);
    }

    /** @param settings the loader's settings: sessions and rows buffered per session */
    private KuduIngest(KuduClient client, KuduTablesConfig tablesConfig, FileSystem fs, Clock clock,
                       LoaderSettings settings, AutoCloseable[] owned) {
        this.client = Objects.requireNonNull(client, "client is null");
        this.tables = new KuduTables(client, Objects.requireNonNull(tablesConfig, "tablesConfig is null"));
        this.loader = new DatasetLoader(client, tables, settings, clock);
        this.fs = Objects.requireNonNull(fs, "fs is null");
        this.owned = owned;
    }

    /**
     * Opens a Kudu client to {@link ConsumerConfig#kuduMasters()} and an HDFS client, both as {@code cluster}'s user;
     * {@link #close()} closes them.
     */
    public static KuduIngest connect(ConsumerConfig config, ClusterAccess cluster, Clock clock) throws IOException {
        KuduTablesConfig tablesConfig = new KuduTablesConfig(config.kuduTablePrefix(), config.kuduBuckets(),
                config.kuduReplicas());
        KuduClient client = cluster.kuduClient(config.kuduMasters());
        FileSystem fs;
        try {
            fs = cluster.fileSystem(config.hdfsUri());
        } catch (IOException | RuntimeException e) {
            client.close();
            throw new IOException("cannot open HDFS " + config.hdfsUri() + ": " + e.getMessage(), e);
        }
        return new KuduIngest(client, tablesConfig, fs, clock, LoaderSettings.defaults()
                .withLoadThreads(config.kuduLoadThreads()).withBufferRows(config.kuduBufferRows())
                .withBufferBudgetRows(config.kuduBudgetRows()),
                new AutoCloseable[]{fs, client});
    }

    /**
     * Loads the file. A {@link RuntimeException} of the load itself is not turned into an I/O failure: the file's
     * content was checked by the content rules before it was written, so it is a bug, reported as an internal error.
     */
    @Override
    public Loaded ingest(ValidSignal signal, Path file) throws IOException {
        return ingest(signal, file, n -> { });
    }

    @Override
    public Loaded ingest(ValidSignal signal, Path file, LongConsumer workDone) throws IOException {
        return load(signal, DatasetSource.hadoop(fs, file), workDone);
    }

    @Override
    public Loaded ingest(ValidSignal signal, Path file, EventFeed feed, LongConsumer workDone) throws IOException {
        return load(signal, DatasetSource.hadoop(fs, file).fedBy(feed), workDone);
    }

    @Override
    public boolean loadsWhileWritten() {
        return true;
    }

    private Loaded load(ValidSignal signal, DatasetSource source, LongConsumer workDone) throws IOException {
        Objects.requireNonNull(workDone, "workDone is null");
        int epoch = signal.signal().epoch();
        try {
            tablesReady(epoch);
            tables.ensureEpoch(epoch);
            workDone.accept(1);
        } catch (KuduException e) {
            throw readable(e);
        } catch (IllegalArgumentException | IllegalStateException e) {
            // tables of another schema, an epoch out of range: the site's tables or configuration
            throw new IOException(e.getMessage(), e);
        }
        try {
            LoadResult r = loader.load(request(signal, source), workDone(workDone));
            if (r.alreadyLoaded()) {
                LOG.info("dataset {} was already loaded from signal {}; Kudu unchanged", signal.dataset(),
                        signal.signalId());
            }
            return new Loaded(r.uniqueEvents(), r.duplicates());
        } catch (KuduException e) {
            throw readable(e);
        }
    }

    @Override
    public long bufferedRows() {
        return loader.bufferedRows();
    }

    @Override
    public void abandon(ValidSignal signal, Path file) throws IOException {
        try {
            if (loader.abandon(signal.name(), signal.signalId())) {
                LOG.info("dataset {}: the rows and DATASETS row of failed load {} removed", signal.dataset(),
                        signal.signalId());
            }
        } catch (KuduException e) {
            throw readable(e);
        }
        if (!fs.exists(file)) {
            return;
        }
        String writtenFor;
        try (ConsolidatedFileReader reader = new ConsolidatedFileReader(HadoopInputFile.fromPath(file,
                fs.getConf()), file.toString())) {
            writtenFor = reader.metadata().signalId();
        } catch (IOException | RuntimeException e) {
            // not a file this consumer can read back: not the one it just published, which it read for the load
            LOG.warn("dataset {}: {} is left: its footer cannot be read ({})", signal.dataset(), file, e.toString());
            return;
        }
        if (signal.signalId().equals(writtenFor)) {
            fs.delete(file, false);
            LOG.info("dataset {}: {} of failed signal {} removed", signal.dataset(), file, signal.signalId());
        }
    }

    @Override
    public void checkNotSuperseded(ValidSignal signal) throws IOException {
        try {
            tablesReady(signal.signal().epoch());
            loader.checkNotSuperseded(signal.name(), signal.signalId(), selectedAt(signal));
        } catch (KuduException e) {
            throw readable(e);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    @Override
    public boolean holdsEarlierLoad(ValidSignal signal) throws IOException {
        try {
            return loader.holdsEarlierLoad(signal.name(), signal.signalId());
        } catch (KuduException e) {
            throw readable(e);
        }
    }

    /** The masters answer a table listing (the tables are not required: the consumer creates them). */
    @Override
    public void probe() throws IOException {
        KuduProbe.check(client, List.of());
    }

    /** The loader's progress as units of work done: one per event loaded, one per step without events. */
    private static DatasetLoader.Progress workDone(LongConsumer work) {
        return new DatasetLoader.Progress() {
            private long told;

            @Override
            public void events(String dataset, long eventsSoFar) {
                if (eventsSoFar > told) {
                    work.accept(eventsSoFar - told);
                    told = eventsSoFar;
                }
            }

            @Override
            public void step(String dataset, String step) {
                work.accept(1);
            }
        };
    }

    /** An unreachable Kudu as "Kudu masters H:P,... unreachable after N s (reason)"; other failures unchanged. */
    private IOException readable(KuduException e) {
        if (!ClusterErrors.unreachable(e)) {
            return e;
        }
        return ClusterErrors.kudu(client.getMasterAddressesAsString(),
                Duration.ofMillis(client.getDefaultOperationTimeoutMs()), e);
    }

    /** Creates the tables on first use, or verifies and upgrades those of an earlier version; once per consumer. */
    private void tablesReady(int epoch) throws IOException {
        if (!tablesChecked) {
            tables.createOrVerify(epoch);
            tablesChecked = true;
        }
    }

    /** The load of a signal: its id is the load id, its time the selection time. */
    private static LoadRequest request(ValidSignal signal, DatasetSource source) {
        return new LoadRequest(signal.name(), signal.signal().dspid(), signal.signal().epoch(), signal.signalId(),
                source, selectedAt(signal));
    }

    /** The signal's {@code ts}: when the supervisor planned it (0, no ordering, for a signal without one). */
    private static long selectedAt(ValidSignal signal) {
        return Math.max(0, signal.signal().ts());
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (AutoCloseable c : owned) {
            try {
                c.close();
            } catch (Exception e) {
                if (first == null) {
                    first = new IOException("closing the Kudu loader's clients failed: " + e.getMessage(), e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
