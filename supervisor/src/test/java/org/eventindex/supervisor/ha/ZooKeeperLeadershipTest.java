package org.eventindex.supervisor.ha;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.curator.test.KillSession;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.supervisor.journal.JournalException;
import org.eventindex.supervisor.journal.JournalEntry;
import org.eventindex.supervisor.journal.JournalEvent;
import org.eventindex.supervisor.journal.JournalFiles;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.ZooKeeperEnsemble;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lease and token in a real ZooKeeper ensemble of three servers and the journal on a real HDFS (both started
 * here): the token taken atomically with the lease, a takeover after the holder's session expired, the deposed
 * holder refusing at once, and the HDFS fence (sealing, {@code recoverLease}) keeping a deposed writer's late
 * append out of what the new one reads.
 */
class ZooKeeperLeadershipTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    static java.nio.file.Path dir;
    private static ZooKeeperEnsemble zk;
    private static EmbeddedHdfs hdfs;

    @BeforeAll
    static void start() {
        zk = ZooKeeperEnsemble.start(dir.resolve("zk"), 3);
        hdfs = EmbeddedHdfs.start(dir.resolve("hdfs"));
    }

    @AfterAll
    static void stop() {
        if (hdfs != null) {
            hdfs.close();
        }
        if (zk != null) {
            zk.close();
        }
    }

    private static List<JournalEvent> sent(int from, int n) {
        List<JournalEvent> out = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            out.add(new JournalEvent.SignalSent("ds", "sig-" + i));
        }
        return out;
    }

    private static FileSystem client() throws IOException {
        return FileSystem.newInstance(hdfs.uri(), hdfs.conf()); // its own DFS client: its own HDFS lease holder
    }

    /** What a reader sees (of a file being written: everything synced; the NameNode's length may lag). */
    private static long readable(FileSystem fs, Path file) throws IOException {
        try (var in = fs.open(file)) {
            return in.readAllBytes().length;
        }
    }

    private static Journal open(JournalFiles files, List<JournalEntry> replayed) throws IOException {
        return Journal.open(files, 2, (seq, in) -> in.readAllBytes(), replayed::add);
    }

    @Test
    void aDeposedWritersAppendFailsAndIsNotReadAfterTheTakeover() throws Exception {
        Path root = new Path("/fence");
        try (FileSystem fsA = client(); FileSystem fsB = client()) {
            HdfsGenerations.HandedOver first = new HdfsGenerations(fsA, root, TIMEOUT).takeOver(1, "a");
            Journal a = open(first.files(), new ArrayList<>());
            a.append(sent(0, 3), 1);
            Path aFile = new Path(root, "generation-1/" + Journal.FILE_NAME);
            long synced = readable(fsB, aFile);
            assertTrue(synced > 0, "hsync makes the lines visible to another client");

            HdfsGenerations.HandedOver second = new HdfsGenerations(fsB, root, TIMEOUT).takeOver(2, "b");
            assertEquals(synced, second.copied().journalBytes(), "the takeover point is everything a synced");
            assertFalse(fsB.exists(new Path(root, "generation-1")), "the deposed generation is sealed (renamed)");

            // the deposed writer goes on as if nothing happened: its append fails, and it can create no file (a
            // checkpoint, the next journal file) where it used to write
            assertThrows(IOException.class, () -> a.append(sent(3, 1), 2), "a deposed writer's hsync fails");
            assertThrows(IOException.class, () -> first.files().create("supervisor.checkpoint.tmp", true));
            Path sealed = new Path(root, "generation-1.sealed/" + Journal.FILE_NAME);
            assertEquals(synced, readable(fsB, sealed), "nothing landed in the recovered file");

            List<JournalEntry> replayed = new ArrayList<>();
            try (Journal b = open(second.files(), replayed)) {
                assertEquals(List.of(1L, 2L, 3L), replayed.stream().map(JournalEntry::seq).toList());
                assertEquals(4, b.append(sent(3, 1), 4).get(0).seq(), "the new holder carries on, no gap");
                // a checkpoint on HDFS: the state written, the journal file moved aside, appends in a new file
                assertEquals(4, b.checkpoint(out -> out.write("state at 4".getBytes(StandardCharsets.UTF_8)), 5)
                        .orElseThrow().seq());
                b.append(sent(4, 1), 6);
            }
            assertEquals(synced, readable(fsB, sealed));
            List<String> restored = new ArrayList<>();
            replayed.clear();
            try (Journal again = Journal.open(second.files(), 2, (seq, in) -> restored.add(seq + ":"
                    + new String(in.readAllBytes(), StandardCharsets.UTF_8)), replayed::add)) {
                assertEquals(List.of("4:state at 4"), restored);
                assertEquals(List.of(5L), replayed.stream().map(JournalEntry::seq).toList());
                assertEquals(5, again.lastSeq());
            }
        }
    }

    @Test
    void theTokenGrowsAtEveryTakeoverAndADeposedHolderRefusesAtOnce() throws Exception {
        // 8 s: the client's move to another server when one goes down (up to about 3 s when it tries the dead one
        // first) must fit in two thirds of the session, or the holder's watchdog fences it (decision 0048)
        SupervisorConfig.Ha ha = new SupervisorConfig.Ha(true, "", Duration.ofSeconds(8), Duration.ofMillis(200),
                Optional.of(new SupervisorConfig.ZooKeeperStore(zk.connectString(), "/ei/pair",
                        URI.create("/pair"))));
        List<String> fencedA = new CopyOnWriteArrayList<>();
        try (FileSystem fsA = client(); FileSystem fsB = client();
             ZooKeeperLeadership a = new ZooKeeperLeadership(ha, fsA, "a", new PrometheusRegistry(), fencedA::add);
             ZooKeeperLeadership b = new ZooKeeperLeadership(ha, fsB, "b", new PrometheusRegistry(), w -> { })) {
            JournalFiles aFiles = a.awaitActive().orElseThrow();
            a.activated();
            a.check();
            assertEquals(1, a.token());
            Journal aJournal = open(aFiles, new ArrayList<>());
            aJournal.guard(a::check);
            aJournal.append(sent(0, 2), 1);

            CompletableFuture<Optional<JournalFiles>> bTurn = CompletableFuture.supplyAsync(() -> {
                try {
                    return b.awaitActive();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Await.until("b standing by behind a", TIMEOUT, () -> b.token() == 1);
            assertFalse(bTurn.isDone(), "one holder at a time");

            // the holder's session ends as after a crash or a partition: the server expires it
            long expired = System.nanoTime();
            KillSession.kill(a.client().getZookeeperClient().getZooKeeper());
            JournalFiles bFiles = bTurn.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).orElseThrow();
            b.activated();
            assertEquals(2, b.token());
            Await.until("a fenced", TIMEOUT, () -> a.role() == Leadership.Role.FENCED);
            assertThrows(FencedException.class, a::check);
            assertThrows(IOException.class, () -> aJournal.append(sent(2, 1), 2), "a deposed holder journals"
                    + " nothing");
            assertEquals(1, fencedA.size(), "reported once: " + fencedA);
            List<JournalEntry> replayed = new ArrayList<>();
            try (Journal bJournal = open(bFiles, replayed)) {
                bJournal.guard(b::check);
                assertEquals(2, replayed.size());
                // a quorum survives a follower down: the holder keeps confirming its lease (the leader's loss
                // costs an election, which may outlast two thirds of a short session: decision 0048)
                // a follower other than the server b's session is on: losing its own server costs b a reconnect,
                // which may also outlast two thirds of a short session (seen once in CI)
                int bServer = connectedPort(b);
                int follower = java.util.stream.IntStream.range(0, zk.size())
                        .filter(i -> zk.mode(i).equals("follower") && zk.clientPort(i) != bServer).findFirst()
                        .orElseThrow();
                zk.stopServer(follower);
                long confirmed = System.nanoTime();
                Await.until("b's lease confirmed with a server down", TIMEOUT,
                        () -> b.leaseAgeSeconds() < (System.nanoTime() - confirmed) / 1e9);
                b.check();
                bJournal.append(sent(2, 1), 3);
            }
            System.out.printf("takeover after a session expiry: %d ms (session timeout %s)%n",
                    Duration.ofNanos(System.nanoTime() - expired).toMillis(), ha.lease());
        }
    }

    @Test
    void aTakeoverWithTheNameNodeDownWaitsSayingSoAndCarriesOnOnceItIsBack() throws Exception {
        SupervisorConfig.Ha ha = new SupervisorConfig.Ha(true, "", Duration.ofSeconds(4), Duration.ofMillis(200),
                Optional.of(new SupervisorConfig.ZooKeeperStore(zk.connectString(), "/ei/hdfs-down",
                        URI.create("/hdfs-down"))));
        org.apache.hadoop.conf.Configuration conf = hdfs.conf();
        conf.setInt("ipc.client.connect.max.retries", 0); // each attempt fails at once: the leadership retries
        boolean down = true;
        hdfs.stopNameNode();
        try (FileSystem fs = FileSystem.newInstance(hdfs.uri(), conf);
             ZooKeeperLeadership c = new ZooKeeperLeadership(ha, fs, "c", new PrometheusRegistry(), w -> { })) {
            CompletableFuture<Optional<JournalFiles>> turn = CompletableFuture.supplyAsync(() -> {
                try {
                    return c.awaitActive();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Await.until("c saying on /ready that it waits for HDFS", TIMEOUT,
                    () -> c.standbyReason().contains("waiting for HDFS"));
            assertTrue(c.standbyReason().contains("took token 1"), c.standbyReason());
            assertFalse(turn.isDone(), "no journal without HDFS");
            hdfs.restartNameNode();
            down = false;
            JournalFiles files = turn.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).orElseThrow();
            c.activated();
            assertEquals(1, c.token());
            assertFalse(c.standbyReason().contains("waiting for HDFS"), c.standbyReason());
            try (Journal j = open(files, new ArrayList<>())) {
                j.guard(c::check);
                assertEquals(1, j.append(sent(0, 1), 1).get(0).seq(), "the journal is written once HDFS is back");
            }
        } finally {
            if (down) {
                hdfs.restartNameNode();
            }
        }
    }

    @Test
    void theJournalOnHdfsRidesOutAStoppedNameNodeItsCheckpointWaitsForIt() throws Exception {
        org.apache.hadoop.conf.Configuration conf = hdfs.conf();
        conf.setInt("ipc.client.connect.max.retries", 0);
        boolean down = false;
        try (FileSystem fs = FileSystem.newInstance(hdfs.uri(), conf)) {
            HdfsGenerations.HandedOver h = new HdfsGenerations(fs, new Path("/namenode-down"), TIMEOUT).takeOver(1,
                    "a");
            try (Journal j = open(h.files(), new ArrayList<>())) {
                j.append(sent(0, 1), 1);
                hdfs.stopNameNode();
                down = true;
                // the block being written is on the DataNodes: hsync goes through the pipeline without the NameNode
                for (int i = 1; i <= 10; i++) {
                    assertEquals(i + 1, j.append(sent(i, 1), i + 1).get(0).seq(), "append " + i);
                }
                // a checkpoint creates and renames files: the NameNode's work. It fails as retriable and the
                // journal goes on (the supervisor tries it again later, Checkpoints)
                JournalException refused = assertThrows(JournalException.class,
                        () -> j.checkpoint(out -> out.write(1), 12));
                assertTrue(refused.retriable(), refused.toString());
                assertEquals(12, j.append(sent(11, 1), 12).get(0).seq());
                hdfs.restartNameNode();
                down = false;
                assertEquals(12, j.checkpoint(out -> out.write(2), 13).orElseThrow().seq(),
                        "the checkpoint is written once the NameNode is back");
                assertEquals(13, j.append(sent(12, 1), 13).get(0).seq());
            }
        } finally {
            if (down) {
                hdfs.restartNameNode();
            }
        }
    }

    /** The client port of the ZooKeeper server {@code holder}'s session is connected to (from its client's state). */
    private static int connectedPort(ZooKeeperLeadership holder) throws Exception {
        String state = holder.client().getZookeeperClient().getZooKeeper().toString();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("remoteserver:\\S*:(\\d+)").matcher(state);
        assertTrue(m.find(), "the connected server in " + state);
        return Integer.parseInt(m.group(1));
    }
}
