package org.eventindex.preflight;

import org.eventindex.s3.RotatingCredentials;
import org.eventindex.consumer.Consumer;
import org.eventindex.consumer.ConsumerConfig;
import org.eventindex.names.ObjectKey;
import org.eventindex.ops.Preflight;
import org.eventindex.producer.ProducerOptions;
import org.eventindex.producer.UploadPlan;
import org.eventindex.stomp.BrokerRights;
import org.eventindex.stomp.BrokerSet;
import org.eventindex.stomp.StompBroker;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompSettings;
import org.eventindex.supervisor.SupervisorConfig;

import javax.net.ssl.TrustManager;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Each daemon's checks, built from its configuration as the daemon reads it: what it logs in to and what it does
 * there. The cluster checks share one {@link ClusterSession}.
 */
final class DaemonChecks {
    /**
     * The name of the producer's probe key in its folder: not a producer key ({@code ObjectKey.parse} refuses it),
     * and never an object (the upload is aborted).
     */
    private static final String PRODUCER_PROBE = "eventindex-check-";

    private DaemonChecks() {
    }

    /**
     * The consumer: the cluster login; on each broker, subscribe to the signal queue and send to the report and
     * heartbeat queues; read the bucket; the HDFS root; the Kudu tables, read and written.
     */
    static List<Preflight.Check> consumer(ConsumerConfig c, ClusterSession cluster) {
        List<Preflight.Check> out = new ArrayList<>();
        out.add(cluster.login());
        out.addAll(brokers(Consumer.stompSettings(c), ConsumerConfig.BROKERS, ConsumerConfig.STOMP_USER,
                List.of(c.reportQueue(), c.heartbeatQueue()), List.of(c.signalQueue())));
        out.add(new Preflight.Check("s3.read", "S3 bucket " + c.s3Bucket() + " at " + c.s3Endpoint() + " read by "
                + describe(c.s3AccessKey().value()), "check " + ConsumerConfig.S3_ACCESS_KEY + " and "
                + ConsumerConfig.S3_SECRET_KEY_FILE + ", that the bucket exists and that its policy lets this user"
                + " GET objects (docs/security.md)",
                () -> S3BucketCheck.probe(c.s3Endpoint(), "us-east-1", c.s3Bucket(),
                        RotatingCredentials.of(c.s3AccessKey(), c.s3SecretKey()), c.tls().s3TrustManagers(),
                        S3BucketCheck.Access.READ)));
        out.addAll(cluster.hdfs(c.hdfsUri(), c.hdfsRoot(), ConsumerConfig.HDFS_ROOT));
        out.addAll(cluster.kudu(c.kuduMasters(), c.kuduTablePrefix(), true));
        return out;
    }

    /**
     * The supervisor: on each broker, subscribe to the producer, control and heartbeat queues and send to the
     * consumers' and quarantine queues; with the cleanup, delete in the bucket; with managed epochs, the cluster
     * login and the Kudu tables (read); with {@code supervisor.ha.store=zookeeper}, the quorum and the journal's HDFS
     * folder.
     */
    static List<Preflight.Check> supervisor(SupervisorConfig c, ClusterSession cluster,
                                            java.time.Duration timeout) {
        List<Preflight.Check> out = new ArrayList<>();
        boolean zk = c.ha().zooKeeper().isPresent();
        if (c.epochs().managed() || zk || c.epochs().kerberos().kerberos()) {
            out.add(cluster.login());
        }
        out.addAll(brokers(c.stompSettings(), SupervisorConfig.BROKERS, SupervisorConfig.STOMP_USER,
                List.of(c.consumerQueue(), c.quarantineQueue()),
                List.of(c.producerQueue(), c.controlQueue(), c.heartbeatQueue())));
        SupervisorConfig.Cleanup cleanup = c.cleanup();
        if (!cleanup.s3Endpoint().isEmpty()) {
            out.add(new Preflight.Check("s3.delete", "S3 bucket " + c.s3Bucket() + " at " + cleanup.s3Endpoint()
                    + " cleaned by " + describe(cleanup.accessKey().value()), "check " + SupervisorConfig.S3_ACCESS_KEY
                    + " and " + SupervisorConfig.S3_SECRET_KEY_FILE + ", that the bucket exists and that its policy"
                    + " lets this user list the bucket and DELETE objects (docs/security.md)",
                    () -> S3BucketCheck.probe(URI.create(cleanup.s3Endpoint()), cleanup.region(), c.s3Bucket(),
                            RotatingCredentials.of(cleanup.accessKey(), cleanup.secretKey()),
                            c.tls().s3TrustManagers(),
                            S3BucketCheck.Access.DELETE)));
        }
        if (c.epochs().managed()) {
            out.addAll(cluster.kudu(c.epochs().kuduMasters(), c.epochs().tablePrefix(), false));
        }
        c.ha().zooKeeper().ifPresent(store -> {
            out.add(new Preflight.Check("zookeeper", "ZooKeeper " + store.connect() + " znode " + store.root(),
                    "check " + SupervisorConfig.HA_ZOOKEEPER_CONNECT + " and that a quorum of the ensemble runs",
                    () -> ZooKeeperCheck.probe(store.connect(), store.root(), timeout)));
            URI journal = store.journal();
            URI fs = journal.getScheme() == null ? null
                    : URI.create(journal.getScheme() + "://" + journal.getAuthority() + "/");
            out.addAll(cluster.hdfs(fs, journal.getPath(), SupervisorConfig.JOURNAL_HDFS_DIR));
        });
        return out;
    }

    /**
     * The producer, with its options as it parses them: on each broker of {@code --brokers}, send to its queue; in
     * the bucket, write under the key prefix of {@code plan}'s object (a multipart upload created and aborted).
     */
    static List<Preflight.Check> producer(ProducerOptions o, StompSettings stomp, UploadPlan plan,
                                          TrustManager[] s3Trust) {
        List<Preflight.Check> out = new ArrayList<>(brokers(stomp, "--brokers", "--user", List.of(o.queue()),
                List.of()));
        ObjectKey key = plan.key();
        String prefix = key.flavor() + "/" + key.taskNumber() + "/";
        String probe = prefix + PRODUCER_PROBE + UUID.randomUUID();
        out.add(new Preflight.Check("s3.write", "S3 bucket " + o.bucket() + " at " + o.s3Endpoint() + " written under "
                + prefix + " by " + describe(o.accessKey()), "check that --s3-endpoint answers, then --access-key and"
                + " --secret-key-file, that the bucket exists and that its policy lets this user s3:PutObject and"
                + " s3:AbortMultipartUpload under " + key.flavor() + "/ (deploy/s3/bucket-policy.json,"
                + " docs/security.md)",
                () -> S3BucketCheck.probe(o.s3Endpoint(), "us-east-1", o.bucket(),
                        RotatingCredentials.of(o.accessKey(), o.secretKey()),
                        s3Trust, S3BucketCheck.Access.WRITE, probe)));
        return out;
    }

    /**
     * The Kudu side of a command that has options, not a file ({@code lookup serve}, {@code kudu-loader}): the login
     * and the Kudu checks, with a write for the loader.
     */
    static List<Preflight.Check> kuduCommand(ClusterSession cluster, String masters, String prefix, boolean write) {
        List<Preflight.Check> out = new ArrayList<>();
        out.add(cluster.login());
        out.addAll(cluster.kudu(masters, prefix, write));
        return out;
    }

    /**
     * One check per broker the {@code brokers} setting stands for now (every address of the alias, as the daemons
     * subscribe), and one failure per name that does not resolve.
     */
    static List<Preflight.Check> brokers(StompSettings settings, String brokersKey, String userKey,
                                         List<String> sendQueues, List<String> subscribeQueues) {
        // an empty queue setting is a feature turned off (e.g. no quarantine queue): nothing to try there
        List<String> sendTo = sendQueues.stream().filter(q -> !q.isBlank()).toList();
        List<String> subscribeTo = subscribeQueues.stream().filter(q -> !q.isBlank()).toList();
        List<Preflight.Check> out = new ArrayList<>();
        String rights = Stream.of(sendTo.isEmpty() ? "" : "send to " + String.join(", ", sendTo),
                subscribeTo.isEmpty() ? "" : "subscribe to " + String.join(", ", subscribeTo))
                .filter(r -> !r.isEmpty()).collect(Collectors.joining("; "));
        String fix = "check that the broker runs, then " + userKey + " and its password file against the broker's"
                + " users, and that the broker's authorization lets this user " + rights
                + " (broker-host/activemq, docs/security.md)";
        BrokerSet set = settings.resolveBrokers();
        for (Map.Entry<StompEndpoint, String> failed : set.failures().entrySet()) {
            out.add(new Preflight.Check("broker", "broker " + failed.getKey(), "check " + brokersKey
                    + " and the DNS alias", () -> {
                throw new IOException(failed.getKey().host() + ": " + failed.getValue());
            }));
        }
        for (StompBroker b : set.brokers()) {
            out.add(new Preflight.Check("broker", "broker " + b + " as " + describe(settings.login()) + " (" + rights
                    + ")", fix, () -> BrokerRights.probe(settings, b, sendTo, subscribeTo)));
        }
        return out;
    }

    private static String describe(String user) {
        return user == null || user.isEmpty() ? "anonymous" : user;
    }
}
