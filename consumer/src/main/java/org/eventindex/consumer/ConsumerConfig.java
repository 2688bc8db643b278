package org.eventindex.consumer;

import org.eventindex.message.Queues;
import org.eventindex.stomp.StompEndpoint;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;

/**
 * The consumer daemon's configuration, read from a properties file. {@link #KEYS} is the one table of every key with
 * its default and meaning (docs/consumer.md repeats it; a test keeps the two in step). Secrets come from a file or
 * an environment variable, never from the properties file itself, and {@link #toString()} never prints them.
 *
 * @param s3Endpoint        e.g. {@code http://rgw.example:7480}; object URLs in signals must name this host:port
 * @param s3SecretKey       may be null (anonymous access)
 * @param stompPassword     may be null (no passcode)
 * @param spoolMemoryBytes  an object's selected records are kept in memory up to this size, then spooled to disk
 * @param sortMemoryBytes   events held in memory while sorting; beyond it sorted runs spill to the spool dir
 * @param httpPort          operations HTTP port; 0 picks a free port
 */
public record ConsumerConfig(
        String consumerId,
        List<StompEndpoint> brokers,
        String stompUser,
        String stompPassword,
        String signalQueue,
        String reportQueue,
        URI s3Endpoint,
        String s3Bucket,
        String s3AccessKey,
        String s3SecretKey,
        URI hdfsUri,
        String hdfsRoot,
        String kuduMasters,
        String kuduTablePrefix,
        int kuduBuckets,
        int kuduReplicas,
        int fetchThreads,
        int fetchAttempts,
        Path spoolDir,
        long spoolMemoryBytes,
        long sortMemoryBytes,
        int httpPort) {

    /** One configuration key: its name, default (as text), environment variable if any, and meaning. */
    public record Key(String name, String defaultValue, String envVar, String doc) {
    }

    public static final String ID = "consumer.id";
    public static final String BROKERS = "consumer.brokers";
    public static final String STOMP_USER = "consumer.stomp.user";
    public static final String STOMP_PASSWORD_FILE = "consumer.stomp.password.file";
    public static final String QUEUE_SIGNAL = "consumer.queue.signal";
    public static final String QUEUE_REPORT = "consumer.queue.report";
    public static final String S3_ENDPOINT = "consumer.s3.endpoint";
    public static final String S3_BUCKET = "consumer.s3.bucket";
    public static final String S3_ACCESS_KEY = "consumer.s3.access.key";
    public static final String S3_SECRET_KEY_FILE = "consumer.s3.secret.key.file";
    public static final String HDFS_URI = "consumer.hdfs.uri";
    public static final String HDFS_ROOT = "consumer.hdfs.root";
    public static final String KUDU_MASTERS = "consumer.kudu.masters";
    public static final String KUDU_TABLE_PREFIX = "consumer.kudu.table.prefix";
    public static final String KUDU_BUCKETS = "consumer.kudu.buckets";
    public static final String KUDU_REPLICAS = "consumer.kudu.replicas";
    public static final String FETCH_THREADS = "consumer.fetch.threads";
    public static final String FETCH_ATTEMPTS = "consumer.fetch.attempts";
    public static final String SPOOL_DIR = "consumer.spool.dir";
    public static final String SPOOL_MEMORY_BYTES = "consumer.spool.memory.bytes";
    public static final String SORT_MEMORY_BYTES = "consumer.sort.memory.bytes";
    public static final String HTTP_PORT = "consumer.http.port";

    public static final String ENV_STOMP_PASSWORD = "EI_STOMP_PASSWORD";
    public static final String ENV_S3_ACCESS_KEY = "EI_S3_ACCESS_KEY";
    public static final String ENV_S3_SECRET_KEY = "EI_S3_SECRET_KEY";

    /** Every key, its default and its meaning. */
    public static final List<Key> KEYS = List.of(
            new Key(ID, "the host name", null, "Name of this consumer in reports, logs and /status."),
            new Key(BROKERS, "localhost:61613", null, "STOMP brokers, host:port[,host:port...]; tried in order."),
            new Key(STOMP_USER, "", null, "STOMP login; empty for none."),
            new Key(STOMP_PASSWORD_FILE, "", ENV_STOMP_PASSWORD,
                    "File holding the STOMP passcode; if unset, the environment variable is used; if neither, none."),
            new Key(QUEUE_SIGNAL, Queues.CONSUMER, null, "Queue the supervisor sends dataset signals to."),
            new Key(QUEUE_REPORT, Queues.SUPERVISOR_CONTROL, null, "Queue the consumer sends its reports to."),
            new Key(S3_ENDPOINT, "http://localhost:7480", null,
                    "S3 endpoint (Ceph RGW). Signals naming objects on another host:port are refused."),
            new Key(S3_BUCKET, "eventindex", null, "Bucket holding the producers' objects; other buckets are refused."),
            new Key(S3_ACCESS_KEY, "", ENV_S3_ACCESS_KEY,
                    "S3 access key; if unset, the environment variable is used; if neither, anonymous access."),
            new Key(S3_SECRET_KEY_FILE, "", ENV_S3_SECRET_KEY,
                    "File holding the S3 secret key; if unset, the environment variable is used."),
            new Key(HDFS_URI, "hdfs://localhost:8020", null, "HDFS file system URI (fs.defaultFS)."),
            new Key(HDFS_ROOT, "/eventindex/datasets", null,
                    "HDFS directory under which one directory per container holds one file per dataset."),
            new Key(KUDU_MASTERS, "localhost:7051", null, "Kudu masters, host:port[,host:port...]."),
            new Key(KUDU_TABLE_PREFIX, "", null,
                    "Prefix of the Kudu table names (EVENTS becomes <prefix>EVENTS); letters, digits, _ . - only."),
            new Key(KUDU_BUCKETS, "64", null,
                    "HASH(eventnumber) buckets per epoch range, used when the consumer has to create the tables."),
            new Key(KUDU_REPLICAS, "3", null,
                    "Tablet replicas (odd), used when the consumer has to create the tables; 1 on a one-server test."),
            new Key(FETCH_THREADS, "4", null, "Objects fetched and decoded in parallel per dataset (1-256)."),
            new Key(FETCH_ATTEMPTS, "3", null,
                    "Attempts per object when reading it fails midway (the S3 client also retries each request)."),
            new Key(SPOOL_DIR, "<java.io.tmpdir>/eventindex-consumer", null,
                    "Local directory for decoded objects waiting for their turn to be written; each consumer uses <dir>/<consumer.id>/."),
            new Key(SPOOL_MEMORY_BYTES, "8388608", null,
                    "An object's selected records stay in memory up to this many bytes, then go to the spool dir."),
            new Key(SORT_MEMORY_BYTES, "67108864", null,
                    "Events held in memory while sorting a dataset by (run, event); beyond this, sorted runs are"
                            + " spilled to the spool dir and merged."),
            new Key(HTTP_PORT, "8083", null, "Port of /health, /ready, /metrics and /status; 0 picks a free port."));

    public ConsumerConfig {
        requireText(consumerId, ID);
        brokers = List.copyOf(Objects.requireNonNull(brokers, "brokers is null"));
        stompUser = stompUser == null ? "" : stompUser;
        requireText(signalQueue, QUEUE_SIGNAL);
        requireText(reportQueue, QUEUE_REPORT);
        Objects.requireNonNull(s3Endpoint, "s3Endpoint is null");
        if (s3Endpoint.getHost() == null || !("http".equals(s3Endpoint.getScheme()) || "https".equals(s3Endpoint.getScheme()))) {
            throw new IllegalArgumentException(S3_ENDPOINT + " '" + s3Endpoint + "' must be http(s)://host[:port]");
        }
        requireText(s3Bucket, S3_BUCKET);
        s3AccessKey = s3AccessKey == null ? "" : s3AccessKey;
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
        requireRange(fetchThreads, 1, 256, FETCH_THREADS);
        requireRange(fetchAttempts, 1, 100, FETCH_ATTEMPTS);
        Objects.requireNonNull(spoolDir, "spoolDir is null");
        if (sortMemoryBytes < 0) {
            throw new IllegalArgumentException(SORT_MEMORY_BYTES + " must not be negative: " + sortMemoryBytes);
        }
        if (spoolMemoryBytes < 0) {
            throw new IllegalArgumentException(SPOOL_MEMORY_BYTES + " must not be negative: " + spoolMemoryBytes);
        }
        requireRange(httpPort, 0, 65535, HTTP_PORT);
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
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            props.load(in);
        } catch (IOException e) {
            throw new IOException("cannot read consumer configuration " + file + ": " + e.getMessage(), e);
        }
        try {
            return fromProperties(props, env);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Builds the configuration from properties (missing keys take their default) and the environment (for secrets).
     *
     * @throws IllegalArgumentException naming the key and what is wrong, also for unknown {@code consumer.*} keys
     * @throws IOException              when a secret file cannot be read
     */
    public static ConsumerConfig fromProperties(Properties props, Map<String, String> env) throws IOException {
        Objects.requireNonNull(props, "props is null");
        Objects.requireNonNull(env, "env is null");
        Set<String> known = new HashSet<>();
        KEYS.forEach(k -> known.add(k.name()));
        for (String name : props.stringPropertyNames()) {
            if (name.startsWith("consumer.") && !known.contains(name)) {
                throw new IllegalArgumentException("unknown configuration key '" + name + "'");
            }
        }
        String spool = props.getProperty(SPOOL_DIR, "").trim();
        return new ConsumerConfig(
                text(props, ID, defaultId()),
                StompEndpoint.parseList(text(props, BROKERS, "localhost:61613")),
                text(props, STOMP_USER, ""),
                secret(props, STOMP_PASSWORD_FILE, env, ENV_STOMP_PASSWORD),
                text(props, QUEUE_SIGNAL, Queues.CONSUMER),
                text(props, QUEUE_REPORT, Queues.SUPERVISOR_CONTROL),
                uri(props, S3_ENDPOINT, "http://localhost:7480"),
                text(props, S3_BUCKET, "eventindex"),
                textOrEnv(props, S3_ACCESS_KEY, env, ENV_S3_ACCESS_KEY),
                secret(props, S3_SECRET_KEY_FILE, env, ENV_S3_SECRET_KEY),
                uri(props, HDFS_URI, "hdfs://localhost:8020"),
                text(props, HDFS_ROOT, "/eventindex/datasets"),
                text(props, KUDU_MASTERS, "localhost:7051"),
                props.getProperty(KUDU_TABLE_PREFIX, "").trim(),
                integer(props, KUDU_BUCKETS, 64),
                integer(props, KUDU_REPLICAS, 3),
                integer(props, FETCH_THREADS, 4),
                integer(props, FETCH_ATTEMPTS, 3),
                spool.isEmpty() ? Path.of(System.getProperty("java.io.tmpdir"), "eventindex-consumer") : Path.of(spool),
                longValue(props, SPOOL_MEMORY_BYTES, 8L * 1024 * 1024),
                longValue(props, SORT_MEMORY_BYTES, 64L * 1024 * 1024),
                integer(props, HTTP_PORT, 8083));
    }

    @Override
    public String toString() {
        return "ConsumerConfig[id=" + consumerId + ", brokers=" + brokers + ", stompUser=" + stompUser
                + ", stompPassword=" + (stompPassword == null ? "none" : "***") + ", signalQueue=" + signalQueue
                + ", reportQueue=" + reportQueue + ", s3Endpoint=" + s3Endpoint + ", s3Bucket=" + s3Bucket
                + ", s3AccessKey=" + (s3AccessKey.isEmpty() ? "none" : "***")
                + ", s3SecretKey=" + (s3SecretKey == null ? "none" : "***") + ", hdfsUri=" + hdfsUri
                + ", hdfsRoot=" + hdfsRoot + ", kuduMasters=" + kuduMasters + ", kuduTablePrefix=" + kuduTablePrefix
                + ", kuduBuckets=" + kuduBuckets + ", kuduReplicas=" + kuduReplicas + ", fetchThreads=" + fetchThreads + ", fetchAttempts=" + fetchAttempts
                + ", spoolDir=" + spoolDir + ", spoolMemoryBytes=" + spoolMemoryBytes + ", sortMemoryBytes=" + sortMemoryBytes + ", httpPort=" + httpPort + "]";
    }

    private static String defaultId() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "consumer";
        }
    }

    private static String text(Properties props, String key, String def) {
        return props.getProperty(key, def).trim();
    }

    private static String textOrEnv(Properties props, String key, Map<String, String> env, String envVar) {
        String v = props.getProperty(key, "").trim();
        return v.isEmpty() ? env.getOrDefault(envVar, "").trim() : v;
    }

    private static String secret(Properties props, String fileKey, Map<String, String> env, String envVar)
            throws IOException {
        String file = props.getProperty(fileKey, "").trim();
        if (!file.isEmpty()) {
            try {
                String s = Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
                if (s.isEmpty()) {
                    throw new IllegalArgumentException(fileKey + ": secret file " + file + " is empty");
                }
                return s;
            } catch (IOException e) {
                throw new IOException(fileKey + ": cannot read secret file " + file + ": " + e.getMessage(), e);
            }
        }
        String v = env.get(envVar);
        return v == null || v.isBlank() ? null : v.strip();
    }

    private static URI uri(Properties props, String key, String def) {
        String v = text(props, key, def);
        try {
            URI u = new URI(v);
            if (u.getScheme() == null) {
                throw new IllegalArgumentException(key + " '" + v + "' has no scheme");
            }
            return u;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(key + " '" + v + "' is not a URI: " + e.getReason(), e);
        }
    }

    private static int integer(Properties props, String key, int def) {
        long v = longValue(props, key, def);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(key + " is out of range: " + v);
        }
        return (int) v;
    }

    private static long longValue(Properties props, String key, long def) {
        String v = props.getProperty(key, "").trim();
        if (v.isEmpty()) {
            return def;
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " '" + v + "' is not a whole number", e);
        }
    }

    private static void requireText(String value, String key) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(key + " must not be empty");
        }
    }

    private static void requireRange(long value, long min, long max, String key) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(key + " must be in " + min + ".." + max + ": " + value);
        }
    }
}
