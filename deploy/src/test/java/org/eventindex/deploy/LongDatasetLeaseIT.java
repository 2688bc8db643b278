package org.eventindex.deploy;

import org.eventindex.consumer.Consumer;
import org.eventindex.consumer.ConsumerConfig;
import org.eventindex.consumer.ConsumerMetrics;
import org.eventindex.gen.DatasetGenerator;
import org.eventindex.gen.GeneratedDataset;
import org.eventindex.gen.GeneratedJob;
import org.eventindex.gen.GeneratorSpec;
import org.eventindex.kudu.KuduTables;
import org.eventindex.kudu.KuduTablesConfig;
import org.eventindex.message.ConsumerReport;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.ops.DaemonMetrics;
import org.eventindex.producer.ProducerCli;
import org.eventindex.producer.RetryPolicy;
import org.eventindex.stomp.StompEndpoint;
import org.eventindex.stomp.StompSender;
import org.eventindex.stomp.StompSettings;
import org.eventindex.supervisor.CollectionState;
import org.eventindex.supervisor.DatasetView;
import org.eventindex.supervisor.Supervisor;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedBroker;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.EmbeddedKudu;
import org.eventindex.testing.EmbeddedS3;
import org.eventindex.testing.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 32 item 6 on real components: a dataset whose work takes several times {@code supervisor.signal.lease} is
 * signalled once and loaded once, because the consumer that holds its signal reports progress in its heartbeats.
 * The broker, S3 server, HDFS and Kudu are the embedded ones; the supervisor, two competing consumers and the
 * producers (the producer's command line, one run per job) run in this JVM. The consumers read S3 through a {@link TcpProxy} that delays every
 * chunk, so reading the dataset takes honestly longer than the lease: no sleep, no clock moved by hand.
 */
final class LongDatasetLeaseIT {
    private static final String BUCKET = "eventindex";
    private static final String ACCESS_KEY = "lease-it";
    private static final String SECRET_KEY = "lease-it-secret";
    private static final String PREFIX = "lease_";
    private static final Duration LEASE = Duration.ofSeconds(5);
    /** Per chunk forwarded, each way: about two chunks an object, so about 0.8 s an object with one fetch thread. */
    private static final Duration S3_LATENCY = Duration.ofMillis(350);
    /** One file per object, one object per job. */
    private static final int OBJECTS = 14;
    private static final String DATASET = "data17_13TeV.00327640.physics_Main.merge.AOD.f838_m1824";

    @TempDir
    Path dir;

    private final List<AutoCloseable> started = new ArrayList<>();

    @AfterEach
    void stop() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                // the next one is closed anyway; a test failure says more than a close failure
            }
        }
    }

    private <T extends AutoCloseable> T track(T c) {
        started.add(c);
        return c;
    }

    @Test
    void aDatasetLongerThanTheLeaseIsSignalledOnceAndLoadedOnce() throws Exception {
        EmbeddedBroker broker = track(EmbeddedBroker.start(dir.resolve("broker")));
        EmbeddedS3 s3 = track(EmbeddedS3.start(dir.resolve("s3"), ACCESS_KEY, SECRET_KEY));
        s3.createBucket(BUCKET);
        URI s3Uri = s3.endpoint();
        TcpProxy slowS3 = track(TcpProxy.start(s3Uri.getHost(), s3Uri.getPort()));
        EmbeddedHdfs hdfs = track(EmbeddedHdfs.start(dir.resolve("hdfs")));
        EmbeddedKudu kudu = track(EmbeddedKudu.start(dir.resolve("kudu"), 1));
        // the tables exist before the signal, as at a site: creating them is no work on the dataset
        new KuduTables(kudu.client(), new KuduTablesConfig(PREFIX, 2, 1)).createOrVerify(KuduTablesConfig.FIRST_EPOCH);

        Supervisor supervisor = track(new Supervisor(SupervisorConfig.fromProperties(supervisorProperties(broker),
                Map.of()), Clock.systemUTC()));
        supervisor.start();
        List<Consumer> consumers = new ArrayList<>();
        for (int i = 1; i <= 2; i++) {
            Consumer c = track(new Consumer(ConsumerConfig.fromProperties(consumerProperties(i, broker, slowS3, hdfs,
                    kudu), Map.of(ConsumerConfig.ENV_S3_SECRET_KEY, SECRET_KEY)), hdfs.conf(), Clock.systemUTC()));
            c.start();
            consumers.add(c);
        }

        GeneratedDataset ds = new DatasetGenerator(new GeneratorSpec(DATASET, OBJECTS, 400, 1, 0, 0, 0, false, 11L))
                .generate(dir.resolve("spb"));
        try (StompSender sender = new StompSender(StompSettings.of(StompEndpoint.parseList(broker.stompEndpoints()),
                null, null))) {
            sender.send(Queues.SUPERVISOR_CONTROL, Json.write(ds.manifestMessage()), Map.of());
        }
        // the producers store through the proxy too (the objects' URLs name the endpoint the consumers read from),
        // before it slows down: the last one's message completes the dataset, so a consumer may read an object or
        // two at full speed before the latency applies (the duration is checked below). They run in this JVM (the
        // producer jar's code, as ProducerMain runs it) to keep the test short.
        ProducerLauncher.ProducerEndpoints endpoints = new ProducerLauncher.ProducerEndpoints(broker.stompEndpoints(),
                null, null, "http://" + slowS3.endpoint(), BUCKET, ACCESS_KEY, SECRET_KEY);
        for (GeneratedJob job : ds.jobs(GeneratedJob.Outcome.REPORTED)) {
            List<String> args = new ArrayList<>(List.of(job.spbFile().toString()));
            Map<String, String> env = new HashMap<>();
            endpoints.applyTo(args, env);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
            assertEquals(0, new ProducerCli(env, print, print, RetryPolicy.DEFAULT, Clock.systemUTC()).run(args),
                    out.toString(StandardCharsets.UTF_8));
        }
        slowS3.latency(S3_LATENCY);

        Await.until("dataset " + DATASET + " DONE or failed", Duration.ofMinutes(2), () -> supervisor.dataset(DATASET)
                .map(v -> v.state() == CollectionState.DONE || v.state() == CollectionState.FAILED_CONSUMER)
                .orElse(false));

        DatasetView view = supervisor.dataset(DATASET).orElseThrow();
        assertEquals(CollectionState.DONE, view.state(), String.valueOf(view.consumer()));
        ConsumerReport done = null;
        int reports = 0;
        for (Consumer c : consumers) {
            for (ConsumerReport r : c.status().snapshot().last()) {
                if (DATASET.equals(r.dataset())) {
                    reports++;
                    done = r;
                }
            }
        }
        assertNotNull(done);
        assertEquals(ConsumerReport.DONE, done.status(), done.reason());
        assertTrue(done.durationMillis() > 2 * LEASE.toMillis(), "the work must outlast the lease for the test to"
                + " mean anything: " + done.durationMillis() + " ms against a lease of " + LEASE);
        assertEquals(1, reports, "one consumer did the dataset, once");
        assertEquals(0, view.automaticResignals(), view.lastResignalReason());
        assertEquals(0, view.resignals());
        assertEquals(ds.expectedUniqueEvents(), done.eventsLoaded());
        List<String> keys = s3.keys(BUCKET);
        assertEquals(OBJECTS, keys.size(), keys.toString());
        for (String key : keys) {
            assertEquals(1, s3.getCount(BUCKET, key), "object " + key + " read once");
        }
        assertEquals(1, counter(supervisor, "signals_sent"));
        assertEquals(0, counter(supervisor, "automatic_resignals"));
        assertTrue(counter(supervisor, "lease_extensions") >= done.durationMillis() / LEASE.toMillis(),
                "the holder's progress extended the lease all along: " + counter(supervisor, "lease_extensions"));
        assertEquals(0, counter(supervisor, "leases_lost_stuck"));
        double work = consumers.stream().mapToDouble(c -> DaemonMetrics.value(c.metrics().registry(),
                ConsumerMetrics.WORK_DONE)).sum();
        // objects read, events written, the file, the tables checked, LOADING, events loaded, analytics, counts
        assertEquals(OBJECTS + ds.expectedEvents() + 1 + 1 + 1 + ds.expectedEvents() + 1 + 1, work,
                "the dataset's work, done once");
    }

    private static double counter(Supervisor supervisor, String name) {
        return DaemonMetrics.value(supervisor.metrics(), "eventindex_supervisor_" + name + "_total");
    }

    private Properties supervisorProperties(EmbeddedBroker broker) {
        Properties p = new Properties();
        p.setProperty(SupervisorConfig.BROKERS, broker.stompEndpoints());
        p.setProperty(SupervisorConfig.JOURNAL_DIR, dir.resolve("journal").toAbsolutePath().toString());
        p.setProperty(SupervisorConfig.S3_BUCKET, BUCKET);
        p.setProperty(SupervisorConfig.HTTP_PORT, "0");
        p.setProperty(SupervisorConfig.SIGNAL_LEASE, LEASE.toMillis() + "ms");
        p.setProperty(SupervisorConfig.TICK_INTERVAL, "100ms");
        return p;
    }

    private Properties consumerProperties(int n, EmbeddedBroker broker, TcpProxy s3, EmbeddedHdfs hdfs,
                                          EmbeddedKudu kudu) {
        Properties p = new Properties();
        p.setProperty(ConsumerConfig.ID, "consumer-" + n);
        p.setProperty(ConsumerConfig.BROKERS, broker.stompEndpoints());
        p.setProperty(ConsumerConfig.S3_ENDPOINT, "http://" + s3.endpoint());
        p.setProperty(ConsumerConfig.S3_BUCKET, BUCKET);
        p.setProperty(ConsumerConfig.S3_ACCESS_KEY, ACCESS_KEY);
        p.setProperty(ConsumerConfig.HDFS_URI, hdfs.uri().toString());
        p.setProperty(ConsumerConfig.HDFS_ROOT, "/eventindex/datasets");
        p.setProperty(ConsumerConfig.KUDU_MASTERS, kudu.masterAddresses());
        p.setProperty(ConsumerConfig.KUDU_TABLE_PREFIX, PREFIX);
        p.setProperty(ConsumerConfig.KUDU_BUCKETS, "2");
        p.setProperty(ConsumerConfig.KUDU_REPLICAS, "1");
        p.setProperty(ConsumerConfig.SPOOL_DIR, dir.resolve("spool-" + n).toString());
        p.setProperty(ConsumerConfig.HTTP_PORT, "0");
        p.setProperty(ConsumerConfig.FETCH_THREADS, "1");
        p.setProperty(ConsumerConfig.HEARTBEAT_INTERVAL, "1s");
        return p;
    }
}
