package org.eventindex.supervisor;

import org.eventindex.cluster.ClusterSettings;
import org.eventindex.config.ConfigKey;
import org.eventindex.config.ConfigReader;
import org.eventindex.config.Secret;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.message.Queues;
import org.eventindex.retry.Backoff;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompFrameLimits;
import org.eventindex.stomp.StompSettings;
import org.eventindex.config.BrokerKeys;
import org.eventindex.config.StompFrameLimitKeys;
import org.eventindex.config.TlsSettings;
import org.eventindex.ops.HttpAccess;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;
import java.util.Set;
import java.util.TreeMap;

import static org.eventindex.config.ConfigChecks.doublingBackoff;
import static org.eventindex.config.ConfigChecks.requirePositive;
import static org.eventindex.config.ConfigChecks.requireQueue;
import static org.eventindex.config.ConfigChecks.requireRange;
import static org.eventindex.config.ConfigChecks.requireText;

/**
 * The supervisor daemon's configuration, read from a properties file. {@link #KEYS} is the one table of every key
 * with its default and meaning (docs/supervisor.md repeats it; {@code SupervisorConfigTest} keeps the two in step).
 * The STOMP passcode comes from a file or the environment, never from the properties file, and
 * {@link #toString()} never prints it.
 *
 * @param stompPassword      may be null (no passcode)
 * @param quarantineQueue    where rejected messages are copied; empty when disabled
 * @param journal            where the journal is and how it is kept
 * @param s3Bucket           the only bucket object URLs may name; messages naming another are rejected
 * @param httpPort           operations HTTP port; 0 picks a free port
 * @param kuduEpoch          the Kudu range (rgid) new datasets are assigned to
 * @param signalRetryInitial first wait before re-sending a signal the broker did not accept
 * @param signalRetryMax     cap of the doubling wait between signal send attempts
 * @param shutdownGrace      how long stop() waits for the message in progress on each queue
 * @param heartbeatQueue     where consumers send their heartbeats (transient)
 * @param missingHeartbeats  a consumer is listed missing after this many of its heartbeat intervals without one
 * @param console            the web console's settings and the length of its history
 * @param ha                 the standby supervisor: off, or the lease this one takes and renews in the journal dir
 * @param httpAccess         TLS and authentication of the operations HTTP server, and its separate metrics bind
 * @param shown              every key with its effective value as {@code /supervisor} shows it: secrets and the paths
 *                           of secrets only as {@code (set)} or {@code (not set)} ({@link ConfigReader#shown})
 */
public record SupervisorConfig(
        List<StompEndpoint> brokers,
        String stompUser,
        Secret stompPassword,
        String producerQueue,
        String controlQueue,
        String consumerQueue,
        String quarantineQueue,
        int prefetch,
        JournalSettings journal,
        String s3Bucket,
        String httpHost,
        int httpPort,
        int kuduEpoch,
        Duration signalRetryInitial,
        Duration signalRetryMax,
        Duration shutdownGrace,
        int maxMessageBytes,
        HandOff handOff,
        Epochs epochs,
        CatalogueSettings catalogue,
        Cleanup cleanup,
        int eventsQueue,
        String heartbeatQueue,
        int missingHeartbeats,
        TlsSettings tls,
        StompFrameLimits frameLimits,
        Duration brokersResolveInterval,
        Console console,
        Ha ha,
        HttpAccess httpAccess,
        Duration verifyInterval,
        Map<String, String> shown) {

    /**
     * Two supervisors, one active and one standby (docs/operations.md): on one shared journal directory (decision
     * 0039), or with the lease and token in ZooKeeper and the journal on HDFS (decision 0043).
     *
     * @param enabled   whether this supervisor takes part: without it, it is the only one and opens the journal
     *                  directly
     * @param id        this supervisor's name in the lease (empty: host name and HTTP port)
     * @param lease     the standby takes over when the active's lease was not renewed for this long (with ZooKeeper:
     *                  the session timeout)
     * @param renew     how often the active renews (confirms) its lease and the standby looks at it
     * @param zooKeeper the ZooKeeper and HDFS store ({@value #HA_STORE} {@code zookeeper}), empty for the shared
     *                  directory
     */
    public record Ha(boolean enabled, String id, Duration lease, Duration renew, Optional<ZooKeeperStore> zooKeeper) {
        /** On a shared journal directory. */
        public Ha(boolean enabled, String id, Duration lease, Duration renew) {
            this(enabled, id, lease, renew, Optional.empty());
        }

        public Ha {
            Objects.requireNonNull(zooKeeper, "zooKeeper is null");
            id = id == null ? "" : id.trim();
            if (!id.matches("[A-Za-z0-9._:@-]*") || id.length() > 200) {
                throw new IllegalArgumentException(HA_ID + " '" + id + "' must be at most 200 letters, digits and"
                        + " . _ : @ -");
            }
            requirePositive(lease, HA_LEASE);
            requirePositive(renew, HA_RENEW_INTERVAL);
            if (renew.multipliedBy(2).compareTo(lease) > 0) {
                throw new IllegalArgumentException(HA_RENEW_INTERVAL + " (" + renew + ") must be at most half of "
                        + HA_LEASE + " (" + lease + "): one late renewal must not cost the lease");
            }
        }

        /** Off: one supervisor, the journal opened directly in its directory. */
        public static Ha off() {
            return new Ha(false, "", Duration.ofSeconds(10), Duration.ofSeconds(1));
        }
    }

    /**
     * The lease and token in ZooKeeper, the journal on HDFS.
     *
     * @param connect the ZooKeeper quorum, {@code host:port[,host:port...]}
     * @param root    the znode under which the supervisors keep {@code token} and {@code active}
     * @param journal the HDFS directory of the journal's generations ({@code hdfs://nameservice/path} or a path on the
     *                Hadoop configuration's default file system)
     */
    public record ZooKeeperStore(String connect, String root, URI journal) {
        public ZooKeeperStore {
            connect = connect == null ? "" : connect.trim();
            if (!connect.matches("[A-Za-z0-9._\\[\\]:-]+(,[A-Za-z0-9._\\[\\]:-]+)*(/[A-Za-z0-9._/-]*)?")) {
                throw new IllegalArgumentException(HA_ZOOKEEPER_CONNECT + " '" + connect + "' must be"
                        + " host:port[,host:port...] (needed with " + HA_STORE + "=zookeeper)");
            }
            root = root == null ? "" : root.trim();
            if (!root.matches("(/[A-Za-z0-9._-]+)+")) {
                throw new IllegalArgumentException(HA_ZOOKEEPER_ROOT + " '" + root + "' must be an absolute znode"
                        + " path such as /eventindex/supervisor");
            }
            Objects.requireNonNull(journal, JOURNAL_HDFS_DIR + " is null");
            if (journal.getPath() == null || !journal.getPath().startsWith("/")
                    || journal.getScheme() != null && !journal.getScheme().equals("hdfs")) {
                throw new IllegalArgumentException(JOURNAL_HDFS_DIR + " '" + journal + "' must be an absolute HDFS"
                        + " path or an hdfs:// URI (needed with " + HA_STORE + "=zookeeper)");
            }
        }

        /** From the keys' text; {@code journal} empty is refused. */
        static ZooKeeperStore parse(String connect, String root, String journal) {
            if (journal == null || journal.isBlank()) {
                throw new IllegalArgumentException(JOURNAL_HDFS_DIR + " must be set with " + HA_STORE
                        + "=zookeeper: the journal's HDFS directory");
            }
            try {
                return new ZooKeeperStore(connect, root, new URI(journal.trim()));
            } catch (java.net.URISyntaxException e) {
                throw new IllegalArgumentException(JOURNAL_HDFS_DIR + " '" + journal + "' is not a URI: "
                        + e.getMessage(), e);
            }
        }
    }

    /**
     * The web console at {@code /} and the history its plots draw.
     *
     * @param historyDays how many days of per-minute history the supervisor keeps (in its checkpoint)
     * @param stuckAfter  a dataset not DONE whose first object or manifest is older than this needs an operator
     */
    public record Console(int historyDays, Duration stuckAfter) {
        public Console {
            requireRange(historyDays, 1, 366, HISTORY_DAYS);
            requirePositive(stuckAfter, CONSOLE_STUCK_AFTER);
        }
    }

    /**
     * When a signal is sent again without an operator.
     *
     * @param lease         a signal without a report this long after it was sent is sent again
     * @param retryInitial  first wait after a FAILED report before the signal is sent again (doubles per failure)
     * @param retryMax      cap of that wait, not below {@code retryInitial}
     * @param retryAttempts FAILED reports after which the dataset waits for an operator
     * @param tick          how often leases and retries are checked
     */
    public record HandOff(Duration lease, Duration retryInitial, Duration retryMax, int retryAttempts,
                          Duration tick) {
        public HandOff {
            requirePositive(lease, SIGNAL_LEASE);
            doublingBackoff(retryInitial, RETRY_INITIAL, retryMax, RETRY_MAX);
            requireRange(retryAttempts, 0, 1000, RETRY_ATTEMPTS);
            requirePositive(tick, TICK_INTERVAL);
        }

        /** The wait after the n-th FAILED report is {@code retryBackoff().delay(n - 1)}. */
        public Backoff retryBackoff() {
            return Backoff.doubling(retryInitial, retryMax);
        }
    }

    /**
     * The journal, the supervisor's only durable state.
     *
     * @param dir               directory of the journal, its checkpoint, archived segments and lock file; created if
     *                          missing
     * @param minFreeBytes      consuming pauses while the journal's disk has fewer usable bytes (0: never)
     * @param checkpointEntries entries after which the next checkpoint is written (0: never)
     * @param keepSegments      archived journal segments kept beside the checkpoint (0: none)
     */
    public record JournalSettings(Path dir, long minFreeBytes, long checkpointEntries, int keepSegments,
                                  int groupCommitMax) {
        /** {@value #DEFAULT_GROUP_COMMIT_MAX} producer messages at most per fsync. */
        public JournalSettings(Path dir, long minFreeBytes, long checkpointEntries, int keepSegments) {
            this(dir, minFreeBytes, checkpointEntries, keepSegments, DEFAULT_GROUP_COMMIT_MAX);
        }

        public JournalSettings {
            Objects.requireNonNull(dir, "dir is null");
            if (!dir.isAbsolute()) {
                // the journal is the supervisor's only durable state: it must not follow the working directory
                throw new IllegalArgumentException(JOURNAL_DIR + " '" + dir + "' must be an absolute path");
            }
            if (minFreeBytes < 0) {
                throw new IllegalArgumentException(JOURNAL_MIN_FREE_BYTES + " must not be negative: " + minFreeBytes);
            }
            if (checkpointEntries < 0) {
                throw new IllegalArgumentException(JOURNAL_CHECKPOINT_ENTRIES + " must not be negative: "
                        + checkpointEntries);
            }
            requireRange(keepSegments, 0, 100_000, JOURNAL_KEEP_SEGMENTS);
            requireRange(groupCommitMax, 1, 64, JOURNAL_GROUP_COMMIT_MAX);
        }
    }

    /**
     * Kudu ranges.
     *
     * @param maxEvents   events (sum of the signals' expectedEvents) an epoch takes before the next one is opened
     * @param kuduMasters empty: ranges are not created by the supervisor (tests without Kudu)
     * @param kerberos    the Kerberos login for Kudu and for the HDFS journal ({@value #KERBEROS_PRINCIPAL},
     *                    {@value #KERBEROS_KEYTAB}) and the Hadoop configuration folder ({@value #HADOOP_CONF_DIR},
     *                    read only with {@value #HA_STORE} {@code zookeeper} or a Kerberized Kudu)
     */
    public record Epochs(long maxEvents, String kuduMasters, String tablePrefix, int hashBuckets, int replicas,
                         ClusterSettings kerberos) {
        /** Without Kerberos. */
        public Epochs(long maxEvents, String kuduMasters, String tablePrefix, int hashBuckets, int replicas) {
            this(maxEvents, kuduMasters, tablePrefix, hashBuckets, replicas, kerberos("", ""));
        }

        static ClusterSettings kerberos(String principal, String keytab) {
            return ClusterSettings.of(null, principal, keytab, Map.of(), ClusterSettings.Names.keys("supervisor."));
        }

        public Epochs {
            Objects.requireNonNull(kerberos, "kerberos is null");
            if (maxEvents < 1) {
                throw new IllegalArgumentException(KUDU_EPOCH_MAX_EVENTS + " must be at least 1: " + maxEvents);
            }
            kuduMasters = kuduMasters == null ? "" : kuduMasters.trim();
            tablePrefix = tablePrefix == null ? "" : tablePrefix;
        }

        public boolean managed() {
            return !kuduMasters.isEmpty();
        }
    }

    /**
     * The Rucio catalogue; {@code url} empty means manifests only.
     *
     * @param password may be null (never printed)
     */
    public record CatalogueSettings(String url, String account, String username, String password,
                                    Duration interval) {
        public CatalogueSettings {
            url = url == null ? "" : url.trim();
            requirePositive(interval, CATALOGUE_INTERVAL);
            if (!url.isEmpty() && (account == null || account.isBlank())) {
                throw new IllegalArgumentException(CATALOGUE_ACCOUNT + " must be set when " + CATALOGUE_URL
                        + " is set");
            }
        }

        public boolean enabled() {
            return !url.isEmpty();
        }

        @Override
        public String toString() {
            return "CatalogueSettings[url=" + url + ", account=" + account + ", username=" + username
                    + ", password=" + (password == null ? "none" : "***") + ", interval=" + interval + "]";
        }
    }

    /**
     * Deletion of objects that are no longer needed; {@code s3Endpoint} empty disables it.
     *
     * @param accessKey empty: anonymous; read again when its file changes (rotation)
     * @param secretKey may be null (never printed); read again when its file changes (rotation)
     */
    public record Cleanup(String s3Endpoint, String region, Secret accessKey, Secret secretKey, Duration retention,
                          Duration orphanRetention, Duration interval) {
        public Cleanup {
            s3Endpoint = s3Endpoint == null ? "" : s3Endpoint.trim();
            accessKey = accessKey == null ? Secret.of("") : accessKey;
            try {
                MessageValidator.forEndpoint("-", s3Endpoint);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(S3_ENDPOINT + ": " + e.getMessage(), e);
            }
            requirePositive(retention, CLEANUP_RETENTION);
            requirePositive(orphanRetention, CLEANUP_ORPHAN_RETENTION);
            requirePositive(interval, CLEANUP_INTERVAL);
            if (orphanRetention.compareTo(retention) < 0) {
                throw new IllegalArgumentException(CLEANUP_ORPHAN_RETENTION + " (" + orphanRetention
                        + ") must not be shorter than " + CLEANUP_RETENTION + " (" + retention + ")");
            }
        }

        public boolean enabled() {
            return !s3Endpoint.isEmpty();
        }

        @Override
        public String toString() {
            return "Cleanup[s3Endpoint=" + s3Endpoint + ", region=" + region + ", accessKey=" + accessKey.value()
                    + ", secretKey=" + (secretKey == null ? "none" : "***") + ", retention=" + retention
                    + ", orphanRetention=" + orphanRetention + ", interval=" + interval + "]";
        }
    }


    public static final String BROKERS = "supervisor.brokers";
    public static final String STOMP_USER = "supervisor.stomp.user";
    public static final String STOMP_PASSWORD_FILE = "supervisor.stomp.password.file";
    public static final String QUEUE_PRODUCER = "supervisor.queue.producer";
    public static final String QUEUE_CONTROL = "supervisor.queue.control";
    public static final String QUEUE_CONSUMER = "supervisor.queue.consumer";
    public static final String QUEUE_QUARANTINE = "supervisor.queue.quarantine";
    public static final String QUEUE_PREFETCH = "supervisor.queue.prefetch";
    public static final String JOURNAL_DIR = "supervisor.journal.dir";
    public static final String JOURNAL_MIN_FREE_BYTES = "supervisor.journal.min.free.bytes";
    public static final String JOURNAL_CHECKPOINT_ENTRIES = "supervisor.journal.checkpoint.entries";
    public static final String JOURNAL_KEEP_SEGMENTS = "supervisor.journal.keep.segments";
    public static final String JOURNAL_GROUP_COMMIT_MAX = "supervisor.journal.group.commit.max";
    static final int DEFAULT_GROUP_COMMIT_MAX = 8;
    public static final String S3_BUCKET = "supervisor.s3.bucket";
    public static final String HTTP_HOST = "supervisor.http.host";
    public static final String HTTP_PORT = "supervisor.http.port";
    /** The prefix of the operations server's TLS and authentication keys ({@link HttpAccess#keys}). */
    public static final String HTTP_ACCESS = "supervisor.http.";
    public static final String KUDU_EPOCH = "supervisor.kudu.epoch";
    public static final String SIGNAL_RETRY_INITIAL = "supervisor.signal.retry.initial";
    public static final String SIGNAL_RETRY_MAX = "supervisor.signal.retry.max";
    public static final String SHUTDOWN_GRACE = "supervisor.shutdown.grace";

    public static final String MESSAGE_MAX_BYTES = "supervisor.message.max.bytes";
    public static final String STOMP_FRAME_MAX_BYTES = StompFrameLimitKeys.bodyKey("supervisor.");
    public static final String STOMP_FRAME_MAX_HEADER_BYTES = StompFrameLimitKeys.headerKey("supervisor.");
    public static final String SIGNAL_LEASE = "supervisor.signal.lease";
    public static final String RETRY_INITIAL = "supervisor.retry.initial";
    public static final String RETRY_MAX = "supervisor.retry.max";
    public static final String RETRY_ATTEMPTS = "supervisor.retry.attempts";
    public static final String TICK_INTERVAL = "supervisor.tick.interval";
    public static final String KUDU_EPOCH_MAX_EVENTS = "supervisor.kudu.epoch.max.events";
    public static final String KUDU_MASTERS = "supervisor.kudu.masters";
    public static final String KERBEROS_PRINCIPAL = "supervisor.kerberos.principal";
    public static final String KERBEROS_KEYTAB = "supervisor.kerberos.keytab";
    public static final String HADOOP_CONF_DIR = "supervisor.hadoop.conf.dir";
    public static final String KUDU_TABLE_PREFIX = "supervisor.kudu.table.prefix";
    public static final String KUDU_BUCKETS = "supervisor.kudu.buckets";
    public static final String KUDU_REPLICAS = "supervisor.kudu.replicas";
    public static final String CATALOGUE_URL = "supervisor.catalogue.url";
    public static final String CATALOGUE_ACCOUNT = "supervisor.catalogue.account";
    public static final String CATALOGUE_USERNAME = "supervisor.catalogue.username";
    public static final String CATALOGUE_PASSWORD_FILE = "supervisor.catalogue.password.file";
    public static final String CATALOGUE_INTERVAL = "supervisor.catalogue.interval";
    public static final String S3_ENDPOINT = "supervisor.s3.endpoint";
    public static final String S3_REGION = "supervisor.s3.region";
    public static final String S3_ACCESS_KEY = "supervisor.s3.access.key";
    public static final String S3_ACCESS_KEY_FILE = "supervisor.s3.access.key.file";
    public static final String S3_SECRET_KEY_FILE = "supervisor.s3.secret.key.file";
    public static final String CLEANUP_RETENTION = "supervisor.cleanup.retention";
    public static final String CLEANUP_ORPHAN_RETENTION = "supervisor.cleanup.orphan.retention";
    public static final String CLEANUP_INTERVAL = "supervisor.cleanup.interval";
    public static final String EVENTS_QUEUE = "supervisor.events.queue";
    public static final String QUEUE_HEARTBEAT = "supervisor.queue.heartbeat";
    public static final String CONSUMER_MISSING_HEARTBEATS = "supervisor.consumer.missing.heartbeats";
    public static final String HISTORY_DAYS = "supervisor.history.days";
    public static final String CONSOLE_STUCK_AFTER = "supervisor.console.stuck.after";
    public static final String HA_ENABLED = "supervisor.ha.enabled";
    public static final String HA_ID = "supervisor.ha.id";
    public static final String HA_LEASE = "supervisor.ha.lease";
    public static final String HA_RENEW_INTERVAL = "supervisor.ha.renew.interval";
    public static final String HA_STORE = "supervisor.ha.store";
    public static final String HA_ZOOKEEPER_CONNECT = "supervisor.ha.zookeeper.connect";
    public static final String HA_ZOOKEEPER_ROOT = "supervisor.ha.zookeeper.root";
    public static final String JOURNAL_HDFS_DIR = "supervisor.journal.hdfs.dir";
    public static final String VERIFY_INTERVAL = "supervisor.verify.interval";

    public static final String ENV_STOMP_PASSWORD = "EI_STOMP_PASSWORD";
    public static final String ENV_RUCIO_PASSWORD = "EI_RUCIO_PASSWORD";
    public static final String ENV_S3_ACCESS_KEY = "EI_S3_ACCESS_KEY";
    public static final String ENV_S3_SECRET_KEY = "EI_S3_SECRET_KEY";

    /**
     * The supervisor's one table of configuration keys: every key with its default and its meaning, as
     * {@code config-keys} prints them and docs/supervisor.md lists them. Durations are ISO-8601 ({@code PT30S}) or
     * {@code 500ms/30s/5m/1h}.
     */
    public static final List<ConfigKey> KEYS = Stream.concat(Stream.of(
            new ConfigKey(BROKERS, "localhost:61613", null, BrokerKeys.BROKERS_DOC),
            new ConfigKey(STOMP_USER, "", null, "STOMP login; empty for none."),
            new ConfigKey(STOMP_PASSWORD_FILE, "", ENV_STOMP_PASSWORD,
                    "File holding the STOMP passcode; if unset, the environment variable is used; if neither, none."
                            + " Read again when it changes: the next connection logs in with the new passcode.").secretPath(),
            new ConfigKey(QUEUE_PRODUCER, Queues.SUPERVISOR, null, "Queue producers send their object messages to."),
            new ConfigKey(QUEUE_CONTROL, Queues.SUPERVISOR_CONTROL, null,
                    "Queue of manifests, consumer reports and operator commands."),
            new ConfigKey(QUEUE_CONSUMER, Queues.CONSUMER, null, "Queue the dataset signals are sent to."),
            new ConfigKey(QUEUE_QUARANTINE, "", null,
                    "Queue rejected messages are copied to (with the reason in headers); empty disables the copy."),
            new ConfigKey(QUEUE_PREFETCH, "50", null,
                    "Unacknowledged messages the broker may push per subscription (1-10000; the producer queue has"
                            + " " + JOURNAL_GROUP_COMMIT_MAX + " subscriptions); each is acked after its fsync."),
            new ConfigKey(JOURNAL_DIR, "/var/lib/eventindex/supervisor/journal", null,
                    "Directory (absolute) of the append-only journal (the supervisor's only durable state) and its"
                            + " lock file."),
            new ConfigKey(JOURNAL_MIN_FREE_BYTES, "134217728", null,
                    "Consuming pauses (messages wait in the broker, /ready says why) while the journal's disk has"
                            + " fewer usable bytes than this, and resumes when it has them again; 0 disables the"
                            + " check."),
            new ConfigKey(JOURNAL_CHECKPOINT_ENTRIES, "100000", null,
                    "After this many journal entries the state is written to a checkpoint and the journal starts a"
                            + " new file, so that a start replays at most this many entries; 0 disables checkpoints."),
            new ConfigKey(JOURNAL_KEEP_SEGMENTS, "10", null,
                    "Journal files moved aside by checkpoints that are kept (the newest) for operators; 0 keeps none."),
            new ConfigKey(JOURNAL_GROUP_COMMIT_MAX, Integer.toString(DEFAULT_GROUP_COMMIT_MAX), null,
                    "Most producer messages one journal fsync covers (group commit, 1-64): the producer queue is"
                            + " consumed by this many subscriptions at once, each message acknowledged after the fsync"
                            + " that covers its entry; 1 is one fsync per message, in the broker's order."),
            new ConfigKey(S3_BUCKET, "eventindex", null, "The bucket object URLs must name; messages naming another are rejected."),
            new ConfigKey(HTTP_HOST, "127.0.0.1", null, "Address the operations HTTP server binds to: loopback by"
                    + " default; to reach it from another host, the host's name or internal address (not 0.0.0.0),"
                    + " with " + HTTP_ACCESS + "tls and " + HTTP_ACCESS + "auth."),
            new ConfigKey(HTTP_PORT, "8082", null,
                    "Port of the information service (/health, /ready, /metrics, /datasets, /consumers,"
                            + " /supervisor, /events); 0 picks a free port."),
            new ConfigKey(KUDU_EPOCH, Integer.toString(KuduTablesConfig.FIRST_EPOCH), null,
                    "First Kudu range (rgid) for new datasets (>= 0), the one kudu-loader create-tables adds by"
                            + " default; the next opens when one is full."),
            new ConfigKey(SIGNAL_RETRY_INITIAL, "1s", null, "First wait before re-sending a signal the broker refused."),
            new ConfigKey(SIGNAL_RETRY_MAX, "1m", null, "Longest wait between signal send attempts (the wait doubles up to it)."),
            new ConfigKey(SHUTDOWN_GRACE, "30s", null, "How long stopping waits for the message being handled on each queue."),
            new ConfigKey(MESSAGE_MAX_BYTES, "1048576", null,
                    "Largest message body accepted (bytes); a bigger one is quarantined as OVERSIZE."),
            new ConfigKey(SIGNAL_LEASE, "2h", null,
                    "A signal with no consumer report this long after it was sent, and after the last progress its"
                            + " consumer reported in its heartbeats, is sent again (same signalId); a restarted or"
                            + " standby supervisor counts it from its own start at the earliest."),
            new ConfigKey(RETRY_INITIAL, "1m", null, "Wait after a FAILED report before the signal is sent again."),
            new ConfigKey(RETRY_MAX, "1h", null, "Longest wait between automatic retries (the wait doubles per failure)."),
            new ConfigKey(RETRY_ATTEMPTS, "5", null,
                    "FAILED reports of one signal after which the dataset waits for an operator (0: never retry)."),
            new ConfigKey(TICK_INTERVAL, "1s", null, "How often leases, retries and held datasets are checked."),
            new ConfigKey(KUDU_EPOCH_MAX_EVENTS, "1000000000", null,
                    "Events (sum of expectedEvents of the signals) an epoch takes before the next epoch is opened."),
            new ConfigKey(KUDU_MASTERS, "", null,
                    "Kudu masters host:port[,...]; the supervisor adds each epoch's range before signalling into it."
                            + " Empty: ranges are not managed here."),
            new ConfigKey(KUDU_TABLE_PREFIX, "", null, "Prefix of the Kudu table names (as the consumers use)."),
            new ConfigKey(KUDU_BUCKETS, "64", null, "HASH(eventnumber) buckets per range (as the consumers use)."),
            new ConfigKey(KUDU_REPLICAS, "3", null, "Tablet replicas (odd; 1 on a one-server test cluster)."),
            new ConfigKey(CATALOGUE_URL, "", null,
                    "Rucio server base URL (https://rucio.example:443); empty: datasets are defined by manifests only."),
            new ConfigKey(CATALOGUE_ACCOUNT, "", null, "Rucio account (X-Rucio-Account)."),
            new ConfigKey(CATALOGUE_USERNAME, "", null, "Rucio user name for userpass authentication."),
            new ConfigKey(CATALOGUE_PASSWORD_FILE, "", ENV_RUCIO_PASSWORD,
                    "File holding the Rucio password; if unset, the environment variable is used.").secretPath(),
            new ConfigKey(CATALOGUE_INTERVAL, "5m", null, "How often the catalogue is asked for datasets not yet DONE."),
            new ConfigKey(S3_ENDPOINT, "", null,
                    "S3 endpoint for the cleanup (http://rgw.example:7480); when set, object URLs on another host:port are also"
                            + " rejected (WRONG_ENDPOINT); empty: no object is ever deleted."),
            new ConfigKey(S3_REGION, "us-east-1", null, "S3 signing region."),
            new ConfigKey(S3_ACCESS_KEY, "", ENV_S3_ACCESS_KEY,
                    "S3 access key; if unset, the environment variable is used; if neither, anonymous."),
            new ConfigKey(S3_ACCESS_KEY_FILE, "", null,
                    "File (mode 0600) holding the S3 access key, instead of " + S3_ACCESS_KEY + ": read again when it"
                            + " changes, so that a new key pair is used from the next request on (docs/security.md,"
                            + " rotation)."),
            new ConfigKey(S3_SECRET_KEY_FILE, "", ENV_S3_SECRET_KEY,
                    "File holding the S3 secret key; if unset, the environment variable is used. Read again when it"
                            + " changes (rotation).").secretPath(),
            new ConfigKey(CLEANUP_RETENTION, "168h", null, "How long a DONE dataset's objects are kept before deletion."),
            new ConfigKey(CLEANUP_ORPHAN_RETENTION, "720h", null,
                    "Age after which an object no message ever named is deleted (at least the retention)."),
            new ConfigKey(CLEANUP_INTERVAL, "1h", null, "How often the cleanup runs."),
            new ConfigKey(EVENTS_QUEUE, "1000", null, "State changes buffered per /events subscriber; a subscriber"
                    + " that falls this far behind is dropped."),
            new ConfigKey(HISTORY_DAYS, String.valueOf(History.DEFAULT_DAYS), null, "Days of per-minute history"
                    + " (objects, events, datasets DONE) the supervisor keeps for the console's plots, in its"
                    + " checkpoint (1-366)."),
            new ConfigKey(CONSOLE_STUCK_AFTER, "1h", null, "The console lists a dataset not DONE as needing an"
                    + " operator once its first object or manifest is older than this."),
            new ConfigKey(QUEUE_HEARTBEAT, Queues.SUPERVISOR_HEARTBEAT, null, "Queue the consumers send their"
                    + " heartbeats to (transient: never journalled; /consumers shows them)."),
            new ConfigKey(CONSUMER_MISSING_HEARTBEATS, "3", null, "A consumer is listed as missing in /consumers"
                    + " after this many of its heartbeat intervals (consumer.heartbeat.interval, which each heartbeat"
                    + " carries) without a heartbeat (2-100)."),
            new ConfigKey(HA_ENABLED, "false", null, "Run as one of two supervisors (see " + HA_STORE + "): the one"
                    + " holding the lease is active, the other is a standby that takes over when the lease is not"
                    + " renewed; false: the only supervisor, its journal in " + JOURNAL_DIR + "."),
            new ConfigKey(HA_STORE, "directory", null, "Where the two supervisors keep the lease, the fencing token"
                    + " and the journal: directory (" + JOURNAL_DIR + " on a shared file system, decision 0039) or"
                    + " zookeeper (the lease and token in ZooKeeper at " + HA_ZOOKEEPER_CONNECT + ", the journal on"
                    + " HDFS in " + JOURNAL_HDFS_DIR + ", decision 0043; no shared file system needed)."),
            new ConfigKey(HA_ZOOKEEPER_CONNECT, "", null, "With " + HA_STORE + "=zookeeper: the ZooKeeper quorum,"
                    + " host:port[,host:port...] (e.g. the one HDFS high availability runs)."),
            new ConfigKey(HA_ZOOKEEPER_ROOT, "/eventindex/supervisor", null, "With " + HA_STORE + "=zookeeper: the"
                    + " znode under which the supervisors keep token (its version is the fencing token) and active"
                    + " (the holder's ephemeral node); one per pair of supervisors."),
            new ConfigKey(JOURNAL_HDFS_DIR, "", null, "With " + HA_STORE + "=zookeeper: the HDFS directory of the"
                    + " journal (hdfs://nameservice/path, or a path on the default file system of "
                    + "supervisor.hadoop.conf.dir), one generation-<token> directory per takeover; writable by the"
                    + " supervisors' Kerberos principal only."),
            new ConfigKey(HA_ID, "", null, "This supervisor's name in the lease and in /supervisor (letters, digits,"
                    + " . _ : @ -); empty: the host name and the HTTP port."),
            new ConfigKey(HA_LEASE, "10s", null, "The standby takes over when the active's lease was not renewed for"
                    + " this long (it fences the old active first); with " + HA_STORE + "=zookeeper the ZooKeeper"
                    + " session timeout (the servers bound it between 2 and 20 ticks)."),
            new ConfigKey(HA_RENEW_INTERVAL, "1s", null, "How often the active renews its lease and the standby"
                    + " looks at it (at most half of " + HA_LEASE + ")."),
            new ConfigKey(VERIFY_INTERVAL, "0s", null, "Every this long the active supervisor verifies one LOADED"
                    + " dataset, the next by name (round-robin): its Kudu rows against its HDFS file, the content"
                    + " checksum recorded at load and the catalogue's counts (eventindex verify's code, read-only;"
                    + " /console/verify, eventindex_supervisor_verify_differences). Needs " + KUDU_MASTERS + "; 0s: off.")),
            Stream.of(ClusterSettings.configKeys("supervisor.", true), TlsSettings.keys("supervisor."),
                    StompFrameLimitKeys.keys("supervisor."), BrokerKeys.keys("supervisor."),
                    HttpAccess.keys(HTTP_ACCESS)).flatMap(List::stream)).toList();

    public SupervisorConfig {
        brokers = List.copyOf(Objects.requireNonNull(brokers, "brokers is null"));
        if (brokers.isEmpty()) {
            throw new IllegalArgumentException(BROKERS + " names no broker");
        }
        stompUser = stompUser == null ? "" : stompUser;
        requireQueue(producerQueue, QUEUE_PRODUCER);
        requireQueue(controlQueue, QUEUE_CONTROL);
        requireQueue(consumerQueue, QUEUE_CONSUMER);
        quarantineQueue = quarantineQueue == null ? "" : quarantineQueue;
        if (!quarantineQueue.isEmpty()) {
            requireQueue(quarantineQueue, QUEUE_QUARANTINE);
        }
        if (Set.of(producerQueue, controlQueue, consumerQueue).size() != 3
                || producerQueue.equals(quarantineQueue) || controlQueue.equals(quarantineQueue)
                || consumerQueue.equals(quarantineQueue)) {
            throw new IllegalArgumentException("the producer, control, consumer and quarantine queues must differ: "
                    + producerQueue + ", " + controlQueue + ", " + consumerQueue + ", " + quarantineQueue);
        }
        requireRange(prefetch, 1, 10_000, QUEUE_PREFETCH);
        Objects.requireNonNull(journal, "journal is null");
        requireText(s3Bucket, S3_BUCKET);
        requireText(httpHost, HTTP_HOST);
        requireRange(httpPort, 0, 65535, HTTP_PORT);
        requireRange(kuduEpoch, 0, Integer.MAX_VALUE, KUDU_EPOCH);
        doublingBackoff(signalRetryInitial, SIGNAL_RETRY_INITIAL, signalRetryMax, SIGNAL_RETRY_MAX);
        requirePositive(shutdownGrace, SHUTDOWN_GRACE);
        requireRange(maxMessageBytes, 1024, Integer.MAX_VALUE, MESSAGE_MAX_BYTES);
        Objects.requireNonNull(handOff, "handOff is null");
        Objects.requireNonNull(epochs, "epochs is null");
        Objects.requireNonNull(catalogue, "catalogue is null");
        Objects.requireNonNull(cleanup, "cleanup is null");
        Objects.requireNonNull(httpAccess, "httpAccess is null");
        requireRange(eventsQueue, 1, 1_000_000, EVENTS_QUEUE);
        requireQueue(heartbeatQueue, QUEUE_HEARTBEAT);
        if (Set.of(producerQueue, controlQueue, consumerQueue, quarantineQueue).contains(heartbeatQueue)) {
            throw new IllegalArgumentException(QUEUE_HEARTBEAT + " " + heartbeatQueue + " must differ from the"
                    + " producer, control, consumer and quarantine queues");
        }
        requireRange(missingHeartbeats, 2, 100, CONSUMER_MISSING_HEARTBEATS);
        Objects.requireNonNull(tls, "tls is null");
        Objects.requireNonNull(frameLimits, "frameLimits is null");
        Objects.requireNonNull(brokersResolveInterval, "brokersResolveInterval is null");
        Objects.requireNonNull(console, "console is null");
        Objects.requireNonNull(ha, "ha is null");
        Objects.requireNonNull(verifyInterval, "verifyInterval is null");
        if (verifyInterval.isNegative()) {
            throw new IllegalArgumentException(VERIFY_INTERVAL + " must not be negative: " + verifyInterval);
        }
        if (!verifyInterval.isZero() && !epochs.managed()) {
            throw new IllegalArgumentException(VERIFY_INTERVAL + " (" + verifyInterval + ") needs the Kudu masters"
                    + " (" + KUDU_MASTERS + "); set them or " + VERIFY_INTERVAL + "=0s");
        }
        shown = Collections.unmodifiableMap(new TreeMap<>(Objects.requireNonNull(shown, "shown is null")));
    }

    /** Waits between attempts to send a signal the broker did not accept. */
    public Backoff signalBackoff() {
        return Backoff.doubling(signalRetryInitial, signalRetryMax);
    }

    /** The STOMP connection settings (no login when the user is empty). */
    public StompSettings stompSettings() {
        return tls.applyTo(StompSettings.rotating(brokers, stompUser.isEmpty() ? null : stompUser, stompPassword))
                .withFrameLimits(frameLimits).withResolveInterval(brokersResolveInterval);
    }

    /** The quarantine queue, if rejected messages are to be copied there. */
    public Optional<String> quarantine() {
        return quarantineQueue.isEmpty() ? Optional.empty() : Optional.of(quarantineQueue);
    }

    /** Reads a properties file; a relative secret file is taken from the working directory. */
    public static SupervisorConfig load(Path file, Map<String, String> env) throws IOException {
        try {
            return fromProperties(ConfigReader.load(file, "supervisor"), env);
        } catch (IllegalArgumentException e) {
            throw ConfigReader.inFile(file, e);
        }
    }

    /**
     * Builds the configuration from properties (missing keys take their default) and the environment (secrets).
     *
     * @throws IllegalArgumentException naming the key and what is wrong, also for a key not in
     *                                  {@link #KEYS} (with its line when {@code props} is a
     *                                  {@link org.eventindex.config.ConfigFile})
     * @throws IOException              when the password file cannot be read
     */
    public static SupervisorConfig fromProperties(Properties props, Map<String, String> env) throws IOException {
        ConfigReader r = new ConfigReader("supervisor.", KEYS, props, env);
        return new SupervisorConfig(
                StompEndpoint.parseList(r.text(BROKERS)),
                r.text(STOMP_USER),
                r.rotatingSecret(STOMP_PASSWORD_FILE),
                r.text(QUEUE_PRODUCER),
                r.text(QUEUE_CONTROL),
                r.text(QUEUE_CONSUMER),
                r.text(QUEUE_QUARANTINE),
                r.integer(QUEUE_PREFETCH),
                new JournalSettings(Path.of(r.text(JOURNAL_DIR)), r.longValue(JOURNAL_MIN_FREE_BYTES),
                        r.longValue(JOURNAL_CHECKPOINT_ENTRIES), r.integer(JOURNAL_KEEP_SEGMENTS),
                        r.integer(JOURNAL_GROUP_COMMIT_MAX)),
                r.text(S3_BUCKET),
                r.text(HTTP_HOST),
                r.integer(HTTP_PORT),
                r.integer(KUDU_EPOCH),
                r.duration(SIGNAL_RETRY_INITIAL),
                r.duration(SIGNAL_RETRY_MAX),
                r.duration(SHUTDOWN_GRACE),
                r.integer(MESSAGE_MAX_BYTES),
                new HandOff(r.duration(SIGNAL_LEASE), r.duration(RETRY_INITIAL), r.duration(RETRY_MAX),
                        r.integer(RETRY_ATTEMPTS), r.duration(TICK_INTERVAL)),
                new Epochs(r.longValue(KUDU_EPOCH_MAX_EVENTS), r.text(KUDU_MASTERS),
                        r.text(KUDU_TABLE_PREFIX), r.integer(KUDU_BUCKETS), r.integer(KUDU_REPLICAS),
                        ClusterSettings.of(r.text(HADOOP_CONF_DIR), r.text(KERBEROS_PRINCIPAL),
                                r.text(KERBEROS_KEYTAB), env, ClusterSettings.Names.keys("supervisor."))),
                new CatalogueSettings(r.text(CATALOGUE_URL), r.text(CATALOGUE_ACCOUNT),
                        r.text(CATALOGUE_USERNAME),
                        r.secret(CATALOGUE_PASSWORD_FILE),
                        r.duration(CATALOGUE_INTERVAL)),
                new Cleanup(r.text(S3_ENDPOINT), r.text(S3_REGION),
                        r.rotatingText(S3_ACCESS_KEY, S3_ACCESS_KEY_FILE),
                        r.rotatingSecret(S3_SECRET_KEY_FILE),
                        r.duration(CLEANUP_RETENTION), r.duration(CLEANUP_ORPHAN_RETENTION),
                        r.duration(CLEANUP_INTERVAL)),
                r.integer(EVENTS_QUEUE),
                r.text(QUEUE_HEARTBEAT),
                r.integer(CONSUMER_MISSING_HEARTBEATS),
                TlsSettings.read(r, "supervisor."),
                StompFrameLimitKeys.read(r, "supervisor."),
                BrokerKeys.resolveInterval(r, "supervisor."),
                new Console(r.integer(HISTORY_DAYS), r.duration(CONSOLE_STUCK_AFTER)),
                new Ha(bool(HA_ENABLED, r.text(HA_ENABLED)), r.text(HA_ID), r.duration(HA_LEASE),
                        r.duration(HA_RENEW_INTERVAL), zooKeeper(r)),
                HttpAccess.read(r, HTTP_ACCESS),
                r.duration(VERIFY_INTERVAL),
                r.shown());
    }

    /** The ZooKeeper and HDFS store when {@value #HA_STORE} says zookeeper. */
    private static Optional<ZooKeeperStore> zooKeeper(ConfigReader r) {
        String store = r.text(HA_STORE).trim();
        return switch (store) {
            case "directory" -> Optional.empty();
            case "zookeeper" -> Optional.of(ZooKeeperStore.parse(r.text(HA_ZOOKEEPER_CONNECT),
                    r.text(HA_ZOOKEEPER_ROOT), r.text(JOURNAL_HDFS_DIR)));
            default -> throw new IllegalArgumentException(HA_STORE + " must be directory or zookeeper: '" + store
                    + "'");
        };
    }

    /** {@code true} or {@code false}, nothing else (a typo must not silently mean false). */
    static boolean bool(String key, String value) {
        String v = value.trim();
        if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(v);
        }
        throw new IllegalArgumentException(key + " must be true or false: '" + value + "'");
    }

    /** Parses {@code PT30S}-style ISO-8601 or a number with unit {@code ms, s, m, h}. */
    static Duration parseDuration(String key, String value) {
        return ConfigReader.parseDuration(key, value);
    }

    @Override
    public String toString() {
        return "SupervisorConfig[brokers=" + brokers + ", stompUser=" + stompUser
                + ", stompPassword=" + (stompPassword == null ? "none" : "***") + ", producerQueue=" + producerQueue
                + ", controlQueue=" + controlQueue + ", consumerQueue=" + consumerQueue
                + ", quarantineQueue=" + (quarantineQueue.isEmpty() ? "none" : quarantineQueue)
                + ", prefetch=" + prefetch + ", journal=" + journal + ", s3Bucket=" + s3Bucket
                + ", http=" + httpHost + ":" + httpPort + " " + httpAccess + ", kuduEpoch=" + kuduEpoch
                + ", signalRetry=" + signalRetryInitial + ".." + signalRetryMax + ", shutdownGrace=" + shutdownGrace
                + ", maxMessageBytes=" + maxMessageBytes + ", lease=" + handOff.lease() + ", retry="
                + handOff.retryInitial() + ".." + handOff.retryMax() + " x" + handOff.retryAttempts()
                + ", epochMaxEvents=" + epochs.maxEvents() + ", kudu=" + (epochs.managed() ? epochs.kuduMasters()
                : "not managed") + ", verify=" + (verifyInterval.isZero() ? "off" : "every " + verifyInterval)
                + ", catalogue=" + (catalogue.enabled() ? catalogue.url() + " every "
                + catalogue.interval() : "manifests only") + ", cleanup=" + (cleanup.enabled() ? cleanup.s3Endpoint()
                + " after " + cleanup.retention() + " (orphans " + cleanup.orphanRetention() + ")" : "off")
                + ", tls=" + tls + ", frameLimits=" + frameLimits + ", brokersResolveInterval=" + brokersResolveInterval + ", ha=" + (ha.enabled() ? "lease " + ha.lease()
                + " renewed every " + ha.renew() + (ha.id().isEmpty() ? "" : " as " + ha.id()) : "off") + "]";
    }
}
