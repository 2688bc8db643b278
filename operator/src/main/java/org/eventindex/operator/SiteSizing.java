package org.eventindex.operator;

/**
 * The sizing model of a site (docs/sizing.md): from the events and datasets a day, the consumers,
 * tablet servers, brokers, HDFS and S3 space, and the epochs and Kudu tablets they imply. Every per-unit figure is a
 * measurement of docs/performance.md on the development machine (2 cores), named where it is declared; the model is
 * arithmetic on them, no I/O.
 */
final class SiteSizing {
    /** One consumer, last producer message to queryable: 21,103,890 events in 519.9 s (bench-seed, 1 GiB heap). */
    static final double CONSUMER_EVENTS_PER_SECOND = 21_103_890 / 519.9;
    /** Kudu rows a second into one tablet server, one replica: the seed's load in the 1 GiB consumer (bench-seed). */
    static final double TABLET_SERVER_ROWS_PER_SECOND = 45_855;
    /** Bytes an event takes in EVENTS on disk, per replica (bench-consumer, decision 0037: 169.8-169.9). */
    static final double KUDU_BYTES_PER_EVENT = 170;
    /** Bytes an event takes in the consolidated HDFS file (bench-seed: 3,613.8 MB for 21.1M events). */
    static final double HDFS_BYTES_PER_EVENT = 171.2;
    /** Bytes of objects per event, retried jobs' duplicates included (bench-seed: 3,132.0 MB for 21.1M events). */
    static final double S3_BYTES_PER_EVENT = 148;
    /** Objects per valid object at the seed's dataset (Table 2: 1,447 producers for 1,160 files). */
    static final double OBJECTS_PER_VALID_OBJECT = 1_447.0 / 1_160;
    /** Producer messages one broker took with receipts from 8 senders (bench-supervisor-rate, idle: 2,732-2,990). */
    static final double BROKER_MESSAGES_PER_SECOND = 2_700;
    /** Durable producer messages a second through the supervisor's HDFS journal (idle: 1,629-1,769). */
    static final double SUPERVISOR_MESSAGES_PER_SECOND = 1_600;
    /** Bytes of a producer message in a broker's store (a few kB; docs/operations.md, "Sizing the brokers"). */
    static final double BROKER_BYTES_PER_MESSAGE = 4_000;
    /** Supervisor heap per live object (bench-supervisor memory: ~1.34 kB, given as x 2 + 256 MB). */
    static final double SUPERVISOR_BYTES_PER_LIVE_OBJECT = 1_400;
    /** Spool bytes per event of a dataset beyond the consumer's run memory (bench-consumer, decision 0036). */
    static final double SPOOL_BYTES_PER_EVENT = 410;
    /** Kudu: recommended tablet replicas per tablet server (Kudu's known limitations; 2,000 the maximum). */
    static final int TABLETS_PER_SERVER = 1_000;
    /** Kudu: tablet replicas of one table per tablet server at its creation ({@code --max_create_tablets_per_ts}). */
    static final int CREATE_TABLETS_PER_SERVER = 60;
    /** Kudu: recommended data per tablet server, post-replication (8 TiB). */
    static final double BYTES_PER_TABLET_SERVER = 8.0 * (1L << 40);
    /** Kudu: recommended tablet size (under 10 GiB). */
    static final double TABLET_BYTES_TARGET = 10.0 * (1L << 30);
    /** EVENTS, MCEVENTS and DUPLICATEDEVENTS: each epoch adds its range, B buckets, to the three. */
    static final int EVENT_TABLES = 3;
    /** DATASETS, EVENTSOVERLAP, TRIGGERCOUNT: one tablet each. */
    static final int SINGLE_TABLET_TABLES = 3;
    private static final double DAY = 86_400;

    private SiteSizing() {
    }

    /**
     * What a site is sized for.
     *
     * @param eventsPerDay      events loaded a day (the consumers' input, duplicates not counted)
     * @param datasetsPerDay    datasets completed a day
     * @param eventsPerObject   events one producer's object holds (the seed: 100,000 typically)
     * @param peakFactor        how many times the daily mean rate the site must take (a backlog, a reprocessing)
     * @param years             years of events the Kudu tables keep
     * @param epochMaxEvents    {@code supervisor.kudu.epoch.max.events}
     * @param buckets           hash buckets per epoch range ({@code *.kudu.buckets})
     * @param replicas          Kudu tablet replicas
     * @param hdfsReplication   HDFS block replication
     * @param s3Days            days an object stays: its dataset's collection plus {@code supervisor.cleanup.retention}
     * @param largestDataset    events of the largest dataset (the consumer's spool)
     */
    record Inputs(long eventsPerDay, long datasetsPerDay, long eventsPerObject, double peakFactor, double years,
                  long epochMaxEvents, int buckets, int replicas, int hdfsReplication, double s3Days,
                  long largestDataset) {
        Inputs {
            positive(eventsPerDay, "events per day");
            positive(datasetsPerDay, "datasets per day");
            positive(eventsPerObject, "events per object");
            positive(epochMaxEvents, "epoch max events");
            positive(buckets, "buckets");
            positive(replicas, "replicas");
            positive(hdfsReplication, "HDFS replication");
            positive(largestDataset, "largest dataset");
            if (!(peakFactor >= 1) || !(years > 0) || !(s3Days > 0)) {
                throw new IllegalArgumentException("the peak factor must be at least 1, the years and S3 days above 0:"
                        + " " + peakFactor + ", " + years + ", " + s3Days);
            }
        }

        private static void positive(long value, String what) {
            if (value < 1) {
                throw new IllegalArgumentException(what + " must be at least 1: " + value);
            }
        }
    }

    /**
     * The site the inputs need.
     *
     * @param peakEventsPerSecond        the rate the consumers and Kudu must take
     * @param consumers                  consumer processes (two at least: one may be down)
     * @param tabletServersForRate       tablet servers for the peak rows a second, each row written on every replica
     * @param tabletServersForData       tablet servers for the data kept, at 8 TiB each
     * @param tabletServersForTablets    tablet servers for the tablet replicas, at 1,000 each
     * @param tabletServersForCreation   tablet servers {@code create-tables} needs at the default creation limit
     * @param tabletServers              the largest of the four, and at least the replicas
     * @param epochsKept                 epochs over the years kept
     * @param tabletReplicasPerEpoch     tablet replicas each epoch adds (3 tables x buckets x replicas)
     * @param tabletReplicas             tablet replicas of the six tables over the years kept
     * @param eventsTabletBytes          one EVENTS tablet of a full epoch, per replica, were all its events real data
     * @param epochMaxEventsForTarget    the epoch size that makes such a tablet 10 GiB
     * @param objectsPerDay              producer objects (messages) a day, retried jobs' included
     * @param peakMessagesPerSecond      producer messages a second at the peak
     * @param brokers                    brokers (two at least; one more than the peak needs, for one down)
     * @param brokerHourBytes            what the brokers store in an hour without a supervisor, at the peak
     * @param supervisorHeadroom         the supervisor's durable rate over the peak message rate
     * @param supervisorHeapBytes        the supervisor's heap for its live objects
     * @param spoolBytes                 a consumer's spool for the largest dataset
     * @param kuduBytes                  Kudu data kept, all replicas
     * @param hdfsBytesPerYear           consolidated files a year, all replicas
     * @param s3Bytes                    objects in the bucket at a time
     */
    record Plan(double peakEventsPerSecond, int consumers, int tabletServersForRate, int tabletServersForData,
                int tabletServersForTablets, int tabletServersForCreation, int tabletServers, long epochsKept,
                long tabletReplicasPerEpoch, long tabletReplicas, double eventsTabletBytes,
                long epochMaxEventsForTarget, double objectsPerDay, double peakMessagesPerSecond, int brokers,
                double brokerHourBytes, double supervisorHeadroom, double supervisorHeapBytes, double spoolBytes,
                double kuduBytes, double hdfsBytesPerYear, double s3Bytes) {
    }

    static Plan plan(Inputs in) {
        double peakEvents = in.eventsPerDay() / DAY * in.peakFactor();
        int consumers = Math.max(2, ceil(peakEvents / CONSUMER_EVENTS_PER_SECOND));
        double eventsKept = in.eventsPerDay() * 365.0 * in.years();
        int forRate = ceil(peakEvents * in.replicas() / TABLET_SERVER_ROWS_PER_SECOND);
        double kuduBytes = eventsKept * KUDU_BYTES_PER_EVENT * in.replicas();
        int forData = ceil(kuduBytes / BYTES_PER_TABLET_SERVER);
        long epochs = (long) Math.ceil(eventsKept / in.epochMaxEvents());
        long perEpoch = (long) EVENT_TABLES * in.buckets() * in.replicas();
        long replicas = perEpoch * epochs + (long) SINGLE_TABLET_TABLES * in.replicas();
        int forTablets = ceil((double) replicas / TABLETS_PER_SERVER);
        int forCreation = ceil((double) in.buckets() * in.replicas() / CREATE_TABLETS_PER_SERVER);
        int servers = Math.max(in.replicas(), Math.max(Math.max(forRate, forData), Math.max(forTablets, forCreation)));
        double objects = (double) in.eventsPerDay() / in.eventsPerObject() * OBJECTS_PER_VALID_OBJECT;
        // a signal and a report per dataset besides the producers' messages
        double peakMessages = (objects + 2.0 * in.datasetsPerDay()) / DAY * in.peakFactor();
        int brokers = Math.max(2, ceil(peakMessages / BROKER_MESSAGES_PER_SECOND) + 1);
        double liveObjects = objects * in.s3Days();
        return new Plan(peakEvents, consumers, forRate, forData, forTablets, forCreation, servers, epochs, perEpoch,
                replicas, in.epochMaxEvents() * KUDU_BYTES_PER_EVENT / in.buckets(),
                (long) (TABLET_BYTES_TARGET * in.buckets() / KUDU_BYTES_PER_EVENT), objects, peakMessages, brokers,
                peakMessages * 3_600 * BROKER_BYTES_PER_MESSAGE, SUPERVISOR_MESSAGES_PER_SECOND / peakMessages,
                liveObjects * SUPERVISOR_BYTES_PER_LIVE_OBJECT * 2 + 256.0 * (1 << 20),
                in.largestDataset() * SPOOL_BYTES_PER_EVENT, kuduBytes,
                in.eventsPerDay() * 365.0 * HDFS_BYTES_PER_EVENT * in.hdfsReplication(),
                in.eventsPerDay() * S3_BYTES_PER_EVENT * in.s3Days());
    }

    private static int ceil(double x) {
        return (int) Math.max(1, Math.ceil(x));
    }
}
