package org.eventindex.kudu;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.kudu.client.KuduClient;
import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import org.eventindex.io.FileReason;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.cluster.ClusterConfigException;
import org.eventindex.cluster.ClusterOptions;
import org.eventindex.names.DatasetName;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * Command line (picocli, {@link CommandLines}): create the EventIndex tables in Kudu, or load (reload, backfill) one
 * consolidated dataset file. Run with {@code --help} for the commands, {@code COMMAND --help} for their options.
 * Exit status 0 on success, 1 on failure, 2 on a usage error.
 */
@Command(name = "eventindex kudu-loader", mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class, sortOptions = false,
        // HelpCommand: 'kudu-loader help [COMMAND]', which the loader's own parser took too
        subcommands = {KuduLoaderMain.CreateTables.class, KuduLoaderMain.Load.class, KuduLoaderMain.Delete.class,
            HelpCommand.class},
        description = "Creates the EventIndex tables in Kudu; loads (or loads again) or deletes one consolidated"
                + " dataset.",
        footer = {"", "Run 'eventindex kudu-loader COMMAND --help' for the options of a command."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:success", "1:failure (the message says why)", "2:usage error"})
public final class KuduLoaderMain implements Callable<Integer> {
    private final PrintStream out;
    private final PrintStream err;
    @Spec
    private CommandSpec spec;

    private KuduLoaderMain(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new KuduLoaderMain(out, err), args, out, err);
    }

    /** No command given. */
    @Override
    public Integer call() {
        err.println("kudu-loader: a command is required");
        spec.commandLine().usage(err);
        return CommandLines.USAGE_ERROR;
    }

    /** The Kudu cluster and the tables' names: every command. */
    static final class Tables {
        @Option(names = "--masters", paramLabel = "M", required = true,
                description = "Kudu master addresses, comma-separated host:port (required)")
        String masters;
        @Option(names = "--prefix", paramLabel = "P", description = "table name prefix, e.g. 'test_' -> test_EVENTS"
                + " (default: none)")
        String prefix = "";
        @Option(names = "--kudu-timeout", paramLabel = "S",
                description = "seconds to wait for the Kudu masters to answer (default: 30)")
        int kuduTimeoutSeconds = 30;
        @Mixin
        ClusterOptions cluster;
    }

    /** The layout of new tables and ranges. */
    static final class Layout {
        @Option(names = "--buckets", paramLabel = "N",
                description = "HASH(eventnumber) buckets per epoch, for new tables (default: 64)")
        int buckets = KuduTablesConfig.DEFAULT_HASH_BUCKETS;
        @Option(names = "--replicas", paramLabel = "N",
                description = "tablet replicas for new tables and ranges, odd (default: 3; 1 on a single server)")
        int replicas = KuduTablesConfig.DEFAULT_REPLICAS;
    }

    /** A command of the loader: the tables' options and the usage error of a value that does not pass checks. */
    abstract static class Subcommand implements Callable<Integer> {
        @ParentCommand
        KuduLoaderMain main;
        @Spec
        CommandSpec spec;
        @Mixin
        Tables tables;

        /** The configuration folder and the Kerberos login of this run. */
        ClusterAccess access;

        abstract void run() throws IOException;

        @Override
        public final Integer call() {
            if (tables.kuduTimeoutSeconds < 1) {
                throw new ParameterException(spec.commandLine(), "--kudu-timeout must be at least 1: "
                        + tables.kuduTimeoutSeconds);
            }
            try {
                access = tables.cluster.open();
            } catch (ClusterConfigException e) {
                main.err.println("kudu-loader: " + e.getMessage());
                return CommandLines.USAGE_ERROR;
            }
            try (ClusterAccess ignored = access) {
                run();
                return 0;
            } catch (IOException | RuntimeException e) {
                if (e instanceof ParameterException p) {
                    throw p;
                }
                main.err.println("kudu-loader: " + spec.name() + " failed: "
                        + (e instanceof IOException io ? FileReason.describe(io) : e.getMessage()));
                return 1;
            }
        }

        KuduTablesConfig tablesConfig(Layout layout) {
            try {
                return new KuduTablesConfig(tables.prefix, layout.buckets, layout.replicas);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
        }

        /** A Kudu client whose masters answered, as the Kerberos principal when one is given. */
        KuduClient client() throws IOException {
            return access.connectedKuduClient(tables.masters, Duration.ofSeconds(tables.kuduTimeoutSeconds));
        }

        /** A dataset name, checked against the naming rules before it can become a Kudu key. */
        DatasetName dataset(String value) {
            try {
                return DatasetName.parse(value);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "option --dataset: " + e.getMessage());
            }
        }
    }

    @Command(name = "create-tables", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = {"Creates DATASETS, EVENTS, MCEVENTS, DUPLICATEDEVENTS,"
            + " EVENTSOVERLAP and TRIGGERCOUNT if missing, adds columns that tables of an earlier version lack, and"
            + " checks them all; the event tables get the range [epoch, epoch+1) of --epoch."})
    static final class CreateTables extends Subcommand {
        @Mixin
        Layout layout;
        @Option(names = "--epoch", paramLabel = "N",
                description = "the first range (default: ${DEFAULT-VALUE}, the supervisor's supervisor.kudu.epoch)")
        int epoch = KuduTablesConfig.FIRST_EPOCH;

        @Override
        void run() throws IOException {
            createTables(tablesConfig(layout), epoch, client(), main.out);
        }
    }

    @Command(name = "load", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = {"Loads one consolidated dataset file (the .parquet file the consumer writes) into EVENTS"
            + " (MCEVENTS for simulation; first occurrence of each event number) and DUPLICATEDEVENTS (later ones),"
            + " computes TRIGGERCOUNT and EVENTSOVERLAP on the way, then marks the dataset LOADED in DATASETS. Adds the epoch's range if missing. Safe to repeat: with the same load id"
            + " a LOADED dataset is left alone; otherwise its rows are deleted and loaded again.",
        "Progress (a bar with events/s) goes to stderr, the result to stdout."})
    static final class Load extends Subcommand {
        @Mixin
        Layout layout;
        @Option(names = "--file", paramLabel = "PATH", required = true,
                description = "the dataset's Parquet file; in HDFS when --hdfs is given, else a local path (a file"
                        + " that is not Parquet is refused before anything changes)")
        String file;
        @Option(names = "--hdfs", paramLabel = "URI", description = "HDFS name node, e.g. hdfs://namenode:8020")
        URI hdfs;
        @Option(names = "--dataset", paramLabel = "NAME", required = true,
                description = "full dataset name, task suffix included (the DATASETS key)")
        String dataset;
        @Option(names = "--dspid", paramLabel = "N", required = true,
                description = "dataset id (assigned by the supervisor)")
        int dspid;
        @Option(names = "--epoch", paramLabel = "N", required = true, description = "the range (rgid) to load into")
        int epoch;
        @Option(names = "--load-id", paramLabel = "ID",
                description = "identifies the content; default: the file's location, length and modification time")
        String loadId;
        @Option(names = "--buffer", paramLabel = "N", description = "rows one Kudu session buffers before a flush ("
                + LoaderSettings.MIN_BUFFER_ROWS + "-" + LoaderSettings.MAX_BUFFER_ROWS + "; default: "
                + LoaderSettings.DEFAULT_BUFFER_ROWS + "); with --threads N each session writes 1/N of the tablets"
                + " and buffers 1/N of that")
        Integer buffer;
        @Option(names = "--threads", paramLabel = "N", description = "Kudu sessions writing the dataset, each on its"
                + " own thread (1-" + LoaderSettings.MAX_LOAD_THREADS + "; default: the cores, at most 4); the rows"
                + " written are the same for any N")
        Integer threads;

        @Override
        void run() throws IOException {
            KuduTablesConfig config = tablesConfig(layout);
            DatasetName name = dataset(dataset);
            LoaderSettings defaults = LoaderSettings.defaults();
            if (buffer != null && (buffer < LoaderSettings.MIN_BUFFER_ROWS
                    || buffer > LoaderSettings.MAX_BUFFER_ROWS)) {
                throw new ParameterException(spec.commandLine(), "--buffer must be between "
                        + LoaderSettings.MIN_BUFFER_ROWS + " and " + LoaderSettings.MAX_BUFFER_ROWS + ": " + buffer);
            }
            if (threads != null && (threads < 1 || threads > LoaderSettings.MAX_LOAD_THREADS)) {
                throw new ParameterException(spec.commandLine(), "--threads must be between 1 and "
                        + LoaderSettings.MAX_LOAD_THREADS + ": " + threads);
            }
            LoaderSettings settings;
            try {
                settings = new LoaderSettings(buffer != null ? buffer : defaults.mutationBufferOps(),
                        defaults.flushInterval(), defaults.operationTimeout(), defaults.progressEvery(),
                        defaults.verifyCounts(), threads != null ? threads : defaults.loadThreads(),
                        // one session's two buffers: the same write batches per tablet for any --threads
                        buffer != null ? 2 * buffer : defaults.bufferBudgetRows());
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            if (hdfs == null) {
                // a local file is checked before Kudu is asked anything: a typo is said at once, with its reason
                Path local = Path.of(file);
                if (Files.isDirectory(local)) {
                    throw new IOException("cannot read dataset file " + local + ": Is a directory");
                }
                try (var opened = Files.newInputStream(local)) {
                    // only opened: missing or unreadable is said now, with its reason
                } catch (IOException e) {
                    throw new IOException("cannot read dataset file " + local + ": " + FileReason.of(e), e);
                }
            }
            load(this, access, config, name, settings, client(), main.out, main.err);
        }
    }

    @Command(name = "delete", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Removes a dataset: its event rows, trigger counts, overlaps and"
            + " DATASETS row.")
    static final class Delete extends Subcommand {
        @Option(names = "--dataset", paramLabel = "NAME", required = true,
                description = "full dataset name, task suffix included (the DATASETS key)")
        String dataset;

        @Override
        void run() throws IOException {
            delete(tablesConfig(new Layout()), dataset(dataset), client(), main.out);
        }
    }

    private static void createTables(KuduTablesConfig config, int epoch, KuduClient kudu, PrintStream out)
            throws IOException {
        try (KuduClient client = kudu) {
            new KuduTables(client, config).createOrVerify(epoch);
        }
        out.println("tables " + config.datasetsTable() + ", " + config.eventsTable() + ", "
                + config.mcEventsTable() + ", " + config.duplicatedEventsTable() + ", "
                + config.eventsOverlapTable() + ", " + config.triggerCountTable() + " ready");
    }

    private static void delete(KuduTablesConfig config, DatasetName dataset, KuduClient kudu, PrintStream out)
            throws IOException {
        try (KuduClient client = kudu) {
            out.println(DatasetLoader.delete(client, config, dataset) ? "dataset " + dataset + " deleted"
                    : "dataset " + dataset + " is not in " + config.datasetsTable() + "; nothing to delete");
        }
    }

    private static void load(Load o, ClusterAccess access, KuduTablesConfig config, DatasetName dataset,
                             LoaderSettings settings, KuduClient kudu, PrintStream out, PrintStream err)
            throws IOException {
        int dspid = o.dspid;
        int epoch = o.epoch;
        String file = o.file;
        FileSystem fs = null;
        try (KuduClient client = kudu) {
            DatasetSource source;
            String defaultLoadId;
            if (o.hdfs != null) {
                FileSystem hdfs = access.fileSystem(o.hdfs);
                fs = hdfs;
                source = DatasetSource.hadoop(fs, new org.apache.hadoop.fs.Path(file));
                FileStatus status = access.hdfsCall(o.hdfs,
                        () -> hdfs.getFileStatus(new org.apache.hadoop.fs.Path(file)));
                defaultLoadId = source.location() + "@" + status.getLen() + "@" + status.getModificationTime();
            } else {
                Path local = Path.of(file);
                source = DatasetSource.local(local);
                try {
                    defaultLoadId = source.location() + "@" + Files.size(local) + "@"
                            + Files.getLastModifiedTime(local).toMillis();
                } catch (IOException e) {
                    throw new IOException("cannot read dataset file " + local + ": " + FileReason.of(e), e);
                }
            }
            LoadRequest request = new LoadRequest(dataset, dspid, epoch, o.loadId != null ? o.loadId : defaultLoadId,
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
