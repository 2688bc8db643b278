package org.eventindex.consumer;

import org.eventindex.cluster.ClusterSettings;
import org.eventindex.config.ConfigKey;
import org.eventindex.config.ConfigReader;
import org.eventindex.config.Secret;
import org.eventindex.config.BrokerKeys;
import org.eventindex.config.StompFrameLimitKeys;
import org.eventindex.config.TlsSettings;
import org.eventindex.ops.HttpAccess;
import org.eventindex.kudu.LoaderSettings;

import org.eventindex.message.ConsumerHeartbeat;
import org.eventindex.message.Queues;
import org.eventindex.spb.SpbLimits;
import org.eventindex.stomp.StompFrameLimits;
import org.eventindex.stomp.StompEndpoint;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.stream.Stream;

import static org.eventindex.config.ConfigChecks.requireRange;
import static org.eventindex.config.ConfigChecks.requireText;

/**
 * The consumer daemon's configuration, read from a properties file. {@link #KEYS} is the one table of every key with
 * its default and meaning (docs/consumer.md repeats it; a test keeps the two in step). Secrets come from a file or
 * an environment variable, never from the properties file itself, and {@link #toString()} never prints them.
 *
 * @param s3Endpoint        e.g. {@code http://rgw.example:7480}; object URLs in signals must name this host:port
 * @param s3AccessKey       empty for anonymous access; read again when its file changes
 * @param s3SecretKey       may be null (anonymous access); read again when its file changes
 * @param stompPassword     may be null (no passcode); read again when its file changes
 * @param sortMemoryBytes   sort buffers of the fetch threads together (each {@code sortMemoryBytes / fetchThreads});
 *                          an object bigger than its buffer is written as several sorted runs
 * @param runMemoryBytes    sorted runs kept in memory, instead of the spool dir, up to this many bytes at a time
 * @param kuduLoadThreads   Kudu sessions, each on its own thread, loading one dataset (the rows are the same)
 * @param kuduBufferRows    rows one Kudu session buffers before a background flush, at most (it holds up to twice
 *                          that)
 * @param kuduBudgetRows    rows one load holds for Kudu, at most (decisions 0072, 0078)
 * @param kuduLoadOverlap   load the rows into Kudu while the merge writes the HDFS file (decision 0073), rather than
 *                          after it
 * @param encodingThreads   threads encoding a Parquet file's columns (1 or 2; the file is the same)
 * @param httpHost          address the operations HTTP server binds to (loopback unless configured)
 * @param httpPort          operations HTTP port; 0 picks a free port
 * @param readyCheckInterval how often HDFS and Kudu are checked for {@code /ready} (and the time each has to answer)
 * @param heartbeatInterval how often a heartbeat goes to the supervisor (on {@code heartbeatQueue})
 * @param limits            bounds on what one signal may make the consumer read
 * @param tls               STOMP over TLS and the trust stores for the brokers and an https S3 endpoint
 * @param frameLimits       largest STOMP frame accepted from the broker; a bigger signal is reported FAILED
 * @param brokersResolveInterval how often the brokers' host names are resolved again (brokers joining an alias)
 * @param cluster           the Hadoop configuration folder and the Kerberos login for HDFS and Kudu
 * @param httpAccess        TLS and authentication of the operations HTTP server, and its separate metrics bind
 */
public record ConsumerConfig(
        String consumerId,
        List<StompEndpoint> brokers,
        String stompUser,
        Secret stompPassword,
        String signalQueue,
        String reportQueue,
        String heartbeatQueue,
        URI s3Endpoint,
        String s3Bucket,
        Secret s3AccessKey,
        Secret s3SecretKey,
        URI hdfsUri,
        String hdfsRoot,
        String kuduMasters,
        String kuduTablePrefix,
        int kuduBuckets,
        int kuduReplicas,
        int kuduLoadThreads,
        int kuduBufferRows,
        int kuduBudgetRows,
        boolean kuduLoadOverlap,
        int fetchThreads,
        int fetchAttempts,
        Path spoolDir,
        long sortMemoryBytes,
        long runMemoryBytes,
        int encodingThreads,
        String httpHost,
        int httpPort,
        Duration readyCheckInterval,
        Duration heartbeatInterval,
        Limits limits,
        TlsSettings tls,
        StompFrameLimits frameLimits,
        Duration brokersResolveInterval,
        ClusterSettings cluster,
        HttpAccess httpAccess) {

    /**
     * Bounds against hostile or broken input, each refused with a reason naming the key.
     *
     * @param objectMaxBytes    largest object fetched (checked against its length before reading, and while reading)
     * @param inflatedMaxBytes  most uncompressed bytes read from one object (a gzip bomb stops here)
     * @param inflationMaxRatio most uncompressed bytes per compressed byte read (past the first MiB)
     * @param messageMaxBytes   largest single SPB message (a declared length above it is refused before allocation)
     * @param fileMaxEvents     most events of one input file (GUID) within an object
     * @param datasetMaxEvents  most events a signal may announce for one dataset
     */
    public record Limits(long objectMaxBytes, long inflatedMaxBytes, int inflationMaxRatio, int messageMaxBytes,
                         long fileMaxEvents, long datasetMaxEvents) {
        public static final Limits DEFAULT = new Limits(2L << 30, 16L << 30, SpbLimits.DEFAULT_INFLATION_RATIO,
                16 << 20, 100_000_000L, 2_000_000_000L);

        public Limits {
            requirePositive(objectMaxBytes, OBJECT_MAX_BYTES);
            requirePositive(inflatedMaxBytes, OBJECT_MAX_INFLATED_BYTES);
            requirePositive(inflationMaxRatio, OBJECT_MAX_INFLATION_RATIO);
            requirePositive(messageMaxBytes, SPB_MESSAGE_MAX_BYTES);
            requirePositive(fileMaxEvents, FILE_MAX_EVENTS);
            requirePositive(datasetMaxEvents, DATASET_MAX_EVENTS);
        }

        /** The bounds the SPB reader applies to every object. */
        public SpbLimits spb() {
            return new SpbLimits(messageMaxBytes, inflatedMaxBytes, fileMaxEvents, inflationMaxRatio);
        }

        private static void requirePositive(long value, String key) {
            if (value <= 0) {
                throw new IllegalArgumentException(key + " must be positive: " + value);
            }
        }
    }


    public static final String ID = "consumer.id";
    public static final String BROKERS = "consumer.brokers";
    public static final String STOMP_USER = "consumer.stomp.user";
    public static final String STOMP_PASSWORD_FILE = "consumer.stomp.password.file";
    public static final String QUEUE_SIGNAL = "consumer.queue.signal";
    public static final String QUEUE_REPORT = "consumer.queue.report";
    public static final String QUEUE_HEARTBEAT = "consumer.queue.heartbeat";
    public static final String S3_ENDPOINT = "consumer.s3.endpoint";
    public static final String S3_BUCKET = "consumer.s3.bucket";
    public static final String S3_ACCESS_KEY = "consumer.s3.access.key";
    public static final String S3_ACCESS_KEY_FILE = "consumer.s3.access.key.file";
    public static final String S3_SECRET_KEY_FILE = "consumer.s3.secret.key.file";
    public static final String HDFS_URI = "consumer.hdfs.uri";
    public static final String HDFS_ROOT = "consumer.hdfs.root";
    public static final String KUDU_MASTERS = "consumer.kudu.masters";
    public static final String KUDU_TABLE_PREFIX = "consumer.kudu.table.prefix";
    public static final String KUDU_BUCKETS = "consumer.kudu.buckets";
    public static final String KUDU_REPLICAS = "consumer.kudu.replicas";
    public static final String KUDU_LOAD_THREADS = "consumer.kudu.load.threads";
    public static final String KUDU_BUFFER_ROWS = "consumer.kudu.load.buffer.rows";
    public static final String KUDU_BUDGET_ROWS = "consumer.kudu.load.budget.rows";
    public static final String KUDU_LOAD_OVERLAP = "consumer.kudu.load.overlap";
    public static final String FETCH_THREADS = "consumer.fetch.threads";
    public static final String FETCH_ATTEMPTS = "consumer.fetch.attempts";
    public static final String SPOOL_DIR = "consumer.spool.dir";
    /** Where a packaged consumer spools, beside the supervisor's journal under /var/lib/eventindex. */
    static final String DEFAULT_SPOOL_DIR = "/var/lib/eventindex/consumer/spool";
    public static final String SORT_MEMORY_BYTES = "consumer.sort.memory.bytes";
    public static final String RUN_MEMORY_BYTES = "consumer.run.memory.bytes";
    /** The smallest share of {@link #SORT_MEMORY_BYTES} a fetch thread may have: 64 KiB. */
    static final long MIN_SORT_BYTES_PER_THREAD = 64 * 1024;

    /** Heap left to the rest of the consumer before the default run memory takes half of what remains. */
    static final long HEAP_RESERVED_BYTES = 384L << 20;

    /**
     * What {@link #RUN_MEMORY_BYTES} is unless set: half of the JVM's maximum heap once {@link #HEAP_RESERVED_BYTES}
     * are left for the rest (sort buffers, the Parquet writer's row groups, HDFS and Kudu clients); none below that.
     */
    static long defaultRunMemoryBytes() {
        return Math.max(0, (Runtime.getRuntime().maxMemory() - HEAP_RESERVED_BYTES) / 2);
    }
    public static final String PARQUET_ENCODING_THREADS = "consumer.parquet.encoding.threads";
    public static final String HTTP_HOST = "consumer.http.host";
    public static final String HTTP_PORT = "consumer.http.port";
    /** The prefix of the operations server's TLS and authentication keys ({@link HttpAccess#keys}). */
    public static final String HTTP_ACCESS = "consumer.http.";
    public static final String READY_CHECK_INTERVAL = "consumer.ready.check.interval";
    public static final String HEARTBEAT_INTERVAL = "consumer.heartbeat.interval";
    public static final String OBJECT_MAX_BYTES = "consumer.object.max.bytes";
    public static final String OBJECT_MAX_INFLATED_BYTES = "consumer.object.max.inflated.bytes";
    public static final String SPB_MESSAGE_MAX_BYTES = "consumer.spb.message.max.bytes";
    public static final String STOMP_FRAME_MAX_BYTES = StompFrameLimitKeys.bodyKey("consumer.");
    public static final String STOMP_FRAME_MAX_HEADER_BYTES = StompFrameLimitKeys.headerKey("consumer.");
    public static final String FILE_MAX_EVENTS = "consumer.file.max.events";
    public static final String OBJECT_MAX_INFLATION_RATIO = "consumer.object.max.inflation.ratio";
    public static final String DATASET_MAX_EVENTS = "consumer.dataset.max.events";

    public static final String ENV_STOMP_PASSWORD = "EI_STOMP_PASSWORD";
    public static final String ENV_S3_ACCESS_KEY = "EI_S3_ACCESS_KEY";
    public static final String ENV_S3_SECRET_KEY = "EI_S3_SECRET_KEY";

    /** Every key, its default and its meaning. */
    public static final List<ConfigKey> KEYS = Stream.concat(Stream.of(
            new ConfigKey(ID, "<the host name>", null, "Name of this consumer in reports, logs and /status."),
            new ConfigKey(BROKERS, "localhost:61613", null, BrokerKeys.BROKERS_DOC),
            new ConfigKey(STOMP_USER, "", null, "STOMP login; empty for none."),
            new ConfigKey(STOMP_PASSWORD_FILE, "", ENV_STOMP_PASSWORD,
                    "File holding the STOMP passcode; if unset, the environment variable is used; if neither, none."
                            + " Read again when it changes: the next connection logs in with the new passcode.").secretPath(),
            new ConfigKey(QUEUE_SIGNAL, Queues.CONSUMER, null, "Queue the supervisor sends dataset signals to."),
            new ConfigKey(QUEUE_REPORT, Queues.SUPERVISOR_CONTROL, null, "Queue the consumer sends its reports to."),
            new ConfigKey(QUEUE_HEARTBEAT, Queues.SUPERVISOR_HEARTBEAT, null,
                    "Queue the consumer sends its heartbeats to (transient messages, apart from the reports)."),
            new ConfigKey(S3_ENDPOINT, "http://localhost:7480", null,
                    "S3 endpoint (Ceph RGW). Signals naming objects on another host:port are refused."),
            new ConfigKey(S3_BUCKET, "eventindex", null, "Bucket holding the producers' objects; other buckets are refused."),
            new ConfigKey(S3_ACCESS_KEY, "", ENV_S3_ACCESS_KEY,
                    "S3 access key; if unset, the environment variable is used; if neither, anonymous access."),
            new ConfigKey(S3_ACCESS_KEY_FILE, "", null,
                    "File (mode 0600) holding the S3 access key, instead of " + S3_ACCESS_KEY + ": read again when it"
                            + " changes, so that a new key pair is used from the next request on (docs/security.md,"
                            + " rotation)."),
            new ConfigKey(S3_SECRET_KEY_FILE, "", ENV_S3_SECRET_KEY,
                    "File holding the S3 secret key; if unset, the environment variable is used. Read again when it"
                            + " changes (rotation).").secretPath(),
            new ConfigKey(HDFS_URI, "hdfs://localhost:8020", null, "HDFS file system URI (fs.defaultFS)."),
            new ConfigKey(HDFS_ROOT, "/eventindex/datasets", null,
                    "HDFS directory under which one directory per container holds one file per dataset."),
            new ConfigKey(KUDU_MASTERS, "localhost:7051", null, "Kudu masters, host:port[,host:port...]."),
            new ConfigKey(KUDU_TABLE_PREFIX, "", null,
                    "Prefix of the Kudu table names (EVENTS becomes <prefix>EVENTS); letters, digits, _ . - only."),
            new ConfigKey(KUDU_BUCKETS, "64", null,
                    "HASH(eventnumber) buckets per epoch range, used when the consumer has to create the tables."),
            new ConfigKey(KUDU_REPLICAS, "3", null,
                    "Tablet replicas (odd), used when the consumer has to create the tables; 1 on a one-server test."),
            new ConfigKey(KUDU_LOAD_THREADS, "<the cores, at most 4>", null,
                    "Kudu sessions, each on its own thread, writing one dataset's rows (1-64); the rows are the same"
                            + " for any value, 1 writes on the handler's thread."),
            new ConfigKey(KUDU_BUFFER_ROWS, Integer.toString(LoaderSettings.DEFAULT_BUFFER_ROWS), null,
                    "Rows one Kudu session buffers before a background flush, at most (" + LoaderSettings.MIN_BUFFER_ROWS
                            + "-" + LoaderSettings.MAX_BUFFER_ROWS + "); a session holds up to twice that. More rows"
                            + " mean larger write batches per tablet and more heap."),
            new ConfigKey(KUDU_BUDGET_ROWS, Integer.toString(LoaderSettings.DEFAULT_BUDGET_ROWS), null,
                    "Rows one load holds for Kudu, at most (" + LoaderSettings.MIN_BUDGET_ROWS + "-"
                            + LoaderSettings.MAX_BUDGET_ROWS + "): with several sessions, the rows waiting in compact"
                            + " form for their tablet's write batch (the budget shared by the load's tablets, at most "
                            + LoaderSettings.MAX_TABLET_BATCH_ROWS + " rows per batch); with one, its two buffers."
                            + " Gauge eventindex_consumer_kudu_buffered_rows."),
            new ConfigKey(KUDU_LOAD_OVERLAP, "true", null,
                    "true: the Kudu load takes the rows as the merge writes the HDFS file (a bounded hand-off; the"
                            + " dataset is LOADED only once both are complete); false: the load reads the file"
                            + " once it is committed. Decision 0073."),
            new ConfigKey(FETCH_THREADS, "4", null, "Objects fetched and decoded in parallel per dataset (1-256)."),
            new ConfigKey(FETCH_ATTEMPTS, "3", null,
                    "Attempts per object when reading it fails midway (the S3 client also retries each request)."),
            new ConfigKey(SPOOL_DIR, DEFAULT_SPOOL_DIR, null,
                    "Local directory (absolute) for the objects' sorted runs that do not fit in"
                            + " consumer.run.memory.bytes, waiting to be merged; each consumer uses"
                            + " <dir>/<consumer.id>/."),
            new ConfigKey(SORT_MEMORY_BYTES, "67108864", null,
                    "Memory the fetch threads share for sorting objects by (run, event), each up to this divided by"
                            + " consumer.fetch.threads (at least 64 KiB each); an object's events beyond its share"
                            + " become several sorted runs, all merged at the end."),
            new ConfigKey(RUN_MEMORY_BYTES, "<(JVM maximum heap - 384 MiB) / 2>", null,
                    "Sorted runs (Parquet) kept in the consumer's heap, instead of being written to the spool dir,"
                            + " up to this many bytes at a time; the runs beyond it go to the spool dir. The memory is"
                            + " allocated as runs need it and dropped once the dataset's file is written. 0 writes"
                            + " every run to the spool dir."),
            new ConfigKey(PARQUET_ENCODING_THREADS, "2", null,
                    "Threads encoding the columns of a consolidated Parquet file: 2 encodes half of them on a thread"
                            + " of their own, 1 keeps all on the handler's thread. The file is the same either way."),
            new ConfigKey(HTTP_HOST, "127.0.0.1", null, "Address the operations HTTP server binds to: loopback by"
                    + " default; to reach it from another host, the host's name or internal address (not 0.0.0.0),"
                    + " with " + HTTP_ACCESS + "tls and " + HTTP_ACCESS + "auth, or only /metrics on "
                    + HTTP_ACCESS + "metrics.port."),
            new ConfigKey(HTTP_PORT, "8083", null, "Port of /health, /ready, /metrics and /status; 0 picks a free port."),
            new ConfigKey(READY_CHECK_INTERVAL, "10s", null, "How often HDFS (the root directory) and Kudu (the"
                    + " masters' table list) are checked in the background for /ready, which serves the last verdict;"
                    + " each check has this long to answer (1s-1h)."),
            new ConfigKey(HEARTBEAT_INTERVAL, "30s", null, "How often a heartbeat (idle or busy, the dataset in"
                    + " flight) goes to the supervisor on consumer.queue.heartbeat; the supervisor marks the consumer"
                    + " missing after supervisor.consumer.missing.heartbeats intervals without one (1s-1h)."),
            new ConfigKey(OBJECT_MAX_BYTES, "2147483648", null,
                    "Largest object fetched; a larger one fails the dataset before it is read (production objects"
                            + " reach 670 MB)."),
            new ConfigKey(OBJECT_MAX_INFLATED_BYTES, "17179869184", null,
                    "Most uncompressed bytes read from one object; a gzip bomb is refused when it reaches this. An"
                            + " object is also refused when it inflates past the usize its producer declared."),
            new ConfigKey(OBJECT_MAX_INFLATION_RATIO, Integer.toString(SpbLimits.DEFAULT_INFLATION_RATIO), null,
                    "Most uncompressed bytes per compressed byte read from an object, past its first MiB: real SPB"
                            + " objects inflate 3 to 15 times, a gzip bomb up to 1,032; checked on every read."),
            new ConfigKey(SPB_MESSAGE_MAX_BYTES, "16777216", null,
                    "Largest single SPB message; a larger declared length is refused before anything is allocated."),
            new ConfigKey(FILE_MAX_EVENTS, "100000000", null, "Most events of one input file (GUID) in an object."),
            new ConfigKey(DATASET_MAX_EVENTS, "2000000000", null,
                    "Most events a signal may announce for one dataset; a larger signal is refused unread.")),
            Stream.of(ClusterSettings.configKeys("consumer.", true), TlsSettings.keys("consumer."),
                    StompFrameLimitKeys.keys("consumer."), BrokerKeys.keys("consumer."),
                    HttpAccess.keys(HTTP_ACCESS)).flatMap(List::stream)).toList();

    public ConsumerConfig {
        requireText(consumerId, ID);
        brokers = List.copyOf(Objects.requireNonNull(brokers, "brokers is null"));
        stompUser = stompUser == null ? "" : stompUser;
        requireText(signalQueue, QUEUE_SIGNAL);
        requireText(reportQueue, QUEUE_REPORT);
        requireText(heartbeatQueue, QUEUE_HEARTBEAT);
        Objects.requireNonNull(s3Endpoint, "s3Endpoint is null");
        if (s3Endpoint.getHost() == null || !("http".equals(s3Endpoint.getScheme()) || "https".equals(s3Endpoint.getScheme()))) {
            throw new IllegalArgumentException(S3_ENDPOINT + " '" + s3Endpoint + "' must be http(s)://host[:port]");
        }
        requireText(s3Bucket, S3_BUCKET);
        s3AccessKey = s3AccessKey == null ? Secret.of("") : s3AccessKey;
        Objects.requireNonNull(hdfsUri, "hdfsUri is null");
        requireText(hdfsRoot, HDFS_ROOT);
        if (!hdfsRoot.startsWith("/")) {
            throw new IllegalArgumentException(HDFS_ROOT + " '" + hdfsRoot + "' must be an absolute path");
        }
        requireText(kuduMasters, KUDU_MASTERS);
        kuduTablePrefix = kuduTablePrefix == null ? "" : kuduTablePrefix;
        requireRange(kuduBuckets, 2, 1024, KUDU_BUCKETS);
        if (kuduReplicas < 1 || kuduReplicas % 2 == 0) {
            throw new IllegalArgumentException(KUDU_REPLICAS + " must be a positive odd number: " + kuduReplicas);
        }
        requireRange(kuduLoadThreads, 1, LoaderSettings.MAX_LOAD_THREADS, KUDU_LOAD_THREADS);
        requireRange(kuduBufferRows, LoaderSettings.MIN_BUFFER_ROWS, LoaderSettings.MAX_BUFFER_ROWS,
                KUDU_BUFFER_ROWS);
        requireRange(kuduBudgetRows, LoaderSettings.MIN_BUDGET_ROWS, LoaderSettings.MAX_BUDGET_ROWS,
                KUDU_BUDGET_ROWS);
        requireRange(fetchThreads, 1, 256, FETCH_THREADS);
        requireRange(fetchAttempts, 1, 100, FETCH_ATTEMPTS);
        Objects.requireNonNull(spoolDir, "spoolDir is null");
        if (!spoolDir.isAbsolute()) {
            // a relative spool would follow the working directory of whoever starts the daemon
            throw new IllegalArgumentException(SPOOL_DIR + " '" + spoolDir + "' must be an absolute path");
        }
        if (sortMemoryBytes / fetchThreads < MIN_SORT_BYTES_PER_THREAD) {
            throw new IllegalArgumentException(SORT_MEMORY_BYTES + " is " + sortMemoryBytes + ": each of the "
                    + fetchThreads + " fetch threads (" + FETCH_THREADS + ") would sort in "
                    + Math.max(0, sortMemoryBytes / fetchThreads) + " bytes, and at least "
                    + MIN_SORT_BYTES_PER_THREAD + " are needed (a smaller buffer cuts every object into runs of a"
                    + " few events, each a file or a block to merge)");
        }
        if (runMemoryBytes < 0) {
            throw new IllegalArgumentException(RUN_MEMORY_BYTES + " must not be negative: " + runMemoryBytes);
        }
        requireRange(encodingThreads, 1, 2, PARQUET_ENCODING_THREADS);
        if (httpHost == null || httpHost.isBlank()) {
            throw new IllegalArgumentException(HTTP_HOST + " must not be empty");
        }
        requireRange(httpPort, 0, 65535, HTTP_PORT);
        requireInterval(readyCheckInterval, READY_CHECK_INTERVAL);
        requireInterval(heartbeatInterval, HEARTBEAT_INTERVAL);
        Objects.requireNonNull(limits, "limits is null");
        Objects.requireNonNull(tls, "tls is null");
        Objects.requireNonNull(frameLimits, "frameLimits is null");
        Objects.requireNonNull(brokersResolveInterval, "brokersResolveInterval is null");
        Objects.requireNonNull(cluster, "cluster is null");
    }

    private static void requireInterval(Duration d, String key) {
        Objects.requireNonNull(d, key + " is null");
        long ms = d.toMillis();
        if (ms < ConsumerHeartbeat.MIN_INTERVAL_MILLIS || ms > ConsumerHeartbeat.MAX_INTERVAL_MILLIS) {
            throw new IllegalArgumentException(key + " must be between 1s and 1h: " + d);
        }
    }

    /** The port of {@link #s3Endpoint()}, with the scheme's default when the URI names none. */
    public int s3EndpointPort() {
        if (s3Endpoint.getPort() >= 0) {
            return s3Endpoint.getPort();
        }
        return "https".equals(s3Endpoint.getScheme()) ? 443 : 80;
    }

    /** Reads a properties file; secrets referenced by file are read relative to the working directory. */
    public static ConsumerConfig load(Path file, Map<String, String> env) throws IOException {
        try {
            return fromProperties(ConfigReader.load(file, "consumer"), env);
        } catch (IllegalArgumentException e) {
            throw ConfigReader.inFile(file, e);
        }
    }

    /**
     * Builds the configuration from properties (missing keys take their default) and the environment (for secrets).
     *
     * @throws IllegalArgumentException naming the key and what is wrong, also for a key not in
     *                                  {@link #KEYS} (with its line when {@code props} is a
     *                                  {@link org.eventindex.config.ConfigFile})
     * @throws IOException              when a secret file cannot be read
     */
    public static ConsumerConfig fromProperties(Properties props, Map<String, String> env) throws IOException {
        ConfigReader r = new ConfigReader("consumer.", KEYS, props, env);
        return new ConsumerConfig(
                r.explicit(ID).orElseGet(ConsumerConfig::defaultId),
                StompEndpoint.parseList(r.text(BROKERS)),
                r.text(STOMP_USER),
                r.rotatingSecret(STOMP_PASSWORD_FILE),
                r.text(QUEUE_SIGNAL),
                r.text(QUEUE_REPORT),
                r.text(QUEUE_HEARTBEAT),
                r.uri(S3_ENDPOINT),
                r.text(S3_BUCKET),
                r.rotatingText(S3_ACCESS_KEY, S3_ACCESS_KEY_FILE),
                r.rotatingSecret(S3_SECRET_KEY_FILE),
                r.uri(HDFS_URI),
                r.text(HDFS_ROOT),
                r.text(KUDU_MASTERS),
                r.text(KUDU_TABLE_PREFIX),
                r.integer(KUDU_BUCKETS),
                r.integer(KUDU_REPLICAS),
                r.explicit(KUDU_LOAD_THREADS).isPresent() ? r.integer(KUDU_LOAD_THREADS)
                        : LoaderSettings.defaultLoadThreads(),
                r.integer(KUDU_BUFFER_ROWS),
                r.integer(KUDU_BUDGET_ROWS),
                bool(r, KUDU_LOAD_OVERLAP),
                r.integer(FETCH_THREADS),
                r.integer(FETCH_ATTEMPTS),
                Path.of(r.text(SPOOL_DIR)),
                r.longValue(SORT_MEMORY_BYTES),
                r.explicit(RUN_MEMORY_BYTES).isPresent() ? r.longValue(RUN_MEMORY_BYTES) : defaultRunMemoryBytes(),
                r.integer(PARQUET_ENCODING_THREADS),
                r.text(HTTP_HOST),
                r.integer(HTTP_PORT),
                r.duration(READY_CHECK_INTERVAL),
                r.duration(HEARTBEAT_INTERVAL),
                new Limits(r.longValue(OBJECT_MAX_BYTES), r.longValue(OBJECT_MAX_INFLATED_BYTES),
                        r.integer(OBJECT_MAX_INFLATION_RATIO), r.integer(SPB_MESSAGE_MAX_BYTES), r.longValue(FILE_MAX_EVENTS),
                        r.longValue(DATASET_MAX_EVENTS)),
                TlsSettings.read(r, "consumer."),
                StompFrameLimitKeys.read(r, "consumer."),
                BrokerKeys.resolveInterval(r, "consumer."),
                cluster(r, env),
                HttpAccess.read(r, HTTP_ACCESS));
    }

    /** {@code true} or {@code false}, nothing else. */
    private static boolean bool(ConfigReader r, String key) {
        String v = r.text(key).strip();
        if (!v.equals("true") && !v.equals("false")) {
            throw new IllegalArgumentException(key + " must be true or false: '" + v + "'");
        }
        return v.equals("true");
    }

    private static ClusterSettings cluster(ConfigReader r, Map<String, String> env) {
        ClusterSettings.Names n = ClusterSettings.Names.keys("consumer.");
        return ClusterSettings.of(r.text(n.hadoopConfDir()), r.text(n.principal()), r.text(n.keytab()), env, n);
    }

    @Override
    public String toString() {
        return "ConsumerConfig[id=" + consumerId + ", brokers=" + brokers + ", stompUser=" + stompUser
                + ", stompPassword=" + (stompPassword == null ? "none" : "***") + ", signalQueue=" + signalQueue
                + ", reportQueue=" + reportQueue + ", heartbeatQueue=" + heartbeatQueue
                + ", s3Endpoint=" + s3Endpoint + ", s3Bucket=" + s3Bucket
                + ", s3AccessKey=" + (s3AccessKey.value().isEmpty() ? "none" : "***")
                + ", s3SecretKey=" + (s3SecretKey == null ? "none" : "***") + ", hdfsUri=" + hdfsUri
                + ", hdfsRoot=" + hdfsRoot + ", kuduMasters=" + kuduMasters + ", kuduTablePrefix=" + kuduTablePrefix
                + ", kuduBuckets=" + kuduBuckets + ", kuduReplicas=" + kuduReplicas
                + ", kuduLoadThreads=" + kuduLoadThreads + ", kuduBufferRows=" + kuduBufferRows
                + ", kuduLoadOverlap=" + kuduLoadOverlap
                + ", fetchThreads=" + fetchThreads
                + ", fetchAttempts=" + fetchAttempts
                + ", spoolDir=" + spoolDir + ", sortMemoryBytes=" + sortMemoryBytes
                + ", runMemoryBytes=" + runMemoryBytes
                + ", encodingThreads=" + encodingThreads + ", http=" + httpHost + ":" + httpPort + " " + httpAccess
                + ", readyCheckInterval=" + readyCheckInterval + ", heartbeatInterval=" + heartbeatInterval
                + ", limits=" + limits + ", tls=" + tls
                + ", frameLimits=" + frameLimits + ", brokersResolveInterval=" + brokersResolveInterval + ", cluster=" + cluster + "]";
    }

    private static String defaultId() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "consumer";
        }
    }
}
