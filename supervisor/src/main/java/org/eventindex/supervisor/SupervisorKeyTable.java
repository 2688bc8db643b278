package org.eventindex.supervisor;

import org.eventindex.config.ConfigKey;
import org.eventindex.config.StompFrameLimitKeys;
import org.eventindex.config.TlsSettings;
import org.eventindex.message.Queues;

import java.util.List;
import java.util.stream.Stream;

import static org.eventindex.supervisor.SupervisorConfig.*;

/**
 * The supervisor's one table of configuration keys, {@link SupervisorConfig#KEYS}: every key with its default and its
 * meaning, as {@code config-keys} prints them and docs/supervisor.md lists them. Durations are ISO-8601
 * ({@code PT30S}) or {@code 500ms/30s/5m/1h}.
 */
final class SupervisorKeyTable {
    private SupervisorKeyTable() {
    }

    static final List<ConfigKey> KEYS = Stream.concat(Stream.of(
            new ConfigKey(BROKERS, "localhost:61613", null, "STOMP brokers, host:port[,host:port...]; tried in order."),
            new ConfigKey(STOMP_USER, "", null, "STOMP login; empty for none."),
            new ConfigKey(STOMP_PASSWORD_FILE, "", ENV_STOMP_PASSWORD,
                    "File holding the STOMP passcode; if unset, the environment variable is used; if neither, none."),
            new ConfigKey(QUEUE_PRODUCER, Queues.SUPERVISOR, null, "Queue producers send their object messages to."),
            new ConfigKey(QUEUE_CONTROL, Queues.SUPERVISOR_CONTROL, null,
                    "Queue of manifests, consumer reports and operator commands."),
            new ConfigKey(QUEUE_CONSUMER, Queues.CONSUMER, null, "Queue the dataset signals are sent to."),
            new ConfigKey(QUEUE_QUARANTINE, "", null,
                    "Queue rejected messages are copied to (with the reason in headers); empty disables the copy."),
            new ConfigKey(QUEUE_PREFETCH, "50", null,
                    "Unacknowledged messages the broker may push per queue (1-10000); each is acked after its fsync."),
            new ConfigKey(JOURNAL_DIR, "supervisor-journal", null,
                    "Directory of the append-only journal (the supervisor's only durable state) and its lock file."),
            new ConfigKey(JOURNAL_MIN_FREE_BYTES, "134217728", null,
                    "Consuming pauses (messages wait in the broker, /ready says why) while the journal's disk has"
                            + " fewer usable bytes than this, and resumes when it has them again; 0 disables the"
                            + " check."),
            new ConfigKey(JOURNAL_CHECKPOINT_ENTRIES, "100000", null,
                    "After this many journal entries the state is written to a checkpoint and the journal starts a"
                            + " new file, so that a start replays at most this many entries; 0 disables checkpoints."),
            new ConfigKey(JOURNAL_KEEP_SEGMENTS, "10", null,
                    "Journal files moved aside by checkpoints that are kept (the newest) for operators; 0 keeps none."),
            new ConfigKey(S3_BUCKET, "eventindex", null, "The bucket object URLs must name; messages naming another are rejected."),
            new ConfigKey(HTTP_HOST, "127.0.0.1", null, "Address the operations HTTP server binds to; the endpoints"
                    + " have no authentication, so the default is loopback (set an internal address to reach them"
                    + " from another host)."),
            new ConfigKey(HTTP_PORT, "8082", null,
                    "Port of the information service (/health, /ready, /metrics, /datasets, /consumers,"
                            + " /supervisor, /events); 0 picks a free port."),
            new ConfigKey(KUDU_EPOCH, "1", null, "First Kudu range (rgid) for new datasets (>= 0); the next opens when one is full."),
            new ConfigKey(SIGNAL_RETRY_INITIAL, "1s", null, "First wait before re-sending a signal the broker refused."),
            new ConfigKey(SIGNAL_RETRY_MAX, "1m", null, "Longest wait between signal send attempts (the wait doubles up to it)."),
            new ConfigKey(SHUTDOWN_GRACE, "30s", null, "How long stopping waits for the message being handled on each queue."),
            new ConfigKey(MESSAGE_MAX_BYTES, "1048576", null,
                    "Largest message body accepted (bytes); a bigger one is quarantined as OVERSIZE."),
            new ConfigKey(SIGNAL_LEASE, "2h", null,
                    "A signal with no consumer report this long after it was sent is sent again (same signalId)."),
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
                    "File holding the Rucio password; if unset, the environment variable is used."),
            new ConfigKey(CATALOGUE_INTERVAL, "5m", null, "How often the catalogue is asked for datasets not yet DONE."),
            new ConfigKey(S3_ENDPOINT, "", null,
                    "S3 endpoint for the cleanup (http://rgw.example:7480); when set, object URLs on another host:port are also"
                            + " rejected (WRONG_ENDPOINT); empty: no object is ever deleted."),
            new ConfigKey(S3_REGION, "us-east-1", null, "S3 signing region."),
            new ConfigKey(S3_ACCESS_KEY, "", ENV_S3_ACCESS_KEY,
                    "S3 access key; if unset, the environment variable is used; if neither, anonymous."),
            new ConfigKey(S3_SECRET_KEY_FILE, "", ENV_S3_SECRET_KEY,
                    "File holding the S3 secret key; if unset, the environment variable is used."),
            new ConfigKey(CLEANUP_RETENTION, "168h", null, "How long a DONE dataset's objects are kept before deletion."),
            new ConfigKey(CLEANUP_ORPHAN_RETENTION, "720h", null,
                    "Age after which an object no message ever named is deleted (at least the retention)."),
            new ConfigKey(CLEANUP_INTERVAL, "1h", null, "How often the cleanup runs."),
            new ConfigKey(EVENTS_QUEUE, "1000", null,
                    "State changes buffered per /events subscriber; a subscriber that falls this far behind is dropped.")),
            Stream.concat(TlsSettings.keys("supervisor.").stream(),
                    StompFrameLimitKeys.keys("supervisor.").stream())).toList();
}
