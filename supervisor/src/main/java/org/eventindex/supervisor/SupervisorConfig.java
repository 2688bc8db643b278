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
        Duration shutdownGrace) {

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

    public static final String ENV_STOMP_PASSWORD = "EI_STOMP_PASSWORD";

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
                    "Port of /health, /ready, /metrics, /datasets and /datasets/<name>; 0 picks a free port."),
            new Key(KUDU_EPOCH, "1", null, "Kudu range (rgid) assigned to datasets signalled from now on (>= 0)."),
            new Key(SIGNAL_RETRY_INITIAL, "1s", null, "First wait before re-sending a signal the broker refused."),
            new Key(SIGNAL_RETRY_MAX, "1m", null, "Longest wait between signal send attempts (the wait doubles up to it)."),
            new Key(SHUTDOWN_GRACE, "30s", null, "How long stopping waits for the message being handled on each queue."));

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
                signalRetryMax, shutdownGrace);
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
                secret(props, env),
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
                duration(props, SHUTDOWN_GRACE));
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
                + ", signalRetry=" + signalRetryInitial + ".." + signalRetryMax + ", shutdownGrace=" + shutdownGrace + "]";
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

    private static String secret(Properties props, Map<String, String> env) throws IOException {
        String file = text(props, STOMP_PASSWORD_FILE);
        if (!file.isEmpty()) {
            String s;
            try {
                s = Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                throw new IOException(STOMP_PASSWORD_FILE + ": cannot read password file " + file + ": "
                        + e.getMessage(), e);
            }
            if (s.isEmpty()) {
                throw new IllegalArgumentException(STOMP_PASSWORD_FILE + ": password file " + file + " is empty");
            }
            return s;
        }
        String v = env.get(ENV_STOMP_PASSWORD);
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
