package org.eventindex.operator;

import org.eventindex.cli.CommandLines;
import org.eventindex.cli.VersionProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code eventindex sizing}: {@link SiteSizing}'s plan for a number of events and datasets a day, as a table of each
 * resource with the figure it comes from (docs/sizing.md).
 */
@Command(name = "eventindex sizing", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        sortOptions = false,
        description = {"How many consumers, tablet servers and brokers, and how much HDFS and S3 space, a site needs"
            + " for a number of events and datasets a day; the epochs and Kudu tablets that implies. From the"
            + " benchmark figures of docs/performance.md (2-core machine): a model, not a measurement of your site."})
public final class SizingMain implements Callable<Integer> {
    @Spec
    private CommandSpec spec;
    @Option(names = "--events-per-day", paramLabel = "N", required = true, description = "events loaded a day")
    private long eventsPerDay;
    @Option(names = "--datasets-per-day", paramLabel = "M", required = true, description = "datasets completed a day")
    private long datasetsPerDay;
    @Option(names = "--events-per-object", paramLabel = "N", defaultValue = "100000",
            description = "events in one producer's object (default: ${DEFAULT-VALUE}, the seed's typical job)")
    private long eventsPerObject;
    @Option(names = "--peak-factor", paramLabel = "X", defaultValue = "3",
            description = "the peak rate over the daily mean the site must take (default: ${DEFAULT-VALUE})")
    private double peakFactor;
    @Option(names = "--years", paramLabel = "Y", defaultValue = "1",
            description = "years of events kept in Kudu (default: ${DEFAULT-VALUE})")
    private double years;
    @Option(names = "--epoch-max-events", paramLabel = "N", defaultValue = "1000000000",
            description = "supervisor.kudu.epoch.max.events (default: ${DEFAULT-VALUE})")
    private long epochMaxEvents;
    @Option(names = "--buckets", paramLabel = "B", defaultValue = "64",
            description = "hash buckets per epoch range, *.kudu.buckets (default: ${DEFAULT-VALUE})")
    private int buckets;
    @Option(names = "--replicas", paramLabel = "R", defaultValue = "3",
            description = "Kudu tablet replicas (default: ${DEFAULT-VALUE})")
    private int replicas;
    @Option(names = "--hdfs-replication", paramLabel = "R", defaultValue = "3",
            description = "HDFS block replication (default: ${DEFAULT-VALUE})")
    private int hdfsReplication;
    @Option(names = "--s3-days", paramLabel = "D", defaultValue = "8",
            description = "days an object stays in S3: collection plus supervisor.cleanup.retention (default:"
                    + " ${DEFAULT-VALUE}: a day and the 168 h retention)")
    private double s3Days;
    @Option(names = "--largest-dataset", paramLabel = "N", defaultValue = "21103653",
            description = "events of the largest dataset, for the consumer's spool (default: ${DEFAULT-VALUE}, the"
                    + " seed's)")
    private long largestDataset;

    private final PrintStream out;

    private SizingMain(PrintStream out) {
        this.out = out;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        return CommandLines.execute(new SizingMain(out), args, out, err);
    }

    @Override
    public Integer call() {
        SiteSizing.Plan p;
        try {
            p = SiteSizing.plan(new SiteSizing.Inputs(eventsPerDay, datasetsPerDay, eventsPerObject, peakFactor, years,
                    epochMaxEvents, buckets, replicas, hdfsReplication, s3Days, largestDataset));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        row("peak rate", f("%,.0f events/s", p.peakEventsPerSecond()),
                "events a day / 86,400 x --peak-factor");
        row("consumers", Integer.toString(p.consumers()), f("peak / %,.0f events/s per consumer (bench-seed, 1 GiB);"
                + " at least 2", SiteSizing.CONSUMER_EVENTS_PER_SECOND));
        row("tablet servers", Integer.toString(p.tabletServers()), "the largest of the four below, at least --replicas");
        row("  for the rate", Integer.toString(p.tabletServersForRate()), f("peak x replicas / %,.0f rows/s per tablet"
                + " server (bench-seed)", SiteSizing.TABLET_SERVER_ROWS_PER_SECOND));
        row("  for the data", Integer.toString(p.tabletServersForData()), f("%s in Kudu (%.0f B/event x replicas) /"
                + " 8 TiB per server", bytes(p.kuduBytes()), SiteSizing.KUDU_BYTES_PER_EVENT));
        row("  for the tablets", Integer.toString(p.tabletServersForTablets()), f("%,d tablet replicas / %,d per"
                + " server (Kudu's recommendation; 2,000 its maximum)", p.tabletReplicas(),
                SiteSizing.TABLETS_PER_SERVER));
        row("  for create-tables", Integer.toString(p.tabletServersForCreation()), f("buckets x replicas / %d per server"
                + " at table creation (--max_create_tablets_per_ts)", SiteSizing.CREATE_TABLETS_PER_SERVER));
        row("epochs kept", f("%,d", p.epochsKept()), "events kept / --epoch-max-events");
        row("tablets per epoch", f("%,d", p.tabletReplicasPerEpoch()), "3 tables x buckets x replicas, rows or not");
        row("EVENTS tablet of an epoch", bytes(p.eventsTabletBytes()), f("--epoch-max-events x %.0f B / buckets;"
                + " 10 GiB at --epoch-max-events %,d", SiteSizing.KUDU_BYTES_PER_EVENT, p.epochMaxEventsForTarget()));
        row("producer objects", f("%,.0f a day", p.objectsPerDay()), f("events / --events-per-object x %.3f"
                + " (retried jobs, seed Table 2)", SiteSizing.OBJECTS_PER_VALID_OBJECT));
        row("brokers", Integer.toString(p.brokers()), f("%.2f messages/s at the peak / %,.0f per broker, + 1; at"
                + " least 2", p.peakMessagesPerSecond(), SiteSizing.BROKER_MESSAGES_PER_SECOND));
        row("broker disk", bytes(p.brokerHourBytes()) + " an hour", "what an hour without a supervisor leaves, at"
                + " 4 kB a message");
        row("supervisor rate", f("%,.0fx the peak", p.supervisorHeadroom()), f("%,.0f durable messages/s (HDFS"
                + " journal, bench-supervisor-rate)", SiteSizing.SUPERVISOR_MESSAGES_PER_SECOND));
        row("supervisor heap", bytes(p.supervisorHeapBytes()), "live objects x 1.4 kB x 2 + 256 MB");
        row("consumer spool", bytes(p.spoolBytes()), "largest dataset x 0.41 kB/event (less the run memory)");
        row("HDFS", bytes(p.hdfsBytesPerYear()) + " a year", f("%.1f B/event x --hdfs-replication",
                SiteSizing.HDFS_BYTES_PER_EVENT));
        row("S3", bytes(p.s3Bytes()), f("%.0f B/event x events a day x --s3-days, before RGW's replication",
                SiteSizing.S3_BYTES_PER_EVENT));
        return 0;
    }

    private void row(String what, String figure, String from) {
        out.println(String.format(Locale.ROOT, "%-26s %-18s %s", what, figure, from).stripTrailing());
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }

    /** Decimal units, as disks are sold. */
    static String bytes(double b) {
        String[] units = {"B", "kB", "MB", "GB", "TB", "PB"};
        int u = 0;
        while (b >= 1000 && u < units.length - 1) {
            b /= 1000;
            u++;
        }
        return f(u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
    }
}
