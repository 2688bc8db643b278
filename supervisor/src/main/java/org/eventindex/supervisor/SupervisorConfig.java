package org.eventindex.supervisor;

import org.eventindex.message.Queues;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompSettings;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

/**
 * The supervisor daemon's configuration, read from a properties file. {@link #KEYS} is the one table of every key
 * with its default and meaning (docs/supervisor.md repeats it; {@code SupervisorConfigTest} keeps the two in step).
 * The STOMP passcode comes from a file or the environment, never from the properties file, and
 * {@link #toString()} never prints it.
 *
 * @param stompPassword      may be null (no passcode)
 * @param quarantineQueue    where rejected messages are copied; empty when disabled
 * @param journalDir         directory of the journal (and its lock file); created if missing
 * @param s3Bucket           the only bucket object URLs may name; messages naming another are rejected
 * @param httpPort           operations HTTP port; 0 picks a free port
 * @param kuduEpoch          the Kudu range (rgid) new datasets are assigned to
 * @param signalRetryInitial first wait before re-sending a signal the broker did not accept
 * @param signalRetryMax     cap of the doubling wait between signal send attempts
 * @param shutdownGrace      how long stop() waits for the message in progress on each queue
 */
public record SupervisorConfig(
        List<StompEndpoint> brokers,
        String stompUser,
        String stompPassword,
        String producerQueue,
        String controlQueue,
        String consumerQueue,
        String quarantineQueue,
        int prefetch,
        Path journalDir,
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
        int eventsQueue) {

    /**
     * When a signal is sent again without an operator.
     *
     * @param lease         a signal without a report this long after it was sent is sent again
     * @param retryInitial  first wait after a FAILED report before the signal is sent again (doubles per failure)
     * @param retryMax      cap of that wait
     * @param retryAttempts FAILED reports after which the dataset waits for an operator
     * @param tick          how often leases and retries are checked
     */
    public record HandOff(Duration lease, Duration retryInitial, Duration retryMax, int retryAttempts,
                          Duration tick) {
        public HandOff {
            requirePositive(lease, SIGNAL_LEASE);
            requirePositive(retryInitial, RETRY_INITIAL);
            requirePositive(retryMax, RETRY_MAX);
            requireRange(retryAttempts, 0, 1000, RETRY_ATTEMPTS);
            requirePositive(tick, TICK_INTERVAL);
        }
    }

    /**
     * Kudu ranges.
     *
     * @param maxEvents   events (sum of the signals' expectedEvents) an epoch takes before the next one is opened
     * @param kuduMasters empty: ranges are not created by the supervisor (tests without Kudu)
     */
    public record Epochs(long maxEvents, String kuduMasters, String tablePrefix, int hashBuckets, int replicas) {
        public Epochs {
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
     * @param secretKey may be null (never printed)
     */
    public record Cleanup(String s3Endpoint, String region, String accessKey, String secretKey, Duration retention,
                          Duration orphanRetention, Duration interval) {
        public Cleanup {
            s3Endpoint = s3Endpoint == null ? "" : s3Endpoint.trim();
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
            return "Cleanup[s3Endpoint=" + s3Endpoint + ", region=" + region + ", accessKey=" + accessKey
                    + ", secretKey=" + (secretKey == null ? "none" : "***") + ", retention=" + retention
                    + ", orphanRetention=" + orphanRetention + ", interval=" + interval + "]";
        }
    }

    /** One configuration key: its name, default (as text), environment variable if any, and meaning. */
    public record Key(String name, String defaultValue, String envVar, String doc) {
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
    public static final String S3_BUCKET = "supervisor.s3.bucket";
    public static final String HTTP_HOST = "supervisor.http.host";
    public static final String HTTP_PORT = "supervisor.http.port";
    public static final String KUDU_EPOCH = "supervisor.kudu.epoch";
    public static final String SIGNAL_RETRY_INITIAL = "supervisor.signal.retry.initial";
    public static final String SIGNAL_RETRY_MAX = "supervisor.signal.retry.max";
    public static final String SHUTDOWN_GRACE = "supervisor.shutdown.grace";

    public static final String MESSAGE_MAX_BYTES = "supervisor.message.max.bytes";
    public static final String SIGNAL_LEASE = "supervisor.signal.lease";
    public static final String RETRY_INITIAL = "supervisor.retry.initial";
    public static final String RETRY_MAX = "supervisor.retry.max";
    public static final String RETRY_ATTEMPTS = "supervisor.retry.attempts";
    public static final String TICK_INTERVAL = "supervisor.tick.interval";
    public static final String KUDU_EPOCH_MAX_EVENTS = "supervisor.kudu.epoch.max.events";
    public static final String KUDU_MASTERS = "supervisor.kudu.masters";
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
    public static final String S3_SECRET_KEY_FILE = "supervisor.s3.secret.key.file";
    public static final String CLEANUP_RETENTION = "supervisor.cleanup.retention";
    public static final String CLEANUP_ORPHAN_RETENTION = "supervisor.cleanup.orphan.retention";
    public static final String CLEANUP_INTERVAL = "supervisor.cleanup.interval";
    public static final String EVENTS_QUEUE = "supervisor.events.queue";

    public static final String ENV_STOMP_PASSWORD = "EI_STOMP_PASSWORD";
    public static final String ENV_RUCIO_PASSWORD = "EI_RUCIO_PASSWORD";
    public static final String ENV_S3_ACCESS_KEY = "EI_S3_ACCESS_KEY";
    public static final String ENV_S3_SECRET_KEY = "EI_S3_SECRET_KEY";

    /** Every key, its default and its meaning. Durations are ISO-8601 ({@code PT30S}) or {@code 500ms/30s/5m/1h}. */
    public static final List<Key> KEYS = List.of(
            new Key(BROKERS, "localhost:61613", null, "STOMP brokers, host:port[,host:port...]; tried in order."),
            new Key(STOMP_USER, "", null, "STOMP login; empty for none."),
            new Key(STOMP_PASSWORD_FILE, "", ENV_STOMP_PASSWORD,
                    "File holding the STOMP passcode; if unset, the environment variable is used; if neither, none."),
            new Key(QUEUE_PRODUCER, Queues.SUPERVISOR, null, "Queue producers send their object messages to."),
            new Key(QUEUE_CONTROL, Queues.SUPERVISOR_CONTROL, null,
                    "Queue of manifests, consumer reports and operator commands."),
            new Key(QUEUE_CONSUMER, Queues.CONSUMER, null, "Queue the dataset signals are sent to."),
            new Key(QUEUE_QUARANTINE, "", null,
                    "Queue rejected messages are copied to (with the reason in headers); empty disables the copy."),
            new Key(QUEUE_PREFETCH, "50", null,
                    "Unacknowledged messages the broker may push per queue (1-10000); each is acked after its fsync."),
            new Key(JOURNAL_DIR, "supervisor-journal", null,
                    "Directory of the append-only journal (the supervisor's only durable state) and its lock file."),
            new Key(S3_BUCKET, "eventindex", null, "The bucket object URLs must name; messages naming another are rejected."),
            new Key(HTTP_HOST, "0.0.0.0", null, "Address the operations HTTP server binds to."),
            new Key(HTTP_PORT, "8082", null,
                    "Port of the information service (/health, /ready, /metrics, /datasets, /consumers,"
                            + " /supervisor, /events); 0 picks a free port."),
            new Key(KUDU_EPOCH, "1", null, "First Kudu range (rgid) for new datasets (>= 0); the next opens when one is full."),
            new Key(SIGNAL_RETRY_INITIAL, "1s", null, "First wait before re-sending a signal the broker refused."),
            new Key(SIGNAL_RETRY_MAX, "1m", null, "Longest wait between signal send attempts (the wait doubles up to it)."),
            new Key(SHUTDOWN_GRACE, "30s", null, "How long stopping waits for the message being handled on each queue."),
            new Key(MESSAGE_MAX_BYTES, "1048576", null,
                    "Largest message body accepted (bytes); a bigger one is quarantined as OVERSIZE."),
            new Key(SIGNAL_LEASE, "2h", null,
                    "A signal with no consumer report this long after it was sent is sent again (same signalId)."),
            new Key(RETRY_INITIAL, "1m", null, "Wait after a FAILED report before the signal is sent again."),
            new Key(RETRY_MAX, "1h", null, "Longest wait between automatic retries (the wait doubles per failure)."),
            new Key(RETRY_ATTEMPTS, "5", null,
                    "FAILED reports of one signal after which the dataset waits for an operator (0: never retry)."),
            new Key(TICK_INTERVAL, "1s", null, "How often leases, retries and held datasets are checked."),
            new Key(KUDU_EPOCH_MAX_EVENTS, "1000000000", null,
                    "Events (sum of expectedEvents of the signals) an epoch takes before the next epoch is opened."),
            new Key(KUDU_MASTERS, "", null,
                    "Kudu masters host:port[,...]; the supervisor adds each epoch's range before signalling into it."
                            + " Empty: ranges are not managed here."),
            new Key(KUDU_TABLE_PREFIX, "", null, "Prefix of the Kudu table names (as the consumers use)."),
            new Key(KUDU_BUCKETS, "64", null, "HASH(eventnumber) buckets per range (as the consumers use)."),
            new Key(KUDU_REPLICAS, "3", null, "Tablet replicas (odd; 1 on a one-server test cluster)."),
            new Key(CATALOGUE_URL, "", null,
                    "Rucio server base URL (https://rucio.example:443); empty: datasets are defined by manifests only."),
            new Key(CATALOGUE_ACCOUNT, "", null, "Rucio account (X-Rucio-Account)."),
            new Key(CATALOGUE_USERNAME, "", null, "Rucio user name for userpass authentication."),
            new Key(CATALOGUE_PASSWORD_FILE, "", ENV_RUCIO_PASSWORD,
                    "File holding the Rucio password; if unset, the environment variable is used."),
            new Key(CATALOGUE_INTERVAL, "5m", null, "How often the catalogue is asked for datasets not yet DONE."),
            new Key(S3_ENDPOINT, "", null,
                    "S3 endpoint for the cleanup (http://rgw.example:7480); empty: no object is ever deleted."),
            new Key(S3_REGION, "us-east-1", null, "S3 signing region."),
            new Key(S3_ACCESS_KEY, "", ENV_S3_ACCESS_KEY,
                    "S3 access key; if unset, the environment variable is used; if neither, anonymous."),
            new Key(S3_SECRET_KEY_FILE, "", ENV_S3_SECRET_KEY,
                    "File holding the S3 secret key; if unset, the environment variable is used."),
            new Key(CLEANUP_RETENTION, "168h", null, "How long a DONE dataset's objects are kept before deletion."),
            new Key(CLEANUP_ORPHAN_RETENTION, "720h", null,
                    "Age after which an object no message ever named is deleted (at least the retention)."),
            new Key(CLEANUP_INTERVAL, "1h", null, "How often the cleanup runs."),
            new Key(EVENTS_QUEUE, "1000", null,
                    "State changes buffered per /events subscriber; a subscriber that falls this far behind is dropped."));

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
        Objects.requireNonNull(journalDir, "journalDir is null");
        requireText(s3Bucket, S3_BUCKET);
        requireText(httpHost, HTTP_HOST);
        requireRange(httpPort, 0, 65535, HTTP_PORT);
        requireRange(kuduEpoch, 0, Integer.MAX_VALUE, KUDU_EPOCH);
        requirePositive(signalRetryInitial, SIGNAL_RETRY_INITIAL);
        requirePositive(signalRetryMax, SIGNAL_RETRY_MAX);
        if (signalRetryMax.compareTo(signalRetryInitial) < 0) {
            throw new IllegalArgumentException(SIGNAL_RETRY_MAX + " (" + signalRetryMax + ") is shorter than "
                    + SIGNAL_RETRY_INITIAL + " (" + signalRetryInitial + ")");
        }
        requirePositive(shutdownGrace, SHUTDOWN_GRACE);
        requireRange(maxMessageBytes, 1024, Integer.MAX_VALUE, MESSAGE_MAX_BYTES);
        Objects.requireNonNull(handOff, "handOff is null");
        Objects.requireNonNull(epochs, "epochs is null");
        Objects.requireNonNull(catalogue, "catalogue is null");
        Objects.requireNonNull(cleanup, "cleanup is null");
        requireRange(eventsQueue, 1, 1_000_000, EVENTS_QUEUE);
    }

    /** The STOMP connection settings (no login when the user is empty). */
    public StompSettings stompSettings() {
        return StompSettings.of(brokers, stompUser.isEmpty() ? null : stompUser, stompPassword);
    }

    /** The quarantine queue, if rejected messages are to be copied there. */
    public Optional<String> quarantine() {
        return quarantineQueue.isEmpty() ? Optional.empty() : Optional.of(quarantineQueue);
    }

    /** The same configuration with another HTTP port (the embedded stack uses 0). */
    public SupervisorConfig withHttpPort(int port) {
        return new SupervisorConfig(brokers, stompUser, stompPassword, producerQueue, controlQueue, consumerQueue,
                quarantineQueue, prefetch, journalDir, s3Bucket, httpHost, port, kuduEpoch, signalRetryInitial,
                signalRetryMax, shutdownGrace, maxMessageBytes, handOff, epochs, catalogue, cleanup, eventsQueue);
    }

    /** Reads a properties file; a relative journal dir or secret file is taken from the working directory. */
    public static SupervisorConfig load(Path file, Map<String, String> env) throws IOException {
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            props.load(in);
        } catch (IOException e) {
            throw new IOException("cannot read supervisor configuration " + file + ": " + e.getMessage(), e);
        }
        try {
            return fromProperties(props, env);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Builds the configuration from properties (missing keys take their default) and the environment (secrets).
     *
     * @throws IllegalArgumentException naming the key and what is wrong, also for unknown {@code supervisor.*} keys
     * @throws IOException              when the password file cannot be read
     */
    public static SupervisorConfig fromProperties(Properties props, Map<String, String> env) throws IOException {
        Objects.requireNonNull(props, "props is null");
        Objects.requireNonNull(env, "env is null");
        Set<String> known = new HashSet<>();
        KEYS.forEach(k -> known.add(k.name()));
        for (String name : props.stringPropertyNames()) {
            if (name.startsWith("supervisor.") && !known.contains(name)) {
                throw new IllegalArgumentException("unknown configuration key '" + name + "'");
            }
        }
        return new SupervisorConfig(
                StompEndpoint.parseList(text(props, BROKERS)),
                text(props, STOMP_USER),
                secret(props, env, STOMP_PASSWORD_FILE, ENV_STOMP_PASSWORD),
                text(props, QUEUE_PRODUCER),
                text(props, QUEUE_CONTROL),
                text(props, QUEUE_CONSUMER),
                text(props, QUEUE_QUARANTINE),
                integer(props, QUEUE_PREFETCH),
                Path.of(text(props, JOURNAL_DIR)),
                text(props, S3_BUCKET),
                text(props, HTTP_HOST),
                integer(props, HTTP_PORT),
                integer(props, KUDU_EPOCH),
                duration(props, SIGNAL_RETRY_INITIAL),
                duration(props, SIGNAL_RETRY_MAX),
                duration(props, SHUTDOWN_GRACE),
                integer(props, MESSAGE_MAX_BYTES),
                new HandOff(duration(props, SIGNAL_LEASE), duration(props, RETRY_INITIAL), duration(props, RETRY_MAX),
                        integer(props, RETRY_ATTEMPTS), duration(props, TICK_INTERVAL)),
                new Epochs(longValue(props, KUDU_EPOCH_MAX_EVENTS), text(props, KUDU_MASTERS),
                        text(props, KUDU_TABLE_PREFIX), integer(props, KUDU_BUCKETS), integer(props, KUDU_REPLICAS)),
                new CatalogueSettings(text(props, CATALOGUE_URL), text(props, CATALOGUE_ACCOUNT),
                        text(props, CATALOGUE_USERNAME),
                        secret(props, env, CATALOGUE_PASSWORD_FILE, ENV_RUCIO_PASSWORD),
                        duration(props, CATALOGUE_INTERVAL)),
                new Cleanup(text(props, S3_ENDPOINT), text(props, S3_REGION),
                        orEnv(text(props, S3_ACCESS_KEY), env, ENV_S3_ACCESS_KEY),
                        secret(props, env, S3_SECRET_KEY_FILE, ENV_S3_SECRET_KEY),
                        duration(props, CLEANUP_RETENTION), duration(props, CLEANUP_ORPHAN_RETENTION),
                        duration(props, CLEANUP_INTERVAL)),
                integer(props, EVENTS_QUEUE));
    }

    /** The default of a key, from {@link #KEYS}. */
    static String defaultOf(String key) {
        return KEYS.stream().filter(k -> k.name().equals(key)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no configuration key '" + key + "'"))
                .defaultValue();
    }

    /** Parses {@code PT30S}-style ISO-8601 or a number with unit {@code ms, s, m, h}. */
    static Duration parseDuration(String key, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        try {
            if (v.startsWith("p")) {
                return Duration.parse(value.trim());
            }
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2).trim()));
            }
            long n = Long.parseLong(v.substring(0, Math.max(0, v.length() - 1)).trim());
            switch (v.isEmpty() ? ' ' : v.charAt(v.length() - 1)) {
                case 's': return Duration.ofSeconds(n);
                case 'm': return Duration.ofMinutes(n);
                case 'h': return Duration.ofHours(n);
                default: break;
            }
        } catch (NumberFormatException | DateTimeParseException e) {
            // fall through to the error naming the key
        }
        throw new IllegalArgumentException(key + " '" + value + "' is not a duration (e.g. 500ms, 30s, 5m, 1h, PT30S)");
    }

    @Override
    public String toString() {
        return "SupervisorConfig[brokers=" + brokers + ", stompUser=" + stompUser
                + ", stompPassword=" + (stompPassword == null ? "none" : "***") + ", producerQueue=" + producerQueue
                + ", controlQueue=" + controlQueue + ", consumerQueue=" + consumerQueue
                + ", quarantineQueue=" + (quarantineQueue.isEmpty() ? "none" : quarantineQueue)
                + ", prefetch=" + prefetch + ", journalDir=" + journalDir + ", s3Bucket=" + s3Bucket
                + ", http=" + httpHost + ":" + httpPort + ", kuduEpoch=" + kuduEpoch
                + ", signalRetry=" + signalRetryInitial + ".." + signalRetryMax + ", shutdownGrace=" + shutdownGrace
                + ", maxMessageBytes=" + maxMessageBytes + ", lease=" + handOff.lease() + ", retry="
                + handOff.retryInitial() + ".." + handOff.retryMax() + " x" + handOff.retryAttempts()
                + ", epochMaxEvents=" + epochs.maxEvents() + ", kudu=" + (epochs.managed() ? epochs.kuduMasters()
                : "not managed") + ", catalogue=" + (catalogue.enabled() ? catalogue.url() + " every "
                + catalogue.interval() : "manifests only") + ", cleanup=" + (cleanup.enabled() ? cleanup.s3Endpoint()
                + " after " + cleanup.retention() + " (orphans " + cleanup.orphanRetention() + ")" : "off") + "]";
    }

    private static String text(Properties props, String key) {
        return props.getProperty(key, defaultOf(key)).trim();
    }

    private static int integer(Properties props, String key) {
        String v = text(props, key);
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " '" + v + "' is not an integer");
        }
    }

    private static Duration duration(Properties props, String key) {
        return parseDuration(key, text(props, key));
    }

    private static long longValue(Properties props, String key) {
        String v = text(props, key);
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " '" + v + "' is not an integer");
        }
    }

    private static String orEnv(String value, Map<String, String> env, String envVar) {
        if (!value.isEmpty()) {
            return value;
        }
        String v = env.get(envVar);
        return v == null || v.isBlank() ? "" : v.strip();
    }

    private static String secret(Properties props, Map<String, String> env, String fileKey, String envVar)
            throws IOException {
        String file = text(props, fileKey);
        if (!file.isEmpty()) {
            String s;
            try {
                s = Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                throw new IOException(fileKey + ": cannot read secret file " + file + ": " + e.getMessage(), e);
            }
            if (s.isEmpty()) {
                throw new IllegalArgumentException(fileKey + ": secret file " + file + " is empty");
            }
            return s;
        }
        String v = env.get(envVar);
        return v == null || v.isBlank() ? null : v.strip();
    }

    private static void requireText(String v, String key) {
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(key + " must not be empty");
        }
    }

    private static void requireQueue(String v, String key) {
        requireText(v, key);
        if (!v.startsWith("/queue/")) {
            throw new IllegalArgumentException(key + " '" + v + "' must be a queue destination (/queue/...)");
        }
    }

    private static void requireRange(int v, int min, int max, String key) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(key + " " + v + " is outside " + min + ".." + max);
        }
    }

    private static void requirePositive(Duration d, String key) {
        Objects.requireNonNull(d, key + " is null");
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(key + " must be positive: " + d);
        }
    }
}
