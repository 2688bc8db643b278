package org.eventindex.kudu;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.kudu.client.KuduClient;
import org.eventindex.kudu.CliOptions.UsageException;
import org.eventindex.names.DatasetName;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Set;

/**
 * Command line: create the EventIndex tables in Kudu, or load (reload, backfill) one consolidated dataset file.
 * Run with {@code --help} for the options. Exit status 0 on success, 1 on failure, 2 on a usage error.
 */
public final class KuduLoaderMain {
    static final String USAGE = """
            Usage:
              kudu-loader create-tables --masters M [--prefix P] [--buckets N] [--replicas N] [--epoch N]
              kudu-loader load --masters M --file PATH --dataset NAME --dspid N --epoch N
                               [--hdfs URI] [--load-id ID] [--prefix P] [--buckets N] [--replicas N] [--buffer N]
              kudu-loader delete --masters M --dataset NAME [--prefix P]
              kudu-loader --help

            create-tables  creates DATASETS, EVENTS, MCEVENTS, DUPLICATEDEVENTS, EVENTSOVERLAP and TRIGGERCOUNT if
                           missing, adds columns that tables of an earlier version lack, and checks them all;
                           the event tables get the range [epoch, epoch+1) of --epoch.
            load           loads one consolidated dataset file (.parquet, or gzip SPB of earlier versions) into
                           EVENTS (MCEVENTS for simulation; first occurrence of each event number) and
                           DUPLICATEDEVENTS (later ones), computes TRIGGERCOUNT and EVENTSOVERLAP on the way,
                           then marks the dataset LOADED in DATASETS. Adds the epoch's range if missing. Safe to repeat: with the same load id
                           a LOADED dataset is left alone; otherwise its rows are deleted and loaded again.
                           Progress (a bar with events/s) goes to stderr, the result to stdout.
            delete         removes a dataset: its event rows, trigger counts, overlaps and DATASETS row.

            Options:
              --masters M    Kudu master addresses, comma-separated host:port (required)
              --prefix P     table name prefix, e.g. 'test_' -> test_EVENTS (default: none)
              --buckets N    HASH(eventnumber) buckets per epoch, for new tables (default: 64)
              --replicas N   tablet replicas for new tables and ranges, odd (default: 3; 1 on a single server)
              --epoch N      create-tables: the first range (default: 0); load: the range (rgid) to load into
              --file PATH    the dataset file; in HDFS when --hdfs is given, else a local path
              --hdfs URI     HDFS name node, e.g. hdfs://namenode:8020
              --dataset NAME full dataset name, task suffix included (the DATASETS key)
              --dspid N      dataset id (assigned by the supervisor)
              --load-id ID   identifies the content; default: the file's location, length and modification time
              --buffer N     rows buffered per Kudu flush (default: 10000)
              --help         this text
            """;

    private static final Set<String> TABLE_OPTIONS = Set.of("masters", "prefix", "buckets", "replicas", "epoch");
    private static final Set<String> DELETE_OPTIONS = Set.of("masters", "prefix", "dataset");
    private static final Set<String> LOAD_OPTIONS = Set.of("masters", "prefix", "buckets", "replicas", "epoch",
            "file", "hdfs", "dataset", "dspid", "load-id", "buffer");

    private KuduLoaderMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h") || args[0].equals("help")) {
            (args.length == 0 ? err : out).print(USAGE);
            return args.length == 0 ? 2 : 0;
        }
        try {
            switch (args[0]) {
                case "create-tables" -> createTables(CliOptions.parse(args, 1, TABLE_OPTIONS), out);
                case "load" -> load(CliOptions.parse(args, 1, LOAD_OPTIONS), out, err);
                case "delete" -> delete(CliOptions.parse(args, 1, DELETE_OPTIONS), out);
                default -> throw new UsageException("unknown command '" + args[0] + "'");
            }
            return 0;
        } catch (UsageException e) {
            err.println("kudu-loader: " + e.getMessage());
            err.println("Run 'kudu-loader --help' for the options.");
            return 2;
        } catch (IOException | RuntimeException e) {
            err.println("kudu-loader: " + args[0] + " failed: " + e.getMessage());
            return 1;
        }
    }

    private static KuduTablesConfig tablesConfig(CliOptions o) throws UsageException {
        try {
            return new KuduTablesConfig(o.optional("prefix", ""),
                    o.integer("buckets", KuduTablesConfig.DEFAULT_HASH_BUCKETS),
                    o.integer("replicas", KuduTablesConfig.DEFAULT_REPLICAS));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    private static KuduClient client(CliOptions o) throws UsageException {
        return new KuduClient.KuduClientBuilder(o.required("masters")).build();
    }

    private static void createTables(CliOptions o, PrintStream out) throws UsageException, IOException {
        KuduTablesConfig config = tablesConfig(o);
        int epoch = o.integer("epoch", 0);
        try (KuduClient client = client(o)) {
            new KuduTables(client, config).createOrVerify(epoch);
        }
        out.println("tables " + config.datasetsTable() + ", " + config.eventsTable() + ", "
                + config.mcEventsTable() + ", " + config.duplicatedEventsTable() + ", "
                + config.eventsOverlapTable() + ", " + config.triggerCountTable() + " ready");
    }

    private static void delete(CliOptions o, PrintStream out) throws UsageException, IOException {
        KuduTablesConfig config = tablesConfig(o);
        DatasetName dataset = o.dataset("dataset");
        try (KuduClient client = client(o)) {
            DatasetLoader loader = new DatasetLoader(client, new KuduTables(client, config),
                    LoaderSettings.defaults(), Clock.systemUTC());
            out.println(loader.delete(dataset) ? "dataset " + dataset + " deleted"
                    : "dataset " + dataset + " is not in " + config.datasetsTable() + "; nothing to delete");
        }
    }

    private static void load(CliOptions o, PrintStream out, PrintStream err) throws UsageException, IOException {
        KuduTablesConfig config = tablesConfig(o);
        DatasetName dataset = o.dataset("dataset");
        int dspid = o.requiredInteger("dspid");
        int epoch = o.requiredInteger("epoch");
        String file = o.required("file");
        LoaderSettings defaults = LoaderSettings.defaults();
        LoaderSettings settings;
        try {
            settings = new LoaderSettings(o.integer("buffer", defaults.mutationBufferOps()), defaults.flushInterval(),
                    defaults.operationTimeout(), defaults.progressEvery(), defaults.verifyCounts(),
                    defaults.spbLimits());
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }

        FileSystem fs = null;
        try (KuduClient client = client(o)) {
            DatasetSource source;
            String defaultLoadId;
            if (o.has("hdfs")) {
                fs = FileSystem.newInstance(URI.create(o.required("hdfs")), new Configuration());
                source = DatasetSource.hadoop(fs, new org.apache.hadoop.fs.Path(file));
                FileStatus status = fs.getFileStatus(new org.apache.hadoop.fs.Path(file));
                defaultLoadId = source.location() + "@" + status.getLen() + "@" + status.getModificationTime();
            } else {
                Path local = Path.of(file);
                source = DatasetSource.local(local);
                defaultLoadId = source.location() + "@" + Files.size(local) + "@"
                        + Files.getLastModifiedTime(local).toMillis();
            }
            LoadRequest request = new LoadRequest(dataset, dspid, epoch, o.optional("load-id", defaultLoadId),
                    source);
            for (String table : new String[]{config.datasetsTable(), config.eventsTable(), config.mcEventsTable(),
                    config.duplicatedEventsTable(), config.eventsOverlapTable(), config.triggerCountTable()}) {
                if (!client.tableExists(table)) {
                    throw new IllegalStateException("Kudu table " + table + " does not exist; run 'kudu-loader"
                            + " create-tables' with the same --masters and --prefix first");
                }
            }
            DatasetLoader loader = new DatasetLoader(client, new KuduTables(client, config), settings,
                    Clock.systemUTC());
            ProgressBar bar = new ProgressBar(err, System::nanoTime, -1);
            LoadResult r = loader.load(request, (name, events) -> bar.update(name, events));
            bar.done();
            out.printf("dataset %s dspid %d epoch %d: %d events, %d in EVENTS, %d in DUPLICATEDEVENTS, %d ms%s%n",
                    dataset, dspid, epoch, r.events(), r.uniqueEvents(), r.duplicates(), r.millis(),
                    r.alreadyLoaded() ? " (already loaded with this load id; nothing written)" : "");
        } finally {
            if (fs != null) {
                fs.close();
            }
        }
    }
}
