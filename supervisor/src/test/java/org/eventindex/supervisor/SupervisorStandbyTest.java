package org.eventindex.supervisor;

import com.fasterxml.jackson.databind.JsonNode;
import org.eventindex.message.ConsumerSignal;
import org.eventindex.message.Json;
import org.eventindex.message.Queues;
import org.eventindex.stomp.StompMessage;
import org.eventindex.supervisor.ha.Leadership;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.ZooKeeperEnsemble;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.eventindex.testing.Ports;
import org.eventindex.testing.MetricsText;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.eventindex.supervisor.Fixtures.file;
import static org.eventindex.supervisor.Fixtures.guid;
import static org.eventindex.supervisor.Fixtures.info;
import static org.eventindex.supervisor.Fixtures.manifest;
import static org.eventindex.supervisor.Fixtures.producerMessage;
import static org.eventindex.supervisor.Fixtures.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two supervisors as child JVMs on one journal directory and one real broker (in the test JVM): one active, one
 * standby. The active is killed with SIGKILL (the standby takes over after the lease and carries on with the state),
 * paused with SIGSTOP past the lease (the standby takes over; the woken one exits fenced out having journalled,
 * signalled and acknowledged nothing), and stopped cleanly (the standby takes over at once). The takeover times are
 * measured from the fault and printed. The same with the lease in a ZooKeeper ensemble of three and the journal on
 * HDFS (decision 0043), both started here: kill -9 and a pause past the session timeout; and the journal's DataNode
 * stopped: the active gives the lease up (exit 75), the new holder says on /ready that it hands the journal over on
 * HDFS, and carries on once the DataNode is back, the message the old one had in hand not dead-lettered.
 */
class SupervisorStandbyTest {
    private static final Duration LEASE = Duration.ofSeconds(2);
    /** The ZooKeeper session timeout (at least 2 ticks of {@link ZooKeeperEnsemble#TICK_MILLIS}). */
    private static final Duration LEASE_ZK = Duration.ofSeconds(3);
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private BrokerHarness mq;
    private ZooKeeperEnsemble zk;
    private EmbeddedHdfs hdfs;
    /** The children's settings of the lease's and journal's store (none: the shared directory). */
    private final Map<String, String> store = new HashMap<>();
    private final List<Child> children = new ArrayList<>();
    /** Every signal received, with its token header, in arrival order. */
    private final List<String[]> signals = new CopyOnWriteArrayList<>();

    private record Child(String name, Process process, int port, Path log) {
    }

    @AfterEach
    void stop() throws InterruptedException {
        for (Child c : children) {
            if (c.process().isAlive()) {
                signal("CONT", c);
                c.process().destroyForcibly();
                c.process().waitFor(30, TimeUnit.SECONDS);
            }
        }
        if (mq != null) {
            mq.close();
        }
        if (hdfs != null) {
            hdfs.close();
        }
        if (zk != null) {
            zk.close();
        }
    }

    private static String name(int d) {
        return "data17_13TeV.0034000" + d + ".physics_Main.merge.AOD.f838_m1824";
    }

    private static String g(int d) {
        return String.format("7B3C%04d-0000-0000-0000-000000000001", d);
    }

    /** A one-file dataset: its manifest and its producer's message (the supervisor then signals it). */
    private void dataset(int d) throws IOException {
        mq.control(manifest(name(d), file(g(d), 100)));
        mq.send(Queues.SUPERVISOR, producerMessage("s" + d, info(name(d), url("s" + d), guid(g(d), 0, 100))));
    }

    @Test
    void standbyTakesOverAfterKillPauseAndCleanStopAndAFencedActiveDoesNothing() throws Exception {
        mq = new BrokerHarness(dir.resolve("broker"));
        Child a = startPair();
        Child b = children.get(1);
        assertEquals(1.0, metric(a, "eventindex_supervisor_active"));
        assertEquals(0.0, metric(b, "eventindex_supervisor_active"));
        assertTrue(body(b, "/console/role").contains("\"role\":\"standby\""), body(b, "/console/role"));
        dataset(0);
        awaitDone(a, 0);

        // 1. kill -9 the active: the standby takes over after the lease, with the state, and carries on.
        a.process().destroyForcibly();
        dataset(1);
        awaitReady(b);
        awaitDone(b, 1);
        awaitDone(b, 0); // the state came over
        assertEquals(2.0, metric(b, "eventindex_supervisor_fencing_token"));
        assertEquals(1.0, metric(b, "eventindex_supervisor_takeovers_total"));

        // 2. SIGSTOP the active past the lease: the standby (a, restarted) takes over; the woken b does nothing.
        Child a2 = start("a2");
        Await.until("a2 standing by", TIMEOUT, () -> status(a2, "/ready") == 503);
        Path bJournal = dir.resolve("journal").resolve("generation-2").resolve(Journal.FILE_NAME);
        signal("STOP", b);
        long bytesAtPause = Files.size(bJournal);
        awaitReady(a2);
        int signalsBefore = wakeAfterTakeover(b, a2);
        assertEquals(bytesAtPause, Files.size(bJournal), "the woken active journalled nothing");
        assertTrue(signals.subList(signalsBefore, signals.size()).stream().noneMatch(s -> "2".equals(s[1])),
                "the woken active (token 2) sent no signal");
        assertTrue(Files.readString(b.log()).contains("fenced out"), "log " + b.log());
        awaitDone(a2, 2); // what the broker had handed to the paused one came back, unacknowledged, to a2
        awaitDone(a2, 3);
        assertEquals(0, mq.broker.queueSize(org.eventindex.testing.EmbeddedBroker.DLQ), "nothing dead-lettered");

        // 3. A clean stop hands over at once: well within the lease.
        Child b2 = start("b2");
        Await.until("b2 standing by", TIMEOUT, () -> status(b2, "/ready") == 503);
        a2.process().destroy(); // SIGTERM
        dataset(4);
        awaitReady(b2);
        awaitDone(b2, 4);
        assertTrue(a2.process().waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        assertEquals(0, a2.process().exitValue(), "a clean stop exits 0");
        for (int d = 0; d <= 4; d++) {
            awaitDone(b2, d);
        }
        assertEquals(4.0, metric(b2, "eventindex_supervisor_fencing_token"));
        JsonNode waited = Json.tree(body(b2, "/console/role").getBytes(StandardCharsets.UTF_8))
                .path("takeover").path("waitedMillis");
        assertEquals(0, waited.asLong(), "a released lease is taken without waiting: " + body(b2, "/console/role"));
    }

    @Test
    void withTheLeaseInZooKeeperAndTheJournalOnHdfsAKilledOrPausedActiveIsTakenOverAndFenced() throws Exception {
        Child a = startPairOnZooKeeperAndHdfs();
        Child b = children.get(1);
        dataset(0);
        awaitDone(a, 0);

        // 1. kill -9 the active: its session expires, the standby fences its journal (recoverLease) and takes over
        long killed = System.nanoTime();
        a.process().destroyForcibly();
        dataset(1);
        awaitReady(b);
        long afterKill = (System.nanoTime() - killed) / 1_000_000;
        awaitDone(b, 1);
        awaitDone(b, 0); // the state came over
        assertEquals(2.0, metric(b, "eventindex_supervisor_fencing_token"));

        // 2. SIGSTOP the active past the session timeout: a2 takes over; the woken b journals and signals nothing
        Child a2 = start("a2");
        Await.until("a2 standing by", TIMEOUT, () -> status(a2, "/ready") == 503);
        org.apache.hadoop.fs.Path bJournal = new org.apache.hadoop.fs.Path("/eventindex/supervisor/journal/"
                + "generation-2/" + Journal.FILE_NAME);
        signal("STOP", b);
        long paused = System.nanoTime();
        long bytesAtPause = readable(bJournal); // what a reader sees of a file being written: everything synced
        awaitReady(a2);
        long afterPause = (System.nanoTime() - paused) / 1_000_000;
        int signalsBefore = wakeAfterTakeover(b, a2);
        org.apache.hadoop.fs.Path sealed = new org.apache.hadoop.fs.Path("/eventindex/supervisor/journal/"
                + "generation-2.sealed/" + Journal.FILE_NAME);
        assertEquals(bytesAtPause, readable(sealed), "the woken active journalled nothing");
        assertTrue(signals.subList(signalsBefore, signals.size()).stream().noneMatch(s -> "2".equals(s[1])),
                "the woken active (token 2) sent no signal");
        for (int d = 0; d <= 3; d++) {
            awaitDone(a2, d);
        }
        assertEquals(3.0, metric(a2, "eventindex_supervisor_fencing_token"));
        assertEquals(0, mq.broker.queueSize(org.eventindex.testing.EmbeddedBroker.DLQ), "nothing dead-lettered");
        // nothing doubled: one selection (one signal id) per dataset whatever the takeovers re-sent
        Map<String, Set<String>> ids = signals.stream().collect(Collectors.groupingBy(s -> s[0],
                Collectors.mapping(s -> s[2], Collectors.toSet())));
        assertEquals(4, ids.size(), "every dataset signalled: " + ids.keySet());
        ids.forEach((ds, set) -> assertEquals(1, set.size(), ds + " signalled with two selections: " + set));
        System.out.printf("ZooKeeper+HDFS takeover (session timeout %s): after kill -9 %d ms, after SIGSTOP %d ms%n",
                LEASE_ZK, afterKill, afterPause);
        for (Child c : List.of(b, a2)) {
            Files.readAllLines(c.log()).stream().filter(l -> l.matches(".*(took token|recovered in|holds token"
                    + "|active with|ZooKeeper connection|supervisor started).*")).forEach(System.out::println);
        }
    }

    @Test
    void withTheHdfsDataNodeDownTheActiveStepsDownAndTheNewHolderWaitsForHdfsThenCarriesOn() throws Exception {
        Child a = startPairOnZooKeeperAndHdfs();
        Child b = children.get(1);
        dataset(0);
        awaitDone(a, 0);

        // the journal's only DataNode goes away: a's next hsync fails; it gives the lease up and exits (75) instead
        // of holding it while it can no longer consume
        hdfs.stopDataNode();
        dataset(1);
        assertTrue(a.process().waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the active did not step down; log "
                + a.log());
        assertEquals(Leadership.EXIT_FENCED, a.process().exitValue(), "log " + a.log());
        assertTrue(Files.readString(a.log()).contains("giving the lease up"), "log " + a.log());
        // b took the token but cannot hand the journal over (its last block is on the stopped DataNode): /ready says
        // so, naming the journal on HDFS ("waiting for HDFS ..." once an attempt timed out, ZooKeeperLeadershipTest)
        Await.until("b naming the hand-over of the journal on HDFS on /ready", TIMEOUT, () -> status(b, "/ready") == 503
                && body(b, "/ready").contains("took token 2, handing the journal hdfs://"));
        hdfs.restartDataNode();
        awaitReady(b);
        awaitDone(b, 1);
        awaitDone(b, 0);
        assertEquals(2.0, metric(b, "eventindex_supervisor_fencing_token"));
        assertEquals(0, mq.broker.queueSize(org.eventindex.testing.EmbeddedBroker.DLQ), "the message a had in hand"
                + " was not dead-lettered");
    }

    /** A ZooKeeper ensemble of three, an HDFS and a broker, and the pair ({@link #startPair}) on them. */
    private Child startPairOnZooKeeperAndHdfs() throws IOException {
        zk = ZooKeeperEnsemble.start(dir.resolve("zk"), 3);
        hdfs = EmbeddedHdfs.start(dir.resolve("hdfs"));
        mq = new BrokerHarness(dir.resolve("broker"));
        store.put(SupervisorConfig.HA_STORE, "zookeeper");
        store.put(SupervisorConfig.HA_ZOOKEEPER_CONNECT, zk.connectString());
        store.put(SupervisorConfig.JOURNAL_HDFS_DIR, "/eventindex/supervisor/journal"); // on the default FS
        store.put(SupervisorConfig.HADOOP_CONF_DIR, hdfs.writeClientConfDir(dir.resolve("hadoop-conf")).toString());
        return startPair();
    }

    /**
     * Answers every signal DONE (recording its dataset, token header and id in {@link #signals}), starts {@code a}
     * (active) and {@code b} (standby, the second child); returns {@code a}.
     */
    private Child startPair() throws IOException {
        List<StompMessage> received = new CopyOnWriteArrayList<>();
        mq.consume(Queues.CONSUMER, received, m -> {
            ConsumerSignal s = BrokerHarness.signal(m);
            signals.add(new String[] {s.dataset(), m.headers().get(Supervisor.SIGNAL_TOKEN_HEADER), s.signalId()});
            mq.reportDone(s);
        });
        Child a = start("a");
        awaitReady(a);
        Child b = start("b");
        Await.until("b standing by", TIMEOUT, () -> status(b, "/ready") == 503
                && body(b, "/ready").contains("standby"));
        return a;
    }

    /**
     * Gives the new active {@code a2} work that the broker also hands to the paused {@code b}'s connection (which it
     * must not take), then wakes {@code b}: it must exit fenced out. Returns the signals received before it woke.
     */
    private int wakeAfterTakeover(Child b, Child a2) throws Exception {
        dataset(2);
        dataset(3);
        Await.until("a2 recording a message", TIMEOUT, () -> status(a2, "/datasets/" + name(2)) == 200
                || status(a2, "/datasets/" + name(3)) == 200);
        int signalsBefore = signals.size();
        signal("CONT", b);
        assertTrue(b.process().waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the woken active did not stop");
        assertEquals(Leadership.EXIT_FENCED, b.process().exitValue(), "the woken active exits fenced out; log "
                + b.log());
        return signalsBefore;
    }

    private long readable(org.apache.hadoop.fs.Path file) throws IOException {
        try (var in = hdfs.fs().open(file)) {
            return in.readAllBytes().length;
        }
    }

    private Child start(String name) throws IOException {
        int port = Ports.free();
        Map<String, String> p = SupervisorChild.properties(mq.broker.stompEndpoints(), dir.resolve("journal"), port);
        p.putAll(store);
        p.put(SupervisorConfig.SHUTDOWN_GRACE, "5s");
        p.put(SupervisorConfig.HA_ENABLED, "true");
        p.put(SupervisorConfig.HA_ID, name);
        p.put(SupervisorConfig.HA_LEASE, (store.isEmpty() ? LEASE : LEASE_ZK).toMillis() + "ms");
        p.put(SupervisorConfig.HA_RENEW_INTERVAL, "200ms");
        Path log = dir.resolve(name + ".log");
        Child c = new Child(name, SupervisorChild.start(dir.resolve(name + ".properties"), p, log), port, log);
        children.add(c);
        return c;
    }

    private static void signal(String sig, Child c) {
        try {
            Process k = new ProcessBuilder("kill", "-" + sig, Long.toString(c.process().pid())).start();
            assertTrue(k.waitFor(10, TimeUnit.SECONDS) && k.exitValue() == 0, "kill -" + sig + " " + c.name());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void awaitReady(Child c) {
        Await.until(c.name() + " active and ready (log " + c.log() + ")", TIMEOUT, () -> {
            assertTrue(c.process().isAlive(), c.name() + " exited; log " + c.log());
            return status(c, "/ready") == 200;
        });
    }

    private static void awaitDone(Child c, int d) {
        Await.until(name(d) + " DONE at " + c.name() + " (log " + c.log() + ")", TIMEOUT,
                () -> status(c, "/datasets/" + name(d)) == 200
                        && body(c, "/datasets/" + name(d)).contains("\"state\":\"DONE\""));
    }

    private static int status(Child c, String path) {
        try {
            return BrokerHarness.get(c.port(), path).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static String body(Child c, String path) {
        try {
            HttpResponse<String> r = BrokerHarness.get(c.port(), path);
            return r.body();
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static double metric(Child c, String name) {
        double value = MetricsText.value(body(c, "/metrics"), name);
        if (value < 0) {
            throw new AssertionError(name + " not served by " + c.name());
        }
        return value;
    }
}
