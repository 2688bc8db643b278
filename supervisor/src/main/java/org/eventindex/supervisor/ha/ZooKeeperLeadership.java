package org.eventindex.supervisor.ha;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.hadoop.fs.FileSystem;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.eventindex.cluster.ClusterAccess;
import org.eventindex.retry.Outage;
import org.eventindex.supervisor.SupervisorConfig;
import org.eventindex.supervisor.journal.JournalFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Which of two supervisors is active, with the lease and the fencing token in ZooKeeper and the journal on HDFS
 * ({@code supervisor.ha.store=zookeeper}, decision 0043). Under {@code supervisor.ha.zookeeper.root}:
 * <ul>
 *   <li>{@code token}: a persistent znode whose <em>version</em> is the fencing token;</li>
 *   <li>{@code active}: an ephemeral znode of the holder's session, naming the holder and its token.</li>
 * </ul>
 * A standby takes over with one ZooKeeper transaction that creates {@code active} and sets {@code token} at the
 * version it read: both or neither, so exactly one supervisor holds the lease and the token strictly increases at
 * every takeover. {@code active} disappears when its holder's session ends (a crash, a pause or a partition past
 * the session timeout, {@code supervisor.ha.lease}) or when it releases it (a clean stop); the standby is told by a
 * watch. Then it fences the old writer on HDFS ({@link HdfsGenerations}: seals its generation, {@code recoverLease})
 * and hands the journal over into its own generation.
 * <p>
 * The holder confirms every {@code supervisor.ha.renew.interval} that {@code active} is still its session's with its
 * token. {@link #check} refuses (and fences this supervisor for good) once the session is lost, the node or the token
 * changed, or no confirmation came for two thirds of the session timeout on this process's own
 * monotonic clock: a holder woken from a pause stops before it acts on a stale belief, since ZooKeeper expires a
 * session only a full session timeout after it last heard of it. What slips through anyway (a thread past its check
 * when the pause began) is stopped by HDFS: its {@code hsync} fails on the recovered file.
 */
public final class ZooKeeperLeadership extends LeaseHolder {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperLeadership.class);
    private static final Duration RETRY_HAND_OVER = Duration.ofSeconds(2);

    private final SupervisorConfig.ZooKeeperStore store;
    private final CuratorFramework client;
    private final HdfsGenerations generations;
    private final String tokenPath;
    private final String activePath;
    private final Object changed = new Object();
    private volatile boolean holding;
    private volatile long sessionId;
    /** Holder: when the last confirmation was asked for. Standby: when the holder was last seen. */
    private volatile long confirmedNanos = System.nanoTime();
    private volatile long validityNanos;
    /** While the journal is being handed over: why it is not yet (HDFS down), for {@code /ready}; else null. */
    private volatile String handOverWait;

    /**
     * Connects to ZooKeeper (in the background: a quorum that does not answer is waited for by
     * {@link #awaitActive}, {@code /ready} names it meanwhile).
     *
     * @param fs       the HDFS client of {@code supervisor.journal.hdfs.dir} (as the Kerberos principal)
     * @param onFenced called once, with the reason, when this supervisor finds itself fenced out
     */
    public ZooKeeperLeadership(SupervisorConfig.Ha settings, FileSystem fs, String id, PrometheusRegistry registry,
                               Consumer<String> onFenced) {
        super(settings, id, registry, onFenced);
        this.store = settings.zooKeeper().orElseThrow(() -> new IllegalArgumentException(
                SupervisorConfig.HA_STORE + " is not zookeeper"));
        this.generations = new HdfsGenerations(fs, new org.apache.hadoop.fs.Path(store.journal()),
                settings.lease().multipliedBy(6));
        this.tokenPath = store.root() + "/token";
        this.activePath = store.root() + "/active";
        int sessionMillis = (int) settings.lease().toMillis();
        this.validityNanos = settings.lease().toNanos() * 2 / 3;
        this.client = CuratorFrameworkFactory.builder().connectString(store.connect())
                .sessionTimeoutMs(sessionMillis).connectionTimeoutMs(Math.max(1000, sessionMillis / 2))
                .retryPolicy(new ExponentialBackoffRetry(100, 29, 2000)).build();
        client.getConnectionStateListenable().addListener((c, state) -> connectionChanged(state));
        client.start();
    }

    /**
     * The HDFS client of {@code supervisor.journal.hdfs.dir} as {@code cluster}'s user (the Hadoop configuration's
     * default file system when the URI names none); the caller closes it.
     */
    public static FileSystem journalFileSystem(ClusterAccess cluster, SupervisorConfig.ZooKeeperStore store)
            throws IOException {
        URI fsUri = store.journal().getScheme() != null ? store.journal()
                : FileSystem.getDefaultUri(cluster.configuration());
        return cluster.fileSystem(fsUri);
    }

    @Override
    public Optional<JournalFiles> awaitActive() throws IOException, InterruptedException {
        long poll = Math.max(10, settings.renew().toMillis());
        // the ZooKeeper client reconnects every second or so by itself: its own lines are capped in logback.xml,
        // this one says it at doubling retry counts (1, 2, 4 ... 64, then every 64th) and once when it is back
        Outage zooKeeper = new Outage("ZooKeeper " + store.connect(), LOG);
        int failures = 0;
        while (stopping.getCount() > 0) {
            try {
                if (!client.getZookeeperClient().isConnected()) {
                    if (!client.blockUntilConnected((int) poll, TimeUnit.MILLISECONDS)) {
                        zooKeeper.retryingEvery("standby " + id + ": no server of the quorum connected within " + poll
                                + " ms", ++failures, Duration.ofMillis(poll));
                        continue;
                    }
                }
                ensureTokenNode();
                zooKeeper.reachable();
                failures = 0;
                Stat tokenStat = new Stat();
                client.getData().storingStatIn(tokenStat).forPath(tokenPath);
                Stat active = client.checkExists().usingWatcher((Watcher) this::wake).forPath(activePath);
                if (active != null) {
                    lookAtHolder(tokenStat.getVersion());
                    synchronized (changed) {
                        changed.wait(poll);
                    }
                    continue;
                }
                long next = tokenStat.getVersion() + 1L;
                Optional<Long> taken = tryTake(tokenStat.getVersion(), next);
                if (taken.isPresent()) {
                    return Optional.of(becomeActive(taken.get()));
                }
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                if (holding) {
                    throw new IOException("supervisor " + id + " took token " + token + " but could not hand the"
                            + " journal over: " + e, e);
                }
                zooKeeper.retryingEvery("standby " + id + ": " + e, ++failures, Duration.ofMillis(poll));
                stopping.await(poll, TimeUnit.MILLISECONDS);
            }
        }
        return Optional.empty();
    }

    private void ensureTokenNode() throws Exception {
        if (client.checkExists().forPath(tokenPath) == null) {
            try {
                client.create().creatingParentsIfNeeded().forPath(tokenPath, new byte[0]);
            } catch (KeeperException.NodeExistsException e) {
                // the other supervisor made it first
            }
        }
    }

    private void lookAtHolder(int currentToken) {
        if (currentToken != token) {
            token = currentToken;
            try {
                holder = field(new String(client.getData().forPath(activePath), StandardCharsets.UTF_8), "holder");
            } catch (Exception e) {
                holder = "?";
            }
            LOG.info("standby {}: supervisor {} is active with token {}", id, holder, currentToken);
        }
        confirmedNanos = System.nanoTime();
    }

    /** One transaction: {@code active} created and {@code token} moved from {@code seen} to {@code seen + 1}. */
    private Optional<Long> tryTake(int seen, long next) throws Exception {
        byte[] lease = ("holder=" + id + "\ntoken=" + next + "\nat=" + Instant.now() + "\n")
                .getBytes(StandardCharsets.UTF_8);
        try {
            List<CuratorTransactionResult> r = client.transaction().forOperations(
                    client.transactionOp().create().withMode(CreateMode.EPHEMERAL).forPath(activePath, lease),
                    client.transactionOp().setData().withVersion(seen).forPath(tokenPath,
                            ("holder=" + id + "\n").getBytes(StandardCharsets.UTF_8)));
            long taken = r.get(1).getResultStat().getVersion();
            sessionId = client.getZookeeperClient().getZooKeeper().getSessionId();
            int negotiated = client.getZookeeperClient().getZooKeeper().getSessionTimeout();
            if (negotiated > 0) {
                validityNanos = Math.min(validityNanos, Duration.ofMillis(negotiated).toNanos() * 2 / 3);
            }
            return Optional.of(taken);
        } catch (KeeperException.NodeExistsException | KeeperException.BadVersionException e) {
            return Optional.empty(); // the other standby was first, or a holder came meanwhile: watch it
        }
    }

    private JournalFiles becomeActive(long taken) throws Exception {
        long t0 = System.nanoTime();
        tookTokenNanos = t0;
        confirmedNanos = t0;
        String previous = holder;
        token = taken;
        holder = id;
        holding = true;
        watchToken();
        startRenewing(this::confirm, this::fenceIfLapsed);
        LOG.warn("supervisor {} took token {}{}; fencing the previous writer on HDFS", id, taken,
                previous.isEmpty() ? "" : " (after " + previous + ")");
        HdfsGenerations.HandedOver h = null;
        handOverWait = "handing the journal " + generations.location() + " over";
        while (h == null) {
            check();
            try {
                h = generations.takeOver(taken, id);
            } catch (IOException e) {
                handOverWait = "waiting for HDFS to hand the journal " + generations.location() + " over ("
                        + e.getMessage() + "); retrying every " + RETRY_HAND_OVER.toSeconds() + " s";
                LOG.warn("supervisor {}: the journal of {} could not be handed over to token {} ({}); trying again in"
                        + " {}", id, generations.location(), taken, e.toString(), RETRY_HAND_OVER);
                stopping.await(RETRY_HAND_OVER.toMillis(), TimeUnit.MILLISECONDS);
                if (stopping.getCount() == 0) {
                    throw e;
                }
            }
        }
        handOverWait = null;
        check();
        if (taken > 1) {
            takeovers.inc();
        }
        takeover = new Takeover(taken, previous, Duration.ZERO, Duration.ofNanos(System.nanoTime() - t0),
                h.copied());
        LOG.info("supervisor {} holds token {}: journal {} handed over at byte {} ({} torn bytes left behind,"
                + " checkpoint {} bytes; lease recovery {} ms)", id, taken, h.source().isEmpty() ? "(none)"
                : h.source(), h.copied().journalBytes(), h.copied().tornBytes(), h.copied().checkpointBytes(),
                h.recovery().toMillis());
        return h.files();
    }

    /** A watch on the token: a change means another supervisor took it. */
    private void watchToken() throws Exception {
        Stat s = client.checkExists().usingWatcher((Watcher) e -> {
            if (holding && role != Role.FENCED) {
                confirmQuietly();
            }
        }).forPath(tokenPath);
        if (s == null || s.getVersion() != token) {
            fenced("the token in " + tokenPath + " is " + (s == null ? "gone" : s.getVersion()) + ", not " + token);
        }
    }

    /**
     * The holder's watchdog: a lease not confirmed for two thirds of the session timeout fences this supervisor out
     * now, even when it is idle (no message, tick or signal calls {@link #check}), so that {@code /ready} and the
     * exit tell the truth and the standby is not kept waiting by a holder that can no longer act. The confirmation
     * itself may be blocked meanwhile in the ZooKeeper client (a server that stopped answering), hence its own thread.
     */
    private void fenceIfLapsed() {
        if (holding && role != Role.FENCED && role != Role.RELEASED) {
            long age = System.nanoTime() - confirmedNanos;
            if (age > validityNanos) {
                fenced("its lease of token " + token + " was last confirmed by ZooKeeper " + age / 1_000_000
                        + " ms ago (more than two thirds of the session timeout)");
            }
        }
    }

    /** The holder's periodic confirmation that {@code active} is still its own, with its token. */
    private void confirm() {
        confirmQuietly();
    }

    private void confirmQuietly() {
        if (role == Role.FENCED || role == Role.RELEASED) {
            return;
        }
        long asked = System.nanoTime();
        try {
            Stat s = new Stat();
            byte[] data = client.getData().storingStatIn(s).forPath(activePath);
            String t = field(new String(data, StandardCharsets.UTF_8), "token");
            if (s.getEphemeralOwner() != sessionId || !Long.toString(token).equals(t)) {
                fenced("the active node " + activePath + " belongs to another session now (token " + t + ")");
                return;
            }
            Stat tk = client.checkExists().forPath(tokenPath);
            if (tk == null || tk.getVersion() != token) {
                fenced("token " + (tk == null ? "gone" : tk.getVersion()) + " in " + tokenPath);
                return;
            }
            confirmedNanos = asked;
        } catch (KeeperException.NoNodeException e) {
            fenced("the active node " + activePath + " is gone (session expired or deleted)");
        } catch (Exception e) {
            LOG.warn("supervisor {}: lease of token {} not confirmed ({}); fenced out after {} ms without one", id,
                    token, e.toString(), validityNanos / 1_000_000);
        }
    }

    /**
     * A suspended connection (the server it talked to went away) is not yet a lost lease: the client moves to another
     * server of the quorum within the session, and {@link #check} refuses meanwhile only once the last confirmation is
     * too old. A lost session is: another supervisor may hold the lease already.
     */
    private void connectionChanged(ConnectionState state) {
        LOG.info("supervisor {}: ZooKeeper connection {}", id, state);
        if (holding && state == ConnectionState.LOST) {
            fenced("its ZooKeeper session is lost (expired: another supervisor may hold the lease)");
        } else if (holding && state == ConnectionState.RECONNECTED) {
            confirmQuietly();
        }
        wake(null);
    }

    private void wake(WatchedEvent e) {
        synchronized (changed) {
            changed.notifyAll();
        }
    }

    @Override
    public void check() throws FencedException {
        Role r = role;
        if (r == Role.FENCED) {
            throw new FencedException("supervisor " + id + " was fenced out of token " + token);
        }
        if (!holding) {
            throw new FencedException("supervisor " + id + " does not hold the lease (" + r + ")");
        }
        long age = System.nanoTime() - confirmedNanos;
        if (age > validityNanos) {
            fenced("its lease of token " + token + " was last confirmed by ZooKeeper " + age / 1_000_000
                    + " ms ago (more than two thirds of the session timeout)");
            throw new FencedException("supervisor " + id + " was fenced out of token " + token);
        }
    }

    @Override
    public void release() {
        stopRenewing();
        if (holding && role != Role.FENCED) {
            try {
                Stat s = client.checkExists().forPath(activePath);
                if (s != null && s.getEphemeralOwner() == sessionId) {
                    client.delete().withVersion(s.getVersion()).forPath(activePath);
                }
                role = Role.RELEASED;
                LOG.info("supervisor {} released token {}: the standby takes over at once", id, token);
            } catch (Exception e) {
                LOG.warn("supervisor {}: the lease of token {} could not be released ({}); the standby takes over"
                        + " when the session expires", id, token, e.toString());
            }
        }
    }

    @Override
    public void stopWaiting() {
        super.stopWaiting();
        wake(null);
    }

    @Override
    public void close() {
        super.close();
        client.close();
    }

    @Override
    boolean tookToken() {
        return holding;
    }

    @Override
    String journalLocation() {
        return generations.location();
    }

    @Override
    void addInfo(Map<String, Object> m) {
        m.put("store", "zookeeper");
        m.put("zookeeper", store.connect() + store.root());
    }

    @Override
    public String standbyReason() {
        String wait = handOverWait;
        if (holding && wait != null) {
            return "supervisor " + id + " took token " + token + ", " + wait;
        }
        if (!client.getZookeeperClient().isConnected()) {
            return "standby " + id + ": waiting for ZooKeeper " + store.connect();
        }
        return "standby " + id + ": " + (token == 0 ? "no supervisor holds the lease yet" : "supervisor "
                + (holder.isEmpty() ? "?" : holder) + " is active with token " + token);
    }

    /** The ZooKeeper client (tests expire its session as a crash or a partition would). */
    CuratorFramework client() {
        return client;
    }

    @Override
    double leaseAgeSeconds() {
        return (System.nanoTime() - confirmedNanos) / 1e9;
    }
}
