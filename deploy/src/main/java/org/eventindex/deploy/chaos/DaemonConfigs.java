package org.eventindex.deploy.chaos;

import org.eventindex.consumer.ConsumerConfig;
import org.eventindex.deploy.BrokerLogins;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.supervisor.SupervisorConfig;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The configuration a harness gives its supervisor and consumer processes, from where the services are: the brokers,
 * the S3 server, HDFS and Kudu, and the folder of the role logins' password files. Each harness adds its own keys
 * (the chaos cluster's high availability and retry timings) to these.
 *
 * @param brokers      the {@code brokers} value every daemon takes
 * @param secrets      the folder of the mode-0600 password files ({@link BrokerLogins#writeTo})
 * @param s3Endpoint   the S3 server's URL
 * @param s3AccessKey  the S3 access key
 * @param s3SecretFile the file holding the S3 secret key
 * @param bucket       the bucket
 * @param hdfs         the NameNode's URI
 * @param hdfsRoot     the datasets' root folder in HDFS
 * @param kuduMasters  the Kudu masters' addresses
 * @param tables       the Kudu tables' names and layout
 */
record DaemonConfigs(String brokers, Path secrets, String s3Endpoint, String s3AccessKey, Path s3SecretFile,
                     String bucket, URI hdfs, String hdfsRoot, String kuduMasters, KuduTablesConfig tables) {
    DaemonConfigs {
        Objects.requireNonNull(brokers, "brokers is null");
        Objects.requireNonNull(secrets, "secrets is null");
        Objects.requireNonNull(s3Endpoint, "s3Endpoint is null");
        Objects.requireNonNull(kuduMasters, "kuduMasters is null");
        Objects.requireNonNull(tables, "tables is null");
    }

    /** A supervisor journalling to {@code journal}, its operations server on {@code httpHost:httpPort}. */
    Map<String, String> supervisor(Path journal, String httpHost, int httpPort) {
        Map<String, String> p = new TreeMap<>();
        p.put(SupervisorConfig.BROKERS, brokers);
        p.put(SupervisorConfig.STOMP_USER, BrokerLogins.SUPERVISOR);
        p.put(SupervisorConfig.STOMP_PASSWORD_FILE,
                BrokerLogins.passwordFile(secrets, BrokerLogins.SUPERVISOR).toString());
        p.put(SupervisorConfig.JOURNAL_DIR, journal.toAbsolutePath().toString());
        p.put(SupervisorConfig.S3_BUCKET, bucket);
        p.put(SupervisorConfig.HTTP_HOST, httpHost);
        p.put(SupervisorConfig.HTTP_PORT, Integer.toString(httpPort));
        p.put(SupervisorConfig.SIGNAL_RETRY_INITIAL, "200ms");
        p.put(SupervisorConfig.SIGNAL_RETRY_MAX, "2s");
        p.put(SupervisorConfig.TICK_INTERVAL, "250ms");
        p.put(SupervisorConfig.SHUTDOWN_GRACE, "5s");
        p.put(SupervisorConfig.KUDU_MASTERS, kuduMasters);
        p.put(SupervisorConfig.KUDU_TABLE_PREFIX, tables.prefix());
        p.put(SupervisorConfig.KUDU_BUCKETS, Integer.toString(tables.hashBuckets()));
        p.put(SupervisorConfig.KUDU_REPLICAS, "1");
        return p;
    }

    /** Consumer {@code id} spooling to {@code spool}, its operations server on {@code httpHost:httpPort}. */
    Map<String, String> consumer(String id, Path spool, String httpHost, int httpPort) {
        Map<String, String> p = new TreeMap<>();
        p.put(ConsumerConfig.ID, id);
        p.put(ConsumerConfig.BROKERS, brokers);
        p.put(ConsumerConfig.STOMP_USER, BrokerLogins.CONSUMER);
        p.put(ConsumerConfig.STOMP_PASSWORD_FILE,
                BrokerLogins.passwordFile(secrets, BrokerLogins.CONSUMER).toString());
        p.put(ConsumerConfig.S3_ENDPOINT, s3Endpoint);
        p.put(ConsumerConfig.S3_BUCKET, bucket);
        p.put(ConsumerConfig.S3_ACCESS_KEY, s3AccessKey);
        p.put(ConsumerConfig.S3_SECRET_KEY_FILE, s3SecretFile.toString());
        p.put(ConsumerConfig.HDFS_URI, hdfs.toString());
        p.put(ConsumerConfig.HDFS_ROOT, hdfsRoot);
        p.put(ConsumerConfig.KUDU_MASTERS, kuduMasters);
        p.put(ConsumerConfig.KUDU_TABLE_PREFIX, tables.prefix());
        p.put(ConsumerConfig.KUDU_BUCKETS, Integer.toString(tables.hashBuckets()));
        p.put(ConsumerConfig.KUDU_REPLICAS, "1");
        p.put(ConsumerConfig.FETCH_THREADS, "2");
        p.put(ConsumerConfig.SPOOL_DIR, spool.toAbsolutePath().toString());
        p.put(ConsumerConfig.HTTP_HOST, httpHost);
        p.put(ConsumerConfig.HTTP_PORT, Integer.toString(httpPort));
        return p;
    }
}
