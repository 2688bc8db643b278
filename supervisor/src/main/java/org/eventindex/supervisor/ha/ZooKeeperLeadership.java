package org.eventindex.supervisor.ha;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.utils.ZookeeperFactory;
import org.apache.hadoop.fs.FileSystem;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Testable;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
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
 * token. {@link #check} fences this supervisor for good once the session is lost (expired), or the node or the token
 * changed. When no confirmation came for two thirds of the session timeout on this process's own monotonic clock the
 * holder is <em>suspended</em> (decision 0048): every check refuses ({@link LeaseSuspendedException}), so that it
 * journals, acknowledges and signals nothing, since ZooKeeper may expire the session a full timeout after it last
 * heard of it; a holder woken from a pause stops before it acts on a stale belief. A confirmation that the node is
 * still its session's with its token (the client reconnected with the same session: a ZooKeeper leader election, a
 * server lost) resumes it with the same token; a suspension longer than the session timeout fences it. What slips
 * through anyway (a thread past its check when the pause began) is stopped by HDFS: its {@code hsync} fails on the
 * recovered file.
 */
public final class ZooKeeperLeadership extends LeaseHolder {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperLeadership.class);
    private static final Duration RETRY_HAND_OVER = Duration.ofSeconds(2);

    /**
     * A ZooKeeper client whose session only the servers expire. Curator otherwise declares a session lost a session
     * timeout after its client disconnected (it injects an expiration, and the next connection is a new session; its
     * builder allows no less than 1% of the timeout), although a new ZooKeeper leader gives every session a full
     * timeout again from its election: a holder whose client reconnects after a long election would lose a session
     * the servers kept. The holder's own bound on a suspension (a session timeout, then fenced) ends one that never
     * reconnects; a reconnection the servers refuse (expired) is LOST as always.
     */
    private static final ZookeeperFactory SERVER_JUDGED_SESSIONS = new ZookeeperFactory() {
        @Override
        public ZooKeeper newZooKeeper(String connect, int sessionMillis, Watcher watcher, boolean readOnly)
                throws IOException {
            return serverJudgedSession(connect, sessionMillis, watcher, readOnly, new ZKClientConfig());
        }

        @Override
        public ZooKeeper newZooKeeper(String connect, int sessionMillis, Watcher watcher, boolean readOnly,
                                      ZKClientConfig config) throws IOException {
            return serverJudgedSession(connect, sessionMillis, watcher, readOnly, config);
        }
    };

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
    /** The longest a suspension may last before the holder fences itself: the session timeout. */
    private volatile long suspensionBoundNanos;
    /** While the lease is suspended: when the suspension began (System.nanoTime()); 0 otherwise. */
    private volatile long suspendedSinceNanos;
    private final Object leaseChanged = new Object();
    private final Counter suspensions;
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
        this.suspensionBoundNanos = settings.lease().toNanos();
        this.suspensions = Counter.builder()
                .name("eventindex_supervisor_lease_suspensions_total").help("Times the active's lease went unconfirmed"
                        + " for two thirds of the session timeout and it suspended itself (decision 0048); each ends"
                        + " resumed (the same session and token) or fenced out.").register(registry);
        this.client = CuratorFrameworkFactory.builder().connectString(store.connect())
                .sessionTimeoutMs(sessionMillis).connectionTimeoutMs(Math.max(1000, sessionMillis / 2))
                .zookeeperFactory(SERVER_JUDGED_SESSIONS)
                // the connect string is the configuration's: following the ensemble's own view of its members
                // reconnects the client whenever their order differs, a needless disconnection (a suspension)
                .ensembleTracker(false)
                .retryPolicy(new ExponentialBackoffRetry(100, 29, 2000)).build();
        client.getConnectionStateListenable().addListener((c, state) -> connectionChanged(state));
        client.start();
    }

    private static ZooKeeper serverJudgedSession(String connect, int sessionMillis, Watcher watcher,
                                                 boolean readOnly, ZKClientConfig config) throws IOException {
        return new ZooKeeper(connect, sessionMillis, watcher, readOnly, config) {
            @Override
            public Testable getTestable() {
                Testable real = super.getTestable();
                return new Testable() {
                    @Override
                    public void injectSessionExpiration() {
                        LOG.info("ZooKeeper session 0x{} kept for the servers to judge (no simulated expiration)",
                                Long.toHexString(getSessionId()));
                    }

                    @Override
                    public void queueEvent(WatchedEvent event) {
                        real.queueEvent(event);
                    }

                    @Override
                    public void closeSocket() throws IOException {
                        real.closeSocket();
                    }
                };
            }
        };
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
                suspensionBoundNanos = Math.min(suspensionBoundNanos, Duration.ofMillis(negotiated).toNanos());
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
        startRenewing(this::confirm, this::suspendIfLapsed);
        LOG.warn("supervisor {} took token {}{}; fencing the previous writer on HDFS", id, taken,
                previous.isEmpty() ? "" : " (after " + previous + ")");
        HdfsGenerations.HandedOver h = null;
        handOverWait = "handing the journal " + generations.location() + " over";
        while (h == null) {
            awaitLease();
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
        awaitLease();
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
        // a watcher runs on the ZooKeeper client's event thread, which also delivers every connection state change
        // (a disconnection reaches every watcher): the confirmation, which may wait for a reconnection, goes elsewhere
        Stat s = client.checkExists().usingWatcher((Watcher) e -> {
            if (e.getType() != Watcher.Event.EventType.None && holding && role != Role.FENCED) {
                onLeaseThread(this::confirmQuietly);
            }
        }).forPath(tokenPath);
        if (s == null || s.getVersion() != token) {
            fenced("the token in " + tokenPath + " is " + (s == null ? "gone" : s.getVersion()) + ", not " + token);
        }
    }

    /**
     * The holder's watchdog: a lease not confirmed for two thirds of the session timeout suspends this supervisor
     * now, even when it is idle (no message, tick or signal calls {@link #check}), so that {@code /ready} tells the
     * truth; a suspension that lasted the session timeout fences it out (exit 75), so that a holder cut from every
     * ZooKeeper server ends as a standby. The confirmation itself may be blocked meanwhile in the ZooKeeper client (a
     * server that stopped answering), hence its own thread.
     */
    private void suspendIfLapsed() {
        if (holding && role != Role.FENCED && role != Role.RELEASED) {
            lapsed(System.nanoTime());
        }
    }

    /**
     * Whether the lease is unconfirmed for too long at {@code now}: suspends the holder (once), and fences it when the
     * suspension outlasted its bound. Returns true when the holder may not act.
     */
    private boolean lapsed(long now) {
        if (now - confirmedNanos <= validityNanos) {
            return false;
        }
        long since;
        long age;
        synchronized (leaseChanged) {
            age = now - confirmedNanos;
            if (age <= validityNanos) {
                return false; // confirmed meanwhile
            }
            since = suspendedSinceNanos;
            if (since == 0) {
                since = now;
                suspendedSinceNanos = now;
                suspensions.inc();
                LOG.warn("supervisor {} suspended: its lease of token {} was last confirmed by ZooKeeper {} ms ago (more"
                        + " than two thirds of the session timeout); it journals, acknowledges and signals nothing"
                        + " until ZooKeeper confirms the lease again with the same session, fenced out if that takes"
                        + " more than {} ms", id, token, age / 1_000_000, suspensionBoundNanos / 1_000_000);
            }
        }
        if (now - since > suspensionBoundNanos) {
            fenced("its lease of token " + token + " stayed suspended for " + (now - since) / 1_000_000 + " ms (last"
                    + " confirmed by ZooKeeper " + age / 1_000_000 + " ms ago), longer than the session timeout");
        }
        return true;
    }

    /** A confirmation came: a suspended holder resumes, with the same session and token. */
    private void resumeIfSuspended() {
        synchronized (leaseChanged) {
            long since = suspendedSinceNanos;
            if (since != 0 && System.nanoTime() - confirmedNanos <= validityNanos) {
                suspendedSinceNanos = 0;
                LOG.warn("supervisor {} resumed: ZooKeeper confirmed its lease of token {} with the same session after a"
                        + " suspension of {} ms", id, token, (System.nanoTime() - since) / 1_000_000);
            }
            leaseChanged.notifyAll();
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
            if (asked - confirmedNanos > 0) {
                confirmedNanos = asked;
            }
            resumeIfSuspended();
        } catch (KeeperException.NoNodeException e) {
            fenced("the active node " + activePath + " is gone (session expired or deleted)");
        } catch (KeeperException.SessionExpiredException e) {
            fenced("its ZooKeeper session expired (another supervisor may hold the lease)");
        } catch (Exception e) {
            LOG.warn("supervisor {}: lease of token {} not confirmed ({}); suspended after {} ms without one", id,
                    token, e.toString(), validityNanos / 1_000_000);
        }
    }

    /**
     * A suspended connection (the server it talked to went away, the quorum electing a leader) is not yet a lost
     * lease: the client moves to another server of the quorum within the session, and {@link #check} refuses meanwhile
     * only once the last confirmation is too old; reconnected, a confirmation resumes the holder. A lost session is:
     * another supervisor may hold the lease already.
     */
    private void connectionChanged(ConnectionState state) {
        LOG.info("supervisor {}: ZooKeeper connection {}", id, state);
        if (holding && state == ConnectionState.LOST) {
            fenced("its ZooKeeper session is lost (expired: another supervisor may hold the lease)");
        } else if (holding && state == ConnectionState.RECONNECTED) {
            onLeaseThread(this::confirmQuietly); // not on the listener's thread, which delivers LOST
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
        if (lapsed(System.nanoTime())) {
            if (role == Role.FENCED) {
                throw new FencedException("supervisor " + id + " was fenced out of token " + token);
            }
            throw new LeaseSuspendedException(suspension().orElse("supervisor " + id + ": lease suspended"));
        }
    }

    @Override
    public void awaitLease() throws FencedException, InterruptedException {
        while (true) {
            try {
                check();
                return;
            } catch (LeaseSuspendedException e) {
                if (stopping.getCount() == 0) {
                    throw new FencedException("supervisor " + id + " stops: " + e.getMessage());
                }
                synchronized (leaseChanged) {
                    if (suspendedSinceNanos != 0) {
                        leaseChanged.wait(Math.max(10, settings.renew().toMillis()));
                    }
                }
            }
        }
    }

    @Override
    public Optional<String> suspension() {
        long since = suspendedSinceNanos;
        if (since == 0 || role != Role.ACTIVE) {
            return Optional.empty();
        }
        long now = System.nanoTime();
        return Optional.of("ZooKeeper connection suspended: supervisor " + id + "'s lease of token " + token
                + " was last confirmed " + (now - confirmedNanos) / 1_000_000 + " ms ago; it journals, acknowledges"
                + " and signals nothing until ZooKeeper " + store.connect() + " confirms it again (suspended for "
                + (now - since) / 1_000_000 + " ms; fenced out after " + suspensionBoundNanos / 1_000_000 + ")");
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
        m.put("suspended", suspendedSinceNanos != 0 && role == Role.ACTIVE);
        m.put("suspensions", (long) suspensions.get());
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
