package org.eventindex.deploy;

import org.eventindex.config.SecretFile;
import org.eventindex.consumer.ConsumerConfig;
import org.eventindex.kudu.DatasetQueries;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.supervisor.Supervisor;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.stomp.StompSettings;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.EmbeddedKudu;
import org.eventindex.testing.EmbeddedS3;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * A complete local deployment on real components: ActiveMQ brokers with STOMP (KahaDB; several independent ones,
 * each with its own store, as behind a site's alias, with {@link Options#withBrokers}), an S3 server (S3Proxy),
 * HDFS (MiniDFSCluster: NameNode + DataNode), Kudu (the real master and tablet server binaries), the supervisor and
 * {@code consumers} consumer daemons. The daemons are configured through the same keys as in production
 * (docs/supervisor.md, docs/consumer.md). {@link #close()} stops everything in reverse order.
 */
public final class EmbeddedStack implements AutoCloseable {
    /** Credentials of the embedded S3 server; local-only, for the demo and tests. */
    public static final String S3_ACCESS_KEY = "eventindex-local";
    public static final String S3_SECRET_KEY = "eventindex-local-secret";

    private final Options options;
    private final List<AutoCloseable> started = new ArrayList<>();
    private final List<EmbeddedBroker> brokers = new ArrayList<>();
    private final BrokerLogins logins = BrokerLogins.random();
    private EmbeddedS3 s3;
    private EmbeddedHdfs hdfs;
    private EmbeddedKudu kudu;
    private Supervisor supervisor;
    private final List<org.eventindex.consumer.Consumer> consumers = new ArrayList<>();
    private KuduTablesConfig tablesConfig;

    /**
     * @param workDir      every component's data lives below it
     * @param consumers    number of competing consumer daemons
     * @param bucket       the object store bucket
     * @param tablePrefix  Kudu table name prefix
     * @param hashBuckets  EVENTS hash buckets on eventnumber (the seed uses 64)
     * @param epoch        the Kudu range new datasets go to
     * @param brokers      independent brokers (each with its own store); every daemon reads all of them
     */
    public record Options(Path workDir, int consumers, String bucket, String tablePrefix, int hashBuckets, int epoch,
                          int brokers, Path brokerLoginConfig) {
        public Options {
            Objects.requireNonNull(workDir, "workDir is null");
            Objects.requireNonNull(bucket, "bucket is null");
            Objects.requireNonNull(tablePrefix, "tablePrefix is null");
            if (consumers < 1) {
                throw new IllegalArgumentException("at least one consumer is needed: " + consumers);
            }
            if (brokers < 1) {
                throw new IllegalArgumentException("at least one broker is needed: " + brokers);
            }
        }

        /** One broker. */
        public Options(Path workDir, int consumers, String bucket, String tablePrefix, int hashBuckets, int epoch) {
            this(workDir, consumers, bucket, tablePrefix, hashBuckets, epoch, 1, null);
        }

        /** The same options with {@code n} independent brokers. */
        public Options withBrokers(int n) {
            return new Options(workDir, consumers, bucket, tablePrefix, hashBuckets, epoch, n, brokerLoginConfig);
        }

        /**
         * The same options with brokers whose logins are the shipped template's: the JAAS entry of
         * {@code loginConfig} ({@code broker-host/activemq/login.config}) over password files that each broker reads
         * again when they change ({@link #brokerLoginDir}), as at a site; null: the logins held in memory.
         */
        public Options withBrokerLoginConfig(Path loginConfig) {
            return new Options(workDir, consumers, bucket, tablePrefix, hashBuckets, epoch, brokers, loginConfig);
        }

        public static Options defaults(Path workDir) {
            return new Options(workDir, 1, "eventindex", "", KuduTablesConfig.DEFAULT_HASH_BUCKETS, 1);
        }
    }

    private EmbeddedStack(Options options) {
        this.options = options;
    }

    /** Starts every component, reporting each step to {@code progress}; on failure stops what was started. */
    public static EmbeddedStack start(Options options, Consumer<String> progress) throws IOException {
        return start(options, progress, Daemons.ALL);
    }

    /**
     * Starts the services only (broker, S3 server, HDFS, Kudu) and writes the secrets: no Kudu tables, no supervisor,
     * no consumer. For daemons run as processes of another installation (the distribution's test).
     */
    public static EmbeddedStack startServices(Options options, Consumer<String> progress) throws IOException {
        return start(options, progress, Daemons.NONE);
    }

    /**
     * Everything but the consumers: the services, the Kudu tables and the supervisor. The consumers run as processes
     * with {@link #consumerProcessConfig}'s configuration ({@code bin/bench-seed}); {@link #consumers()} is empty and
     * {@code options.consumers()} unused.
     */
    public static EmbeddedStack startWithoutConsumers(Options options, Consumer<String> progress) throws IOException {
        return start(options, progress, Daemons.SUPERVISOR);
    }

    /** Which daemons run in this JVM beside the services. */
    private enum Daemons { NONE, SUPERVISOR, ALL }

    private static EmbeddedStack start(Options options, Consumer<String> progress, Daemons daemons)
            throws IOException {
        EmbeddedStack stack = new EmbeddedStack(options);
        try {
            stack.startAll(progress, daemons);
            return stack;
        } catch (IOException | RuntimeException e) {
            stack.close();
            throw e;
        }
    }

    private void startAll(Consumer<String> progress, Daemons daemons) throws IOException {
        Path work = options.workDir();
        Files.createDirectories(work);
        writeSecrets();
        for (int i = 0; i < options.brokers(); i++) {
            progress.accept("starting ActiveMQ broker" + (options.brokers() == 1 ? "" : " " + (i + 1) + " of "
                    + options.brokers() + ", independent,") + " (STOMP, KahaDB, one login per role, per-queue access"
                    + " rules)");
            Path dir = work.resolve(i == 0 ? "broker" : "broker-" + (i + 1));
            brokers.add(track(options.brokerLoginConfig() == null ? EmbeddedBroker.startSecured(dir, logins.security())
                    : EmbeddedBroker.startWithLoginFiles(dir, logins.security(), options.brokerLoginConfig(),
                    brokerLoginDir(i), null)));
        }
        progress.accept("starting S3 server");
        s3 = track(EmbeddedS3.start(work.resolve("s3"), S3_ACCESS_KEY, S3_SECRET_KEY));
        s3.createBucket(options.bucket());
        progress.accept("starting HDFS (NameNode + DataNode)");
        hdfs = track(EmbeddedHdfs.start(work.resolve("hdfs")));
        progress.accept("starting Kudu (master + tablet server binaries)");
        kudu = track(EmbeddedKudu.start(work.resolve("kudu"), 1));
        tablesConfig = new KuduTablesConfig(options.tablePrefix(), options.hashBuckets(), 1);
        if (daemons == Daemons.NONE) {
            return;
        }
        progress.accept("creating Kudu tables (" + options.hashBuckets() + " hash buckets, epoch " + options.epoch() + ")");
        new KuduTables(kudu.client(), tablesConfig).createOrVerify(options.epoch());

        progress.accept("starting supervisor");
        startSupervisor(Map.of(), Clock.systemUTC());
        for (int i = 0; daemons == Daemons.ALL && i < options.consumers(); i++) {
            progress.accept("starting consumer " + (i + 1));
            org.eventindex.consumer.Consumer c = track(new org.eventindex.consumer.Consumer(
                    ConsumerConfig.fromProperties(consumerProperties(i), Map.of()), hdfs.conf(), Clock.systemUTC()));
            c.start();
            consumers.add(c);
        }
    }

    /**
     * Stops the supervisor: its journal folder ({@link #supervisorJournalDir()}) is then free to be copied, replaced
     * or worked on by {@code supervisor rebuild-state}.
     */
    public void stopSupervisor() {
        if (supervisor != null) {
            supervisor.close();
            started.remove(supervisor);
            supervisor = null;
        }
    }

    /**
     * Starts a supervisor on the stack's journal folder, with the stack's configuration and the {@code extra} keys,
     * on {@code clock}; the one running is stopped first.
     */
    public Supervisor startSupervisor(Map<String, String> extra, Clock clock) throws IOException {
        stopSupervisor();
        supervisor = track(new Supervisor(SupervisorConfig.fromProperties(supervisorProperties(extra), Map.of()),
                clock));
        supervisor.start();
        return supervisor;
    }

    /** The supervisor's journal folder. */
    public Path supervisorJournalDir() {
        return options.workDir().toAbsolutePath().resolve("supervisor");
    }

    /**
     * The supervisor's configuration with the {@code extra} keys, and the cleanup's S3 endpoint and keys (the S3
     * server's), as a site's {@code supervisor.properties} would hold them: for commands that read it
     * ({@code supervisor rebuild-state --config}).
     */
    public Properties supervisorSiteProperties(Map<String, String> extra) {
        Map<String, String> all = new TreeMap<>(extra);
        all.putIfAbsent(SupervisorConfig.S3_ENDPOINT, s3.endpoint().toString());
        all.putIfAbsent(SupervisorConfig.S3_ACCESS_KEY, S3_ACCESS_KEY);
        all.putIfAbsent(SupervisorConfig.S3_SECRET_KEY_FILE, s3SecretKeyFile().toString());
        return supervisorProperties(all);
    }

    private Properties supervisorProperties(Map<String, String> extra) {
        Properties p = new Properties();
        p.setProperty(SupervisorConfig.BROKERS, brokerEndpoints());
        p.setProperty(SupervisorConfig.STOMP_USER, BrokerLogins.SUPERVISOR);
        p.setProperty(SupervisorConfig.STOMP_PASSWORD_FILE,
                BrokerLogins.passwordFile(secretsDir(), BrokerLogins.SUPERVISOR).toString());
        p.setProperty(SupervisorConfig.JOURNAL_DIR, supervisorJournalDir().toString());
        p.setProperty(SupervisorConfig.S3_BUCKET, options.bucket());
        p.setProperty(SupervisorConfig.HTTP_HOST, "127.0.0.1");
        p.setProperty(SupervisorConfig.HTTP_PORT, "0");
        p.setProperty(SupervisorConfig.KUDU_EPOCH, Integer.toString(options.epoch()));
        // as at a site: the supervisor adds each new epoch's ranges, and its /ready checks the masters
        p.setProperty(SupervisorConfig.KUDU_MASTERS, kudu.masterAddresses());
        p.setProperty(SupervisorConfig.KUDU_TABLE_PREFIX, options.tablePrefix());
        p.setProperty(SupervisorConfig.KUDU_BUCKETS, Integer.toString(options.hashBuckets()));
        p.setProperty(SupervisorConfig.KUDU_REPLICAS, "1");
        extra.forEach(p::setProperty);
        return p;
    }

    private Properties consumerProperties(int index) {
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.ID, "consumer-" + (index + 1));
        p.setProperty(ConsumerConfig.BROKERS, brokerEndpoints());
        p.setProperty(ConsumerConfig.STOMP_USER, BrokerLogins.CONSUMER);
        p.setProperty(ConsumerConfig.STOMP_PASSWORD_FILE,
                BrokerLogins.passwordFile(secretsDir(), BrokerLogins.CONSUMER).toString());
        p.setProperty(ConsumerConfig.S3_ENDPOINT, s3.endpoint().toString());
        p.setProperty(ConsumerConfig.S3_BUCKET, options.bucket());
        p.setProperty(ConsumerConfig.S3_ACCESS_KEY_FILE, s3AccessKeyFile().toString());
        p.setProperty(ConsumerConfig.HDFS_URI, hdfs.uri().toString());
        p.setProperty(ConsumerConfig.HDFS_ROOT, hdfsRoot());
        p.setProperty(ConsumerConfig.KUDU_MASTERS, kudu.masterAddresses());
        p.setProperty(ConsumerConfig.KUDU_TABLE_PREFIX, options.tablePrefix());
        p.setProperty(ConsumerConfig.KUDU_BUCKETS, Integer.toString(options.hashBuckets()));
        p.setProperty(ConsumerConfig.KUDU_REPLICAS, "1");
        p.setProperty(ConsumerConfig.SPOOL_DIR,
                options.workDir().toAbsolutePath().resolve("spool-" + (index + 1)).toString());
        p.setProperty(ConsumerConfig.HTTP_PORT, "0");
        p.setProperty(ConsumerConfig.S3_SECRET_KEY_FILE, s3SecretKeyFile().toString());
        return p;
    }

    /**
     * The configuration of consumer {@code index} (from 0) run as a process ({@code ConsumerMain run --config FILE},
     * e.g. written by {@link DaemonProcesses#writeConfig}): the keys of this stack's own consumers, with the broker
     * password and the S3 secret key as files of {@link #secretsDir()} and the operations HTTP server on
     * {@code httpPort} of 127.0.0.1.
     */
    public Map<String, String> consumerProcessConfig(int index, int httpPort) {
        Map<String, String> config = new TreeMap<>();
        consumerProperties(index).forEach((k, v) -> config.put((String) k, (String) v));
        config.put(ConsumerConfig.HTTP_HOST, "127.0.0.1");
        config.put(ConsumerConfig.HTTP_PORT, Integer.toString(httpPort));
        return config;
    }

    /**
     * Every secret of the stack, one mode-0600 file each in a folder only its owner can enter: the broker logins
     * ({@link BrokerLogins#writeTo}) and the S3 secret key. The consumers read the S3 key from there, and programs
     * outside this JVM (producers, operator commands) use the same files with their {@code --password-file} and
     * {@code --secret-key-file} options.
     */
    private void writeSecrets() throws IOException {
        Path dir = secretsDir();
        if (Files.getFileStore(dir.getParent()).supportsFileAttributeView(PosixFileAttributeView.class)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        } else {
            Files.createDirectories(dir);
        }
        logins.writeTo(dir);
        SecretFile.write(s3SecretKeyFile(), S3_SECRET_KEY);
        SecretFile.write(s3AccessKeyFile(), S3_ACCESS_KEY);
    }

    /** The folder (mode 0700) of the stack's secret files. */
    public Path secretsDir() {
        return options.workDir().toAbsolutePath().resolve("secrets");
    }

    /** The S3 secret key's file (mode 0600), as {@code --secret-key-file} and {@code *.s3.secret.key.file} take it. */
    public Path s3SecretKeyFile() {
        return secretsDir().resolve("s3-secret-key");
    }

    /** The S3 access key's file (mode 0600), as {@code *.s3.access.key.file} takes it. */
    public Path s3AccessKeyFile() {
        return secretsDir().resolve("s3-access-key");
    }

    /**
     * The folder of broker {@code index}'s (from 0) password files ({@code users.properties},
     * {@code users-next.properties}, {@code groups.properties}) when the stack runs
     * {@link Options#withBrokerLoginConfig the template's logins}.
     */
    public Path brokerLoginDir(int index) {
        return options.workDir().toAbsolutePath().resolve("broker-logins-" + (index + 1));
    }

    private <T extends AutoCloseable> T track(T component) {
        started.add(component);
        return component;
    }

    /** The HDFS directory under which container directories are created. */
    public String hdfsRoot() {
        return "/eventindex/datasets";
    }

    /** What a producer needs: brokers (all of them), S3 endpoint, bucket and keys. */
    public ProducerLauncher.ProducerEndpoints producerEndpoints() {
        return producerEndpoints(brokerEndpoints());
    }

    /** What a producer that sends only through {@code through} needs. */
    public ProducerLauncher.ProducerEndpoints producerEndpoints(EmbeddedBroker through) {
        return producerEndpoints(through.stompEndpoints());
    }

    private ProducerLauncher.ProducerEndpoints producerEndpoints(String brokerList) {
        return new ProducerLauncher.ProducerEndpoints(brokerList, BrokerLogins.PRODUCER,
                logins.password(BrokerLogins.PRODUCER), s3.endpoint().toString(), options.bucket(), S3_ACCESS_KEY,
                S3_SECRET_KEY);
    }

    /** The stack's broker logins (producer, supervisor, consumer, operator, admin). */
    public BrokerLogins brokerLogins() {
        return logins;
    }

    /** STOMP settings of the operator login: what register-manifest and resignal use. */
    public StompSettings operatorStomp() {
        return logins.settings(brokerEndpoints(), BrokerLogins.OPERATOR);
    }

    /** The first broker (the only one unless {@link Options#withBrokers}). */
    public EmbeddedBroker broker() {
        return brokers.get(0);
    }

    /** Every broker, independent of each other. */
    public List<EmbeddedBroker> brokers() {
        return List.copyOf(brokers);
    }

    /** {@code H:P[,H:P...]} of every broker, as the daemons' {@code brokers} keys take it. */
    public String brokerEndpoints() {
        return brokers.stream().map(EmbeddedBroker::stompEndpoints).collect(java.util.stream.Collectors.joining(","));
    }

    public EmbeddedS3 s3() {
        return s3;
    }

    public EmbeddedHdfs hdfs() {
        return hdfs;
    }

    /** The Kudu cluster itself (to stop and start its masters in a test). */
    public EmbeddedKudu kudu() {
        return kudu;
    }

    /** The Kudu master address(es), as {@code --masters}/{@code --kudu-master} take them. */
    public String kuduMasters() {
        return kudu.masterAddresses();
    }

    public KuduTablesConfig tablesConfig() {
        return tablesConfig;
    }

    public DatasetQueries kuduQueries() {
        return new DatasetQueries(kudu.client(), tablesConfig);
    }

    public Supervisor supervisor() {
        return supervisor;
    }

    public List<org.eventindex.consumer.Consumer> consumers() {
        return List.copyOf(consumers);
    }

    public Options options() {
        return options;
    }

    /** Idempotent: stops the daemons first, then the services, each failure logged and the rest still stopped. */
    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                System.err.println("[stack] stopping " + started.get(i).getClass().getSimpleName() + " failed: " + e);
            }
        }
        started.clear();
    }
}
