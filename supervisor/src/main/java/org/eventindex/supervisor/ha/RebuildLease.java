package org.eventindex.supervisor.ha;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.hadoop.fs.FileSystem;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.supervisor.journal.JournalFiles;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static java.util.Objects.requireNonNull;

/**
 * The lease an operator command that rewrites the state ({@code supervisor rebuild-state}, decision 0062) holds on a
 * supervisor pair's store, as a supervisor would: it takes the next fencing token (the previous holder is fenced, its
 * journal handed over into the token's generation by the supervisors' own code, on HDFS with its lease recovery),
 * renews the lease while it works, so that a supervisor started meanwhile stays a standby, and releases it at
 * {@link #close}, when the standby takes over at once from the generation the command wrote.
 * <p>
 * It takes the lease only from nobody: while a supervisor holds it (renewed, or its ZooKeeper session alive) for
 * {@code wait}, {@link #take} refuses and names the holder. A lease left by a supervisor that died is taken once it
 * expires ({@code supervisor.ha.lease}), as a standby would.
 */
public final class RebuildLease implements AutoCloseable {
    private final Leadership leadership;
    private final JournalFiles journal;
    private final ClusterAccess cluster;
    private final FileSystem fs;

    private RebuildLease(Leadership leadership, JournalFiles journal, ClusterAccess cluster, FileSystem fs) {
        this.leadership = leadership;
        this.journal = journal;
        this.cluster = cluster;
        this.fs = fs;
    }

    /**
     * Takes the lease of {@code config}'s store ({@code supervisor.ha.store}) under {@code id}.
     *
     * @param wait how long a lease held by a supervisor is watched for a renewal before the command is refused: more
     *             than {@code supervisor.ha.lease}, so that a dead supervisor's lease expires within it
     * @throws IllegalStateException when a supervisor holds the lease (the message names it and its token)
     */
    public static RebuildLease take(SupervisorConfig config, String id, Duration wait, Consumer<String> progress)
            throws IOException {
        requireNonNull(config, "config is null");
        requireNonNull(progress, "progress is null");
        if (!config.ha().enabled()) {
            throw new IllegalArgumentException(SupervisorConfig.HA_ENABLED + " is false: there is no lease to take");
        }
        ClusterAccess cluster = null;
        FileSystem fs = null;
        Leadership l;
        Optional<SupervisorConfig.ZooKeeperStore> zk = config.ha().zooKeeper();
        // the lease's metrics are served by no one here; check() refuses once fenced
        PrometheusRegistry unused = new PrometheusRegistry();
        Consumer<String> onFenced = reason -> progress.accept("fenced out: " + reason);
        if (zk.isPresent()) {
            cluster = ClusterAccess.open(config.epochs().kerberos(), unused);
            try {
                fs = ZooKeeperLeadership.journalFileSystem(cluster, zk.get());
            } catch (IOException | RuntimeException e) {
                cluster.close();
                throw e;
            }
            l = new ZooKeeperLeadership(config.ha(), fs, id, unused, onFenced);
        } else {
            l = new SharedDirLeadership(config.ha(), config.journal().dir(), id, unused, onFenced);
        }
        String store = zk.map(z -> "ZooKeeper " + z.connect() + z.root() + " (journal " + z.journal() + ")")
                .orElse("shared journal directory " + config.journal().dir());
        progress.accept("taking the supervisors' lease in " + store + " as " + id + " (a supervisor holding it is"
                + " waited for up to " + wait.toMillis() / 1000.0 + " s, then the command is refused)");
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rebuild-lease-wait");
            t.setDaemon(true);
            return t;
        });
        Optional<JournalFiles> files;
        try {
            timer.schedule(l::stopWaiting, wait.toMillis(), TimeUnit.MILLISECONDS);
            files = l.awaitActive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeQuietly(l, cluster, fs);
            throw new IOException("interrupted while taking the supervisors' lease in " + store, e);
        } catch (IOException | RuntimeException e) {
            closeQuietly(l, cluster, fs);
            throw e;
        } finally {
            timer.shutdownNow();
        }
        if (files.isEmpty()) {
            Object holder = l.info().get("activeHolder");
            long token = l.token();
            String reason = l.standbyReason();
            closeQuietly(l, cluster, fs);
            if (holder == null || holder.toString().isEmpty() || token == 0) {
                // no holder seen: the store did not answer (ZooKeeper down), not a supervisor at work
                throw new IllegalStateException("the supervisors' lease in " + store + " could not be taken within "
                        + wait.toMillis() / 1000.0 + " s: " + reason);
            }
            throw new IllegalStateException("supervisor " + holder + " holds the lease (token " + token + ") in "
                    + store + ": it renewed it within " + wait.toMillis() / 1000.0 + " s; stop both supervisors of"
                    + " the pair first (systemctl stop eventindex-supervisor on each host)");
        }
        RebuildLease lease = new RebuildLease(l, files.get(), cluster, fs);
        l.activated();
        progress.accept("holding token " + l.token() + "; journal " + files.get().location());
        return lease;
    }

    /** The journal of this token's generation, handed over from the previous holder's. */
    public JournalFiles journal() {
        return journal;
    }

    public long token() {
        return leadership.token();
    }

    /** Throws once another process took a higher token: nothing more may be appended. */
    public void check() throws FencedException {
        leadership.check();
    }

    /** Releases the lease (a standby takes over at once), after the journal was closed. */
    @Override
    public void close() {
        try {
            leadership.release();
        } finally {
            closeQuietly(leadership, cluster, fs);
        }
    }

    private static void closeQuietly(Leadership l, ClusterAccess cluster, FileSystem fs) {
        l.close();
        try {
            if (fs != null) {
                fs.close();
            }
        } catch (IOException e) {
            // the lease is released or expires; nothing depends on this close
        }
        if (cluster != null) {
            cluster.close();
        }
    }
}
