package org.eventindex.deploy.chaos;

import org.apache.kudu.ColumnSchema;
import org.apache.kudu.Schema;
import org.apache.kudu.Type;
import org.apache.kudu.client.KuduClient;
import org.apache.kudu.client.KuduPredicate;
import org.apache.kudu.client.KuduScanner;
import org.apache.kudu.client.KuduSession;
import org.apache.kudu.client.KuduTable;
import org.apache.kudu.client.Operation;
import org.apache.kudu.client.OperationResponse;
import org.apache.kudu.client.PartialRow;
import org.apache.kudu.client.RowResult;
import org.apache.kudu.client.RowResultIterator;
import org.eventindex.deploy.BrokerLogins;
import org.eventindex.kudu.DatasetQueries;
import org.eventindex.kudu.DatasetsRow;
import org.eventindex.kudu.KuduSchemas;
import org.eventindex.message.Queues;
import org.eventindex.names.DatasetName;
import org.eventindex.testing.BrokerAccess;
import org.eventindex.stomp.StompConnection;
import org.eventindex.stomp.StompException;
import org.eventindex.stomp.StompSettings;
import org.eventindex.testing.EmbeddedCeph;
import org.eventindex.testing.Prerequisites;
import org.eventindex.testing.hosts.HostNetwork;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The chaos suite's scenarios, run by {@link ChaosIT} in a driver JVM on the cluster's control host
 * ({@link ChaosScenariosMain}; system properties {@value #NETWORK} and {@value #WORK}): one system of separate
 * processes, each role on its own host (independent brokers with watchdogs, Ceph RGW, HDFS NameNode + DataNode, Kudu
 * master + tablet server, two supervisors (active and standby), two consumers, the producers), shared by a fixed set
 * of scenarios, one per fault kind, each a round of the harness with a fixed seed: a new dataset flows through
 * producer processes while the fault is injected and lifted; then the round is drained and checked (nothing lost,
 * nothing twice, one HDFS file, no temp file, every message accounted for, no daemon dead). The last tests show that
 * the checker fails when the data is wrong.
 */
// One cluster for all tests (starting it takes minutes), so they share its state on purpose and run in this order:
// each round adds datasets that everyDatasetStillIntactAtTheEnd checks again after all faults, and the last test
// damages the data on purpose (to show the checker catches it) before repairing it, so it runs after every check.
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
final class ChaosScenarios {
    /** The system property naming the host network ({@link HostNetwork#describe()}) the scenarios run on. */
    static final String NETWORK = "ei.chaos.network";
    /** The system property naming the folder of the cluster's files. */
    static final String WORK = "ei.chaos.work";
    private static final Logger LOG = LoggerFactory.getLogger(ChaosScenarios.class);
    private static final long SEED = 20261122L;

    private ChaosCluster cluster;
    private ChaosRunner runner;
    private int round;

    @BeforeAll
    void startCluster() throws Exception {
        EmbeddedCeph.requireInstalled();
        HostNetwork net = HostNetwork.attach(System.getProperty(NETWORK));
        cluster = ChaosCluster.start(Path.of(System.getProperty(WORK)), net, "chaosit_", LOG::info);
        runner = new ChaosRunner(cluster, Path.of(System.getProperty("ei.producer.jar")), SEED, LOG::info);
    }

    @AfterAll
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private void scenario(Fault fault) throws Exception {
        // without root (tmpfs mounts) a developer's run skips these scenarios with the reason; under CI (.ci/run runs
        // as root) they fail instead of skipping
        if (fault.needsDisk()) {
            Prerequisites.require(cluster.diskFaultsUnavailable() == null, fault + " needs tmpfs mounts (root): "
                    + cluster.diskFaultsUnavailable());
        }
        ChaosRunner.RoundReport report = runner.round(++round, List.of(fault), 1);
        assertEquals(1, report.faults().size(), fault + " was not injected: " + report.skipped());
        if (fault.needsDisk()) {
            assertTrue(!report.faults().get(0).detail().contains("did not bite"), "a full disk must make a consumer"
                    + " fail a dataset before it is freed: " + report.faults());
        }
        assertClean(report);
    }

    /** The round's check: no violation, nothing lost, nothing twice, every expected event found. */
    private static void assertClean(ChaosRunner.RoundReport report) {
        CheckResult check = report.check();
        assertEquals(List.of(), check.violations(), "after " + report.faults());
        assertEquals(0, check.lost());
        assertEquals(0, check.extra());
        assertTrue(check.expectedEvents() > 0 && check.eventsFound() == check.expectedEvents(),
                "events found " + check.eventsFound() + " of " + check.expectedEvents());
    }

    /** The chaos broker is secured like production: no anonymous login, and each role only on its queues. */
    @Test @Order(0)
    void brokerRefusesAnonymousLoginsAndProducersOnTheConsumerQueue() throws Exception {
        StompSettings producer = cluster.brokerSettings(BrokerLogins.PRODUCER);
        StompException anonymous = assertThrows(StompException.class, () -> StompConnection.connect(
                StompSettings.of(producer.endpoints(), null, null)).close(), "an anonymous login was accepted");
        assertFalse(anonymous.getMessage().isBlank());
        assertThrows(StompException.class, () -> StompConnection.connect(StompSettings.of(producer.endpoints(),
                BrokerLogins.PRODUCER, "not-the-password")).close(), "a wrong password was accepted");
        try (StompConnection c = StompConnection.connect(producer)) {
            StompException refused = assertThrows(StompException.class, () -> c.send(Queues.CONSUMER,
                    "{}".getBytes(StandardCharsets.UTF_8), Map.of()), "the producer login sent to the consumer queue");
            assertTrue(refused.getMessage().contains(BrokerAccess.queue(Queues.CONSUMER)), refused.getMessage());
        }
    }

    @Test @Order(1)
    void noFault() throws Exception {
        ChaosRunner.RoundReport report = runner.round(++round, List.of(), 2);
        assertEquals(List.of(), report.check().violations());
        assertEquals(report.check().expectedEvents(), report.check().eventsFound());
    }

    @Test @Order(2)
    void supervisorKilled() throws Exception {
        scenario(Fault.KILL_SUPERVISOR);
    }

    @Test @Order(3)
    void consumerKilledWithDatasetInFlight() throws Exception {
        scenario(Fault.KILL_CONSUMER);
    }

    /** kill -9 every broker of the alias at once: each comes back on its own KahaDB; nothing lost, nothing twice. */
    @Test @Order(4)
    void everyBrokerKilled() throws Exception {
        scenario(Fault.KILL_ALL_BROKERS);
    }

    /**
     * kill -9 one broker as it sends a receipt (it holds a message its sender sends again through the other): the
     * flow carries on through the other; restarted, it delivers what it stored, counted once with the copy (the
     * checker finds every acknowledged message recorded, nothing twice) once the daemons subscribed on it again.
     */
    @Test @Order(4)
    void oneBrokerKilled() throws Exception {
        scenario(Fault.KILL_BROKER);
        assertBrokerBack(Fault.KILL_BROKER);
    }

    /** SIGSTOP one broker: its watchdog kills it (it listened without answering), and it comes back as above. */
    @Test @Order(4)
    void oneBrokerPaused() throws Exception {
        scenario(Fault.PAUSE_BROKER);
        assertBrokerBack(Fault.PAUSE_BROKER);
    }

    private void assertBrokerBack(Fault fault) {
        List<BrokerOutage> all = runner.brokerOutages();
        BrokerOutage last = all.get(all.size() - 1);
        assertEquals(fault, last.fault());
        assertEquals(fault == Fault.PAUSE_BROKER, last.killedAfter() != null, last.toString());
        assertEquals(fault == Fault.KILL_BROKER, last.atReceipt(), "a kill strikes at a receipt: " + last);
        assertTrue(last.listening().compareTo(last.resubscribed()) <= 0, last.toString());
        assertTrue(cluster.brokers().brokers().stream().allMatch(ChildProcess::isAlive), "every broker runs again");
    }

    @Test @Order(5)
    void kuduTabletServerKilled() throws Exception {
        scenario(Fault.KILL_TABLET_SERVER);
    }

    @Test @Order(6)
    void dataNodeKilled() throws Exception {
        scenario(Fault.KILL_DATANODE);
    }

    @Test @Order(7)
    void supervisorAndConsumerPaused() throws Exception {
        scenario(Fault.PAUSE_SUPERVISOR);
        scenario(Fault.PAUSE_CONSUMER);
    }

    @Test @Order(8)
    void brokerConnectionsResetAndSlow() throws Exception {
        scenario(Fault.BROKER_RESETS);
        scenario(Fault.BROKER_LATENCY);
    }

    @Test @Order(9)
    void s3ConnectionsResetAndSlow() throws Exception {
        scenario(Fault.S3_RESETS);
        scenario(Fault.S3_LATENCY);
    }

    @Test @Order(10)
    void consumerSpoolDiskFull() throws Exception {
        scenario(Fault.SPOOL_DISK_FULL);
    }

    @Test @Order(11)
    void dataNodeDiskFull() throws Exception {
        scenario(Fault.DATANODE_DISK_FULL);
    }

    /** The standby takes over from a killed active; the killed one comes back as the standby. */
    @Test @Order(12)
    void activeSupervisorKilled() throws Exception {
        scenario(Fault.KILL_ACTIVE_SUPERVISOR);
    }

    /** A paused active is fenced out by the takeover: woken, it exits having journalled nothing (else it fails). */
    @Test @Order(13)
    void activeSupervisorPausedPastItsLease() throws Exception {
        scenario(Fault.PAUSE_ACTIVE_SUPERVISOR);
    }

    /**
     * The active supervisor isolated from every host, then, once the standby took over and the isolation is healed, a
     * ZooKeeper minority (the leader) isolated: the standby takes over with the next token; healed, the old one exits
     * fenced out without ever answering active, its journal generation on HDFS unchanged (else the injector fails the
     * round), and the consumers reached by the new active hold its token; the leader's isolation costs no takeover (the
     * active suspends at most, decision 0048), never leaves two supervisors active, and the server rejoins the quorum.
     */
    @Test @Order(14)
    void activeSupervisorIsolatedThenZooKeeperLeaderIsolated() throws Exception {
        runner.zooKeeperTarget(FaultInjector.ZooKeeperTarget.LEADER);
        List<FaultInjector.Injected> done = partitions(List.of(Fault.SUPERVISOR_ISOLATED, Fault.ZK_MINORITY), 1);
        String isolated = done.get(0).detail();
        assertTrue(isolated.contains("takeover by") && isolated.contains("exited fenced out, never active")
                && isolated.contains("unchanged at"), isolated);
        long newToken = Long.parseLong(isolated.replaceAll(".*; token [0-9]+ -> ([0-9]+);.*", "$1"));
        // the dataset was signalled by the new active: a consumer got its token and holds it (lower ones refused)
        assertTrue(consumerTokens().stream().anyMatch(t -> t >= newToken), "a consumer holds token " + newToken
                + " or above: " + consumerTokens());
        // The leader's isolation: the followers drop their clients until they elected another leader; when that
        // outlasts two thirds of the session the active suspends (journals, acknowledges, signals nothing) and resumes
        // with the same session and token once its client reconnects (decision 0048): no takeover, never two active,
        // nothing lost (the round's checker).
        String minority = done.get(1).detail();
        assertTrue(minority.contains("two active in 0 of") && minority.matches(".*back as (leader|follower).*"),
                minority);
        assertTrue(done.get(1).target().contains("the leader"), done.get(1).target());
        assertTrue(minority.contains("no takeover"), minority);
    }

    private List<Long> consumerTokens() {
        return cluster.consumers().stream().map(c -> cluster.get(c, "/metrics").filter(r -> r.statusCode() == 200)
                .map(r -> (long) org.eventindex.testing.MetricsText.value(r.body(),
                        org.eventindex.consumer.ConsumerMetrics.SUPERVISOR_TOKEN, "")).orElse(-1L)).toList();
    }

    /**
     * A producer cut from every broker after its upload (its S3 response held at its proxy until the cut is in place),
     * then the active supervisor cut from every broker (not from its lease and journal, the shared directory): both
     * heal and recover, nothing lost, nothing twice.
     */
    @Test @Order(15)
    void producerAndSupervisorCutFromTheBrokers() throws Exception {
        List<FaultInjector.Injected> done = partitions(List.of(Fault.PRODUCER_CUT_FROM_BROKERS,
                Fault.SUPERVISOR_CUT_FROM_BROKERS), 1);
        assertTrue(done.get(0).detail().contains("cut after an upload"), done.toString());
    }

    /** One broker isolated while it holds producer messages that nobody could read: read after the heal, counted once. */
    @Test @Order(16)
    void brokerIsolatedHoldingProducerMessages() throws Exception {
        List<FaultInjector.Injected> done = partitions(List.of(Fault.BROKER_ISOLATED), 2);
        assertTrue(done.get(0).detail().matches(".*[1-9][0-9]* producer message\\(s\\) held.*"), done.toString());
    }

    /** The consumers cut from HDFS; one takes the dataset while cut and finishes it, once, after the heal. */
    @Test @Order(17)
    void consumerCutFromHdfs() throws Exception {
        List<FaultInjector.Injected> done = partitions(List.of(Fault.CONSUMER_CUT_FROM_HDFS), 1);
        assertTrue(done.get(0).detail().contains("a dataset in flight"), done.toString());
    }

    /** The consumers cut from Kudu; one takes the dataset while cut and finishes it, once, after the heal. */
    @Test @Order(18)
    void consumerCutFromKudu() throws Exception {
        List<FaultInjector.Injected> done = partitions(List.of(Fault.CONSUMER_CUT_FROM_KUDU), 1);
        assertTrue(done.get(0).detail().contains("a dataset in flight"), done.toString());
    }

    /** A round with {@code faults} (partitions, in order): each healed and recovered, the round's check clean. */
    private List<FaultInjector.Injected> partitions(List<Fault> faults, int datasets) throws Exception {
        ChaosRunner.RoundReport report = runner.round(++round, faults, datasets);
        assertEquals(faults, report.faults().stream().map(FaultInjector.Injected::fault).toList(), report.skipped()
                .toString());
        for (FaultInjector.Injected i : report.faults()) {
            assertTrue(i.detail().contains("recovered") && !i.detail().contains("NOT recovered"), i.toString());
        }
        List<FaultInjector.PartitionHeal> heals = runner.heals();
        List<FaultInjector.PartitionHeal> these = heals.subList(heals.size() - faults.size(), heals.size());
        assertEquals(faults, these.stream().map(FaultInjector.PartitionHeal::fault).toList());
        assertTrue(these.stream().allMatch(h -> h.recovered() != null), these.toString());
        assertTrue(cluster.network().partitions().isEmpty(), "healed: " + cluster.network().partitions());
        assertClean(report);
        return report.faults();
    }

    /**
     * A producer cut from S3 with the second part of a multipart upload in flight (held at the S3 proxy until the cut
     * is in place), then the active supervisor cut from ZooKeeper and HDFS but not from the brokers: the producer
     * finishes or retries its job, counted once; the cut supervisor suspends, then fences itself out, the standby takes
     * over, never two active.
     */
    @Test @Order(19)
    void producerCutFromS3MidMultipartThenSupervisorCutFromItsStore() throws Exception {
        List<FaultInjector.Injected> done = partitions(List.of(Fault.PRODUCER_CUT_FROM_S3_MID_MULTIPART,
                Fault.SUPERVISOR_CUT_FROM_STORE), 1);
        assertTrue(done.get(0).detail().contains("second part of a multipart upload in flight"), done.toString());
        List<ProducerFleet.Job> jobs = runner.jobs();
        ProducerFleet.Job big = jobs.get(jobs.size() - 1);
        assertTrue(big.succeeded(), "the multipart job was acknowledged: " + big);
        String cut = done.get(1).detail();
        assertTrue(cut.contains("stopped acting") && cut.contains("two active in 0 of")
                && cut.contains("takeover by"), cut);
    }

    /** Every dataset of every scenario is still intact at the end (later faults did not damage earlier work). */
    @Test @Order(20)
    void everyDatasetStillIntactAtTheEnd() throws Exception {
        CheckResult all = runner.finalCheck();
        assertEquals(List.of(), all.violations());
        assertTrue(all.datasets() >= 2, "datasets checked: " + all.datasets());
    }

    /** The checker can fail: each deliberately injected fault in the data is reported, exactly, then repaired. */
    @Test @Order(21)
    void checkerReportsInjectedDoubleInsertLostEventForeignRowAndTempFile() throws Exception {
        ExpectedEvents ds = runner.datasets().stream().filter(e -> e.dataset().startsWith("data")).findFirst()
                .orElseThrow();
        List<ProducerFleet.Job> jobs = runner.jobs();
        ChaosChecker checker = runner.checker();
        assertEquals(List.of(), checker.check(List.of(ds), jobs).violations(), "clean before the injections");

        KuduClient kudu = cluster.kudu().client();
        DatasetsRow rec = new DatasetQueries(kudu, cluster.tables()).dataset(ds.dataset()).orElseThrow();
        KuduTable events = kudu.openTable(cluster.tables().eventsTable());
        KuduTable dups = kudu.openTable(cluster.tables().duplicatedEventsTable());
        RowResult row = firstRow(kudu, events, rec);

        // A double insert: the same event loaded a second time lands in DUPLICATEDEVENTS.
        PartialRow twice = copy(row, dups);
        apply(kudu, dups.newInsert(), twice);
        CheckResult r = checker.check(List.of(ds), jobs);
        assertEquals(List.of(Violation.Kind.DUPLICATES_MISMATCH), r.kinds(), r.violations().toString());
        apply(kudu, dups.newDelete(), key(twice, dups));

        // A dropped event.
        PartialRow original = copy(row, events);
        apply(kudu, events.newDelete(), key(original, events));
        r = checker.check(List.of(ds), jobs);
        assertEquals(List.of(Violation.Kind.LOST), r.kinds(), r.violations().toString());
        assertEquals(1, r.lost());
        apply(kudu, events.newInsert(), original);

        // A row that is no event of the dataset.
        PartialRow foreign = copy(row, events);
        foreign.addLong(KuduSchemas.EVENTNUMBER, row.getLong(KuduSchemas.EVENTNUMBER) + 7_000_000_000L);
        apply(kudu, events.newInsert(), foreign);
        r = checker.check(List.of(ds), jobs);
        assertEquals(List.of(Violation.Kind.UNEXPECTED), r.kinds(), r.violations().toString());
        assertEquals(1, r.extra());
        apply(kudu, events.newDelete(), key(foreign, events));

        // A temporary file left in the dataset's HDFS directory.
        org.apache.hadoop.fs.Path temp = new org.apache.hadoop.fs.Path(new org.apache.hadoop.fs.Path(
                ChaosCluster.HDFS_ROOT, DatasetName.parse(ds.dataset()).container()),
                "." + ds.dataset() + ".parquet.injected.tmp");
        cluster.hdfs().fs().create(temp).close();
        r = checker.check(List.of(ds), jobs);
        assertEquals(List.of(Violation.Kind.LEFTOVER_TEMP), r.kinds(), r.violations().toString());
        assertTrue(cluster.hdfs().fs().delete(temp, false));

        assertEquals(List.of(), checker.check(List.of(ds), jobs).violations(), "clean again after the repairs");
    }

    /**
     * The check that no broker holds an unread message can fail: a message left on one broker's queue (of the
     * harness's own, which no daemon reads) is counted on that broker only, and no longer once it is read.
     */
    @Test @Order(22)
    void brokerQueuesReportAMessageLeftOnOneBroker() throws Exception {
        String queue = "/queue/eventindex.chaos.unread";
        List<String> endpoints = cluster.brokers().proxies().stream().map(FaultProxy::endpoint).toList();
        BrokerQueues queues = new BrokerQueues(endpoints, List.of(queue),
                endpoint -> cluster.brokerSettingsOf(endpoint, BrokerLogins.ADMIN));
        assertEquals(Map.of(), queues.unread());
        StompSettings admin = cluster.brokerSettingsOf(endpoints.get(1), BrokerLogins.ADMIN);
        try (StompConnection c = StompConnection.connect(admin)) {
            c.send(queue, "left".getBytes(StandardCharsets.UTF_8), Map.of("persistent", "true"));
        }
        assertEquals(Map.of(endpoints.get(1) + " " + queue, 1), queues.unread());
        java.util.concurrent.CompletableFuture<String> read = new java.util.concurrent.CompletableFuture<>();
        try (StompConnection c = StompConnection.connect(admin)) {
            c.subscribe(queue, 1, m -> {
                try {
                    c.ack(m);
                    read.complete(new String(m.body(), StandardCharsets.UTF_8));
                } catch (java.io.IOException e) {
                    read.completeExceptionally(e);
                }
            });
            assertEquals("left", read.get(30, java.util.concurrent.TimeUnit.SECONDS));
        }
        org.eventindex.testing.Await.until("the message read off " + endpoints.get(1),
                java.time.Duration.ofSeconds(30), () -> queues.unread().isEmpty());
    }

    private static RowResult firstRow(KuduClient kudu, KuduTable table, DatasetsRow rec) throws Exception {
        Schema s = table.getSchema();
        KuduScanner scanner = kudu.newScannerBuilder(table)
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.DSPID),
                        KuduPredicate.ComparisonOp.EQUAL, rec.dspid()))
                .addPredicate(KuduPredicate.newComparisonPredicate(s.getColumn(KuduSchemas.RGID),
                        KuduPredicate.ComparisonOp.EQUAL, rec.rgid()))
                .limit(1).build();
        try {
            while (scanner.hasMoreRows()) {
                RowResultIterator it = scanner.nextRows();
                if (it.hasNext()) {
                    return it.next();
                }
            }
        } finally {
            scanner.close();
        }
        throw new AssertionError("no EVENTS row for dataset " + rec.dataset());
    }

    /** The columns of {@code row} that {@code target} has, by name; a key column only it has is set to now. */
    private static PartialRow copy(RowResult row, KuduTable target) {
        PartialRow out = target.getSchema().newPartialRow();
        Schema source = row.getSchema();
        for (ColumnSchema c : target.getSchema().getColumns()) {
            if (source.hasColumn(c.getName())) {
                if (!row.isNull(c.getName())) {
                    out.addObject(c.getName(), row.getObject(c.getName()));
                }
            } else if (c.getType() == Type.UNIXTIME_MICROS) {
                out.addTimestamp(c.getName(), new Timestamp(System.currentTimeMillis()));
            } else if (c.getType() == Type.INT64) {
                out.addLong(c.getName(), System.currentTimeMillis() * 1000);
            }
        }
        return out;
    }

    private static PartialRow key(PartialRow row, KuduTable table) {
        PartialRow out = table.getSchema().newPartialRow();
        for (ColumnSchema c : table.getSchema().getPrimaryKeyColumns()) {
            out.addObject(c.getName(), row.getObject(c.getName()));
        }
        return out;
    }

    private static void apply(KuduClient kudu, Operation op, PartialRow values) throws Exception {
        PartialRow row = op.getRow();
        for (ColumnSchema c : op.getTable().getSchema().getColumns()) {
            if (values.isSet(c.getName()) && !values.isNull(c.getName())) {
                row.addObject(c.getName(), values.getObject(c.getName()));
            }
        }
        KuduSession session = kudu.newSession();
        try {
            OperationResponse resp = session.apply(op);
            assertTrue(resp == null || !resp.hasRowError(), () -> "Kudu refused " + op + ": " + resp.getRowError());
        } finally {
            session.close();
        }
    }
}
