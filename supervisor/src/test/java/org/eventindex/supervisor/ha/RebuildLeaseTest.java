package org.eventindex.supervisor.ha;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.hadoop.fs.FileSystem;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.supervisor.journal.Journal;
import org.eventindex.supervisor.journal.JournalEntry;
import org.eventindex.supervisor.journal.JournalEvent;
import org.eventindex.supervisor.journal.JournalFiles;
import org.eventindex.testing.Await;
import org.eventindex.testing.EmbeddedHdfs;
import org.eventindex.testing.ZooKeeperEnsemble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lease {@code rebuild-state} holds on a supervisor pair's store (decision 0062), on the real stores: a shared
 * directory, and ZooKeeper (a real server) with the journal on a real HDFS (both started here). While a supervisor
 * holds the lease the command is refused and names it; a supervisor that died without releasing it is taken over once
 * its lease expires, fenced, its journal handed over; a supervisor started during the run stays a standby; the run's
 * entries are in the generation the next supervisor takes over from once it releases.
 */
class RebuildLeaseTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String REBUILD = "rebuild-state@test";

    @TempDir
    Path dir;

    @Test
    void onASharedDirectory() throws Exception {
        SupervisorConfig config = config(Map.of(SupervisorConfig.HA_LEASE, "1s"));
        scenario(config, id -> new SharedDirLeadership(config.ha(), config.journal().dir(), id,
                new PrometheusRegistry(), why -> { }));
    }

    @Test
    void onZooKeeperAndHdfs() throws Exception {
        try (ZooKeeperEnsemble zk = ZooKeeperEnsemble.start(dir.resolve("zk"), 1);
             EmbeddedHdfs hdfs = EmbeddedHdfs.start(dir.resolve("hdfs"))) {
            SupervisorConfig config = config(Map.of(SupervisorConfig.HA_LEASE, "2s",
                    SupervisorConfig.HA_STORE, "zookeeper",
                    SupervisorConfig.HA_ZOOKEEPER_CONNECT, zk.connectString(),
                    SupervisorConfig.JOURNAL_HDFS_DIR, hdfs.uri() + "/eventindex/supervisor/journal",
                    SupervisorConfig.HADOOP_CONF_DIR, hdfs.writeClientConfDir(dir.resolve("hadoop-conf")).toString()));
            List<FileSystem> clients = new ArrayList<>();
            try {
                scenario(config, id -> {
                    try {
                        FileSystem fs = FileSystem.newInstance(hdfs.uri(), hdfs.conf()); // a client per holder
                        clients.add(fs);
                        return new ZooKeeperLeadership(config.ha(), fs, id, new PrometheusRegistry(), why -> { });
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            } finally {
                for (FileSystem fs : clients) {
                    fs.close();
                }
            }
        }
    }

    /** A quorum that does not answer is not a supervisor at work: the message says what was waited for. */
    @Test
    void zooKeeperDownIsSaidAsSuch() throws Exception {
        int nobody = org.eventindex.testing.Ports.free();
        SupervisorConfig config = config(Map.of(SupervisorConfig.HA_LEASE, "1s",
                SupervisorConfig.HA_STORE, "zookeeper",
                SupervisorConfig.HA_ZOOKEEPER_CONNECT, "127.0.0.1:" + nobody,
                SupervisorConfig.JOURNAL_HDFS_DIR, "hdfs://127.0.0.1:" + nobody + "/eventindex/supervisor/journal"));
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> RebuildLease.take(config, REBUILD, Duration.ofMillis(1500), line -> { }));
        assertTrue(refused.getMessage().contains("could not be taken within 1.5 s: standby " + REBUILD
                + ": waiting for ZooKeeper 127.0.0.1:" + nobody), refused.getMessage());
    }

    private void scenario(SupervisorConfig config, Function<String, Leadership> supervisor) throws Exception {
        Leadership a = supervisor.apply("sup-a");
        JournalFiles first = a.awaitActive().orElseThrow();
        a.activated();
        try (Journal j = open(first, new ArrayList<>())) {
            j.append(sent(0, 2), 1);
        }
        Duration wait = config.ha().lease().plus(config.ha().lease().dividedBy(2)).plus(config.ha().renew());
        List<String> progress = new ArrayList<>();
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> RebuildLease.take(config, REBUILD, wait, progress::add));
        assertTrue(refused.getMessage().startsWith("supervisor sup-a holds the lease (token 1) in "),
                refused.getMessage());
        assertTrue(progress.get(0).contains("taking the supervisors' lease"), progress.toString());

        a.close(); // dies without releasing: its lease expires (renewals stop, or its session ends)
        Leadership b = supervisor.apply("sup-b");
        CompletableFuture<Optional<JournalFiles>> bActive;
        try (RebuildLease lease = RebuildLease.take(config, REBUILD, TIMEOUT, progress::add)) {
            assertEquals(2, lease.token(), "a new fencing token for the run");
            Await.until("the dead holder fenced", config.ha().lease(), () -> fenced(a));
            bActive = CompletableFuture.supplyAsync(() -> {
                try {
                    return b.awaitActive();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return Optional.empty();
                }
            });
            List<JournalEntry> replayed = new ArrayList<>();
            try (Journal j = open(lease.journal(), replayed)) {
                j.guard(lease::check);
                assertEquals(List.of(1L, 2L), replayed.stream().map(JournalEntry::seq).toList(),
                        "the holder's journal handed over");
                j.append(sent(2, 1), 3);
            }
            Await.until("sup-b standing by behind the rebuild", TIMEOUT,
                    () -> REBUILD.equals(b.info().get("activeHolder")));
            long lease2 = config.ha().lease().multipliedBy(2).toMillis();
            assertThrows(TimeoutException.class, () -> bActive.get(lease2, TimeUnit.MILLISECONDS),
                    "sup-b stays a standby while the rebuild holds the lease (renewed)");
            assertEquals(Leadership.Role.STANDBY, b.role());
        }
        JournalFiles third = bActive.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        assertEquals(3, b.token(), "sup-b takes over from the released rebuild");
        List<JournalEntry> replayed = new ArrayList<>();
        open(third, replayed).close();
        assertEquals(List.of(1L, 2L, 3L), replayed.stream().map(JournalEntry::seq).toList(),
                "the rebuild's entry is in what sup-b replays");
        b.release();
        b.close();
    }

    private static boolean fenced(Leadership l) {
        try {
            l.check();
            return false;
        } catch (FencedException e) {
            return true;
        }
    }

    private SupervisorConfig config(Map<String, String> more) throws IOException {
        Properties p = new Properties();
        p.setProperty(SupervisorConfig.BROKERS, "127.0.0.1:1");
        p.setProperty(SupervisorConfig.JOURNAL_DIR, dir.resolve("journal").toString());
        p.setProperty(SupervisorConfig.HA_ENABLED, "true");
        p.setProperty(SupervisorConfig.HA_RENEW_INTERVAL, "200ms");
        p.putAll(more);
        return SupervisorConfig.fromProperties(p, Map.of());
    }

    private static Journal open(JournalFiles files, List<JournalEntry> replayed) throws IOException {
        return Journal.open(files, 2, (seq, in) -> in.readAllBytes(), replayed::add);
    }

    private static List<JournalEvent> sent(int from, int n) {
        List<JournalEvent> out = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            out.add(new JournalEvent.SignalSent("ds", "sig-" + i));
        }
        return out;
    }
}
